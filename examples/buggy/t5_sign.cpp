// BUGGY (on purpose): T5 relative position with the wrong sign, query - key instead of
// key - query (T5-REL-1). Bidirectional buckets land in the other direction's half; causal
// attention puts past keys in bucket 0 and future keys in the distance buckets. Any query and
// key at different positions show it. Violates ABI-T5-2.
#include "../common.hpp"

using namespace example;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_t5_bias_f32(const pec_t5_args* a, float* bias) {
  if (!t5_args_ok(a, bias)) return 1;
  for (std::int64_t i = 0; i < a->n_q; ++i) {
    for (std::int64_t j = 0; j < a->n_k; ++j) {
      const std::int64_t rel = a->q_pos[i] - a->k_pos[j];  // the bug
      const auto b = t5_bucket(rel, a->bidirectional, a->num_buckets, a->max_distance);
      for (std::int64_t h = 0; h < a->n_heads; ++h) bias[(h * a->n_q + i) * a->n_k + j] = a->table[b * a->n_heads + h];
    }
  }
  return 0;
}
