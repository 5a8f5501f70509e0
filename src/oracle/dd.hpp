// Double-double arithmetic and the fast rounding decision of Ziv's strategy (internal to the
// oracle; header-only so the hot loops inline). Error-free transformations:
//   two_sum(a, b) = (s, t) with s = fl(a + b), s + t == a + b exactly (Knuth);
//   two_prod(a, b) = (p, e) with p = fl(a * b), p + e == a * b exactly (one FMA), barring
//   underflow of e (|a*b| >= 2^-968 suffices).
#pragma once

#include <cmath>
#include <limits>

#include "oracle/format.hpp"
#include "oracle/oracle.hpp"

namespace pecheck::oracle::dd {

inline DoubleDouble two_sum(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  const double t = (a - (s - bb)) + (b - bb);
  return {s, t};
}

inline DoubleDouble fast_two_sum(double a, double b) {  // requires |a| >= |b| or a == 0
  const double s = a + b;
  return {s, b - (s - a)};
}

inline DoubleDouble two_prod(double a, double b) {
  const double p = a * b;
  return {p, std::fma(a, b, -p)};
}

inline DoubleDouble normalize(double hi, double lo) {
  if (std::fabs(hi) >= std::fabs(lo)) return fast_two_sum(hi, lo);
  return two_sum(hi, lo);
}

// x * (c.hi + c.lo) with |result - x*c| <= 2^-104 |x c| (two_prod exact; x*c.lo rounded once,
// its error <= 2^-53 |x c.lo| <= 2^-106 |x c|; the final fast_two_sum is exact).
inline DoubleDouble mul_d(double x, DoubleDouble c) {
  DoubleDouble p = two_prod(x, c.hi);
  return normalize(p.hi, p.lo + x * c.lo);
}

// a - b for double-doubles: error <= 2^-104 (|a| + |b|).
inline DoubleDouble sub(DoubleDouble a, DoubleDouble b) {
  DoubleDouble s = two_sum(a.hi, -b.hi);
  return normalize(s.hi, s.lo + (a.lo - b.lo));
}
inline DoubleDouble add(DoubleDouble a, DoubleDouble b) { return sub(a, {-b.hi, -b.lo}); }

// Half the gap from representable r to its neighbour on the side of `dir` (dir != 0).
inline double half_gap(double r, double dir, Format f) {
  const double u = ulp_of(r, f);
  const double ar = std::fabs(r);
  const bool outward = (dir > 0) == (r >= 0);
  // Moving toward zero from a power of two (above the smallest normal) crosses into a binade
  // with half the ulp.
  if (!outward && ar != 0 && ar == std::ldexp(1.0, std::ilogb(ar)) &&
      std::ilogb(ar) > format_info(f).emin) {
    return u / 4;
  }
  return u / 2;
}

// Nearest-even rounding of the exact sum hi + lo (|lo| <= ulp(hi)/2, a normalized pair) to the
// format. Midpoints of binary32/bf16/f16 are doubles, so lo matters only when hi is exactly a
// midpoint; for binary64 a normalized pair already has hi == fl(hi + lo).
inline double round_dd(double hi, double lo, Format f) {
  const double r = round_to(hi, f);
  if (f == Format::F64 || lo == 0 || !std::isfinite(hi)) return r;
  const FormatInfo& fi = format_info(f);
  if (std::isinf(r)) {
    // hi >= overflow threshold (max + ulp/2). Exactly on it and lo pulls inward: max_finite.
    const double thr = fi.max_finite + ulp_of(fi.max_finite, f) / 2;
    if (std::fabs(hi) == thr && (lo < 0) == (hi > 0)) return std::copysign(fi.max_finite, hi);
    return r;
  }
  const double d = hi - r;  // exact (Sterbenz: r and hi within a factor 2, or d == 0)
  if (d == 0) return r;
  if (std::fabs(d) != half_gap(r, d, f)) return r;  // hi strictly inside r's rounding cell
  // hi is a midpoint between r and r + 2d: lo decides.
  return (lo > 0) == (d > 0) ? r + 2 * d : r;
}

// Ziv's fast step: v is within err (>= 0) of the exact value. Returns true and the correctly
// rounded result when every value of [v - err, v + err] rounds to the same value of the format.
// The interval ends are formed in double-double; their rounding error (<= 2^-104 (|v| + err))
// is added to err first (with margin), so the decision is sound.
inline bool ziv_round(DoubleDouble v, double err, Format f, double& out) {
  if (!std::isfinite(v.hi) || !std::isfinite(err)) return false;
  const double e = err * (1 + 0x1p-50) + std::ldexp(std::fabs(v.hi), -103) +
                   std::numeric_limits<double>::denorm_min();
  const DoubleDouble lo = sub(v, {e, 0});
  const DoubleDouble hi = add(v, {e, 0});
  const double a = round_dd(lo.hi, lo.lo, f);
  const double b = round_dd(hi.hi, hi.lo, f);
  if (a != b) return false;
  if (a == 0 && std::signbit(a) != std::signbit(b)) return false;
  out = a;
  return true;
}

}  // namespace pecheck::oracle::dd
