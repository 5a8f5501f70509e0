/* A correct pure-C99 plug-in of 16-bit functions (ABI version 2) for the loading tests: the
 * bf16 RoPE (computed in double, rounded once to nearest even) and the fp16 learned lookup (a
 * copy). It exports no float32 function. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "pecheck_kernel.h"

int pec_abi_version(void) { return PEC_ABI_VERSION; }

static double dec_bf16(uint16_t h) {
  const uint32_t b = (uint32_t)h << 16;
  float f;
  memcpy(&f, &b, 4);
  return f;
}

/* v rounded to bfloat16 (8 significand bits, normal exponents >= -126), nearest even. */
static uint16_t enc_bf16(double v) {
  float f;
  uint32_t b;
  if (v != 0 && isfinite(v)) {
    int e = ilogb(v);
    if (e < -126) e = -126;
    v = ldexp(nearbyint(ldexp(v, 7 - e)), e - 7);
  }
  f = (float)v; /* exact: v is a bfloat16 value */
  memcpy(&b, &f, 4);
  return (uint16_t)(b >> 16);
}

int pec_rope_bf16(const struct pec_rope_args* a, const uint16_t* x, uint16_t* y) {
  int64_t t, h, i, l;
  if (!a || a->n_tokens < 0 || a->n_heads < 1 || a->head_dim < 2 || a->rotary_dim < 2 ||
      a->rotary_dim > a->head_dim || a->rotary_dim % 2 != 0 || (a->layout != 0 && a->layout != 1) ||
      !isfinite(a->theta_base) || !(a->theta_base > 1) || !isfinite(a->position_scale) || !(a->position_scale > 0)) {
    return 1;
  }
  if (a->n_tokens > 0 && (!a->positions || !x || !y)) return 1;
  for (t = 0; t < a->n_tokens; ++t) {
    if (a->positions[t] < 0 || a->positions[t] >= ((int64_t)1 << 31)) return 1;
  }
  for (t = 0; t < a->n_tokens; ++t) {
    for (h = 0; h < a->n_heads; ++h) {
      const uint16_t* xv = x + (t * a->n_heads + h) * a->head_dim;
      uint16_t* yv = y + (t * a->n_heads + h) * a->head_dim;
      for (i = 0; i < a->rotary_dim / 2; ++i) {
        const double f = a->inv_freq ? a->inv_freq[i] : pow(a->theta_base, -2.0 * (double)i / (double)a->rotary_dim);
        const double ang = (double)a->positions[t] * a->position_scale * f;
        const double c = cos(ang), s = sin(ang);
        const int64_t ia = a->layout == 0 ? i : 2 * i, ib = a->layout == 0 ? i + a->rotary_dim / 2 : 2 * i + 1;
        const double xa = dec_bf16(xv[ia]), xb = dec_bf16(xv[ib]);
        const uint16_t ya = enc_bf16(xa * c - xb * s), yb = enc_bf16(xb * c + xa * s);
        yv[ia] = ya; /* both read before either is written: y == x is allowed */
        yv[ib] = yb;
      }
      for (l = a->rotary_dim; l < a->head_dim; ++l) yv[l] = xv[l];
    }
  }
  return 0;
}

int pec_learned_f16(const struct pec_learned_args16* a, uint16_t* out) {
  int64_t t;
  if (!a || a->n_tokens < 0 || a->d_model < 1 || a->max_positions < 1 || !a->table) return 1;
  if (a->n_tokens > 0 && (!out || !a->positions)) return 1;
  for (t = 0; t < a->n_tokens; ++t) {
    if (a->positions[t] < 0 || a->positions[t] >= a->max_positions) return 1;
  }
  for (t = 0; t < a->n_tokens; ++t) {
    memcpy(out + t * a->d_model, a->table + a->positions[t] * a->d_model, (size_t)a->d_model * 2);
  }
  return 0;
}
