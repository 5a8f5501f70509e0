// BUGGY (on purpose): crashes on some valid input. Slopes come from precomputed tables for the
// head counts the author had in mind (powers of two up to 64); any other head count finds no
// table and dereferences a null pointer (SIGSEGV). pecheck runs each call in a worker process,
// reports the crash as a counterexample with the input that caused it, and carries on.
// Violates ABI-GEN-7.
#include <cmath>

#include "../common.hpp"

using namespace example;

namespace {

const double* slope_table(std::int64_t n_heads) {
  static double tables[7][64];
  static bool filled = false;
  if (!filled) {
    for (int k = 0; k < 7; ++k) {
      for (std::int64_t h = 0; h < (std::int64_t{1} << k); ++h) tables[k][h] = alibi_slope(h, std::int64_t{1} << k);
    }
    filled = true;
  }
  for (int k = 0; k < 7; ++k) {
    if (n_heads == (std::int64_t{1} << k)) return tables[k];
  }
  return nullptr;  // the bug: no table, and no check by the caller
}

}  // namespace

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_alibi_bias_f32(const pec_alibi_args* a, float* scores) {
  if (!alibi_args_ok(a, scores)) return 1;
  const double* volatile slopes = slope_table(a->n_heads);
  for (std::int64_t h = 0; h < a->n_heads; ++h) {
    const double slope = slopes[h];
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
