// BUGGY (on purpose): NeoX and GPT-J pairings swapped — the kernel pairs lanes (2i, 2i+1)
// when asked for NEOX (i, i + rotary_dim/2) and the reverse, the mix-up that happens when
// weights converted from one family meet a kernel written for the other. With rotary_dim = 2
// both pairings coincide, so the smallest counterexample has rotary_dim = 4.
// Violates ABI-ROPE-2.
#include "../common.hpp"

using namespace example;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_f32(const pec_rope_args* a, const float* x, float* y) {
  if (!rope_args_ok(a, x, y)) return 1;
  const std::int32_t swapped = a->layout == PEC_ROPE_NEOX ? PEC_ROPE_GPTJ : PEC_ROPE_NEOX;  // the bug
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    for (std::int64_t h = 0; h < a->n_heads; ++h) {
      const float* xr = x + (t * a->n_heads + h) * a->head_dim;
      float* yr = y + (t * a->n_heads + h) * a->head_dim;
      for (std::int64_t i = 0; i < a->rotary_dim / 2; ++i) {
        const double angle = double(a->positions[t]) * a->position_scale * rope_freq(a, i);
        rotate(xr, yr, rope_pair(swapped, i, a->rotary_dim), angle);
      }
      for (std::int64_t c = a->rotary_dim; c < a->head_dim; ++c) yr[c] = xr[c];
    }
  }
  return 0;
}
