// T5 bias properties (spec/t5.md): exact shift invariance, and the bucket function's range,
// monotonicity, saturation, symmetry and agreement of the float formula with the exact one.
#include "reference/t5.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "gen.hpp"
#include "mp_model.hpp"
#include "reference/tolerance.hpp"

namespace pecheck::props {
namespace {

using reference::T5Config;

rc::Gen<T5Config> t5_config() {
  return from_rng<T5Config>([](Rng& r) { return classify::gen_t5_config(r, r.coin(2)); },
                            [](const T5Config& c) {
                              std::vector<T5Config> out;
                              if (c.n_heads > 1) {
                                auto t = c;
                                t.n_heads = 1;
                                out.push_back(t);
                              }
                              if (c.num_buckets != 32 || c.max_distance != 128) {
                                auto t = c;
                                t.num_buckets = 32;
                                t.max_distance = 128;
                                out.push_back(t);
                              }
                              return out;
                            });
}

rc::Gen<std::int64_t> offset(const T5Config& c) {
  return from_rng<std::int64_t>([c](Rng& r) { return classify::gen_t5_offset(r, c); },
                                [](std::int64_t v) { return classify::shrink_toward(v, 0); });
}

// Clause: T5-SHIFT-1, T5-BIAS-1, T5-AXIS-2 — s(m+c, n+c) = s(m, n) (100-digit MPFR; the difference
// is exactly 0) for positions up to 2^31 - 1, offsets far beyond max_distance both ways.
RC_GTEST_PROP(T5, ScoreDependsOnlyOnOffset, ()) {
  const T5Config c = *t5_config();
  const ShiftCase s = *shift_case(reference::kT5MaxPosition);
  ModelDraw md;
  md.seed = *model_seed();
  const std::int64_t h = *rc::gen::inRange<std::int64_t>(0, c.n_heads);
  const MpCompare r = mp_t5_shift(c, md, h, s.m, s.n, s.c);
  RC_LOG() << c << " " << s << " " << r << "\n";
  RC_ASSERT(r.diff == 0.0);
}

// Clause: T5-BUCKET-5, T5-BUCKET-1, T5-BUCKET-2, T5-REL-1 — range, and the half a direction uses.
RC_GTEST_PROP(T5, BucketInRangeAndHalf, ()) {
  const T5Config c = *t5_config();
  const std::int64_t r = *offset(c);
  const std::int64_t b = reference::t5_bucket(c, r);
  RC_ASSERT(b >= 0 && b < c.num_buckets);
  if (c.bidirectional) {
    const std::int64_t nb = c.num_buckets / 2;
    const bool in_half =
        r > 0 ? (b >= nb && b < 2 * nb) : (b >= 0 && b < nb);  // key after query: upper half
    RC_ASSERT(in_half);
  } else if (r >= 0) {
    RC_ASSERT(b == 0);
  }
}

// Clause: T5-BUCKET-6 — non-decreasing in the distance within a direction.
RC_GTEST_PROP(T5, BucketMonotoneInDistance, ()) {
  const T5Config c = *t5_config();
  const std::int64_t r = *offset(c);
  const std::int64_t step = *rc::gen::element<std::int64_t>(1, 2, 7, 1000);
  const std::int64_t sign = r > 0 ? 1 : -1;
  const std::int64_t far = r + sign * step;
  RC_PRE(std::llabs(far) < reference::kT5MaxPosition);
  RC_ASSERT(reference::t5_bucket(c, far) >= reference::t5_bucket(c, r));
}

// Clause: T5-BUCKET-7 — every distance >= max_distance maps to the last bucket of its half.
RC_GTEST_PROP(T5, BucketSaturatesBeyondMaxDistance, ()) {
  const T5Config c = *t5_config();
  const std::int64_t beyond =
      *rc::gen::inRange<std::int64_t>(0, reference::kT5MaxPosition - c.max_distance);
  const std::int64_t d = c.max_distance + beyond;
  const std::int64_t nb = c.bidirectional ? c.num_buckets / 2 : c.num_buckets;
  RC_ASSERT(reference::t5_bucket(c, -d) == nb - 1);
  if (c.bidirectional) RC_ASSERT(reference::t5_bucket(c, d) == 2 * nb - 1);
}

// Clause: T5-BUCKET-8 — bidirectional: bucket(r) = nb + bucket(-r) for r > 0; causal: 0 for r >= 0.
RC_GTEST_PROP(T5, BucketSymmetry, ()) {
  const T5Config c = *t5_config();
  const std::int64_t d = std::llabs(*offset(c));
  if (c.bidirectional) {
    RC_PRE(d > 0);
    RC_ASSERT(reference::t5_bucket(c, d) == c.num_buckets / 2 + reference::t5_bucket(c, -d));
  } else {
    RC_ASSERT(reference::t5_bucket(c, d) == 0);
  }
}

// Clause: T5-BUCKET-4, T5-BUCKET-3 — the formula evaluated with a float or double logarithm
// equals the exact bucket, or is one off with the T value within t5_log_tolerance of the
// integer between them (at flagged exact boundaries: the exact bucket or the one below).
template <class T>
void check_float_formula() {
  const T5Config c = *t5_config();
  const std::int64_t r = *offset(c);
  const std::int64_t exact = reference::t5_bucket(c, r);
  const std::int64_t approx = reference::t5_bucket_in<T>(c, r);
  if (reference::t5_bucket_on_boundary(c, r)) {
    RC_ASSERT(approx == exact || approx == exact - 1);
    return;
  }
  if (approx == exact) return;
  RC_ASSERT(std::llabs(approx - exact) == 1);
  const reference::T5Fold f = reference::t5_fold(c, r);
  const T v = reference::t5_log_value<T>(c, f);
  const T n = T(f.nb - f.exact);
  const T boundary = T(std::max(approx, exact) - f.base - f.exact);
  const T tol = reference::t5_log_tolerance<T>(v, n, std::log(T(c.max_distance) / T(f.exact)));
  RC_LOG() << c << " r=" << r << " exact=" << exact << " approx=" << approx << " v=" << v << "\n";
  RC_ASSERT(std::fabs(v - boundary) <= tol);
}
RC_GTEST_PROP(T5, FloatFormulaMatchesExactBucket, ()) { check_float_formula<float>(); }
RC_GTEST_PROP(T5, DoubleFormulaMatchesExactBucket, ()) { check_float_formula<double>(); }

// Clause: T5-BUCKET-3, T5-BUCKET-4 — boundaries exist where they should: with M/e a power of
// two, d = e * (M/e)^(k/n) is an integer for every k that makes the exponent integral, and
// there the exact bucket is e + k (the real log value is exactly k).
RC_GTEST_PROP(T5, ExactBucketAtPowerBoundaries, ()) {
  T5Config c;
  c.bidirectional = *rc::gen::arbitrary<bool>();
  const std::int64_t e = *rc::gen::element<std::int64_t>(1, 2, 4, 8, 16);
  const std::int64_t n = e;  // nb = 2e, n = nb - e = e
  c.num_buckets = c.bidirectional ? 4 * e : 2 * e;
  const std::int64_t j =
      *rc::gen::inRange<std::int64_t>(1, 5);  // M/e = 2^(n*j/n)... choose M = e * 2^j
  c.max_distance = e << j;
  const std::int64_t k = *rc::gen::inRange<std::int64_t>(0, n);
  RC_PRE((k * j) % n == 0);
  const std::int64_t d = e << (k * j / n);  // e * 2^(jk/n) = e * (M/e)^(k/n)
  RC_ASSERT(reference::t5_bucket_on_boundary(c, -d));
  RC_ASSERT(reference::t5_bucket(c, -d) == std::min(e + k, 2 * e - 1));
}

// Clause: T5-ARG-1, T5-ARG-2, T5-ARG-3, T5-ARG-4 — invalid configurations and positions throw.
RC_GTEST_PROP(T5, InvalidArgumentsThrow, ()) {
  T5Config c = *t5_config();
  const int which = *rc::gen::inRange(0, 4);
  std::int64_t q = 0, k = 0;
  if (which == 0) c.num_buckets = *rc::gen::element<std::int64_t>(-1, 0, 1, 1025);
  if (which == 1)
    c.max_distance = *rc::gen::element<std::int64_t>(-5, 0, (std::int64_t{1} << 31) + 1);
  if (which == 2) c.n_heads = *rc::gen::element<std::int64_t>(0, -3);
  if (which == 3) q = *rc::gen::element<std::int64_t>(-1, reference::kT5MaxPosition);
  const std::vector<float> table(static_cast<std::size_t>(std::max<std::int64_t>(c.num_buckets, 1) *
                                                          std::max<std::int64_t>(c.n_heads, 1)));
  RC_ASSERT_THROWS_AS(reference::t5_bias<float>(c, std::span<const float>(table), 0, q, k),
                      InvalidArgument);
}

}  // namespace
}  // namespace pecheck::props
