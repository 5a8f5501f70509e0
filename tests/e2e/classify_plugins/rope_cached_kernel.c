/* A straightforward scalar cached RoPE (spec/abi.md ABI-CACHE-1..3): pec_rope_cached_* rotates q
 * and k by the cos/sin of its cache row, the builder pec_rope_cache_* writes rows
 * attn_factor * cos / sin in double, rounded once. Built three times for `pecheck classify
 * --kernel` (tests/e2e/test_e2e_classify_kernel2.cpp):
 *   CACHED_BUG 0  honest kernel and builder, f32 and bf16: the score is a function of n - m;
 *   CACHED_BUG 1  the kernel reads row t (the token's index in the call) instead of row
 *                 positions[t]; no builder (pecheck builds the cache): no position enters;
 *   CACHED_BUG 2  honest kernel, the builder applies linear position interpolation (angle of
 *                 p / 2) to the rows p >= 2048 only (an "extended" cache): position-dependent;
 *   CACHED_BUG 3  honest kernel, f32 and bf16, no builder (pecheck builds the cache): relative.
 * Bugs 1 and 2 export f32 only. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pecheck_kernel.h"

#ifndef CACHED_BUG
#define CACHED_BUG 0
#endif

static int view_ok(const struct pec_strides* s, int64_t n_tokens, int64_t n_heads, int64_t d) {
  return s->head >= d && s->token >= n_heads * s->head && n_tokens >= 0;
}

static float bf16_in(uint16_t h) {
  const uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static uint16_t bf16_out(float f) { /* round to nearest even (finite values only here) */
  uint32_t u;
  memcpy(&u, &f, 4);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

/* dtype 0 f32, 1 bf16 (enum pec_dtype; f16 is not supported here) */
static double get(const void* p, int64_t i, int dt) {
  return dt ? (double)bf16_in(((const uint16_t*)p)[i]) : (double)((const float*)p)[i];
}

static void put(void* p, int64_t i, double v, int dt) {
  if (dt)
    ((uint16_t*)p)[i] = bf16_out((float)v);
  else
    ((float*)p)[i] = (float)v;
}

static void rotate(const struct pec_rope_cached_args* a, const void* x, int64_t xo, void* y, int64_t yo, int64_t row,
                   int dt) {
  const int64_t half = a->rotary_dim / 2, R = a->rotary_dim;
  double out[1024];
  for (int64_t l = 0; l < a->head_dim; ++l) out[l] = get(x, xo + l, dt);
  for (int64_t i = 0; i < half; ++i) {
    const int64_t ia = a->layout == PEC_ROPE_NEOX ? i : 2 * i, ib = a->layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
    const double c = get(a->cos_sin_cache, row * R + i, a->cache_dtype);
    const double s = get(a->cos_sin_cache, row * R + half + i, a->cache_dtype);
    const double xa = out[ia], xb = out[ib];
    out[ia] = xa * c - xb * s;
    out[ib] = xb * c + xa * s;
  }
  for (int64_t l = 0; l < a->head_dim; ++l) put(y, yo + l, out[l], dt);
}

static int cached(const struct pec_rope_cached_args* a, const void* q, const void* k, void* q_out, void* k_out, int dt) {
  if (!a || a->n_q_heads < 1 || a->n_kv_heads < 1 || a->n_q_heads % a->n_kv_heads || a->head_dim < 2 ||
      a->head_dim > 1024 || a->rotary_dim < 2 || a->rotary_dim % 2 || a->rotary_dim > a->head_dim ||
      (a->layout != PEC_ROPE_NEOX && a->layout != PEC_ROPE_GPTJ) ||
      (a->cache_dtype != PEC_DTYPE_F32 && a->cache_dtype != PEC_DTYPE_BF16) || a->cache_positions < 1 ||
      !a->cos_sin_cache || !view_ok(&a->q, a->n_tokens, a->n_q_heads, a->head_dim) ||
      !view_ok(&a->k, a->n_tokens, a->n_kv_heads, a->head_dim) ||
      !view_ok(&a->q_out, a->n_tokens, a->n_q_heads, a->head_dim) ||
      !view_ok(&a->k_out, a->n_tokens, a->n_kv_heads, a->head_dim) ||
      (a->n_tokens > 0 && (!q || !k || !q_out || !k_out || !a->positions)))
    return 1;
  for (int64_t t = 0; t < a->n_tokens; ++t)
    if (a->positions[t] < 0 || a->positions[t] >= a->cache_positions) return 1;
  for (int64_t t = 0; t < a->n_tokens; ++t) {
    const int64_t row = CACHED_BUG == 1 ? t : a->positions[t];
    for (int64_t h = 0; h < a->n_q_heads; ++h)
      rotate(a, q, t * a->q.token + h * a->q.head, q_out, t * a->q_out.token + h * a->q_out.head, row, dt);
    for (int64_t h = 0; h < a->n_kv_heads; ++h)
      rotate(a, k, t * a->k.token + h * a->k.head, k_out, t * a->k_out.token + h * a->k_out.head, row, dt);
  }
  return 0;
}

#if CACHED_BUG != 1 && CACHED_BUG != 3
static int build(const struct pec_rope_cache_args* a, void* cache, int dt) {
  if (!a || !cache || a->cache_positions < 1 || a->cache_positions > ((int64_t)1 << 31) || a->rotary_dim < 2 ||
      a->rotary_dim % 2 || !(a->theta_base > 1) || !(a->position_scale > 0) || !(a->attn_factor > 0))
    return 1;
  const int64_t half = a->rotary_dim / 2;
  for (int64_t p = 0; p < a->cache_positions; ++p) {
    const double pos = CACHED_BUG == 2 && p >= 2048 ? (double)p / 2.0 : (double)p;
    for (int64_t i = 0; i < half; ++i) {
      const double f = a->inv_freq ? (double)a->inv_freq[i] : pow(a->theta_base, -2.0 * (double)i / (double)a->rotary_dim);
      const double th = pos * a->position_scale * f;
      put(cache, p * a->rotary_dim + i, a->attn_factor * cos(th), dt);
      put(cache, p * a->rotary_dim + half + i, a->attn_factor * sin(th), dt);
    }
  }
  return 0;
}
#endif

int pec_rope_cached_f32(const struct pec_rope_cached_args* a, const float* q, const float* k, float* q_out,
                        float* k_out) {
  return cached(a, q, k, q_out, k_out, 0);
}

#if CACHED_BUG != 1 && CACHED_BUG != 3
int pec_rope_cache_f32(const struct pec_rope_cache_args* a, float* cache) { return build(a, cache, 0); }
#endif

#if CACHED_BUG == 0 || CACHED_BUG == 3
int pec_rope_cached_bf16(const struct pec_rope_cached_args* a, const uint16_t* q, const uint16_t* k, uint16_t* q_out,
                         uint16_t* k_out) {
  return cached(a, q, k, q_out, k_out, 1);
}
#endif
#if CACHED_BUG == 0
int pec_rope_cache_bf16(const struct pec_rope_cache_args* a, uint16_t* cache) { return build(a, cache, 1); }
#endif
