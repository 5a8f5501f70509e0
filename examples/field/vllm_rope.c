/* CORRECT, written the way vLLM's rotary_embedding kernel applies RoPE from a cos/sin cache
 * (ABI version 2, pec_rope_cached_* and the cache builder pec_rope_cache_f32):
 *   - one call rotates the query and the key of every token, with fewer key heads than query
 *     heads (GQA); the key loop runs over the key's own head count;
 *   - query and key are views into the fused QKV output of the projection: each has its own
 *     token stride ((n_q + 2 n_kv) * head_dim in a fused buffer) and head stride (head_dim), and
 *     the kernel addresses element (t, h, l) at t*token + h*head + l, never assuming density;
 *   - cos/sin come from a cache row chosen by the token's *position* (not by its index in the
 *     batch): cos in the first rotary_dim/2 entries of the row, sin in the second half; the
 *     row's dtype is the call's cache_dtype (float32 here by default, as FlashInfer's drop-in
 *     for this interface requires, or the model's 16-bit dtype, as vLLM's own path casts it);
 *   - NEOX (lane i with i + rotary_dim/2) and GPT-J (2i with 2i+1) pairings, partial rotary:
 *     lanes rotary_dim .. head_dim-1 are copied bit for bit;
 *   - arithmetic in float (inputs and cache entries widened exactly), one rounding to the
 *     storage type at the store (round to nearest, ties to even), as vLLM's kernel converts
 *     to float, rotates and casts back once.
 * Storage types: float32, bfloat16 and binary16 (vLLM dispatches on all three).
 *
 * The cache builder follows vLLM's RotaryEmbedding: inv_freq = 1 / base^(2i/d) in float
 * (powf with a float exponent), t = (float)position * position_scale, angle t * inv_freq in
 * float, cosf/sinf, each multiplied by attn_factor in float (YaRN's mscale, applied once, to
 * both cos and sin). Its error is that of the `powf` accuracy class, inside the default `field`.
 *
 * Argument checks: the whole domain of spec/abi.md (ABI-CACHE-1, ABI-VIEW-1, ABI-CACHE-3),
 * the checks vLLM leaves to its Python caller; in particular a position outside the cache is
 * rejected (it would index the cache out of range). No pec_domain: nothing is restricted. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pecheck_plugin.h" /* the ABI's rules as code: conversions, views */

int pec_abi_version(void) { return PEC_ABI_VERSION; }

/* ---- 16-bit formats ------------------------------------------------------------------------ */
/* 16-bit conversions (nearest, ties to even; NaN stays NaN): spec/pecheck_plugin.h. */
#define bf16_to_float pec_bf16_to_f32
#define float_to_bf16 pec_f32_to_bf16
#define f16_to_float pec_f16_to_f32
#define float_to_f16 pec_f32_to_f16

/* Element i of a tensor of format dt, widened to float (exact). */
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
/* Pass-through lanes: the stored bits, untouched. */
static void copy_bits(void* dst, const void* src, int32_t dt, int64_t di, int64_t si) {
  if (dt == PEC_DTYPE_F32) memcpy((char*)dst + 4 * di, (const char*)src + 4 * si, 4);
  else memcpy((char*)dst + 2 * di, (const char*)src + 2 * si, 2);
}

/* ---- Argument checks ----------------------------------------------------------------------- */
/* a >= n * b for n, b >= 0, without overflow. */
#define view_ok pec_view_ok /* ABI-VIEW-1 */

static int same_strides(const struct pec_strides* a, const struct pec_strides* b) {
  return a->token == b->token && a->head == b->head;
}

/* ABI-CACHE-1 with ABI-VIEW-1. */
static int cached_args_ok(const struct pec_rope_cached_args* a, const void* q, const void* k, const void* q_out,
                          const void* k_out) {
  int64_t t;
  if (a == NULL) return 0;
  if (a->n_tokens < 0 || a->n_q_heads < 1 || a->n_kv_heads < 1 || a->n_q_heads % a->n_kv_heads != 0) return 0;
  if (a->head_dim < 2 || a->rotary_dim < 2 || a->rotary_dim > a->head_dim || a->rotary_dim % 2 != 0) return 0;
  if (a->layout != PEC_ROPE_NEOX && a->layout != PEC_ROPE_GPTJ) return 0;
  if (a->cache_dtype != PEC_DTYPE_F32 && a->cache_dtype != PEC_DTYPE_BF16 && a->cache_dtype != PEC_DTYPE_F16) return 0;
  if (a->cache_positions < 1) return 0;
  if (!view_ok(&a->q, a->n_tokens, a->n_q_heads, a->head_dim) || !view_ok(&a->q_out, a->n_tokens, a->n_q_heads, a->head_dim) ||
      !view_ok(&a->k, a->n_tokens, a->n_kv_heads, a->head_dim) || !view_ok(&a->k_out, a->n_tokens, a->n_kv_heads, a->head_dim)) {
    return 0;
  }
  if (a->n_tokens == 0) return 1; /* nothing to read or write: NULL arrays are fine */
  if (q == NULL || k == NULL || q_out == NULL || k_out == NULL || a->positions == NULL || a->cos_sin_cache == NULL) return 0;
  if ((q_out == q && !same_strides(&a->q, &a->q_out)) || (k_out == k && !same_strides(&a->k, &a->k_out))) return 0;
  for (t = 0; t < a->n_tokens; ++t) {
    const int64_t p = a->positions[t];
    if (p < 0 || p >= a->cache_positions || p >= ((int64_t)1 << 31)) return 0;
  }
  return 1;
}

/* ---- The rotation -------------------------------------------------------------------------- */
/* Rotates one head: x at element offset xo of a tensor of format dt, into y at yo. Both lanes
 * of a pair are read before either is written, so y may be x. */
static void rotate_head(const struct pec_rope_cached_args* a, int32_t dt, const void* x, int64_t xo, void* y, int64_t yo,
                        int64_t row) {
  const int64_t half = a->rotary_dim / 2;
  int64_t i, l;
  for (i = 0; i < half; ++i) {
    const float c = load(a->cos_sin_cache, a->cache_dtype, row + i);
    const float s = load(a->cos_sin_cache, a->cache_dtype, row + half + i);
    const int64_t la = a->layout == PEC_ROPE_NEOX ? i : 2 * i;
    const int64_t lb = a->layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
    const float xa = load(x, dt, xo + la), xb = load(x, dt, xo + lb);
    store(y, dt, yo + la, xa * c - xb * s);
    store(y, dt, yo + lb, xb * c + xa * s);
  }
  for (l = a->rotary_dim; l < a->head_dim; ++l) copy_bits(y, x, dt, yo + l, xo + l);
}

static int rope_cached(const struct pec_rope_cached_args* a, int32_t dt, const void* q, const void* k, void* q_out,
                       void* k_out) {
  int64_t t, h;
  if (!cached_args_ok(a, q, k, q_out, k_out)) return 1;
  for (t = 0; t < a->n_tokens; ++t) {
    const int64_t row = a->positions[t] * a->rotary_dim; /* the token's position picks the row */
    for (h = 0; h < a->n_q_heads; ++h) {
      rotate_head(a, dt, q, t * a->q.token + h * a->q.head, q_out, t * a->q_out.token + h * a->q_out.head, row);
    }
    for (h = 0; h < a->n_kv_heads; ++h) {
      rotate_head(a, dt, k, t * a->k.token + h * a->k.head, k_out, t * a->k_out.token + h * a->k_out.head, row);
    }
  }
  return 0;
}

int pec_rope_cached_f32(const struct pec_rope_cached_args* a, const float* q, const float* k, float* q_out, float* k_out) {
  return rope_cached(a, PEC_DTYPE_F32, q, k, q_out, k_out);
}
int pec_rope_cached_bf16(const struct pec_rope_cached_args* a, const uint16_t* q, const uint16_t* k, uint16_t* q_out,
                         uint16_t* k_out) {
  return rope_cached(a, PEC_DTYPE_BF16, q, k, q_out, k_out);
}
int pec_rope_cached_f16(const struct pec_rope_cached_args* a, const uint16_t* q, const uint16_t* k, uint16_t* q_out,
                        uint16_t* k_out) {
  return rope_cached(a, PEC_DTYPE_F16, q, k, q_out, k_out);
}

/* ---- The cache builder (ABI-CACHE-3) ------------------------------------------------------- */
static int finite_positive(double v) { return isfinite(v) && v > 0.0; }

int pec_rope_cache_f32(const struct pec_rope_cache_args* a, float* cache) {
  int64_t p, i;
  if (a == NULL || a->cache_positions < 1 || a->cache_positions > ((int64_t)1 << 31)) return 1;
  if (a->rotary_dim < 2 || a->rotary_dim % 2 != 0) return 1;
  if (!isfinite(a->theta_base) || !(a->theta_base > 1.0) || !finite_positive(a->position_scale) ||
      !finite_positive(a->attn_factor) || cache == NULL) {
    return 1;
  }
  {
    const int64_t d = a->rotary_dim, half = d / 2;
    const float base = (float)a->theta_base, scale = (float)a->position_scale, mscale = (float)a->attn_factor;
    for (p = 0; p < a->cache_positions; ++p) {
      const float tpos = (float)p * scale;
      for (i = 0; i < half; ++i) {
        const float inv = a->inv_freq ? a->inv_freq[i] : 1.0f / powf(base, (float)(2 * i) / (float)d);
        const float ang = tpos * inv;
        cache[p * d + i] = cosf(ang) * mscale;
        cache[p * d + half + i] = sinf(ang) * mscale;
      }
    }
  }
  return 0;
}
