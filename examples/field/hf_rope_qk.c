/* CORRECT at the precision of the arithmetic it imitates: RoPE on bf16 query and key as Hugging
 * Face transformers applies it to a bf16 model (LlamaRotaryEmbedding + apply_rotary_pos_emb),
 * exported as pec_rope_qk_bf16 (ABI version 2):
 *   - inv_freq in float32: 1 / base^(2i/d) (powf with a float exponent), or the given table;
 *   - the angle in float32: (float)position * position_scale * inv_freq;
 *   - cos and sin in float32, multiplied by the attention factor (HF's attention_scaling,
 *     YaRN's mscale) in float32, then cast to the model dtype (`cos.to(x.dtype)`): bf16;
 *   - q_embed = q * cos + rotate_half(q) * sin on bf16 tensors: every tensor operation (each
 *     product, the sum) is computed in float and rounded to bf16, so one output carries up to
 *     four roundings to bf16 (cos/sin, two products, the sum); rotate_half is the NEOX pairing,
 *     GPT-J models pair adjacent lanes (rotate_every_two) with the same arithmetic;
 *   - partial rotary (GPT-NeoX, Phi): lanes rotary_dim .. head_dim-1 are passed through;
 *   - query and key are HF's [batch, heads, seq, dim] tensors, i.e. head-major views (head
 *     stride >= n_tokens * token stride), with fewer key heads (GQA); the kernel addresses every
 *     element through the strides, so token-major views work as well.
 *
 * Accuracy: the cos/sin rounding and the per-operation rounding put its error at up to a few
 * bf16 units of the pair's magnitude: 2.33 times the `reference` bf16 class (float32 arithmetic,
 * one rounding; `--accuracy rope_qk=reference`, seed 1). It is correct HF arithmetic, so the
 * default bf16 `field` class of spec/budgets.tsv has to admit per-operation bf16 rounding for it
 * to pass by default, as the float32 `field` class admits every standard float32 formula.
 *
 * Argument checks: the whole domain (ABI-QK-1 with ABI-VIEW-1). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pecheck_kernel.h"

int pec_abi_version(void) { return PEC_ABI_VERSION; }

static float bf16_to_float(uint16_t h) {
  const uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
/* What PyTorch's float -> bfloat16 conversion does: nearest, ties to even; NaN stays NaN. */
static uint16_t float_to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}
/* One bf16 tensor operation's result: computed in float, rounded to bf16. */
static float bf(float v) { return bf16_to_float(float_to_bf16(v)); }

static int ge_product(int64_t a, int64_t n, int64_t b) {
  if (n == 0 || b == 0) return a >= 0;
  if (b > INT64_MAX / n) return 0;
  return a >= n * b;
}
static int view_ok(const struct pec_strides* s, int64_t n_tokens, int64_t n_heads, int64_t head_dim) {
  const int need_token = n_tokens > 1, need_head = n_heads > 1;
  if (s->token < 0 || s->head < 0) return 0;
  if (n_tokens == 0) return 1; /* no element: no stride is needed */
  if (need_token && need_head) {
    return (s->head >= head_dim && ge_product(s->token, n_heads, s->head)) ||
           (s->token >= head_dim && ge_product(s->head, n_tokens, s->token));
  }
  if (need_head) return s->head >= head_dim;
  if (need_token) return s->token >= head_dim;
  return 1;
}
static int finite_positive(double v) { return isfinite(v) && v > 0.0; }

/* ABI-QK-1. */
static int qk_args_ok(const struct pec_rope_qk_args* a, const void* q, const void* k, const void* q_out, const void* k_out) {
  int64_t t;
  if (a == NULL) return 0;
  if (a->n_tokens < 0 || a->n_q_heads < 1 || a->n_kv_heads < 1 || a->n_q_heads % a->n_kv_heads != 0) return 0;
  if (a->head_dim < 2 || a->rotary_dim < 2 || a->rotary_dim > a->head_dim || a->rotary_dim % 2 != 0) return 0;
  if (a->layout != PEC_ROPE_NEOX && a->layout != PEC_ROPE_GPTJ) return 0;
  if (!isfinite(a->theta_base) || !(a->theta_base > 1.0)) return 0;
  if (!finite_positive(a->position_scale) || !finite_positive(a->attn_factor)) return 0;
  if (!view_ok(&a->q, a->n_tokens, a->n_q_heads, a->head_dim) || !view_ok(&a->q_out, a->n_tokens, a->n_q_heads, a->head_dim) ||
      !view_ok(&a->k, a->n_tokens, a->n_kv_heads, a->head_dim) || !view_ok(&a->k_out, a->n_tokens, a->n_kv_heads, a->head_dim)) {
    return 0;
  }
  if (a->n_tokens == 0) return 1;
  if (q == NULL || k == NULL || q_out == NULL || k_out == NULL || a->positions == NULL) return 0;
  if (q_out == q && (a->q.token != a->q_out.token || a->q.head != a->q_out.head)) return 0;
  if (k_out == k && (a->k.token != a->k_out.token || a->k.head != a->k_out.head)) return 0;
  for (t = 0; t < a->n_tokens; ++t) {
    if (a->positions[t] < 0 || a->positions[t] >= ((int64_t)1 << 31)) return 0;
  }
  return 1;
}

/* q * cos + rotate_half(q) * sin for one head, with bf16 cos/sin c16[i], s16[i]. */
static void rotate_head(const struct pec_rope_qk_args* a, const uint16_t* x, uint16_t* y, const float* c16, const float* s16) {
  const int64_t half = a->rotary_dim / 2;
  int64_t i, l;
  for (i = 0; i < half; ++i) {
    const int64_t la = a->layout == PEC_ROPE_NEOX ? i : 2 * i;
    const int64_t lb = a->layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
    const float xa = bf16_to_float(x[la]), xb = bf16_to_float(x[lb]);
    const float ya = bf(bf(xa * c16[i]) + bf(-xb * s16[i]));  /* x1*cos + (-x2)*sin */
    const float yb = bf(bf(xb * c16[i]) + bf(xa * s16[i]));   /* x2*cos + x1*sin */
    y[la] = float_to_bf16(ya);
    y[lb] = float_to_bf16(yb);
  }
  for (l = a->rotary_dim; l < a->head_dim; ++l) y[l] = x[l];
}

int pec_rope_qk_bf16(const struct pec_rope_qk_args* a, const uint16_t* q, const uint16_t* k, uint16_t* q_out,
                     uint16_t* k_out) {
  int64_t t, h, i;
  float* c16;
  float* s16;
  if (!qk_args_ok(a, q, k, q_out, k_out)) return 1;
  if (a->n_tokens == 0) return 0;
  {
    const int64_t d = a->rotary_dim, half = d / 2;
    const float base = (float)a->theta_base, scale = (float)a->position_scale, mscale = (float)a->attn_factor;
    c16 = (float*)malloc(2 * (size_t)half * sizeof(float)); /* one token's cos and sin rows */
    if (c16 == NULL) return 3;
    s16 = c16 + half;
    for (t = 0; t < a->n_tokens; ++t) {
      const float pos = (float)a->positions[t] * scale; /* position_ids.float() */
      for (i = 0; i < half; ++i) {
        const float inv = a->inv_freq ? a->inv_freq[i] : 1.0f / powf(base, (float)(2 * i) / (float)d);
        const float ang = pos * inv;
        c16[i] = bf(cosf(ang) * mscale); /* (cos * attention_scaling).to(x.dtype) */
        s16[i] = bf(sinf(ang) * mscale);
      }
      for (h = 0; h < a->n_q_heads; ++h) {
        rotate_head(a, q + t * a->q.token + h * a->q.head, q_out + t * a->q_out.token + h * a->q_out.head, c16, s16);
      }
      for (h = 0; h < a->n_kv_heads; ++h) {
        rotate_head(a, k + t * a->k.token + h * a->k.head, k_out + t * a->k_out.token + h * a->k_out.head, c16, s16);
      }
    }
    free(c16);
  }
  return 0;
}
