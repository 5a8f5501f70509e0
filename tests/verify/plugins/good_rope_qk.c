/* A correct plug-in of the version 2 RoPE functions in plain C99: pec_rope_qk_f32/_bf16,
 * pec_rope_cached_f32/_bf16, pec_rope_cache_f32/_bf16 (spec/abi.md ABI-QK-*, ABI-VIEW-*,
 * ABI-CACHE-*). It validates every domain rule, computes in double and rounds once to the
 * storage type; loaded through dlopen by tests/verify/test_verify_qk.cpp. Built with
 * TRUST_STRIDES it is a vLLM-style kernel that takes the views' strides on trust (vLLM checks
 * them in its Python caller): correct on every valid call, and an invalid stride addresses only
 * the buffer the view spans (tests/verify/test_verify_gate.cpp, issue 20 finding 3). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pecheck_kernel.h"

static const int64_t kPosLimit = (int64_t)1 << 31;

static double bf16_value(uint16_t h) {
  uint32_t b = (uint32_t)h << 16;
  float f;
  memcpy(&f, &b, 4);
  return f;
}

/* v rounded to bfloat16, nearest-even, in one rounding (double -> float -> bf16 would round twice):
 * the nearest float brackets v between two bf16 values, the nearer of which is taken. */
static uint16_t bf16_bits(double v) {
  float f = (float)v;
  uint32_t b;
  double back;
  memcpy(&b, &f, 4);
  if (isnan(f)) return (uint16_t)((b >> 16) | 0x40);
  {
    /* Candidates: truncation t and t + 1 ulp (towards larger magnitude); pick the nearest to v. */
    uint32_t t = b & 0xffff0000u, u = t + 0x10000u;
    float ft, fu;
    double dt, du;
    memcpy(&ft, &t, 4);
    memcpy(&fu, &u, 4);
    dt = fabs((double)ft - v);
    du = fabs((double)fu - v);
    back = dt < du ? ft : du < dt ? fu : (((t >> 16) & 1u) ? fu : ft);
    f = (float)back;
    memcpy(&b, &f, 4);
  }
  return (uint16_t)(b >> 16);
}

static int view_ok(struct pec_strides s, int64_t T, int64_t H, int64_t D) {
#ifdef TRUST_STRIDES
  (void)s, (void)T, (void)H, (void)D;
  return 1;
#endif
  if (T <= 0) return 1;
  if (s.token < 0 || s.head < 0) return 0;
  if (T == 1 && H == 1) return 1;
  if (H == 1) return s.token >= D;
  if (T == 1) return s.head >= D;
  return (s.head >= D && s.token >= H * s.head) || (s.token >= D && s.head >= T * s.token);
}

static int shape_ok(int64_t T, int64_t Hq, int64_t Hk, int64_t D, int64_t R, int32_t layout, struct pec_strides q,
                    struct pec_strides k, struct pec_strides qo, struct pec_strides ko) {
  return T >= 0 && Hq >= 1 && Hk >= 1 && D >= 2 && R >= 2 && R <= D && R % 2 == 0 && Hq % Hk == 0 &&
         (layout == 0 || layout == 1) && view_ok(q, T, Hq, D) && view_ok(qo, T, Hq, D) && view_ok(k, T, Hk, D) &&
         view_ok(ko, T, Hk, D);
}

/* Factors of token t, pair i: from the angle (cached == 0) or from the cache. */
struct factors {
  const struct pec_rope_qk_args* qk;
  const struct pec_rope_cached_args* cached;
};

static void cos_sin(const struct factors* f, int64_t t, int64_t i, double* c, double* s) {
  if (f->qk) {
    const struct pec_rope_qk_args* a = f->qk;
    double inv = a->inv_freq ? (double)a->inv_freq[i] : pow(a->theta_base, -2.0 * (double)i / (double)a->rotary_dim);
    double ang = (double)a->positions[t] * a->position_scale * inv;
    *c = a->attn_factor * cos(ang);
    *s = a->attn_factor * sin(ang);
  } else {
    const struct pec_rope_cached_args* a = f->cached;
    int64_t row = a->positions[t] * a->rotary_dim, half = a->rotary_dim / 2;
    if (a->cache_dtype == PEC_DTYPE_F32) {
      *c = ((const float*)a->cos_sin_cache)[row + i];
      *s = ((const float*)a->cos_sin_cache)[row + half + i];
    } else if (a->cache_dtype == PEC_DTYPE_BF16) {
      *c = bf16_value(((const uint16_t*)a->cos_sin_cache)[row + i]);
      *s = bf16_value(((const uint16_t*)a->cos_sin_cache)[row + half + i]);
    } else { /* f16 */
      uint16_t hc = ((const uint16_t*)a->cos_sin_cache)[row + i], hs = ((const uint16_t*)a->cos_sin_cache)[row + half + i];
      double vc = ldexp((double)((hc & 0x3ff) | (((hc >> 10) & 0x1f) ? 0x400 : 0)), (((hc >> 10) & 0x1f) ? ((hc >> 10) & 0x1f) : 1) - 25);
      double vs = ldexp((double)((hs & 0x3ff) | (((hs >> 10) & 0x1f) ? 0x400 : 0)), (((hs >> 10) & 0x1f) ? ((hs >> 10) & 0x1f) : 1) - 25);
      *c = (hc & 0x8000) ? -vc : vc;
      *s = (hs & 0x8000) ? -vs : vs;
    }
  }
}

/* One tensor; `bf16` selects the storage type. The head is read whole before it is written
 * (in place is allowed). */
static void rotate(const struct factors* f, int bf16, int64_t T, int64_t H, int64_t D, int64_t R, int32_t layout,
                   const void* x, struct pec_strides sx, void* y, struct pec_strides sy) {
  double in[4096];
  int64_t t, h, l;
  for (t = 0; t < T; ++t) {
    for (h = 0; h < H; ++h) {
      int64_t bx = t * sx.token + h * sx.head, by = t * sy.token + h * sy.head;
      for (l = 0; l < D && l < 4096; ++l) in[l] = bf16 ? bf16_value(((const uint16_t*)x)[bx + l]) : ((const float*)x)[bx + l];
      for (l = 0; l < D && l < 4096; ++l) {
        double v = in[l];
        if (l < R) {
          int64_t p = layout == 0 ? (l < R / 2 ? l : l - R / 2) : l / 2;
          int a_lane = layout == 0 ? l < R / 2 : l % 2 == 0;
          int64_t ia = layout == 0 ? p : 2 * p, ib = layout == 0 ? p + R / 2 : 2 * p + 1;
          double c, s;
          cos_sin(f, t, p, &c, &s);
          v = a_lane ? in[ia] * c - in[ib] * s : in[ib] * c + in[ia] * s;
        }
        if (bf16) ((uint16_t*)y)[by + l] = bf16_bits(v);
        else ((float*)y)[by + l] = (float)v;
      }
    }
  }
}

static int qk(const struct pec_rope_qk_args* a, const void* q, const void* k, void* qo, void* ko, int bf16) {
  int64_t t;
  struct factors f = {a, 0};
  if (!a || !shape_ok(a->n_tokens, a->n_q_heads, a->n_kv_heads, a->head_dim, a->rotary_dim, a->layout, a->q, a->k,
                      a->q_out, a->k_out))
    return 1;
  if (!(isfinite(a->theta_base) && a->theta_base > 1 && isfinite(a->position_scale) && a->position_scale > 0 &&
        isfinite(a->attn_factor) && a->attn_factor > 0) || a->head_dim > 4096)
    return 1;
  if (a->n_tokens > 0 && !(a->positions && q && k && qo && ko)) return 1;
  for (t = 0; t < a->n_tokens; ++t)
    if (a->positions[t] < 0 || a->positions[t] >= kPosLimit) return 1;
  rotate(&f, bf16, a->n_tokens, a->n_q_heads, a->head_dim, a->rotary_dim, a->layout, q, a->q, qo, a->q_out);
  rotate(&f, bf16, a->n_tokens, a->n_kv_heads, a->head_dim, a->rotary_dim, a->layout, k, a->k, ko, a->k_out);
  return 0;
}

static int cached(const struct pec_rope_cached_args* a, const void* q, const void* k, void* qo, void* ko, int bf16) {
  int64_t t;
  struct factors f = {0, a};
  if (!a || !shape_ok(a->n_tokens, a->n_q_heads, a->n_kv_heads, a->head_dim, a->rotary_dim, a->layout, a->q, a->k,
                      a->q_out, a->k_out))
    return 1;
  if (a->cache_dtype < 0 || a->cache_dtype > 2 || a->cache_positions < 1 || !a->cos_sin_cache || a->head_dim > 4096)
    return 1;
  if (a->n_tokens > 0 && !(a->positions && q && k && qo && ko)) return 1;
  for (t = 0; t < a->n_tokens; ++t)
    if (a->positions[t] < 0 || a->positions[t] >= a->cache_positions) return 1;
  rotate(&f, bf16, a->n_tokens, a->n_q_heads, a->head_dim, a->rotary_dim, a->layout, q, a->q, qo, a->q_out);
  rotate(&f, bf16, a->n_tokens, a->n_kv_heads, a->head_dim, a->rotary_dim, a->layout, k, a->k, ko, a->k_out);
  return 0;
}

static int build(const struct pec_rope_cache_args* a, void* cache, int bf16) {
  int64_t p, i, R, half;
  if (!a || a->cache_positions < 1 || a->cache_positions > kPosLimit || a->rotary_dim < 2 || a->rotary_dim % 2 != 0 ||
      !(isfinite(a->theta_base) && a->theta_base > 1 && isfinite(a->position_scale) && a->position_scale > 0 &&
        isfinite(a->attn_factor) && a->attn_factor > 0) || !cache)
    return 1;
  R = a->rotary_dim;
  half = R / 2;
  for (i = 0; i < half; ++i) {
    double inv = a->inv_freq ? (double)a->inv_freq[i] : pow(a->theta_base, -2.0 * (double)i / (double)R);
    for (p = 0; p < a->cache_positions; ++p) {
      double ang = (double)p * a->position_scale * inv, c = a->attn_factor * cos(ang), s = a->attn_factor * sin(ang);
      if (bf16) {
        ((uint16_t*)cache)[p * R + i] = bf16_bits(c);
        ((uint16_t*)cache)[p * R + half + i] = bf16_bits(s);
      } else {
        ((float*)cache)[p * R + i] = (float)c;
        ((float*)cache)[p * R + half + i] = (float)s;
      }
    }
  }
  return 0;
}

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_qk_f32(const struct pec_rope_qk_args* a, const float* q, const float* k, float* qo, float* ko) {
  return qk(a, q, k, qo, ko, 0);
}
int pec_rope_qk_bf16(const struct pec_rope_qk_args* a, const uint16_t* q, const uint16_t* k, uint16_t* qo,
                     uint16_t* ko) {
  return qk(a, q, k, qo, ko, 1);
}
int pec_rope_cached_f32(const struct pec_rope_cached_args* a, const float* q, const float* k, float* qo, float* ko) {
  return cached(a, q, k, qo, ko, 0);
}
int pec_rope_cached_bf16(const struct pec_rope_cached_args* a, const uint16_t* q, const uint16_t* k, uint16_t* qo,
                         uint16_t* ko) {
  return cached(a, q, k, qo, ko, 1);
}
int pec_rope_cache_f32(const struct pec_rope_cache_args* a, float* cache) { return build(a, cache, 0); }
int pec_rope_cache_bf16(const struct pec_rope_cache_args* a, uint16_t* cache) { return build(a, cache, 1); }
