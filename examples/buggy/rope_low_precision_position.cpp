// BUGGY (on purpose): the RoPE angle is formed from the position held in a 16-bit float —
// the field bug where position ids (or the t of `t * inv_freq`) are cast to the model's
// half-precision dtype before the rotary embedding. Compiled twice:
//   -DPOSITION_FORMAT_FP16: exact up to 2048, then rounded to multiples of 2, 4, ...,
//                           infinite beyond 65504 (libexample_rope_fp16_angle.so)
//   -DPOSITION_FORMAT_BF16: exact up to 256 (libexample_rope_bf16_angle.so)
// Tests at positions below those limits pass; pecheck's generator reaches --max-position and
// its shrinker reports the smallest failing position (just above the limit).
// Violates ABI-ROPE-2 (and the relative-score property ABI-ROPE-5).
#include <cmath>
#include <limits>

#include "../common.hpp"

using namespace example;

namespace {

#if defined(POSITION_FORMAT_FP16)
constexpr int kSignificandBits = 11;   // IEEE binary16
constexpr double kMaxFinite = 65504.0;
#elif defined(POSITION_FORMAT_BF16)
constexpr int kSignificandBits = 8;    // bfloat16
constexpr double kMaxFinite = 3.3895313892515355e38;
#else
#error "define POSITION_FORMAT_FP16 or POSITION_FORMAT_BF16"
#endif

// Round a non-negative integer position to the 16-bit format (round to nearest, ties to even),
// as a cast would.
double to_low_precision(double v) {
  if (v == 0) return 0;
  const int e = std::ilogb(v);
  const double quantum = std::ldexp(1.0, e - (kSignificandBits - 1));
  const double r = std::nearbyint(v / quantum) * quantum;
  // Values that round above the largest finite value overflow to infinity.
  return r > kMaxFinite ? std::numeric_limits<double>::infinity() : r;
}

}  // namespace

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_f32(const pec_rope_args* a, const float* x, float* y) {
  if (!rope_args_ok(a, x, y)) return 1;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    const double pos = to_low_precision(double(a->positions[t]));  // the bug
    for (std::int64_t h = 0; h < a->n_heads; ++h) {
      const float* xr = x + (t * a->n_heads + h) * a->head_dim;
      float* yr = y + (t * a->n_heads + h) * a->head_dim;
      for (std::int64_t i = 0; i < a->rotary_dim / 2; ++i) {
        rotate(xr, yr, rope_pair(a->layout, i, a->rotary_dim), pos * a->position_scale * rope_freq(a, i));
      }
      for (std::int64_t c = a->rotary_dim; c < a->head_dim; ++c) yr[c] = xr[c];
    }
  }
  return 0;
}
