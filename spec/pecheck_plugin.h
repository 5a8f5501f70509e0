/* Optional helpers for pecheck plug-in authors: the ABI's rules as code (spec/abi.md), so that a
 * kernel does not re-derive them. Header only, C99 and C++, no dependency beyond
 * pecheck_kernel.h and <math.h>; every function is static inline. Nothing here is required:
 * a plug-in may use all, some or none of it.
 *
 *   16-bit storage (ABI-STORE-1): pec_bf16_to_f32, pec_f32_to_bf16, pec_f16_to_f32,
 *     pec_f32_to_f16 -- exact widening, and rounding to nearest, ties to even (NaN stays NaN,
 *     quieted; fp16 overflows to infinity past 65504, as IEEE conversion does).
 *   Strided views (ABI-VIEW-1): pec_view_ok (the valid strides), pec_view_at (the index of
 *     element (t, h, l)).
 *   Pairing (ABI-ROPE-2): pec_rope_pair (lanes a, b of frequency index i for NEOX / GPT-J).
 *   Domains: pec_rope_qk_args_ok (ABI-QK-1 with ABI-VIEW-1: every rule pecheck's rejection checks
 *     test, tier A and tier B), pec_rope_inv_freq (f_i of ABI-ROPE-2 in double).
 *
 * Tested by tests/plugin/test_plugin_header.c (pure C) against the definitions in spec/abi.md. */
#ifndef PECHECK_PLUGIN_H
#define PECHECK_PLUGIN_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pecheck_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 16-bit storage ------------------------------------------------------------------------ */

static inline float pec_bits_to_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static inline uint32_t pec_f32_to_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* bfloat16 -> float: exact (bf16 is the top half of a float). */
static inline float pec_bf16_to_f32(uint16_t h) { return pec_bits_to_f32((uint32_t)h << 16); }

/* float -> bfloat16, nearest, ties to even; NaN stays NaN (quieted). */
static inline uint16_t pec_f32_to_bf16(float f) {
  uint32_t u = pec_f32_to_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

/* IEEE binary16 -> float: exact (subnormals, infinities and NaN payloads included). */
static inline float pec_f16_to_f32(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1fu) return pec_bits_to_f32(sign | 0x7f800000u | (man << 13));
  if (exp != 0) return pec_bits_to_f32(sign | ((exp + 112u) << 23) | (man << 13));
  /* zero or subnormal: man * 2^-24, exact in float */
  return pec_bits_to_f32(sign) + (h & 0x8000u ? -1.0f : 1.0f) * (float)man * 5.9604644775390625e-8f;
}

/* float -> IEEE binary16, nearest, ties to even; overflow to infinity, NaN stays NaN (quieted). */
static inline uint16_t pec_f32_to_f16(float f) {
  const uint32_t u = pec_f32_to_bits(f);
  const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520: rounds past 65504 */
  if (a < 0x38800000u) {                                   /* below 2^-14: subnormal or zero */
    /* value / 2^-24 rounded to an integer, ties to even (exact in double) */
    const double q = (double)pec_bits_to_f32(a) * 16777216.0;
    double r = floor(q);
    const double frac = q - r;
    if (frac > 0.5 || (frac == 0.5 && fmod(r, 2.0) != 0.0)) r += 1.0;
    return (uint16_t)(sign | (uint16_t)r); /* r == 1024 carries into the smallest normal */
  }
  {
    const uint32_t rounded = a + 0xfffu + ((a >> 13) & 1u); /* round the 13 dropped bits */
    return (uint16_t)(sign | (((rounded >> 13) - (112u << 10)) & 0x7fffu));
  }
}

/* ---- Strided views (ABI-VIEW-1) ------------------------------------------------------------- */

/* a >= n * b without overflow (n, b >= 0). */
static inline int pec_ge_product(int64_t a, int64_t n, int64_t b) {
  if (n == 0 || b == 0) return a >= 0;
  if (b > INT64_MAX / n) return 0;
  return a >= n * b;
}

/* Valid strides of a [n_tokens][n_heads][head_dim] view: token-major or head-major, never
 * negative; with one head only the token stride matters, with one token only the head stride. */
static inline int pec_view_ok(const struct pec_strides* s, int64_t n_tokens, int64_t n_heads, int64_t head_dim) {
  const int need_token = n_tokens > 1, need_head = n_heads > 1;
  if (s->token < 0 || s->head < 0) return 0;
  if (n_tokens == 0) return 1;
  if (need_token && need_head) {
    return (s->head >= head_dim && pec_ge_product(s->token, n_heads, s->head)) ||
           (s->token >= head_dim && pec_ge_product(s->head, n_tokens, s->token));
  }
  if (need_head) return s->head >= head_dim;
  if (need_token) return s->token >= head_dim;
  return 1;
}

/* Index (in elements) of element (t, h, l) of a view. */
static inline int64_t pec_view_at(const struct pec_strides* s, int64_t t, int64_t h, int64_t l) {
  return t * s->token + h * s->head + l;
}

/* ---- RoPE ----------------------------------------------------------------------------------- */

/* Lanes of frequency index i (0 <= i < rotary_dim/2): NEOX pairs i with i + rotary_dim/2,
 * GPT-J pairs 2i with 2i + 1 (ABI-ROPE-2). */
static inline void pec_rope_pair(int32_t layout, int64_t rotary_dim, int64_t i, int64_t* a, int64_t* b) {
  if (layout == PEC_ROPE_GPTJ) {
    *a = 2 * i;
    *b = 2 * i + 1;
  } else {
    *a = i;
    *b = i + rotary_dim / 2;
  }
}

/* f_i of ABI-ROPE-2: inv_freq[i] when a table is given, else theta_base^(-2i/rotary_dim). */
static inline double pec_rope_inv_freq(const float* inv_freq, double theta_base, int64_t rotary_dim, int64_t i) {
  return inv_freq ? (double)inv_freq[i] : pow(theta_base, -2.0 * (double)i / (double)rotary_dim);
}

/* ABI-QK-1 (with ABI-ROPE-1 and ABI-VIEW-1): 1 when the call is valid, 0 when the kernel must
 * return non-zero and write nothing. The buffers are the call's q, k, q_out, k_out (any type). */
static inline int pec_rope_qk_args_ok(const struct pec_rope_qk_args* a, const void* q, const void* k,
                                      const void* q_out, const void* k_out) {
  int64_t t;
  if (a == NULL) return 0;
  if (a->n_tokens < 0 || a->n_q_heads < 1 || a->n_kv_heads < 1 || a->n_q_heads % a->n_kv_heads != 0) return 0;
  if (a->head_dim < 2 || a->rotary_dim < 2 || a->rotary_dim > a->head_dim || a->rotary_dim % 2 != 0) return 0;
  if (a->layout != PEC_ROPE_NEOX && a->layout != PEC_ROPE_GPTJ) return 0;
  if (!isfinite(a->theta_base) || !(a->theta_base > 1.0)) return 0;
  if (!isfinite(a->position_scale) || !(a->position_scale > 0.0)) return 0;
  if (!isfinite(a->attn_factor) || !(a->attn_factor > 0.0)) return 0;
  if (!pec_view_ok(&a->q, a->n_tokens, a->n_q_heads, a->head_dim) ||
      !pec_view_ok(&a->q_out, a->n_tokens, a->n_q_heads, a->head_dim) ||
      !pec_view_ok(&a->k, a->n_tokens, a->n_kv_heads, a->head_dim) ||
      !pec_view_ok(&a->k_out, a->n_tokens, a->n_kv_heads, a->head_dim)) {
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

#ifdef __cplusplus
}
#endif

#endif /* PECHECK_PLUGIN_H */
