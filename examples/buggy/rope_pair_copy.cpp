// BUGGY (on purpose): ggml's pass-through loop. The lanes past rotary_dim are copied in pairs,
//   for (i0 = n_dims; i0 < ne0; i0 += 2) { dst[i0] = src[i0]; dst[i0 + 1] = src[i0 + 1]; }
// which is right while head_dim - rotary_dim is even. With an odd head_dim (the ABI admits any
// head_dim >= rotary_dim) the last pair reads one float past the row of x and writes one float
// past the row of y: past the end of y for the last (token, head). Violates ABI-GEN-4.
#include "../common.hpp"

using namespace example;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_f32(const pec_rope_args* a, const float* x, float* y) {
  if (!rope_args_ok(a, x, y)) return 1;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    for (std::int64_t h = 0; h < a->n_heads; ++h) {
      const float* xr = x + (t * a->n_heads + h) * a->head_dim;
      float* yr = y + (t * a->n_heads + h) * a->head_dim;
      // Pass-through first (as ggml does for in-place safety it would not need here), then the
      // rotation, so that the stray write into the next row is overwritten for every row but
      // the last.
      for (std::int64_t c = a->rotary_dim; c < a->head_dim; c += 2) {  // the bug
        yr[c] = xr[c];
        yr[c + 1] = xr[c + 1];
      }
      for (std::int64_t i = 0; i < a->rotary_dim / 2; ++i) {
        const double angle = double(a->positions[t]) * a->position_scale * rope_freq(a, i);
        rotate(xr, yr, rope_pair(a->layout, i, a->rotary_dim), angle);
      }
    }
  }
  return 0;
}
