// BUGGY (on purpose): a kernel with two code paths chosen by where its buffers lie, as one that
// special-cases overlapping or in-place buffers by comparing pointers: when the output sits
// below its input in memory, the lanes past rotary_dim are never written. Only cases that
// place y below x show it (pecheck varies the placement per case). Violates ABI-ROPE-3.
#include "../common.hpp"

using namespace example;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_f32(const pec_rope_args* a, const float* x, float* y) {
  if (!rope_args_ok(a, x, y)) return 1;
  const bool below = y < x;  // the "fast path" that forgets the pass-through lanes
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    for (std::int64_t h = 0; h < a->n_heads; ++h) {
      const float* xr = x + (t * a->n_heads + h) * a->head_dim;
      float* yr = y + (t * a->n_heads + h) * a->head_dim;
      for (std::int64_t i = 0; i < a->rotary_dim / 2; ++i) {
        const double angle = double(a->positions[t]) * a->position_scale * rope_freq(a, i);
        rotate(xr, yr, rope_pair(a->layout, i, a->rotary_dim), angle);
      }
      if (!below) {
        for (std::int64_t c = a->rotary_dim; c < a->head_dim; ++c) yr[c] = xr[c];
      }
    }
  }
  return 0;
}
