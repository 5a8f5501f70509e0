/* Test plug-in for issue 20, finding 7: pec_rope_f32 as examples/example_c_kernels.c (angles in
 * double), except that a pair whose angle exceeds 2^23 rad is not rotated at all (copied). float32
 * carries no angle there, so the default class `field` allows it at --max-position 2^31 - 1;
 * `--require-resolved P` must fail it for P beyond 2^23. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "pecheck_kernel.h"

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_f32(const struct pec_rope_args* a, const float* x, float* y) {
  int64_t t, h, i, c, half;
  if (a == NULL) return 1;
  if (a->n_tokens < 0 || a->n_heads < 1 || a->head_dim < 2) return 1;
  if (a->rotary_dim < 2 || a->rotary_dim > a->head_dim || a->rotary_dim % 2 != 0) return 1;
  if (a->layout != PEC_ROPE_NEOX && a->layout != PEC_ROPE_GPTJ) return 1;
  if (!(a->theta_base > 1.0) || !isfinite(a->theta_base)) return 1;
  if (!(a->position_scale > 0.0) || !isfinite(a->position_scale)) return 1;
  if (a->n_tokens > 0 && a->positions == NULL) return 1;
  for (t = 0; t < a->n_tokens; ++t) {
    if (a->positions[t] < 0 || a->positions[t] > 2147483647) return 1;
  }
  if (a->n_tokens > 0 && (x == NULL || y == NULL)) return 1;
  half = a->rotary_dim / 2;
  for (t = 0; t < a->n_tokens; ++t) {
    for (h = 0; h < a->n_heads; ++h) {
      const float* xr = x + (t * a->n_heads + h) * a->head_dim;
      float* yr = y + (t * a->n_heads + h) * a->head_dim;
      for (i = 0; i < half; ++i) {
        const double f = a->inv_freq ? (double)a->inv_freq[i]
                                     : pow(a->theta_base, -2.0 * (double)i / (double)a->rotary_dim);
        const double angle = (double)a->positions[t] * a->position_scale * f;
        const int lost = fabs(angle) > 8388608.0; /* 2^23 rad: stop rotating this pair */
        const double cs = lost ? 1.0 : cos(angle), sn = lost ? 0.0 : sin(angle);
        const int64_t ia = a->layout == PEC_ROPE_NEOX ? i : 2 * i;
        const int64_t ib = a->layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
        const double xa = xr[ia], xb = xr[ib];
        yr[ia] = (float)(xa * cs - xb * sn);
        yr[ib] = (float)(xb * cs + xa * sn);
      }
      for (c = a->rotary_dim; c < a->head_dim; ++c) yr[c] = xr[c];
    }
  }
  return 0;
}
