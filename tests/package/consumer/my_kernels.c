/* The consumer's own kernels, plain C: a correct learned-table lookup and an ALiBi kernel with
 * the power-of-two slope formula used for every head count (wrong for 3, 5, 6, ... heads). */
#include <math.h>
#include <stdint.h>

#include "pecheck_kernel.h"

int my_learned(const struct pec_learned_args* a, float* out) {
  int64_t t, c;
  if (a == 0 || a->n_tokens < 0 || a->d_model < 1 || a->max_positions < 1) return 1;
  if (a->n_tokens > 0 && (a->positions == 0 || a->table == 0 || out == 0)) return 1;
  for (t = 0; t < a->n_tokens; ++t) {
    if (a->positions[t] < 0 || a->positions[t] >= a->max_positions) return 1;
  }
  for (t = 0; t < a->n_tokens; ++t) {
    for (c = 0; c < a->d_model; ++c) out[t * a->d_model + c] = a->table[a->positions[t] * a->d_model + c];
  }
  return 0;
}

int my_alibi_pow2_only(const struct pec_alibi_args* a, float* scores) {
  int64_t h, i, j;
  if (a == 0 || a->n_heads < 1 || a->n_q < 0 || a->n_k < 0) return 1;
  if (a->mode != PEC_ALIBI_SYMMETRIC && a->mode != PEC_ALIBI_CAUSAL) return 1;
  if ((a->n_q > 0 && a->q_pos == 0) || (a->n_k > 0 && a->k_pos == 0)) return 1;
  for (i = 0; i < a->n_q; ++i) if (a->q_pos[i] < 0 || a->q_pos[i] >= ((int64_t)1 << 31)) return 1;
  for (j = 0; j < a->n_k; ++j) if (a->k_pos[j] < 0 || a->k_pos[j] >= ((int64_t)1 << 31)) return 1;
  if (a->n_q > 0 && a->n_k > 0 && scores == 0) return 1;
  for (h = 0; h < a->n_heads; ++h) {
    const double slope = exp2(-8.0 * (double)(h + 1) / (double)a->n_heads); /* the bug */
    for (i = 0; i < a->n_q; ++i) {
      for (j = 0; j < a->n_k; ++j) {
        float* s = scores + (h * a->n_q + i) * a->n_k + j;
        const int64_t d = a->q_pos[i] - a->k_pos[j];
        if (a->mode == PEC_ALIBI_CAUSAL && d < 0) {
          *s = -INFINITY;
        } else {
          *s = (float)((double)*s - slope * (double)(d < 0 ? -d : d));
        }
      }
    }
  }
  return 0;
}
