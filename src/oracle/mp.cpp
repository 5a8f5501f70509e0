// MPFR helpers of the oracle: exact nearest-even rounding of an MPFR number to a format, the
// MPFR side of Ziv's check, conversion to double-double.
#include <cmath>
#include <limits>

#include "oracle/mp_internal.hpp"

namespace pecheck::oracle {

double Rounded::in(Format f) const {
  switch (f) {
    case Format::F64: return f64;
    case Format::F32: return f32;
    case Format::BF16: return bf16;
    case Format::F16: return f16;
  }
  return f64;
}

namespace mp {

double round_mp(mpfr_srcptr x, Format f) {
  if (mpfr_nan_p(x)) return std::numeric_limits<double>::quiet_NaN();
  if (mpfr_inf_p(x)) return mpfr_sgn(x) > 0 ? HUGE_VAL : -HUGE_VAL;
  if (mpfr_zero_p(x)) return mpfr_signbit(x) ? -0.0 : 0.0;
  const FormatInfo& fi = format_info(f);
  long e = static_cast<long>(mpfr_get_exp(x)) - 1;  // x = m 2^(e+1), m in [1/2, 1)
  if (e < fi.emin) e = fi.emin;
  if (e > fi.emax + 1) {  // beyond the format even after rounding
    return mpfr_sgn(x) > 0 ? HUGE_VAL : -HUGE_VAL;
  }
  const long q = e - fi.precision + 1;  // exponent of the quantum
  Mp t(mpfr_get_prec(x) > 64 ? mpfr_get_prec(x) : 64);
  mpfr_mul_2si(t, x, -q, MPFR_RNDN);  // exact
  mpfr_roundeven(t, t);               // nearest integer, ties to even: exact at this precision
  const double r = std::ldexp(mpfr_get_d(t, MPFR_RNDN), static_cast<int>(q));  // exact
  if (std::fabs(r) > fi.max_finite) return std::copysign(HUGE_VAL, r);
  if (r == 0) return mpfr_signbit(x) ? -0.0 : 0.0;
  return r;
}

bool ziv_round_mp(mpfr_srcptr x, mpfr_srcptr err, Format f, double& out) {
  const mpfr_prec_t p = mpfr_get_prec(x) + 8;
  Mp lo(p), hi(p);
  mpfr_sub(lo, x, err, MPFR_RNDD);
  mpfr_add(hi, x, err, MPFR_RNDU);
  const double a = round_mp(lo, f);
  const double b = round_mp(hi, f);
  if (a != b || std::signbit(a) != std::signbit(b) || std::isnan(a)) return false;
  out = a;
  return true;
}

DoubleDouble to_dd(mpfr_srcptr x) {
  const double hi = mpfr_get_d(x, MPFR_RNDN);
  if (!std::isfinite(hi) || hi == 0) return {hi, 0};
  Mp r(mpfr_get_prec(x) + 64);
  mpfr_sub_d(r, x, hi, MPFR_RNDN);  // exact
  return {hi, mpfr_get_d(r, MPFR_RNDN)};
}

Rounded round_exact(double x) {
  Rounded r;
  r.f64 = x;
  r.f32 = static_cast<float>(round_to(x, Format::F32));
  r.bf16 = static_cast<float>(round_to(x, Format::BF16));
  r.f16 = static_cast<float>(round_to(x, Format::F16));
  return r;
}

}  // namespace mp

}  // namespace pecheck::oracle
