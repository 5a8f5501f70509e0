// BUGGY (on purpose): M-RoPE (pec_mrope_f32) that rotates every frequency pair by the temporal
// row, positions[0][t], and never reads rows h and w: plain 1D RoPE with the text position, the
// path a kernel takes when it treats [3][n_tokens] positions as its first row (a text-only
// fast path, or a port from a 1D RoPE kernel). Right for text tokens (t = h = w,
// ROPE-MROPE-4); an image token loses its height and width.
// Violates ABI-MROPE-2 (the h and w sections rotated by row t). Not ABI-MROPE-3: a rotation by
// row t alone is still a function of the offsets, so the scores are invariant under a shift of
// the three rows; the oracle sees the bug, the shift property cannot.
#include "../common_v2.hpp"

using namespace example::v2;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_mrope_f32(const pec_mrope_args* a, const float* q, const float* k, float* q_out, float* k_out) {
  if (!mrope_args_ok(a, q, k, q_out, k_out)) return 1;
  const std::int64_t half = a->rotary_dim / 2, n = a->n_tokens;
  for (std::int64_t t = 0; t < n; ++t) {
    for (std::int64_t i = 0; i < half; ++i) {
      const float pos = float(a->positions[0 /* the bug: axis(i) */ * n + t]) * float(a->position_scale);
      const float ang = pos * powf_inv_freq(a->inv_freq, a->theta_base, i, a->rotary_dim);
      const float c = std::cos(ang) * float(a->attn_factor), s = std::sin(ang) * float(a->attn_factor);
      const Pair p = pair_of(a->layout, i, a->rotary_dim);
      for (std::int64_t h = 0; h < a->n_q_heads; ++h)
        rotate(PEC_DTYPE_F32, q, at(a->q, t, h, 0), q_out, at(a->q_out, t, h, 0), p, c, s);
      for (std::int64_t h = 0; h < a->n_kv_heads; ++h)
        rotate(PEC_DTYPE_F32, k, at(a->k, t, h, 0), k_out, at(a->k_out, t, h, 0), p, c, s);
    }
    for (std::int64_t l = a->rotary_dim; l < a->head_dim; ++l) {
      for (std::int64_t h = 0; h < a->n_q_heads; ++h) copy_bits(q_out, q, PEC_DTYPE_F32, at(a->q_out, t, h, l), at(a->q, t, h, l));
      for (std::int64_t h = 0; h < a->n_kv_heads; ++h) copy_bits(k_out, k, PEC_DTYPE_F32, at(a->k_out, t, h, l), at(a->k, t, h, l));
    }
  }
  return 0;
}
