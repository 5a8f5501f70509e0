// Test plug-in for issue 20, finding 2: pec_rope_qk_bf16 defined in C++ without extern "C" (the
// ABI header is not included, as in a build that forgot it), so it is exported under a mangled
// name (_Z16pec_rope_qk_bf16...). pecheck must say that extern "C" is missing.
#include <cstdint>

struct pec_rope_qk_args;
int pec_rope_qk_bf16(const pec_rope_qk_args* args, const std::uint16_t* q, const std::uint16_t* k, std::uint16_t* q_out,
                     std::uint16_t* k_out);
int pec_rope_qk_bf16(const pec_rope_qk_args* args, const std::uint16_t* q, const std::uint16_t* k, std::uint16_t* q_out,
                     std::uint16_t* k_out) {
  (void)args, (void)q, (void)k, (void)q_out, (void)k_out;
  return 0;
}
