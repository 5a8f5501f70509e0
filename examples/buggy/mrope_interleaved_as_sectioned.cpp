// BUGGY (on purpose): M-RoPE (pec_mrope_f32) written for Qwen2-VL's sectioned layout and reused
// for Qwen3-VL without reading mrope_layout: it accepts an interleaved call (its argument checks
// are right) and assigns the pairs by contiguous sections anyway (t for i < s_t, h for
// s_t <= i < s_t + s_h, w above), where Qwen3-VL's apply_interleaved_mrope gives h the pairs
// 1, 4, 7, ... and w the pairs 2, 5, 8, ... (ROPE-MROPE-3).
// Violates ABI-MROPE-2 on interleaved calls whose rows differ. Not ABI-MROPE-3 (each pair is
// still rotated by one axis's position).
#include "../common_v2.hpp"

using namespace example::v2;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

namespace {
int axis(const pec_mrope_args* a, std::int64_t i) {  // the bug: a->mrope_layout never read
  const std::int64_t st = a->mrope_section[0], sh = a->mrope_section[1];
  return i < st ? 0 : i < st + sh ? 1 : 2;
}
}  // namespace

int pec_mrope_f32(const pec_mrope_args* a, const float* q, const float* k, float* q_out, float* k_out) {
  if (!mrope_args_ok(a, q, k, q_out, k_out)) return 1;
  const std::int64_t half = a->rotary_dim / 2, n = a->n_tokens;
  for (std::int64_t t = 0; t < n; ++t) {
    for (std::int64_t i = 0; i < half; ++i) {
      const float pos = float(a->positions[axis(a, i) * n + t]) * float(a->position_scale);
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
