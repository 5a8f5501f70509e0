/* A straightforward scalar pec_mrope_f32 / pec_mrope_bf16 (spec/abi.md ABI-MROPE-1..3, spec/rope.md
 * ROPE-MROPE-1..3): angles and rotation in double, one rounding to the storage type. Built three
 * times for `pecheck classify --kernel` (tests/e2e/test_e2e_classify_kernel2.cpp):
 *   MROPE_BUG 0  honest, both M-RoPE layouts: the score is a function of (Δt, Δh, Δw);
 *   MROPE_BUG 1  every pair rotated by the t row (the h and w rows ignored): still relative, but
 *                of Δt only;
 *   MROPE_BUG 2  honest rotation, then q_out scaled by log(floor((t + 1) / 8192) + 1) * 0.1 + 1 at
 *                the query's t position (Llama 4's temperature on the t row): position-dependent.
 * Bugs 1 and 2 export pec_mrope_f32 only. With MROPE_DOMAIN (honest, f32) the library declares
 * interleaved M-RoPE on 128-lane heads only (pec_domain, ABI-DOM-1). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pecheck_kernel.h"

#ifndef MROPE_BUG
#define MROPE_BUG 0
#endif

static int view_ok(const struct pec_strides* s, int64_t n_tokens, int64_t n_heads, int64_t d) {
  return s->head >= d && s->token >= n_heads * s->head && n_tokens >= 0;
}

/* ROPE-MROPE-2 (sectioned) and ROPE-MROPE-3 (interleaved): the row (0 t, 1 h, 2 w) of pair i. */
static int axis_of(const struct pec_mrope_args* a, int64_t i) {
  const int64_t* s = a->mrope_section;
  if (a->mrope_layout == PEC_MROPE_SECTIONED) return i < s[0] ? 0 : i < s[0] + s[1] ? 1 : 2;
  if (i % 3 == 1 && i < 3 * s[1]) return 1;
  if (i % 3 == 2 && i < 3 * s[2]) return 2;
  return 0;
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

static double get(const void* p, int64_t i, int bf16) {
  return bf16 ? (double)bf16_in(((const uint16_t*)p)[i]) : (double)((const float*)p)[i];
}

static void put(void* p, int64_t i, double v, int bf16) {
  if (bf16)
    ((uint16_t*)p)[i] = bf16_out((float)v);
  else
    ((float*)p)[i] = (float)v;
}

/* One head vector at element offset xo of x into offset yo of y. */
static void rotate(const struct pec_mrope_args* a, const void* x, int64_t xo, void* y, int64_t yo, int64_t t,
                   double scale, int bf16) {
  const int64_t half = a->rotary_dim / 2;
  double out[1024];
  for (int64_t l = 0; l < a->head_dim; ++l) out[l] = get(x, xo + l, bf16);
  for (int64_t i = 0; i < half; ++i) {
    const int ax = MROPE_BUG == 1 ? 0 : axis_of(a, i);
    const double f = a->inv_freq ? (double)a->inv_freq[i] : pow(a->theta_base, -2.0 * (double)i / (double)a->rotary_dim);
    const double th = (double)a->positions[ax * a->n_tokens + t] * a->position_scale * f;
    const int64_t ia = a->layout == PEC_ROPE_NEOX ? i : 2 * i, ib = a->layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
    const double xa = get(x, xo + ia, bf16), xb = get(x, xo + ib, bf16);
    const double c = cos(th) * a->attn_factor, s = sin(th) * a->attn_factor;
    out[ia] = (xa * c - xb * s) * scale;
    out[ib] = (xb * c + xa * s) * scale;
  }
  for (int64_t l = a->rotary_dim; l < a->head_dim; ++l) out[l] *= scale;
  for (int64_t l = 0; l < a->head_dim; ++l) put(y, yo + l, out[l], bf16);
}

static int mrope(const struct pec_mrope_args* a, const void* q, const void* k, void* q_out, void* k_out, int bf16) {
  if (!a || a->n_q_heads < 1 || a->n_kv_heads < 1 || a->n_q_heads % a->n_kv_heads || a->head_dim < 2 ||
      a->head_dim > 1024 || a->rotary_dim < 2 || a->rotary_dim % 2 || a->rotary_dim > a->head_dim ||
      (a->layout != PEC_ROPE_NEOX && a->layout != PEC_ROPE_GPTJ) ||
      (a->mrope_layout != PEC_MROPE_SECTIONED && a->mrope_layout != PEC_MROPE_INTERLEAVED) ||
      !(a->theta_base > 1) || !(a->position_scale > 0) || !(a->attn_factor > 0) ||
      !view_ok(&a->q, a->n_tokens, a->n_q_heads, a->head_dim) || !view_ok(&a->k, a->n_tokens, a->n_kv_heads, a->head_dim) ||
      !view_ok(&a->q_out, a->n_tokens, a->n_q_heads, a->head_dim) ||
      !view_ok(&a->k_out, a->n_tokens, a->n_kv_heads, a->head_dim) ||
      (a->n_tokens > 0 && (!q || !k || !q_out || !k_out || !a->positions)))
    return 1;
  const int64_t half = a->rotary_dim / 2, *s = a->mrope_section;
  if (s[0] < 0 || s[1] < 0 || s[2] < 0 || s[0] + s[1] + s[2] != half) return 1;
  if (a->mrope_layout == PEC_MROPE_INTERLEAVED && ((s[1] > 0 && 3 * s[1] - 2 >= half) || (s[2] > 0 && 3 * s[2] - 1 >= half)))
    return 1;
  for (int64_t t = 0; t < 3 * a->n_tokens; ++t)
    if (a->positions[t] < 0 || a->positions[t] >= ((int64_t)1 << 31)) return 1;
  for (int64_t t = 0; t < a->n_tokens; ++t) {
    const double tau = MROPE_BUG == 2 ? log(floor((double)(a->positions[t] + 1) / 8192.0) + 1.0) * 0.1 + 1.0 : 1.0;
    for (int64_t h = 0; h < a->n_q_heads; ++h)
      rotate(a, q, t * a->q.token + h * a->q.head, q_out, t * a->q_out.token + h * a->q_out.head, t, tau, bf16);
    for (int64_t h = 0; h < a->n_kv_heads; ++h)
      rotate(a, k, t * a->k.token + h * a->k.head, k_out, t * a->k_out.token + h * a->k_out.head, t, 1.0, bf16);
  }
  return 0;
}

int pec_mrope_f32(const struct pec_mrope_args* a, const float* q, const float* k, float* q_out, float* k_out) {
  return mrope(a, q, k, q_out, k_out, 0);
}

#ifdef MROPE_DOMAIN
const char* pec_domain(void) { return "pecheck-domain 1\nmrope.layout interleaved\nrope.head_dim 128\nrope.rotary_dim full\n"; }
#elif MROPE_BUG == 0
int pec_mrope_bf16(const struct pec_mrope_args* a, const uint16_t* q, const uint16_t* k, uint16_t* q_out,
                   uint16_t* k_out) {
  return mrope(a, q, k, q_out, k_out, 1);
}
#endif
