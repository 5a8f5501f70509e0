/* CORRECT inside its declared domain, as production kernels are: NEOX pairing only and
 * head_dim 128 only (the shapes of a Llama checkpoint), rotary_dim 64 or 128, with the angle in
 * double and cos/sin rounded to float. Every other call returns 2 ("unsupported"), so without a
 * declaration pecheck reports ABI-GEN-2 on valid calls it does not support; with the declaration
 * (exported by pec_domain, or given as --domain 'rope.layout=neox;rope.head_dim=128'),
 * generation stays inside it and the kernel passes (spec/abi.md ABI-DOM-1..3). */
#include <math.h>
#include <stdint.h>

#include "pecheck_kernel.h"

int pec_abi_version(void) { return PEC_ABI_VERSION; }

#ifndef NO_DECLARATION /* libexample_neox128_rope_undeclared.so: the same kernel, no pec_domain */
const char* pec_domain(void) { return "pecheck-domain 1\nrope.layout neox\nrope.head_dim 128\nrope.rotary_dim 64,128\n"; }
#endif

int pec_rope_f32(const struct pec_rope_args* a, const float* x, float* y) {
  int64_t t, h, i, l;
  if (a->layout != PEC_ROPE_NEOX || a->head_dim != 128 || (a->rotary_dim != 64 && a->rotary_dim != 128)) return 2;
  if (!(a->theta_base > 1.0) || !(a->position_scale > 0.0) || !isfinite(a->theta_base) || !isfinite(a->position_scale)) return 1;
  for (t = 0; t < a->n_tokens; ++t) {
    if (a->positions[t] < 0 || a->positions[t] >= ((int64_t)1 << 31)) return 1;
  }
  const int64_t half = a->rotary_dim / 2;
  for (t = 0; t < a->n_tokens; ++t) {
    for (i = 0; i < half; ++i) {
      const double f = a->inv_freq ? (double)a->inv_freq[i] : pow(a->theta_base, -2.0 * (double)i / (double)a->rotary_dim);
      const double ang = (double)a->positions[t] * a->position_scale * f;
      const double c = cos(ang), s = sin(ang);
      for (h = 0; h < a->n_heads; ++h) {
        const float* xr = x + (t * a->n_heads + h) * 128;
        float* yr = y + (t * a->n_heads + h) * 128;
        const double xa = xr[i], xb = xr[i + half];
        yr[i] = (float)(xa * c - xb * s);
        yr[i + half] = (float)(xb * c + xa * s);
      }
    }
    for (h = 0; h < a->n_heads; ++h) {
      for (l = a->rotary_dim; l < 128; ++l) y[(t * a->n_heads + h) * 128 + l] = x[(t * a->n_heads + h) * 128 + l];
    }
  }
  return 0;
}
