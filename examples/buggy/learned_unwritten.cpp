// BUGGY (on purpose): leaves output unwritten. The loop copies two tokens per iteration and
// has no tail, so with an odd n_tokens the last token's row keeps whatever the buffer held.
// Tests that always use even (or power-of-two) token counts pass. pecheck fills outputs with
// a poison pattern first and reports the element that kept it. Violates ABI-GEN-5.
#include <cstring>

#include "../common.hpp"

using namespace example;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_learned_f32(const pec_learned_args* a, float* out) {
  if (!learned_args_ok(a, out)) return 1;
  const std::size_t row = std::size_t(a->d_model) * sizeof(float);
  for (std::int64_t t = 0; t + 1 < a->n_tokens; t += 2) {  // the bug: no tail for odd n_tokens
    std::memcpy(out + t * a->d_model, a->table + a->positions[t] * a->d_model, row);
    std::memcpy(out + (t + 1) * a->d_model, a->table + a->positions[t + 1] * a->d_model, row);
  }
  return 0;
}
