// BUGGY (on purpose): the YaRN-style query/key rotation (pec_rope_qk_f32 of
// examples/field/yarn_rope.c) that applies the attention factor twice: the caller passes the
// YaRN mscale as attn_factor, and the kernel multiplies cos and sin by it where it forms them
// and once more where it applies them (two code paths that each believed they owned the
// factor, as when a model's attention_scaling is folded into its cos/sin tables and the kernel
// also applies its own mscale). With attn_factor = 1 nothing changes; with mscale = 1.2 every
// rotated lane is 1.2 times too large.
// Violates ABI-QK-2.
#include "../common_v2.hpp"

using namespace example::v2;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_qk_f32(const pec_rope_qk_args* a, const float* q, const float* k, float* q_out, float* k_out) {
  if (!qk_args_ok(a, q, k, q_out, k_out)) return 1;
  const std::int64_t d = a->rotary_dim, half = d / 2;
  const float scale = float(a->position_scale), mscale = float(a->attn_factor);
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    const float pos = float(a->positions[t]) * scale;
    for (std::int64_t i = 0; i < half; ++i) {
      const float ang = pos * powf_inv_freq(a->inv_freq, a->theta_base, i, d);
      // The bug: mscale on cos/sin and once more on the result (mscale^2 in all).
      const float c = std::cos(ang) * mscale * mscale, s = std::sin(ang) * mscale * mscale;
      const Pair p = pair_of(a->layout, i, a->rotary_dim);
      for (std::int64_t h = 0; h < a->n_q_heads; ++h) rotate(PEC_DTYPE_F32, q, at(a->q, t, h, 0), q_out, at(a->q_out, t, h, 0), p, c, s);
      for (std::int64_t h = 0; h < a->n_kv_heads; ++h) rotate(PEC_DTYPE_F32, k, at(a->k, t, h, 0), k_out, at(a->k_out, t, h, 0), p, c, s);
    }
    for (std::int64_t l = a->rotary_dim; l < a->head_dim; ++l) {
      for (std::int64_t h = 0; h < a->n_q_heads; ++h) copy_bits(q_out, q, PEC_DTYPE_F32, at(a->q_out, t, h, l), at(a->q, t, h, l));
      for (std::int64_t h = 0; h < a->n_kv_heads; ++h) copy_bits(k_out, k, PEC_DTYPE_F32, at(a->k_out, t, h, l), at(a->k, t, h, l));
    }
  }
  return 0;
}
