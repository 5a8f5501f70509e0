// ALiBi, T5 and sinusoidal oracles (spec/contracts.md PREC-ORACLE-4..6).
#include <gmp.h>

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "oracle/budget.hpp"
#include "oracle/mp_internal.hpp"

namespace pecheck::oracle {
namespace {

using mp::Mp;

constexpr std::int64_t kMaxPos = std::int64_t{1} << 31;

void check_pos(std::int64_t p, const char* what) {
  if (p < 0 || p >= kMaxPos) {
    throw InvalidArgument("PREC-BAD-4", std::string(what) + " " + std::to_string(p) +
                                            " outside [0, 2^31)");
  }
}

// The slope's exponent: -8(h+1)/p or -4(2(h-p)+1)/p, a dyadic rational (p a power of two),
// exact in a double.
double slope_exponent(std::int64_t n_heads, std::int64_t head) {
  if (n_heads < 1 || head < 0 || head >= n_heads) {
    throw InvalidArgument("PREC-BAD-4", "ALiBi head outside [0, n_heads) or n_heads < 1");
  }
  std::int64_t p = 1;
  while (p * 2 <= n_heads) p *= 2;
  const double pd = static_cast<double>(p);
  if (head < p) return -8.0 * static_cast<double>(head + 1) / pd;
  return -4.0 * static_cast<double>(2 * (head - p) + 1) / pd;
}

// The f32 ambiguity half-width around integers (PREC-T5-1), from the budget table.
double budget_width_f32(double magnitude) {
  static const Budget& row = budget("t5", Format::F32);
  return row.bound({magnitude, 0.0});
}

}  // namespace

AlibiSlope alibi_slope(std::int64_t n_heads, std::int64_t head) {
  const double e = slope_exponent(n_heads, head);
  AlibiSlope s;
  if (e == std::floor(e)) {  // an exact power of two
    s.exact = {std::ldexp(1.0, static_cast<int>(e)), 0};
    s.rounded = mp::round_exact(s.exact.hi);
    return s;
  }
  auto at = [e](mpfr_prec_t w, mpfr_ptr out, mpfr_ptr err) {
    mpfr_set_prec(out, w);
    Mp ex(64);
    mpfr_set_d(ex, e, MPFR_RNDN);
    mpfr_exp2(out, ex, MPFR_RNDN);  // correctly rounded: error <= 2^-w |out|
    mpfr_abs(err, out, MPFR_RNDU);
    mpfr_mul_2si(err, err, -static_cast<long>(w), MPFR_RNDU);
  };
  Mp v(128), err(64);
  at(128, v, err);
  s.exact = mp::to_dd(v);  // relative error <= 2^-128 + 2^-106
  int esc = 0;
  s.rounded = mp::decide_all(s.exact, std::ldexp(s.exact.hi, -104), at, esc);
  return s;
}

namespace {

// The bias for one (slope, distance) with the slope computed once per head.
AlibiBias bias_from_slope(double e, const AlibiSlope& s, std::int64_t q_pos, std::int64_t k_pos,
                          int mode) {
  AlibiBias b;
  if (mode == PEC_ALIBI_CAUSAL && k_pos > q_pos) {
    b.masked = true;
    b.exact = {-HUGE_VAL, 0};
    b.rounded = mp::round_exact(-HUGE_VAL);
    return b;
  }
  const std::int64_t d = q_pos >= k_pos ? q_pos - k_pos : k_pos - q_pos;
  if (d == 0) {
    b.rounded = mp::round_exact(0.0);
    return b;
  }
  const double dd_ = static_cast<double>(d);  // exact: d < 2^31
  if (e == std::floor(e)) {
    b.exact = {-std::ldexp(dd_, static_cast<int>(e)), 0};
    b.rounded = mp::round_exact(b.exact.hi);
    return b;
  }
  const DoubleDouble m = dd::mul_d(-dd_, s.exact);  // error <= 2^-104 + 2^-104 relative
  b.exact = m;
  auto at = [e, dd_](mpfr_prec_t w, mpfr_ptr out, mpfr_ptr err) {
    mpfr_set_prec(out, w);
    Mp ex(64);
    mpfr_set_d(ex, e, MPFR_RNDN);
    mpfr_exp2(out, ex, MPFR_RNDN);
    mpfr_mul_d(out, out, -dd_, MPFR_RNDN);  // two roundings: <= 2^-(w-1) relative
    mpfr_abs(err, out, MPFR_RNDU);
    mpfr_mul_2si(err, err, -static_cast<long>(w) + 2, MPFR_RNDU);
  };
  int esc = 0;
  b.rounded = mp::decide_all(m, std::ldexp(std::fabs(m.hi), -102), at, esc);
  return b;
}

void check_mode(int mode) {
  if (mode != PEC_ALIBI_SYMMETRIC && mode != PEC_ALIBI_CAUSAL) {
    throw InvalidArgument("PREC-BAD-4", "unknown ALiBi mode");
  }
}

}  // namespace

AlibiBias alibi_bias(std::int64_t n_heads, std::int64_t head, std::int64_t q_pos,
                     std::int64_t k_pos, int mode) {
  check_pos(q_pos, "query position");
  check_pos(k_pos, "key position");
  check_mode(mode);
  return bias_from_slope(slope_exponent(n_heads, head), alibi_slope(n_heads, head), q_pos, k_pos, mode);
}

BlockStats alibi_block(const pec_alibi_args& a, Format target, float* rounded,
                       double* exact_f64) {
  if (a.n_heads < 1 || a.n_q < 0 || a.n_k < 0) throw InvalidArgument("PREC-BAD-4", "bad ALiBi block shape");
  if ((a.n_q > 0 && a.q_pos == nullptr) || (a.n_k > 0 && a.k_pos == nullptr)) {
    throw InvalidArgument("PREC-BAD-4", "null position array");
  }
  if (target == Format::F64 && rounded != nullptr) {
    throw InvalidArgument("PREC-BAD-4", "for the f64 target use exact_f64 (rounded is float)");
  }
  check_mode(a.mode);
  for (std::int64_t i = 0; i < a.n_q; ++i) check_pos(a.q_pos[i], "query position");
  for (std::int64_t j = 0; j < a.n_k; ++j) check_pos(a.k_pos[j], "key position");
  BlockStats st;
  for (std::int64_t h = 0; h < a.n_heads; ++h) {
    const double e = slope_exponent(a.n_heads, h);
    const AlibiSlope s = alibi_slope(a.n_heads, h);
    for (std::int64_t i = 0; i < a.n_q; ++i) {
      for (std::int64_t j = 0; j < a.n_k; ++j) {
        const AlibiBias b = bias_from_slope(e, s, a.q_pos[i], a.k_pos[j], a.mode);
        const std::size_t idx = static_cast<std::size_t>((h * a.n_q + i) * a.n_k + j);
        if (rounded) rounded[idx] = static_cast<float>(b.rounded.in(target));
        if (exact_f64) exact_f64[idx] = b.rounded.f64;
        ++st.elements;
      }
    }
  }
  return st;
}

T5Bucket t5_bucket(std::int64_t relative, std::int64_t num_buckets, std::int64_t max_distance,
                   bool bidirectional) {
  if (num_buckets < 4 || num_buckets > 1024 || max_distance < 1) {
    throw InvalidArgument("PREC-BAD-4", "T5 needs 4 <= num_buckets <= 1024 and max_distance >= 1");
  }
  if (relative <= -kMaxPos || relative >= kMaxPos) {
    throw InvalidArgument("PREC-BAD-4", "T5 relative position outside (-2^31, 2^31)");
  }
  std::int64_t nb = num_buckets, base = 0, dist = 0;
  if (bidirectional) {
    nb = num_buckets / 2;
    base = relative > 0 ? nb : 0;
    dist = relative < 0 ? -relative : relative;
  } else {
    dist = relative < 0 ? -relative : 0;
  }
  const std::int64_t ex = nb / 2;
  T5Bucket r;
  r.log_value = -1;
  if (dist < ex) {
    r.bucket = r.alternative = base + dist;
    return r;
  }
  if (max_distance <= ex) {
    throw InvalidArgument("PREC-BAD-4", "T5 max_distance must exceed num_buckets/4 (bidir) or /2");
  }
  const std::int64_t K = nb - ex;
  auto clamp = [&](std::int64_t kk) {
    const std::int64_t large = ex + kk;
    return base + (large < nb - 1 ? large : nb - 1);
  };
  // Fast path: v in double has |error| <= 2^-53 * t5_magnitude (the derivation of PREC-T5-1
  // with u = 2^-53); 4x that as margin. Far from an integer, floor(v) is decided.
  const double mag = t5_magnitude(dist, ex, nb, max_distance);
  const double width = budget_width_f32(mag);
  {
    const double vd = static_cast<double>(K) *
                      std::log(static_cast<double>(dist) / static_cast<double>(ex)) /
                      std::log(static_cast<double>(max_distance) / static_cast<double>(ex));
    const double jd = std::nearbyint(vd);
    const double err = std::ldexp(mag, -51) + 0x1p-60;
    if (std::fabs(vd - jd) > err && std::fabs(vd - jd) > width + err) {
      r.log_value = vd;
      r.bucket = r.alternative = clamp(static_cast<std::int64_t>(std::floor(vd)));
      return r;
    }
  }
  // v = K ln(dist/ex) / ln(max_distance/ex), to 128 bits (error < 2^-110 for v < 2^10).
  Mp a(160), b(160), v(160);
  mpfr_set_si(a, dist, MPFR_RNDN);
  mpfr_div_si(a, a, ex, MPFR_RNDN);
  mpfr_log(a, a, MPFR_RNDN);
  mpfr_set_si(b, max_distance, MPFR_RNDN);
  mpfr_div_si(b, b, ex, MPFR_RNDN);
  mpfr_log(b, b, MPFR_RNDN);
  mpfr_div(v, a, b, MPFR_RNDN);
  mpfr_mul_si(v, v, K, MPFR_RNDN);
  r.log_value = mpfr_get_d(v, MPFR_RNDN);
  const double j = std::nearbyint(r.log_value);
  std::int64_t k = static_cast<std::int64_t>(std::floor(r.log_value));
  if (std::fabs(r.log_value - j) < 0x1p-40 && j <= static_cast<double>(nb)) {
    // Decide exactly with integers: v >= j  <=>  dist^K ex^j >= max_distance^j ex^K.
    const auto ji = static_cast<unsigned long>(j);
    mpz_t lhs, rhs, t;
    mpz_inits(lhs, rhs, t, nullptr);
    mpz_ui_pow_ui(lhs, static_cast<unsigned long>(dist), static_cast<unsigned long>(K));
    mpz_ui_pow_ui(t, static_cast<unsigned long>(ex), ji);
    mpz_mul(lhs, lhs, t);
    mpz_ui_pow_ui(rhs, static_cast<unsigned long>(max_distance), ji);
    mpz_ui_pow_ui(t, static_cast<unsigned long>(ex), static_cast<unsigned long>(K));
    mpz_mul(rhs, rhs, t);
    const int c = mpz_cmp(lhs, rhs);
    mpz_clears(lhs, rhs, t, nullptr);
    k = c >= 0 ? static_cast<std::int64_t>(ji) : static_cast<std::int64_t>(ji) - 1;
    r.on_integer = c == 0 && ji <= static_cast<unsigned long>(K);
  }
  r.bucket = clamp(k);
  r.alternative = r.bucket;
  if (r.on_integer) {
    r.ambiguous = true;
    r.alternative = clamp(k - 1);
  } else if (std::fabs(r.log_value - j) <= width && j <= static_cast<double>(K)) {
    r.ambiguous = true;
    r.alternative = clamp(j > r.log_value ? k + 1 : k - 1);
  }
  return r;
}

SinusoidalValue sinusoidal(std::int64_t position, std::int64_t d_model, double base,
                           std::int64_t lane) {
  if (d_model < 2 || d_model % 2 != 0 || lane < 0 || lane >= d_model) {
    throw InvalidArgument("PREC-BAD-4", "sinusoidal needs even d_model >= 2 and lane in [0, d_model)");
  }
  const RopeAngle a = rope_angle({position, 1.0, RopeFrequency::power(base, lane / 2, d_model)});
  SinusoidalValue v;
  v.exact = lane % 2 == 0 ? a.sin : a.cos;
  v.rounded = lane % 2 == 0 ? a.sin_rounded : a.cos_rounded;
  return v;
}

BlockStats sinusoidal_block(const pec_sinusoidal_args& a, Format target, float* rounded,
                            double* exact_f64) {
  if (a.n_tokens < 0 || a.d_model < 2 || a.d_model % 2 != 0 || !(a.base > 1)) {
    throw InvalidArgument("PREC-BAD-4", "bad sinusoidal arguments");
  }
  if (a.n_tokens > 0 && a.positions == nullptr) throw InvalidArgument("PREC-BAD-4", "null positions");
  if (target == Format::F64 && rounded != nullptr) {
    throw InvalidArgument("PREC-BAD-4", "for the f64 target use exact_f64 (rounded is float)");
  }
  BlockStats st;
  for (std::int64_t t = 0; t < a.n_tokens; ++t) {
    check_pos(a.positions[t], "position");
    for (std::int64_t i = 0; i < a.d_model / 2; ++i) {
      const RopeAngle an =
          rope_angle({a.positions[t], 1.0, RopeFrequency::power(a.base, i, a.d_model)});
      ++st.angles;
      const std::size_t idx = static_cast<std::size_t>(t * a.d_model + 2 * i);
      if (rounded) {
        rounded[idx] = static_cast<float>(an.sin_rounded.in(target));
        rounded[idx + 1] = static_cast<float>(an.cos_rounded.in(target));
      }
      if (exact_f64) {
        exact_f64[idx] = an.sin_rounded.f64;
        exact_f64[idx + 1] = an.cos_rounded.f64;
      }
      st.elements += 2;
    }
  }
  return st;
}

}  // namespace pecheck::oracle
