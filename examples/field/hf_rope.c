/* CORRECT, written the way Hugging Face transformers computes RoPE (modeling_llama's
 * LlamaRotaryEmbedding + apply_rotary_pos_emb), in float32 throughout:
 *   inv_freq[i] = 1 / base ** (arange(0, d, 2).float() / d)     (powf with a float exponent)
 *   freqs       = position.float() * scale * inv_freq            (float32 angle)
 *   y           = x * cos + rotate_half(x) * sin                 (NEOX); GPT-J pairs adjacent lanes
 * It is not correctly rounded: its error is that of the `powf` accuracy class (PREC-ROPE-2),
 * which the default class `field` contains. Argument checks: only what keeps memory safe
 * (rotary_dim <= head_dim, the tier A rule of spec/abi.md), as in most field kernels. */
#include <math.h>
#include <stdint.h>

#include "pecheck_kernel.h"

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_f32(const struct pec_rope_args* a, const float* x, float* y) {
  int64_t t, h, i, l;
  if (a->head_dim < 2 || a->rotary_dim > a->head_dim) return 1;
  const int64_t d = a->rotary_dim, half = d / 2;
  for (t = 0; t < a->n_tokens; ++t) {
    const float p = (float)a->positions[t] * (float)a->position_scale;
    for (i = 0; i < half; ++i) {
      const float inv = a->inv_freq ? a->inv_freq[i] : 1.0f / powf((float)a->theta_base, (float)(2 * i) / (float)d);
      const float ang = p * inv;
      const float c = cosf(ang), s = sinf(ang);
      for (h = 0; h < a->n_heads; ++h) {
        const float* xr = x + (t * a->n_heads + h) * a->head_dim;
        float* yr = y + (t * a->n_heads + h) * a->head_dim;
        const int64_t la = a->layout == PEC_ROPE_NEOX ? i : 2 * i;
        const int64_t lb = a->layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
        const float xa = xr[la], xb = xr[lb];
        yr[la] = xa * c - xb * s;
        yr[lb] = xb * c + xa * s;
      }
    }
    for (h = 0; h < a->n_heads; ++h) {
      for (l = d; l < a->head_dim; ++l) y[(t * a->n_heads + h) * a->head_dim + l] = x[(t * a->n_heads + h) * a->head_dim + l];
    }
  }
  return 0;
}
