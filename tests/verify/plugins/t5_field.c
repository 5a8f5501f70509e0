/* T5 relative bias written the way field kernels are (issue 20, finding 3): every argument is
 * checked except num_buckets and max_distance, which Hugging Face's `_relative_position_bucket`
 * and its ports take on trust. Built three ways (T5_FORM):
 *   1  HF in float32: log(n / max_exact) / log(max_distance / max_exact) in float (logf), the
 *      bucket clamped to [0, num_buckets - 1] (the lower clamp keeps every read inside the
 *      table whatever the arguments);
 *   2  the same with the log ratio in double;
 *   3  as 1 without the lower clamp (HF's own code clamps only above): with max_distance <=
 *      max_exact and |k - q| large the bucket is negative and the kernel reads before the table.
 * Forms 1 and 2 are correct on valid calls and never touch memory outside the call; form 3
 * reads outside the table on some invalid calls (a tier A witness: non-empty and harmful). */
#include <math.h>
#include <stdint.h>

#include "pecheck_kernel.h"

static const int64_t kPosLimit = (int64_t)1 << 31;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

static int64_t bucket_of(int64_t rel, int64_t nb, int64_t md, int bidir) {
  int64_t b = 0;
  if (bidir) {
    nb /= 2;
    if (rel > 0) b += nb;
    rel = rel < 0 ? -rel : rel;
  } else {
    rel = rel > 0 ? 0 : -rel;
  }
  const int64_t me = nb / 2;
  if (rel < me) return b + rel;
#if T5_FORM == 2
  const double v = log((double)rel / (double)me) / log((double)md / (double)me) * (double)(nb - me);
#else
  const float v = logf((float)rel / (float)me) / logf((float)md / (float)me) * (float)(nb - me);
#endif
  /* a NaN or an infinity (max_distance == max_exact) is no integer: take the last bucket */
  int64_t large = isfinite(v) && fabs((double)v) < 1e15 ? me + (int64_t)v : nb - 1;
  if (large > nb - 1) large = nb - 1;
#if T5_FORM != 3
  if (large < 0) large = 0;
#endif
  return b + large;
}

int pec_t5_bias_f32(const struct pec_t5_args* a, float* bias) {
  if (a == 0 || a->n_heads < 1 || a->n_q < 0 || a->n_k < 0) return 1;
  if (a->bidirectional != 0 && a->bidirectional != 1) return 1;
  if (a->n_q == 0 || a->n_k == 0) return 0;
  if (!a->q_pos || !a->k_pos || !a->table || !bias) return 1;
  for (int64_t i = 0; i < a->n_q; ++i)
    if (a->q_pos[i] < 0 || a->q_pos[i] >= kPosLimit) return 1;
  for (int64_t j = 0; j < a->n_k; ++j)
    if (a->k_pos[j] < 0 || a->k_pos[j] >= kPosLimit) return 1;
  for (int64_t i = 0; i < a->n_q; ++i)
    for (int64_t j = 0; j < a->n_k; ++j) {
      const int64_t b = bucket_of(a->k_pos[j] - a->q_pos[i], a->num_buckets, a->max_distance, a->bidirectional);
      for (int64_t h = 0; h < a->n_heads; ++h) bias[(h * a->n_q + i) * a->n_k + j] = a->table[b * a->n_heads + h];
    }
  return 0;
}
