/* A RoPE kernel with dynamic NTK scaling (as Hugging Face's "dynamic" rope_type): when the call's
 * sequence (largest position + 1) is longer than the original context of 4096, the base grows to
 * base * (factor * len / 4096 - (factor - 1))^(d / (d - 2)), factor 2. Within one length the
 * score is a function of the offset; across the switch it is not: `pecheck classify --kernel`
 * must say depends_on = positions and show a witness that straddles 4096 (spec/rope.md
 * ROPE-DYN-*, CLASSIFY-5). Angles in double, so rounding is not what the witness shows. */
#include <math.h>
#include <stdint.h>

#include "pecheck_kernel.h"

int pec_rope_f32(const struct pec_rope_args* a, const float* x, float* y) {
  if (!a || a->n_tokens < 0 || a->n_heads < 1 || a->head_dim < 2 || a->rotary_dim < 2 || a->rotary_dim % 2 ||
      a->rotary_dim > a->head_dim || (a->layout != PEC_ROPE_NEOX && a->layout != PEC_ROPE_GPTJ) ||
      !(a->theta_base > 1) || !(a->position_scale > 0) || (a->n_tokens > 0 && (!x || !y || !a->positions)))
    return 1;
  int64_t len = 0;
  for (int64_t t = 0; t < a->n_tokens; ++t) {
    if (a->positions[t] < 0 || a->positions[t] >= ((int64_t)1 << 31)) return 1;
    if (a->positions[t] + 1 > len) len = a->positions[t] + 1;
  }
  const double d = (double)a->rotary_dim, factor = 2.0, orig = 4096.0;
  double base = a->theta_base;
  if ((double)len > orig) base *= pow(factor * (double)len / orig - (factor - 1.0), d / (d - 2.0));
  const int64_t half = a->rotary_dim / 2;
  for (int64_t t = 0; t < a->n_tokens; ++t) {
    for (int64_t h = 0; h < a->n_heads; ++h) {
      const float* xr = x + (t * a->n_heads + h) * a->head_dim;
      float* yr = y + (t * a->n_heads + h) * a->head_dim;
      float out[4096];
      if (a->head_dim > 4096) return 1;
      for (int64_t l = 0; l < a->head_dim; ++l) out[l] = xr[l];
      for (int64_t i = 0; i < half; ++i) {
        const double f = a->inv_freq ? (double)a->inv_freq[i] : pow(base, -2.0 * (double)i / d);
        const double th = (double)a->positions[t] * a->position_scale * f;
        const int64_t ia = a->layout == PEC_ROPE_NEOX ? i : 2 * i, ib = a->layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
        const double c = cos(th), s = sin(th);
        out[ia] = (float)((double)xr[ia] * c - (double)xr[ib] * s);
        out[ib] = (float)((double)xr[ib] * c + (double)xr[ia] * s);
      }
      for (int64_t l = 0; l < a->head_dim; ++l) yr[l] = out[l];
    }
  }
  return 0;
}
