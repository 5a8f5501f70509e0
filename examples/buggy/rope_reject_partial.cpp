// BUGGY (on purpose): returns an error for a valid call — this kernel only supports full
// rotary (rotary_dim == head_dim) and refuses partial rotary instead of implementing it.
// Violates ABI-GEN-2 (a valid call must be accepted).
#include "../common.hpp"

using namespace example;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_f32(const pec_rope_args* a, const float* x, float* y) {
  if (!rope_args_ok(a, x, y)) return 1;
  if (a->rotary_dim != a->head_dim) return 2;  // the bug: "unsupported", though valid
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    for (std::int64_t h = 0; h < a->n_heads; ++h) {
      const float* xr = x + (t * a->n_heads + h) * a->head_dim;
      float* yr = y + (t * a->n_heads + h) * a->head_dim;
      for (std::int64_t i = 0; i < a->rotary_dim / 2; ++i) {
        const double angle = double(a->positions[t]) * a->position_scale * rope_freq(a, i);
        rotate(xr, yr, rope_pair(a->layout, i, a->rotary_dim), angle);
      }
    }
  }
  return 0;
}
