/* CORRECT inside its declared domain, written the way DeepSeek V2 / V3 apply the decoupled RoPE
 * of multi-head latent attention (MLA; spec/rope.md ROPE-MLA-1..2), exported as
 * pec_rope_qk_f32 and pec_rope_qk_bf16 (ABI version 2):
 *   - a query head is [q_nope (128 lanes) | q_pe (64 lanes)], 192 lanes; only q_pe is rotated.
 *     The caller hands the kernel the q_pe slice as a strided view, exactly as vLLM's DeepSeek
 *     attention calls its rotary embedding on q[..., qk_nope_head_dim:]: the view's element
 *     (t, h, 0) is lane 128 of head h, its head stride is 192 and its head_dim 64. q_nope lives
 *     in the gaps between the view's heads and is never read or written (ABI-VIEW-2): the
 *     non-rotary slice never moves;
 *   - the key's rope slice k_pe is one 64-lane vector per token, shared by every head: the call
 *     has n_kv_heads = 1 and a token stride of its own (k_pe is a slice of the kv projection's
 *     output, [kv_lora_rank | k_pe]);
 *   - GPT-J pairing (lanes 2i and 2i+1): vLLM's DeepseekScalingRotaryEmbedding is built with
 *     is_neox_style = False (Hugging Face de-interleaves first, a permutation of q and k alike);
 *   - the YaRN frequencies arrive as the inv_freq table (DeepSeek-V3: factor 40 over 4096
 *     positions, beta_fast 32, beta_slow 1); the angle in float, (float)position *
 *     position_scale * inv_freq, as the cos/sin cache is built from a float arange; without a
 *     table the plain powf frequencies;
 *   - the attention factor (DeepSeek's mscale(s, mscale) / mscale(s, mscale_all_dim)) multiplies
 *     cos and sin once each, in float, as the cache rows are scaled;
 *   - the rotation in float (x_a * cos - x_b * sin, x_b * cos + x_a * sin), one rounding to the
 *     storage type at the store (bf16: nearest even), as vLLM's kernel widens, rotates and
 *     casts back once.
 * The kernel is specialised for the MLA rope slice, as production MLA kernels are: GPT-J pairing,
 * head_dim = rotary_dim = 64 (qk_rope_head_dim of every DeepSeek V2 / V3 checkpoint). It says so
 * through pec_domain (spec/abi.md ABI-DOM-1); a valid call outside it returns 2 ("unsupported"),
 * an invalid call returns 1 and writes nothing (the whole domain of ABI-QK-1 and ABI-VIEW-1 is
 * checked first). GQA is supported in general (the key loop runs over n_kv_heads), MLA calls it
 * with n_kv_heads = 1. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pecheck_kernel.h"

#define QK_ROPE_HEAD_DIM 64

int pec_abi_version(void) { return PEC_ABI_VERSION; }

const char* pec_domain(void) { return "pecheck-domain 1\nrope.layout gptj\nrope.head_dim 64\nrope.rotary_dim full\n"; }

/* ---- bf16 storage -------------------------------------------------------------------------- */
static float bf16_to_float(uint16_t h) {
  const uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static uint16_t float_to_bf16(float f) { /* nearest, ties to even; NaN stays NaN */
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

/* ---- Argument checks (ABI-QK-1, ABI-VIEW-1) ------------------------------------------------ */
static int ge_product(int64_t a, int64_t n, int64_t b) {
  if (n == 0 || b == 0) return a >= 0;
  if (b > INT64_MAX / n) return 0;
  return a >= n * b;
}
static int view_ok(const struct pec_strides* s, int64_t n_tokens, int64_t n_heads, int64_t head_dim) {
  if (s->token < 0 || s->head < 0) return 0;
  if (n_tokens == 0) return 1;
  if (n_tokens > 1 && n_heads > 1) {
    return (s->head >= head_dim && ge_product(s->token, n_heads, s->head)) ||
           (s->token >= head_dim && ge_product(s->head, n_tokens, s->token));
  }
  if (n_heads > 1) return s->head >= head_dim;
  if (n_tokens > 1) return s->token >= head_dim;
  return 1;
}
static int finite_positive(double v) { return isfinite(v) && v > 0.0; }

static int args_ok(const struct pec_rope_qk_args* a, const void* q, const void* k, const void* q_out, const void* k_out) {
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
/* The MLA rope slice: GPT-J, 64 lanes, all of them rotary. */
static int supported(const struct pec_rope_qk_args* a) {
  return a->layout == PEC_ROPE_GPTJ && a->head_dim == QK_ROPE_HEAD_DIM && a->rotary_dim == QK_ROPE_HEAD_DIM;
}

/* ---- The rotation -------------------------------------------------------------------------- */
/* cos and sin of the 32 pairs of token t, each times the attention factor (the cache row). */
static void cos_sin_row(const struct pec_rope_qk_args* a, int64_t t, float* c, float* s) {
  const float pos = (float)a->positions[t] * (float)a->position_scale;
  const float mscale = (float)a->attn_factor, base = (float)a->theta_base;
  int i;
  for (i = 0; i < QK_ROPE_HEAD_DIM / 2; ++i) {
    const float inv = a->inv_freq ? a->inv_freq[i] : 1.0f / powf(base, (float)(2 * i) / (float)QK_ROPE_HEAD_DIM);
    const float ang = pos * inv;
    c[i] = cosf(ang) * mscale;
    s[i] = sinf(ang) * mscale;
  }
}

/* The 64 lanes of one head, from x into y (both lanes of a pair are read
 * before either is written: y may be x). Nothing outside lanes 0..63 is touched. */
static void rotate_f32(const float* x, float* y, const float* c, const float* s) {
  int i;
  for (i = 0; i < QK_ROPE_HEAD_DIM / 2; ++i) {
    const float xa = x[2 * i], xb = x[2 * i + 1];
    y[2 * i] = xa * c[i] - xb * s[i];
    y[2 * i + 1] = xb * c[i] + xa * s[i];
  }
}
static void rotate_bf16(const uint16_t* x, uint16_t* y, const float* c, const float* s) {
  int i;
  for (i = 0; i < QK_ROPE_HEAD_DIM / 2; ++i) {
    const float xa = bf16_to_float(x[2 * i]), xb = bf16_to_float(x[2 * i + 1]);
    y[2 * i] = float_to_bf16(xa * c[i] - xb * s[i]);
    y[2 * i + 1] = float_to_bf16(xb * c[i] + xa * s[i]);
  }
}

int pec_rope_qk_f32(const struct pec_rope_qk_args* a, const float* q, const float* k, float* q_out, float* k_out) {
  float c[QK_ROPE_HEAD_DIM / 2], s[QK_ROPE_HEAD_DIM / 2];
  int64_t t, h;
  if (!args_ok(a, q, k, q_out, k_out)) return 1;
  if (!supported(a)) return 2;
  for (t = 0; t < a->n_tokens; ++t) {
    cos_sin_row(a, t, c, s);
    for (h = 0; h < a->n_q_heads; ++h) /* q_pe of every query head */
      rotate_f32(q + t * a->q.token + h * a->q.head, q_out + t * a->q_out.token + h * a->q_out.head, c, s);
    for (h = 0; h < a->n_kv_heads; ++h) /* k_pe: one head in MLA, shared by every query head */
      rotate_f32(k + t * a->k.token + h * a->k.head, k_out + t * a->k_out.token + h * a->k_out.head, c, s);
  }
  return 0;
}

int pec_rope_qk_bf16(const struct pec_rope_qk_args* a, const uint16_t* q, const uint16_t* k, uint16_t* q_out,
                     uint16_t* k_out) {
  float c[QK_ROPE_HEAD_DIM / 2], s[QK_ROPE_HEAD_DIM / 2];
  int64_t t, h;
  if (!args_ok(a, q, k, q_out, k_out)) return 1;
  if (!supported(a)) return 2;
  for (t = 0; t < a->n_tokens; ++t) {
    cos_sin_row(a, t, c, s);
    for (h = 0; h < a->n_q_heads; ++h)
      rotate_bf16(q + t * a->q.token + h * a->q.head, q_out + t * a->q_out.token + h * a->q_out.head, c, s);
    for (h = 0; h < a->n_kv_heads; ++h)
      rotate_bf16(k + t * a->k.token + h * a->k.head, k_out + t * a->k_out.token + h * a->k_out.head, c, s);
  }
  return 0;
}
