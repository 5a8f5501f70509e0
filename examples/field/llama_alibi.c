/* CORRECT, written the way ggml / llama.cpp compute ALiBi (ggml_soft_max_ext with max_bias 8):
 *   n_head_log2 = 2^floor(log2(n_heads)); m0 = powf(2, -8 / n_head_log2); m1 = powf(2, -4 / n_head_log2)
 *   slope_h = h < n_head_log2 ? powf(m0, h + 1) : powf(m1, 2 (h - n_head_log2) + 1)
 *   scores += -slope * (float)|q - k|   (causal: keys after the query masked to -inf)
 * The slopes are a few ulp from the exact 2^e (the `powf` accuracy class, PREC-ALIBI-3, which
 * the default class `field` is). Also exports the float32-log T5 bucket of llama.cpp's
 * relative-position bias (logf in float, truncation). Checks: tier A only. */
#include <math.h>
#include <stdint.h>

#include "pecheck_kernel.h"

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_alibi_bias_f32(const struct pec_alibi_args* a, float* scores) {
  int64_t h, i, j;
  const uint32_t n_head_log2 = 1u << (uint32_t)floorf(log2f((float)a->n_heads));
  const float m0 = powf(2.0f, -8.0f / (float)n_head_log2);
  const float m1 = powf(2.0f, -4.0f / (float)n_head_log2);
  for (h = 0; h < a->n_heads; ++h) {
    const float slope = (uint32_t)h < n_head_log2 ? powf(m0, (float)(h + 1)) : powf(m1, (float)(2 * (h - n_head_log2) + 1));
    for (i = 0; i < a->n_q; ++i) {
      float* row = scores + (h * a->n_q + i) * a->n_k;
      for (j = 0; j < a->n_k; ++j) {
        const int64_t dd = a->q_pos[i] - a->k_pos[j];
        if (a->mode == PEC_ALIBI_CAUSAL && dd < 0) {
          row[j] = -INFINITY;
        } else {
          row[j] += -slope * (float)(dd < 0 ? -dd : dd);
        }
      }
    }
  }
  return 0;
}

/* llama.cpp's T5 bucket (llama_relative_position_bucket), float32 logs. */
static int64_t bucket(int64_t rel, int bidirectional, int64_t n_buckets, int64_t max_distance) {
  int64_t ret = 0;
  if (bidirectional) {
    n_buckets /= 2;
    ret += rel > 0 ? n_buckets : 0;
    rel = rel < 0 ? -rel : rel;
  } else {
    rel = rel < 0 ? -rel : 0;
  }
  const int64_t max_exact = n_buckets / 2;
  if (rel < max_exact) return ret + rel;
  const int64_t large = max_exact + (int64_t)(logf((float)rel / (float)max_exact) /
                                              logf((float)max_distance / (float)max_exact) * (float)(n_buckets - max_exact));
  return ret + (large < n_buckets - 1 ? large : n_buckets - 1);
}

int pec_t5_bias_f32(const struct pec_t5_args* a, float* bias) {
  int64_t h, i, j;
  /* tier A: the bucket formula needs num_buckets and max_distance in range */
  if (a->num_buckets < (a->bidirectional ? 4 : 2) || a->num_buckets > 1024) return 1;
  if (a->max_distance <= (a->bidirectional ? a->num_buckets / 4 : a->num_buckets / 2)) return 1;
  if (a->max_distance > ((int64_t)1 << 31)) return 1;
  for (i = 0; i < a->n_q; ++i) {
    for (j = 0; j < a->n_k; ++j) {
      const int64_t b = bucket(a->k_pos[j] - a->q_pos[i], a->bidirectional, a->num_buckets, a->max_distance);
      for (h = 0; h < a->n_heads; ++h) bias[(h * a->n_q + i) * a->n_k + j] = a->table[b * a->n_heads + h];
    }
  }
  return 0;
}
