/* pec_rope_qk_f32 with Llama 4's attention temperature tuning applied to the query: after the
 * rotation, q_out is scaled by log(floor((p + 1) / 8192) + 1) * 0.1 + 1 at its position p
 * (floor_scale 8192, attn_scale 0.1; Llama 4 does this on its NoPE layers, spec/rope.md). The
 * rotation alone is offset-only; the scale makes the score depend on the query's absolute
 * position: `pecheck classify --kernel` must say depends_on = positions with a witness whose
 * two query positions lie in different 8192-blocks (CLASSIFY-5). Angles in double. */
#include <math.h>
#include <stdint.h>

#include "pecheck_kernel.h"

static int view_ok(const struct pec_strides* s, int64_t n_tokens, int64_t n_heads, int64_t d) {
  return s->head >= d && s->token >= n_heads * s->head && n_tokens >= 0;
}

static void rotate(const struct pec_rope_qk_args* a, const float* x, float* y, int64_t pos, double scale) {
  const int64_t half = a->rotary_dim / 2;
  float out[1024];
  for (int64_t l = 0; l < a->head_dim; ++l) out[l] = x[l];
  for (int64_t i = 0; i < half; ++i) {
    const double f = a->inv_freq ? (double)a->inv_freq[i] : pow(a->theta_base, -2.0 * (double)i / (double)a->rotary_dim);
    const double th = (double)pos * a->position_scale * f;
    const int64_t ia = a->layout == PEC_ROPE_NEOX ? i : 2 * i, ib = a->layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
    const double c = cos(th) * a->attn_factor, s = sin(th) * a->attn_factor;
    out[ia] = (float)(((double)x[ia] * c - (double)x[ib] * s) * scale);
    out[ib] = (float)(((double)x[ib] * c + (double)x[ia] * s) * scale);
  }
  for (int64_t l = a->rotary_dim; l < a->head_dim; ++l) out[l] = (float)((double)x[l] * scale);
  for (int64_t l = 0; l < a->head_dim; ++l) y[l] = out[l];
}

int pec_rope_qk_f32(const struct pec_rope_qk_args* a, const float* q, const float* k, float* q_out, float* k_out) {
  if (!a || a->n_q_heads < 1 || a->n_kv_heads < 1 || a->n_q_heads % a->n_kv_heads || a->head_dim < 2 ||
      a->head_dim > 1024 || a->rotary_dim < 2 || a->rotary_dim % 2 || a->rotary_dim > a->head_dim ||
      (a->layout != PEC_ROPE_NEOX && a->layout != PEC_ROPE_GPTJ) || !(a->theta_base > 1) ||
      !(a->position_scale > 0) || !(a->attn_factor > 0) || !view_ok(&a->q, a->n_tokens, a->n_q_heads, a->head_dim) ||
      !view_ok(&a->k, a->n_tokens, a->n_kv_heads, a->head_dim) ||
      !view_ok(&a->q_out, a->n_tokens, a->n_q_heads, a->head_dim) ||
      !view_ok(&a->k_out, a->n_tokens, a->n_kv_heads, a->head_dim) ||
      (a->n_tokens > 0 && (!q || !k || !q_out || !k_out || !a->positions)))
    return 1;
  for (int64_t t = 0; t < a->n_tokens; ++t) {
    const int64_t p = a->positions[t];
    if (p < 0 || p >= ((int64_t)1 << 31)) return 1;
  }
  for (int64_t t = 0; t < a->n_tokens; ++t) {
    const int64_t p = a->positions[t];
    const double tau = log(floor((double)(p + 1) / 8192.0) + 1.0) * 0.1 + 1.0;
    for (int64_t h = 0; h < a->n_q_heads; ++h)
      rotate(a, q + t * a->q.token + h * a->q.head, q_out + t * a->q_out.token + h * a->q_out.head, p, tau);
    for (int64_t h = 0; h < a->n_kv_heads; ++h)
      rotate(a, k + t * a->k.token + h * a->k.head, k_out + t * a->k_out.token + h * a->k_out.head, p, 1.0);
  }
  return 0;
}
