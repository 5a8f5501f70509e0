/* CORRECT arithmetic with NO argument checks at all: ALiBi (exact power-of-two slopes in double)
 * and sinusoidal (angle in double). Every valid call is right, so the default run passes; none
 * of its invalid calls touches memory it must not (these functions have no tier A rule), but it
 * returns 0 for calls outside the domain, so `pecheck verify --strict` (the ABI-conformance
 * mode) fails it on the tier B requirements (spec/abi.md ABI-GEN-8). */
#include <math.h>
#include <stdint.h>

#include "pecheck_kernel.h"

int pec_alibi_bias_f32(const struct pec_alibi_args* a, float* scores) {
  int64_t h, i, j, p = 1;
  while (p * 2 <= a->n_heads) p *= 2;
  for (h = 0; h < a->n_heads; ++h) {
    const double e = h < p ? -8.0 * (double)(h + 1) / (double)p : -4.0 * (double)(2 * (h - p) + 1) / (double)p;
    const double slope = exp2(e);
    for (i = 0; i < a->n_q; ++i) {
      for (j = 0; j < a->n_k; ++j) {
        float* s = scores + (h * a->n_q + i) * a->n_k + j;
        const int64_t dd = a->q_pos[i] - a->k_pos[j];
        if (a->mode == PEC_ALIBI_CAUSAL && dd < 0) {
          *s = -INFINITY;
        } else {
          *s = (float)((double)*s - slope * (double)(dd < 0 ? -dd : dd));
        }
      }
    }
  }
  return 0;
}

int pec_sinusoidal_f32(const struct pec_sinusoidal_args* a, float* out) {
  int64_t t, i;
  for (t = 0; t < a->n_tokens; ++t) {
    for (i = 0; i < a->d_model / 2; ++i) {
      const double ang = (double)a->positions[t] * pow(a->base, -2.0 * (double)i / (double)a->d_model);
      out[t * a->d_model + 2 * i] = (float)sin(ang);
      out[t * a->d_model + 2 * i + 1] = (float)cos(ang);
    }
  }
  return 0;
}
