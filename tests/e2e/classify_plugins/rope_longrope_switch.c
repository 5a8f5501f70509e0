/* A LongRoPE kernel (Phi-3 style "longrope" rope_type): each frequency is divided by a rescale
 * factor taken from a short table while the call's sequence (largest position + 1) fits the
 * original context of 4096 and from a long table beyond it (short 1.0 .. 1.5, long 1.0 .. 8.0 over
 * the pairs). Offset-only within one table, not across the switch: `pecheck classify --kernel`
 * must say depends_on = positions with a witness straddling 4096 (CLASSIFY-5). */
#include <math.h>
#include <stdint.h>

#include "pecheck_kernel.h"

int pec_rope_f32(const struct pec_rope_args* a, const float* x, float* y) {
  if (!a || a->n_tokens < 0 || a->n_heads < 1 || a->head_dim < 2 || a->rotary_dim < 2 || a->rotary_dim % 2 ||
      a->rotary_dim > a->head_dim || a->head_dim > 4096 || (a->layout != PEC_ROPE_NEOX && a->layout != PEC_ROPE_GPTJ) ||
      !(a->theta_base > 1) || !(a->position_scale > 0) || (a->n_tokens > 0 && (!x || !y || !a->positions)))
    return 1;
  int64_t len = 0;
  for (int64_t t = 0; t < a->n_tokens; ++t) {
    if (a->positions[t] < 0 || a->positions[t] >= ((int64_t)1 << 31)) return 1;
    if (a->positions[t] + 1 > len) len = a->positions[t] + 1;
  }
  const int64_t half = a->rotary_dim / 2;
  const int use_long = len > 4096;
  for (int64_t t = 0; t < a->n_tokens; ++t) {
    for (int64_t h = 0; h < a->n_heads; ++h) {
      const float* xr = x + (t * a->n_heads + h) * a->head_dim;
      float* yr = y + (t * a->n_heads + h) * a->head_dim;
      float out[4096];
      for (int64_t l = 0; l < a->head_dim; ++l) out[l] = xr[l];
      for (int64_t i = 0; i < half; ++i) {
        const double r = half > 1 ? (double)i / (double)(half - 1) : 0.0;
        const double rescale = use_long ? 1.0 + 7.0 * r : 1.0 + 0.5 * r;
        const double f0 = a->inv_freq ? (double)a->inv_freq[i] : pow(a->theta_base, -2.0 * (double)i / (double)a->rotary_dim);
        const double th = (double)a->positions[t] * a->position_scale * f0 / rescale;
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
