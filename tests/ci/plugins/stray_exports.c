/* Test plug-ins for issue 20, finding 2: exports that look like ABI functions but are not.
 *   STRAY_ONLY: exports only pec_rope_bf16_qk (the parts of pec_rope_qk_bf16, reordered), so the
 *               library has no ABI function, only a misspelt one.
 *   otherwise:  the correct pec_learned_f32 of examples/example_c_kernels.c plus a broken
 *               pec_rope_qk_fp32 (meant as pec_rope_qk_f32; it returns 0 and writes nothing). */
#include <stdint.h>

#ifdef STRAY_ONLY
int pec_rope_bf16_qk(const void* args, const uint16_t* q, const uint16_t* k, uint16_t* q_out, uint16_t* k_out);
int pec_rope_bf16_qk(const void* args, const uint16_t* q, const uint16_t* k, uint16_t* q_out, uint16_t* k_out) {
  (void)args, (void)q, (void)k, (void)q_out, (void)k_out;
  return 0;
}
#else
#define pec_rope_f32 stray_inner_rope_f32
#define pec_alibi_bias_f32 stray_inner_alibi_bias_f32
#define pec_t5_bias_f32 stray_inner_t5_bias_f32
#define pec_sinusoidal_f32 stray_inner_sinusoidal_f32
#include "example_c_kernels.c"

int pec_rope_qk_fp32(const void* args, const float* q, const float* k, float* q_out, float* k_out);
int pec_rope_qk_fp32(const void* args, const float* q, const float* k, float* q_out, float* k_out) {
  (void)args, (void)q, (void)k, (void)q_out, (void)k_out;
  return 0;
}
#endif
