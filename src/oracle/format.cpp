// Target formats, nearest-even rounding of doubles, ULP metrics (spec/contracts.md PREC-ULP-*).
#include "oracle/format.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace pecheck::oracle {
namespace {

FormatInfo make(int p, int emin, int emax, std::string_view name) {
  FormatInfo fi{};
  fi.precision = p;
  fi.emin = emin;
  fi.emax = emax;
  // max = (2 - 2^(1-p)) * 2^emax
  fi.max_finite = std::ldexp(2.0 - std::ldexp(1.0, 1 - p), emax);
  fi.min_subnormal = std::ldexp(1.0, emin - p + 1);
  fi.unit_roundoff = std::ldexp(1.0, -p);
  fi.name = name;
  return fi;
}

const FormatInfo kInfo[4] = {
    make(53, -1022, 1023, "f64"),
    make(24, -126, 127, "f32"),
    make(8, -126, 127, "bf16"),
    make(11, -14, 15, "f16"),
};

// Ordinal of a representable value: monotone, consecutive values differ by 1, +-0 -> 0.
// Values are k * min_subnormal for integers k below 2^p in the subnormal/first binade; above,
// each binade holds 2^(p-1) values.
double ordinal(double x, const FormatInfo& fi) {
  const double ax = std::fabs(x);
  double n;
  if (std::isinf(ax)) {
    n = ordinal(fi.max_finite, fi) + 1;
  } else if (ax < std::ldexp(1.0, fi.emin)) {
    n = ax / fi.min_subnormal;  // exact: a multiple of min_subnormal below 2^(p-1) of them
  } else {
    int e = std::ilogb(ax);
    double binade_start = std::ldexp(1.0, fi.precision - 1) * (e - fi.emin + 1);
    double within = (ax - std::ldexp(1.0, e)) / std::ldexp(1.0, e - fi.precision + 1);
    n = binade_start + within;
  }
  return std::signbit(x) ? -n : n;
}

}  // namespace

const FormatInfo& format_info(Format f) { return kInfo[static_cast<int>(f)]; }

std::string_view to_string(Format f) { return format_info(f).name; }

std::optional<Format> format_from_string(std::string_view s) {
  if (s == "f64" || s == "double" || s == "fp64") return Format::F64;
  if (s == "f32" || s == "float" || s == "fp32") return Format::F32;
  if (s == "bf16" || s == "bfloat16") return Format::BF16;
  if (s == "f16" || s == "fp16" || s == "half") return Format::F16;
  return std::nullopt;
}

double round_to(double x, Format f) {
  if (f == Format::F64 || !std::isfinite(x) || x == 0) return x;
  const FormatInfo& fi = format_info(f);
  const double ax = std::fabs(x);
  int e = std::ilogb(ax);
  if (e < fi.emin) e = fi.emin;
  const double q = std::ldexp(1.0, e - fi.precision + 1);  // ulp in the format
  // ax / q is exact (power-of-two scaling within double range); nearbyint rounds half to even
  // in the default rounding mode, which is the format's nearest-even (the quotient has far
  // fewer than 53 significant bits above the point, so no double rounding happens).
  double r = std::nearbyint(ax / q) * q;
  if (r > fi.max_finite) r = std::numeric_limits<double>::infinity();
  return std::copysign(r, x);
}

bool representable(double x, Format f) {
  if (!std::isfinite(x)) return true;
  return round_to(x, f) == x;
}

double ulp_of(double x, Format f) {
  const FormatInfo& fi = format_info(f);
  const double ax = std::fabs(x);
  if (ax == 0 || std::isnan(ax)) return fi.min_subnormal;
  int e = std::isinf(ax) ? fi.emax : std::ilogb(ax);
  if (e < fi.emin) e = fi.emin;
  if (e > fi.emax) e = fi.emax;
  return std::ldexp(1.0, e - fi.precision + 1);
}

UlpDistance ulp_distance(double a, double b, Format f) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na && nb) return {0, NanMatch::Both};
  if (na || nb) return {std::numeric_limits<double>::infinity(), NanMatch::One};
  if (!representable(a, f) || !representable(b, f)) {
    throw InvalidArgument("PREC-ULP-1", "ulp_distance: value not representable in " +
                                            std::string(to_string(f)));
  }
  const FormatInfo& fi = format_info(f);
  return {std::fabs(ordinal(a, fi) - ordinal(b, fi)), NanMatch::Neither};
}

double ulp_error(double approx, double exact_hi, double exact_lo, Format f) {
  const double inf = std::numeric_limits<double>::infinity();
  if (std::isnan(approx) || std::isnan(exact_hi)) {
    return std::isnan(approx) && std::isnan(exact_hi) ? 0 : inf;
  }
  if (std::isinf(approx) || std::isinf(exact_hi)) return approx == exact_hi ? 0 : inf;
  // |approx - (hi + lo)|: approx - hi is exact when they are close (Sterbenz); otherwise the
  // error is large and the rounding of the difference is irrelevant at the 2^-53 level.
  const double d = (approx - exact_hi) - exact_lo;
  return std::fabs(d) / ulp_of(exact_hi, f);
}

}  // namespace pecheck::oracle
