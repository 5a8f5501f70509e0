/* CORRECT, written the way YaRN-scaled RoPE is applied in the field (vLLM's YaRN and DeepSeek
 * rotary embeddings, ggml's rope_yarn), exported as pec_rope_qk_f32 (ABI version 2):
 *   - the YaRN frequencies (each a blend of the interpolated and the extrapolated frequency
 *     along YaRN's ramp) arrive as the inv_freq table, the way a model's scaled inv_freq is
 *     handed to the kernel; without a table the plain powf frequencies 1 / base^(2i/d) in float;
 *   - the angle in float: (float)position * position_scale * inv_freq;
 *   - the attention factor (YaRN's mscale, 0.1 ln(s) + 1, or DeepSeek's ratio of two of them)
 *     multiplies cos and sin once each, in float: cos = cosf(angle) * mscale,
 *     sin = sinf(angle) * mscale, as ggml writes its cos/sin and vLLM its cache rows;
 *   - query and key in one call (GQA), strided views, NEOX or GPT-J, partial rotary;
 *   - float32 storage, the rotation in float: x_a * cos - x_b * sin, x_b * cos + x_a * sin.
 * Its error is that of the `powf` class (PREC-ROPE-2) for a pair of magnitude
 * attn_factor * (|x_a| + |x_b|), inside the default `field` class.
 *
 * Argument checks: the whole domain (ABI-QK-1 with ABI-VIEW-1). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "pecheck_plugin.h" /* the ABI's rules as code: the domain check */

int pec_abi_version(void) { return PEC_ABI_VERSION; }

/* ABI-QK-1 with ABI-VIEW-1: pec_rope_qk_args_ok of the helper header spec/pecheck_plugin.h. */
#define qk_args_ok pec_rope_qk_args_ok

/* Rotates `n` heads of token t of one tensor with the pair's scaled cos c and sin s. */
static void rotate_pair(const struct pec_rope_qk_args* a, const float* x, const struct pec_strides* xs, float* y,
                        const struct pec_strides* ys, int64_t n, int64_t t, int64_t i, float c, float s) {
  const int64_t half = a->rotary_dim / 2;
  const int64_t la = a->layout == PEC_ROPE_NEOX ? i : 2 * i;
  const int64_t lb = a->layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
  int64_t h;
  for (h = 0; h < n; ++h) {
    const float* xr = x + t * xs->token + h * xs->head;
    float* yr = y + t * ys->token + h * ys->head;
    const float xa = xr[la], xb = xr[lb];
    yr[la] = xa * c - xb * s;
    yr[lb] = xb * c + xa * s;
  }
}
static void pass_through(const struct pec_rope_qk_args* a, const float* x, const struct pec_strides* xs, float* y,
                         const struct pec_strides* ys, int64_t n, int64_t t) {
  int64_t h, l;
  for (h = 0; h < n; ++h) {
    for (l = a->rotary_dim; l < a->head_dim; ++l) y[t * ys->token + h * ys->head + l] = x[t * xs->token + h * xs->head + l];
  }
}

int pec_rope_qk_f32(const struct pec_rope_qk_args* a, const float* q, const float* k, float* q_out, float* k_out) {
  int64_t t, i;
  if (!qk_args_ok(a, q, k, q_out, k_out)) return 1;
  {
    const int64_t d = a->rotary_dim, half = d / 2;
    const float base = (float)a->theta_base, scale = (float)a->position_scale, mscale = (float)a->attn_factor;
    for (t = 0; t < a->n_tokens; ++t) {
      const float pos = (float)a->positions[t] * scale;
      for (i = 0; i < half; ++i) {
        const float inv = a->inv_freq ? a->inv_freq[i] : 1.0f / powf(base, (float)(2 * i) / (float)d);
        const float ang = pos * inv;
        const float c = cosf(ang) * mscale, s = sinf(ang) * mscale; /* mscale once, on both */
        rotate_pair(a, q, &a->q, q_out, &a->q_out, a->n_q_heads, t, i, c, s);
        rotate_pair(a, k, &a->k, k_out, &a->k_out, a->n_kv_heads, t, i, c, s);
      }
      pass_through(a, q, &a->q, q_out, &a->q_out, a->n_q_heads, t);
      pass_through(a, k, &a->k, k_out, &a->k_out, a->n_kv_heads, t);
    }
  }
  return 0;
}
