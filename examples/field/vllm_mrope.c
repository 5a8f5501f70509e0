/* CORRECT, written the way vLLM's MRotaryEmbedding and Hugging Face's Qwen2-VL / Qwen3-VL code
 * apply multimodal RoPE (ABI version 2, pec_mrope_{f32,bf16,f16}; spec/abi.md ABI-MROPE-1..3,
 * spec/rope.md ROPE-MROPE-1..5):
 *   - positions are [3][n_tokens]: rows t, h, w (vLLM's positions of shape [3, num_tokens]);
 *   - for each token the kernel first forms cos and sin for each of the three rows (the three
 *     cache rows cos_sin_cache[positions[a][t]], a = t, h, w), then merges them into one row in
 *     which frequency pair i takes the values of its own axis:
 *       sectioned (Qwen2-VL, Qwen2.5-VL): the row is split into mrope_section chunks, chunk j
 *         taken from axis j (vLLM's torch.cat of cos.split(mrope_section)[j][j]);
 *       interleaved (Qwen3-VL, apply_interleaved_mrope): start from the t row, then pairs
 *         1, 4, 7, ... below 3*s_h from the h row and pairs 2, 5, 8, ... below 3*s_w from the w row;
 *   - the cache row as vLLM builds it: inv_freq = 1 / base^(2i/d) in float (powf), or the
 *     model's inv_freq table; angle (float)position * position_scale * inv_freq in float;
 *     cosf / sinf, each times attn_factor once;
 *   - query and key in one call (GQA: the key loop runs over the key's own head count), strided
 *     views (element (t, h, l) at t*token + h*head + l: the q and k slices of the fused QKV
 *     output), in place allowed, NeoX (i with i + rotary_dim/2) and GPT-J (2i with 2i+1)
 *     pairing, partial rotary with lanes rotary_dim .. head_dim-1 copied bit for bit;
 *   - arithmetic in float (inputs widened exactly), one rounding to the storage type at the
 *     store (nearest even), as vLLM's kernel converts to float, rotates and casts back once.
 * Argument checks: the whole domain of ABI-MROPE-1 (ABI-QK-1 with ABI-VIEW-1, the layout, the
 * sections, three rows of positions), checked before anything is written; an invalid call
 * returns 1 and writes nothing. No pec_domain: nothing is restricted. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pecheck_kernel.h"

#include "../fp16_compat.h"

int pec_abi_version(void) { return PEC_ABI_VERSION; }

/* ---- 16-bit formats ------------------------------------------------------------------------ */
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
static float f16_to_float(uint16_t h) {
  example_half v;
  memcpy(&v, &h, sizeof v);
  return (float)v;
}
static uint16_t float_to_f16(float f) {
  const example_half v = (example_half)f; /* IEEE conversion: nearest even */
  uint16_t h;
  memcpy(&h, &v, sizeof h);
  return h;
}
static float load(const void* p, int32_t dt, int64_t i) {
  if (dt == PEC_DTYPE_F32) return ((const float*)p)[i];
  if (dt == PEC_DTYPE_BF16) return bf16_to_float(((const uint16_t*)p)[i]);
  return f16_to_float(((const uint16_t*)p)[i]);
}
static void store(void* p, int32_t dt, int64_t i, float v) {
  if (dt == PEC_DTYPE_F32) ((float*)p)[i] = v;
  else if (dt == PEC_DTYPE_BF16) ((uint16_t*)p)[i] = float_to_bf16(v);
  else ((uint16_t*)p)[i] = float_to_f16(v);
}
static void copy_bits(void* dst, const void* src, int32_t dt, int64_t di, int64_t si) {
  const size_t w = dt == PEC_DTYPE_F32 ? 4 : 2;
  memcpy((char*)dst + w * di, (const char*)src + w * si, w);
}

/* ---- Argument checks (ABI-MROPE-1) --------------------------------------------------------- */
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

/* mrope_section: entries >= 0 summing to rotary_dim/2 (no overflow on any input); interleaved:
 * 3*s_h - 2 < rotary_dim/2 and 3*s_w - 1 < rotary_dim/2 for non-zero sections (ROPE-MROPE-ARG-1). */
static int sections_ok(const struct pec_mrope_args* a) {
  const int64_t half = a->rotary_dim / 2, st = a->mrope_section[0], sh = a->mrope_section[1], sw = a->mrope_section[2];
  if (st < 0 || sh < 0 || sw < 0 || st > half || sh > half - st || sw != half - st - sh) return 0;
  if (a->mrope_layout == PEC_MROPE_INTERLEAVED) {
    if (sh > 0 && sh > (half + 1) / 3) return 0;
    if (sw > 0 && sw > half / 3) return 0;
  }
  return 1;
}

static int args_ok(const struct pec_mrope_args* a, const void* q, const void* k, const void* q_out, const void* k_out) {
  int64_t t;
  if (a == NULL) return 0;
  if (a->n_tokens < 0 || a->n_q_heads < 1 || a->n_kv_heads < 1 || a->n_q_heads % a->n_kv_heads != 0) return 0;
  if (a->head_dim < 2 || a->rotary_dim < 2 || a->rotary_dim > a->head_dim || a->rotary_dim % 2 != 0) return 0;
  if (a->layout != PEC_ROPE_NEOX && a->layout != PEC_ROPE_GPTJ) return 0;
  if (a->mrope_layout != PEC_MROPE_SECTIONED && a->mrope_layout != PEC_MROPE_INTERLEAVED) return 0;
  if (!sections_ok(a)) return 0;
  if (!isfinite(a->theta_base) || !(a->theta_base > 1.0)) return 0;
  if (!finite_positive(a->position_scale) || !finite_positive(a->attn_factor)) return 0;
  if (!view_ok(&a->q, a->n_tokens, a->n_q_heads, a->head_dim) || !view_ok(&a->q_out, a->n_tokens, a->n_q_heads, a->head_dim) ||
      !view_ok(&a->k, a->n_tokens, a->n_kv_heads, a->head_dim) || !view_ok(&a->k_out, a->n_tokens, a->n_kv_heads, a->head_dim)) {
    return 0;
  }
  if (a->n_tokens == 0) return 1; /* nothing to read or write: NULL arrays are fine */
  if (q == NULL || k == NULL || q_out == NULL || k_out == NULL || a->positions == NULL) return 0;
  if (q_out == q && (a->q.token != a->q_out.token || a->q.head != a->q_out.head)) return 0;
  if (k_out == k && (a->k.token != a->k_out.token || a->k.head != a->k_out.head)) return 0;
  for (t = 0; t < 3 * a->n_tokens; ++t) { /* rows t, h, w */
    if (a->positions[t] < 0 || a->positions[t] >= ((int64_t)1 << 31)) return 0;
  }
  return 1;
}

/* ---- The rotation -------------------------------------------------------------------------- */
/* Scratch of one call: inv_freq, the three cos and sin rows of a token, and the merged row. */
struct scratch {
  float *inv, *cos3, *sin3, *cos, *sin;
};

/* cos/sin of token t for rows t, h, w (cos3[a*half + i]), then merged by axis into cos/sin. */
static void token_row(const struct pec_mrope_args* a, const struct scratch* w, int64_t t) {
  const int64_t half = a->rotary_dim / 2, st = a->mrope_section[0], sh = a->mrope_section[1], sw = a->mrope_section[2];
  const float scale = (float)a->position_scale, mscale = (float)a->attn_factor;
  int64_t ax, i;
  for (ax = 0; ax < 3; ++ax) {
    const float pos = (float)a->positions[ax * a->n_tokens + t] * scale;
    for (i = 0; i < half; ++i) {
      const float ang = pos * w->inv[i];
      w->cos3[ax * half + i] = cosf(ang) * mscale;
      w->sin3[ax * half + i] = sinf(ang) * mscale;
    }
  }
  if (a->mrope_layout == PEC_MROPE_SECTIONED) { /* chunk j of mrope_section from row j */
    for (i = 0; i < half; ++i) {
      ax = i < st ? 0 : i < st + sh ? 1 : 2;
      w->cos[i] = w->cos3[ax * half + i];
      w->sin[i] = w->sin3[ax * half + i];
    }
  } else { /* Qwen3-VL: row t, then every third pair from h (from 1) and w (from 2) */
    memcpy(w->cos, w->cos3, (size_t)half * sizeof(float));
    memcpy(w->sin, w->sin3, (size_t)half * sizeof(float));
    for (i = 1; i < 3 * sh && i < half; i += 3) w->cos[i] = w->cos3[half + i], w->sin[i] = w->sin3[half + i];
    for (i = 2; i < 3 * sw && i < half; i += 3) w->cos[i] = w->cos3[2 * half + i], w->sin[i] = w->sin3[2 * half + i];
  }
}

/* n heads of token t of one tensor x (strides xs) into y (strides ys); both lanes of a pair are
 * read before either is written, so y may be x. */
static void rotate_heads(const struct pec_mrope_args* a, int32_t dt, const struct scratch* w, const void* x,
                         const struct pec_strides* xs, void* y, const struct pec_strides* ys, int64_t n, int64_t t) {
  const int64_t half = a->rotary_dim / 2;
  int64_t h, i, l;
  for (h = 0; h < n; ++h) {
    const int64_t xo = t * xs->token + h * xs->head, yo = t * ys->token + h * ys->head;
    for (i = 0; i < half; ++i) {
      const int64_t la = a->layout == PEC_ROPE_NEOX ? i : 2 * i;
      const int64_t lb = a->layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
      const float xa = load(x, dt, xo + la), xb = load(x, dt, xo + lb);
      store(y, dt, yo + la, xa * w->cos[i] - xb * w->sin[i]);
      store(y, dt, yo + lb, xb * w->cos[i] + xa * w->sin[i]);
    }
    for (l = a->rotary_dim; l < a->head_dim; ++l) copy_bits(y, x, dt, yo + l, xo + l);
  }
}

static int mrope(const struct pec_mrope_args* a, int32_t dt, const void* q, const void* k, void* q_out, void* k_out) {
  struct scratch w;
  int64_t half, i, t;
  float* mem;
  if (!args_ok(a, q, k, q_out, k_out)) return 1;
  if (a->n_tokens == 0) return 0;
  half = a->rotary_dim / 2;
  mem = (float*)malloc((size_t)(9 * half) * sizeof(float));
  if (mem == NULL) return 1;
  w.inv = mem, w.cos3 = mem + half, w.sin3 = mem + 4 * half, w.cos = mem + 7 * half, w.sin = mem + 8 * half;
  for (i = 0; i < half; ++i) {
    w.inv[i] = a->inv_freq ? a->inv_freq[i] : 1.0f / powf((float)a->theta_base, (float)(2 * i) / (float)a->rotary_dim);
  }
  for (t = 0; t < a->n_tokens; ++t) {
    token_row(a, &w, t);
    rotate_heads(a, dt, &w, q, &a->q, q_out, &a->q_out, a->n_q_heads, t);
    rotate_heads(a, dt, &w, k, &a->k, k_out, &a->k_out, a->n_kv_heads, t);
  }
  free(mem);
  return 0;
}

int pec_mrope_f32(const struct pec_mrope_args* a, const float* q, const float* k, float* q_out, float* k_out) {
  return mrope(a, PEC_DTYPE_F32, q, k, q_out, k_out);
}
int pec_mrope_bf16(const struct pec_mrope_args* a, const uint16_t* q, const uint16_t* k, uint16_t* q_out,
                   uint16_t* k_out) {
  return mrope(a, PEC_DTYPE_BF16, q, k, q_out, k_out);
}
int pec_mrope_f16(const struct pec_mrope_args* a, const uint16_t* q, const uint16_t* k, uint16_t* q_out,
                  uint16_t* k_out) {
  return mrope(a, PEC_DTYPE_F16, q, k, q_out, k_out);
}
