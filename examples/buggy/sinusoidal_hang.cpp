// BUGGY (on purpose): hangs on some valid input. Columns are processed in tiles of d_model/8;
// for d_model < 8 the tile is 0 and the loop never advances. pecheck's per-call time limit
// stops the worker and reports the hang with its input. Violates ABI-GEN-7.
#include <algorithm>
#include <cmath>

#include "../common.hpp"

using namespace example;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_sinusoidal_f32(const pec_sinusoidal_args* a, float* out) {
  if (!sinusoidal_args_ok(a, out)) return 1;
  const std::int64_t half = a->d_model / 2;
  const std::int64_t tile = a->d_model / 8;  // the bug: 0 when d_model < 8
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    for (std::int64_t i0 = 0; i0 < half; i0 += tile) {
      for (std::int64_t i = i0; i < std::min(i0 + tile, half); ++i) {
        const double angle = sinusoidal_angle(a, t, i);
        out[t * a->d_model + 2 * i] = float(std::sin(angle));
        out[t * a->d_model + 2 * i + 1] = float(std::cos(angle));
      }
    }
  }
  return 0;
}
