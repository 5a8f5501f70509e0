// BUGGY (on purpose): writes past its output. An off-by-one in the key loop (j <= n_k) writes
// one element too many per row: inside the buffer it lands on the next row's first element,
// which is then overwritten with the right value, so the values all look right — but the last
// row of the last head writes one float after the end of `bias`. pecheck's guard zones around
// the output catch it. Violates ABI-GEN-4.
#include "../common.hpp"

using namespace example;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_t5_bias_f32(const pec_t5_args* a, float* bias) {
  if (!t5_args_ok(a, bias)) return 1;
  if (a->n_q == 0 || a->n_k == 0) return 0;
  for (std::int64_t h = 0; h < a->n_heads; ++h) {
    for (std::int64_t i = 0; i < a->n_q; ++i) {
      for (std::int64_t j = 0; j <= a->n_k; ++j) {  // the bug: <= instead of <
        const std::int64_t rel = j < a->n_k ? a->k_pos[j] - a->q_pos[i] : 0;  // read guarded, write not
        const auto b = t5_bucket(rel, a->bidirectional, a->num_buckets, a->max_distance);
        bias[(h * a->n_q + i) * a->n_k + j] = a->table[b * a->n_heads + h];
      }
    }
  }
  return 0;
}
