// Target number formats, correct rounding of doubles into them, and ULP metrics.
//
// Light header (no multiprecision types): a value of any target format is carried in a double,
// which holds every binary32, bfloat16 and binary16 value exactly. Contract: spec/contracts.md
// (PREC-ULP-*).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pecheck::oracle {

// IEEE-style binary formats, round-to-nearest-even everywhere.
enum class Format : int { F64 = 0, F32 = 1, BF16 = 2, F16 = 3 };

struct FormatInfo {
  int precision;        // significand bits including the implicit bit (53, 24, 8, 11)
  int emin;             // exponent of the smallest normal number (2^emin)
  int emax;             // exponent of the largest finite number's binade
  double max_finite;    // largest finite value
  double min_subnormal; // smallest positive value
  double unit_roundoff; // u = 2^-precision: |fl(x) - x| <= u |x| for normal results
  std::string_view name;  // "f64", "f32", "bf16", "f16"
};

const FormatInfo& format_info(Format f);
std::string_view to_string(Format f);
// Accepts "f64", "f32", "bf16", "f16" (and "float"/"double"); nullopt otherwise.
std::optional<Format> format_from_string(std::string_view s);

// Round a double to the format, nearest-even, with the format's subnormals and overflow to
// +-inf (an IEEE overflow: |x| >= max_finite + ulp(max_finite)/2). NaN stays NaN, the sign of
// zero is kept. For Format::F64 this is the identity. (PREC-ULP-3)
double round_to(double x, Format f);
// True when x is exactly a value of the format (NaN and +-inf count as representable).
bool representable(double x, Format f);

// ulp(x) in the format: 2^(max(e, emin) - precision + 1) for |x| in [2^e, 2^(e+1)); for
// |x| >= 2^(emax+1) (beyond the format) the ulp of the top binade. ulp(0) = min_subnormal.
double ulp_of(double x, Format f);

// Distance between two values of the same format counted in representable values
// (PREC-ULP-1): +0 and -0 are the same value (distance 0); both NaN: distance 0 and
// `nan` = Both; one NaN: distance +inf and `nan` = One; +-inf count as the values just past
// max_finite. Throws pecheck::InvalidArgument if a finite argument is not representable.
enum class NanMatch : int { Neither, Both, One };
struct UlpDistance {
  double ulps = 0;  // an integer, or +inf
  NanMatch nan = NanMatch::Neither;
};
UlpDistance ulp_distance(double a, double b, Format f);

// Error of an approximation against an exact value given as an unevaluated sum hi + lo,
// in units of ulp(exact) of the format (PREC-ULP-2). NaN approx with a finite exact: +inf.
double ulp_error(double approx, double exact_hi, double exact_lo, Format f);

}  // namespace pecheck::oracle
