// BUGGY (on purpose): partial rotary (rotary_dim < head_dim) rotates the first rotary_dim
// lanes and zeroes the rest instead of copying them through — as a kernel written for full
// rotary and dropped into a model such as GPT-NeoX (rotary_pct 0.25) or Phi does.
// Violates ABI-ROPE-3 (pass-through lanes are copied bit-exactly).
#include "../common.hpp"

using namespace example;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_f32(const pec_rope_args* a, const float* x, float* y) {
  if (!rope_args_ok(a, x, y)) return 1;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    for (std::int64_t h = 0; h < a->n_heads; ++h) {
      const float* xr = x + (t * a->n_heads + h) * a->head_dim;
      float* yr = y + (t * a->n_heads + h) * a->head_dim;
      for (std::int64_t i = 0; i < a->rotary_dim / 2; ++i) {
        const double angle = double(a->positions[t]) * a->position_scale * rope_freq(a, i);
        rotate(xr, yr, rope_pair(a->layout, i, a->rotary_dim), angle);
      }
      for (std::int64_t c = a->rotary_dim; c < a->head_dim; ++c) yr[c] = 0.0f;  // the bug
    }
  }
  return 0;
}
