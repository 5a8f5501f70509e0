// BUGGY (on purpose): ALiBi slopes from the power-of-two formula applied to any head count,
// slope_h = 2^(-8(h+1)/n), instead of the paper's and BLOOM's rule for non-powers of two
// (p = largest power of two <= n; heads beyond p interleave the slopes of 2p heads). Right
// for 1, 2, 4, 8, ... heads; wrong for 3, 5, 6, 12, 20, ... (BLOOM-176B has 112 heads).
// Violates ABI-ALIBI-2.
#include <cmath>

#include "../common.hpp"

using namespace example;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_alibi_bias_f32(const pec_alibi_args* a, float* scores) {
  if (!alibi_args_ok(a, scores)) return 1;
  for (std::int64_t h = 0; h < a->n_heads; ++h) {
    const double slope = std::exp2(-8.0 * double(h + 1) / double(a->n_heads));  // the bug
    for (std::int64_t i = 0; i < a->n_q; ++i) {
      float* row = scores + (h * a->n_q + i) * a->n_k;
      for (std::int64_t j = 0; j < a->n_k; ++j) {
        const std::int64_t d = a->q_pos[i] - a->k_pos[j];
        if (a->mode == PEC_ALIBI_CAUSAL && d < 0) {
          row[j] = -INFINITY;
        } else {
          row[j] = float(double(row[j]) - slope * double(d < 0 ? -d : d));
        }
      }
    }
  }
  return 0;
}
