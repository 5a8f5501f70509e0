/* CORRECT, written the way ggml's CPU rope computes its angles (ggml_rope_ext, mode NORM/NEOX):
 * a running product in float32,
 *   theta_scale = powf(freq_base, -2.0f / n_dims);  theta = p * freq_scale;
 *   for each pair: cos/sin(theta), rotate, theta *= theta_scale
 * so the angle of pair i carries i roundings (the `ggml` accuracy class, PREC-ROPE-8, which the
 * default class `field` contains). With an inverse-frequency table (ggml's freq_factors play
 * that role) the angle is p * scale * inv_freq[i]. Checks: tier A only (rotary_dim <= head_dim). */
#include <math.h>
#include <stdint.h>

#include "pecheck_kernel.h"

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_f32(const struct pec_rope_args* a, const float* x, float* y) {
  int64_t t, h, i, l;
  if (a->head_dim < 2 || a->rotary_dim > a->head_dim) return 1;
  const int64_t d = a->rotary_dim, half = d / 2;
  const float theta_scale = powf((float)a->theta_base, -2.0f / (float)d);
  for (t = 0; t < a->n_tokens; ++t) {
    for (h = 0; h < a->n_heads; ++h) {
      const float* xr = x + (t * a->n_heads + h) * a->head_dim;
      float* yr = y + (t * a->n_heads + h) * a->head_dim;
      const float p = (float)a->positions[t] * (float)a->position_scale;
      float theta = p;
      for (i = 0; i < half; ++i) {
        const float ang = a->inv_freq ? p * a->inv_freq[i] : theta;
        const float c = cosf(ang), s = sinf(ang);
        const int64_t la = a->layout == PEC_ROPE_NEOX ? i : 2 * i;
        const int64_t lb = a->layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
        const float x0 = xr[la], x1 = xr[lb];
        yr[la] = x0 * c - x1 * s;
        yr[lb] = x0 * s + x1 * c;
        theta *= theta_scale;
      }
      for (l = d; l < a->head_dim; ++l) yr[l] = xr[l];
    }
  }
  return 0;
}
