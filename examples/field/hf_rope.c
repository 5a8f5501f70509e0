/* CORRECT, written the way Hugging Face transformers computes RoPE (modeling_llama's
 * LlamaRotaryEmbedding + apply_rotary_pos_emb), in float32 throughout:
 *   inv_freq[i] = 1 / base ** (arange(0, d, 2).float() / d)     (powf with a float exponent)
 *   freqs       = position.float() * scale * inv_freq            (float32 angle)
 *   y           = x * cos + rotate_half(x) * sin                 (NEOX); GPT-J pairs adjacent lanes
 * It is not correctly rounded: its error is that of the `powf` accuracy class (PREC-ROPE-2),
 * which the default class `field` contains. Argument checks: only what keeps memory safe
 * (rotary_dim <= head_dim, the tier A rule of spec/abi.md), as in most field kernels.
 *
 * Compiled with one of the BUG_* macros it becomes one entry of the field's bug catalogue
 * (examples/CMakeLists.txt, libexample_cat_*.so), each of which the default class must reject:
 * BUG_BF16_FREQ / BUG_FP16_FREQ (inv_freq stored in bf16/fp16), BUG_INT16_POS (positions in
 * int16), BUG_WRONG_EXPONENT (arange(0, d) / d: exponent i/d, not 2i/d), BUG_POS_PLUS_ONE
 * (off-by-one position), BUG_IGNORE_SCALE (position_scale ignored). */
#include <math.h>
#include <stdint.h>

#include "pecheck_kernel.h"

#include "../fp16_compat.h"

int pec_abi_version(void) { return PEC_ABI_VERSION; }

/* Rounding a float to bfloat16 / binary16 (round to nearest even), for the catalogue bugs. */
static float to_bf16(float v) {
  union { float f; uint32_t u; } b = {v};
  b.u = (b.u + 0x7fffu + ((b.u >> 16) & 1u)) & 0xffff0000u;
  return b.f;
}
static float to_fp16(float v) { return (float)(example_half)v; }

static float position_of(const struct pec_rope_args* a, int64_t t) {
  int64_t p = a->positions[t];
#if defined(BUG_INT16_POS)
  p = (int16_t)p;
#elif defined(BUG_POS_PLUS_ONE)
  p = p + 1;
#endif
#if defined(BUG_IGNORE_SCALE)
  return (float)p;
#else
  return (float)p * (float)a->position_scale;
#endif
}

static float inv_freq_of(const struct pec_rope_args* a, int64_t i, int64_t d) {
  float inv;
#if defined(BUG_WRONG_EXPONENT)
  inv = a->inv_freq ? a->inv_freq[i] : 1.0f / powf((float)a->theta_base, (float)i / (float)d);
#else
  inv = a->inv_freq ? a->inv_freq[i] : 1.0f / powf((float)a->theta_base, (float)(2 * i) / (float)d);
#endif
#if defined(BUG_BF16_FREQ)
  inv = to_bf16(inv);
#elif defined(BUG_FP16_FREQ)
  inv = to_fp16(inv);
#endif
  (void)to_bf16;
  (void)to_fp16;
  return inv;
}

int pec_rope_f32(const struct pec_rope_args* a, const float* x, float* y) {
  int64_t t, h, i, l;
  if (a->head_dim < 2 || a->rotary_dim > a->head_dim) return 1;
  const int64_t d = a->rotary_dim, half = d / 2;
  for (t = 0; t < a->n_tokens; ++t) {
    const float p = position_of(a, t);
    for (i = 0; i < half; ++i) {
      const float inv = inv_freq_of(a, i, d);
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
