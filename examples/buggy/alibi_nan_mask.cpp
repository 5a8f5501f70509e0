// BUGGY (on purpose): writes NaN. The causal mask is applied arithmetically,
//   score += -slope * dist + is_future * (-inf),
// and 0 * (-inf) is NaN, so every allowed (k_pos <= q_pos) entry becomes NaN. Symmetric mode
// is unaffected. Violates ABI-ALIBI-2.
#include <cmath>

#include "../common.hpp"

using namespace example;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_alibi_bias_f32(const pec_alibi_args* a, float* scores) {
  if (!alibi_args_ok(a, scores)) return 1;
  for (std::int64_t h = 0; h < a->n_heads; ++h) {
    const double slope = alibi_slope(h, a->n_heads);
    for (std::int64_t i = 0; i < a->n_q; ++i) {
      float* row = scores + (h * a->n_q + i) * a->n_k;
      for (std::int64_t j = 0; j < a->n_k; ++j) {
        const std::int64_t d = a->q_pos[i] - a->k_pos[j];
        if (a->mode == PEC_ALIBI_CAUSAL) {
          const double is_future = d < 0 ? 1.0 : 0.0;
          const double dist = double(d < 0 ? 0 : d);
          row[j] = float(double(row[j]) - slope * dist + is_future * -INFINITY);  // the bug
        } else {
          row[j] = float(double(row[j]) - slope * double(d < 0 ? -d : d));
        }
      }
    }
  }
  return 0;
}
