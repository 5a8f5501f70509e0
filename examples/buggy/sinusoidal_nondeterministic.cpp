// BUGGY (on purpose): nondeterministic. Like a timing-based autotuner that switches code paths
// between calls, a call picks its path from the call count and the clock, and one path rounds
// its results toward zero instead of to nearest. Both paths are
// within the float32 contract (an error below one ULP), so comparisons with the oracle pass;
// only the bits differ from one call to the next. Violates ABI-GEN-6 (the same call twice
// gives the same bits).
#include <atomic>
#include <chrono>
#include <cmath>

#include "../common.hpp"

using namespace example;

namespace {

std::atomic<unsigned> calls{0};

float round_toward_zero(double v) {
  float f = float(v);
  if (std::abs(double(f)) > std::abs(v)) f = std::nextafter(f, 0.0f);
  return f;
}

}  // namespace

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_sinusoidal_f32(const pec_sinusoidal_args* a, float* out) {
  if (!sinusoidal_args_ok(a, out)) return 1;
  // The bug: the path depends on state outside the arguments (the call count and the clock;
  // the clock matters when every call runs in a fresh process).
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  const bool truncate = ((calls.fetch_add(1) ^ static_cast<unsigned>(now >> 10)) & 1u) == 1u;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    for (std::int64_t i = 0; i < a->d_model / 2; ++i) {
      const double angle = sinusoidal_angle(a, t, i);
      const double s = std::sin(angle), c = std::cos(angle);
      out[t * a->d_model + 2 * i] = truncate ? round_toward_zero(s) : float(s);
      out[t * a->d_model + 2 * i + 1] = truncate ? round_toward_zero(c) : float(c);
    }
  }
  return 0;
}
