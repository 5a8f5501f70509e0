// BUGGY (on purpose): M-RoPE (pec_mrope_f32) as examples/field/vllm_mrope.c computes it, except
// that the sectioned layout's chunk boundaries are the mrope_section entries themselves instead
// of their running sums: pair i goes to t when i < s_t, to h when i < s_h, else to w — the second
// boundary should be s_t + s_h. With Qwen2-VL's [16, 24, 24] pairs 16..23 are right and the h
// pairs 24..39 are rotated by the w row (with s_t >= s_h every h pair is). A text token
// (t = h = w) and a square image's diagonal hide it; an image patch off the diagonal does not.
// The interleaved layout (Qwen3-VL) is right.
// Violates ABI-MROPE-2 (a pair rotated by the wrong axis's position). Not ABI-MROPE-3: every pair
// is still rotated by one axis's position, so scores depend only on the offsets.
#include "../common_v2.hpp"

using namespace example::v2;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

namespace {
int axis(const pec_mrope_args* a, std::int64_t i) {
  const std::int64_t st = a->mrope_section[0], sh = a->mrope_section[1], sw = a->mrope_section[2];
  if (a->mrope_layout == PEC_MROPE_INTERLEAVED) return i % 3 == 1 && i < 3 * sh ? 1 : i % 3 == 2 && i < 3 * sw ? 2 : 0;
  return i < st ? 0 : i < sh ? 1 : 2;  // the bug: i < st + sh
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
