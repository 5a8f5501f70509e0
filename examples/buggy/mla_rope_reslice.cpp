// BUGGY (on purpose): the DeepSeek MLA rope kernel of examples/field/deepseek_mla_rope.c, written
// for whole 192-lane MLA heads [q_nope | q_pe]: it finds the rope slice as the last rotary_dim
// lanes of each head, taking the head's width from its stride (q[..., qk_nope_head_dim:] with
// qk_nope_head_dim = head stride - rotary_dim). The caller — vLLM's DeepSeek attention, and the
// ABI (spec/rope.md ROPE-MLA-2) — has already sliced: it passes the q_pe view itself (element
// (t, h, 0) is lane 128 of head h, head stride 192, head_dim 64). Slicing again moves the
// rotation 128 lanes on, onto the next head's q_nope: the non-rotary slice moves, and q_pe is
// left unrotated. On a dense view (head stride == head_dim) the two agree, so the bug hides in
// every test that makes its tensors contiguous first.
// Violates ABI-VIEW-2 (writes into the gaps between the heads of a view: someone else's q_nope),
// and with it ABI-GEN-4 past the last head and the values of ABI-QK-2.
#include "../common_v2.hpp"

using namespace example::v2;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

extern "C" const char* pec_domain(void) {
  return "pecheck-domain 1\nrope.layout gptj\nrope.head_dim 64\nrope.rotary_dim full\n";
}

namespace {
// The bug: the rope slice re-sliced from the end of the head's stride.
std::int64_t rope_slice(const pec_strides& s, std::int64_t head_dim, std::int64_t rotary_dim) {
  return s.head > head_dim ? s.head - rotary_dim : 0;
}
}  // namespace

int pec_rope_qk_f32(const pec_rope_qk_args* a, const float* q, const float* k, float* q_out, float* k_out) {
  if (!qk_args_ok(a, q, k, q_out, k_out)) return 1;
  if (a->layout != PEC_ROPE_GPTJ || a->head_dim != 64 || a->rotary_dim != 64) return 2;
  const std::int64_t half = a->rotary_dim / 2;
  const std::int64_t qs = rope_slice(a->q, a->head_dim, a->rotary_dim), qos = rope_slice(a->q_out, a->head_dim, a->rotary_dim);
  const std::int64_t ks = rope_slice(a->k, a->head_dim, a->rotary_dim), kos = rope_slice(a->k_out, a->head_dim, a->rotary_dim);
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    const float pos = float(a->positions[t]) * float(a->position_scale);
    for (std::int64_t i = 0; i < half; ++i) {
      const float ang = pos * powf_inv_freq(a->inv_freq, a->theta_base, i, a->rotary_dim);
      const float c = std::cos(ang) * float(a->attn_factor), s = std::sin(ang) * float(a->attn_factor);
      const Pair p = pair_of(PEC_ROPE_GPTJ, i, a->rotary_dim);
      for (std::int64_t h = 0; h < a->n_q_heads; ++h)
        rotate(PEC_DTYPE_F32, q, at(a->q, t, h, 0) + qs, q_out, at(a->q_out, t, h, 0) + qos, p, c, s);
      for (std::int64_t h = 0; h < a->n_kv_heads; ++h)
        rotate(PEC_DTYPE_F32, k, at(a->k, t, h, 0) + ks, k_out, at(a->k_out, t, h, 0) + kos, p, c, s);
    }
  }
  return 0;
}
