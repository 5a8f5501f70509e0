/* A correct pure-C99 RoPE plug-in for the loading tests (computes in double). */
#include <math.h>
#include <stddef.h>

#include "pecheck_kernel.h"

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_f32(const struct pec_rope_args* a, const float* x, float* y) {
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
      const float* xv = x + (t * a->n_heads + h) * a->head_dim;
      float* yv = y + (t * a->n_heads + h) * a->head_dim;
      for (i = 0; i < a->rotary_dim / 2; ++i) {
        const double f = a->inv_freq ? a->inv_freq[i] : pow(a->theta_base, -2.0 * (double)i / (double)a->rotary_dim);
        const double ang = (double)a->positions[t] * a->position_scale * f;
        const double c = cos(ang), s = sin(ang);
        const int64_t ia = a->layout == 0 ? i : 2 * i, ib = a->layout == 0 ? i + a->rotary_dim / 2 : 2 * i + 1;
        const double xa = xv[ia], xb = xv[ib];
        yv[ia] = (float)(xa * c - xb * s);
        yv[ib] = (float)(xb * c + xa * s);
      }
      for (l = a->rotary_dim; l < a->head_dim; ++l) yv[l] = xv[l];
    }
  }
  return 0;
}
