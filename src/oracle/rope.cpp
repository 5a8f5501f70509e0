// RoPE oracle: exact angle, cos/sin, rotated pairs; MPFR helpers and the Ziv loop
// (spec/contracts.md PREC-ORACLE-1..3).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "oracle/mp_internal.hpp"

namespace pecheck::oracle {

namespace {

using mp::Mp;

constexpr mpfr_prec_t kFastPrec = 128;
// Absolute error of the fast-path cos/sin double-doubles (PREC-ORACLE-1): MPFR's correctly
// rounded 128-bit value of cos(theta~) (<= 2^-129), the angle's error (<= 2^-140 by the
// precision rule in Frequency::angle), and the conversion to double-double (<= 2^-106).
constexpr double kTrigErr = 0x1p-104;

void check_query(const AngleQuery& q) {
  if (!std::isfinite(q.position_scale)) {
    throw InvalidArgument("PREC-BAD-1", "position_scale is not finite");
  }
  if (q.position > (std::int64_t{1} << 53) || q.position < -(std::int64_t{1} << 53)) {
    throw InvalidArgument("PREC-BAD-1", "|position| exceeds 2^53");
  }
  const auto& f = q.freq;
  if (f.kind == RopeFrequency::Kind::Given) {
    if (!std::isfinite(f.given)) throw InvalidArgument("PREC-BAD-1", "inverse frequency is not finite");
  } else if (f.kind == RopeFrequency::Kind::Scaled) {
    if (f.config == nullptr) throw InvalidArgument("PREC-BAD-1", "scaled frequency without a config");
    reference::validate(*f.config);
    if (f.index < 0 || 2 * f.index >= f.config->rotary_dim) {
      throw InvalidArgument("PREC-BAD-1", "frequency index outside [0, rotary_dim/2)");
    }
  } else {
    if (!(f.base > 1) || !std::isfinite(f.base)) {
      throw InvalidArgument("PREC-BAD-1", "base must be finite and > 1");
    }
    if (f.rotary_dim < 2 || f.rotary_dim % 2 != 0 || f.index < 0 || 2 * f.index >= f.rotary_dim) {
      throw InvalidArgument("PREC-BAD-1", "frequency index outside [0, rotary_dim/2)");
    }
  }
}

// The inverse frequency at a precision that makes the angle's absolute error <= 2^-(w+12) for
// |position * scale| <= 2^ps_exp:
//   Power: e = -2i/d rounded to pf bits (|de| <= 2^-pf), f = pow(base, e) rounded to pf bits;
//   relative error of f <= 2^-pf (1 + |ln base|) <= 2^(11-pf) since ln(base) < 710 for a double
//   base; |theta| = |p s| f <= 2^ps_exp (f <= 1), so pf = w + 24 + ps_exp suffices.
//   Given: exact (53 bits).
struct Frequency {
  Frequency(const RopeFrequency& rf, mpfr_prec_t w, long ps_exp)
      : pf(rf.kind == RopeFrequency::Kind::Given ? 64 : w + 24 + (ps_exp > 0 ? ps_exp : 0)),
        value(pf) {
    if (rf.kind == RopeFrequency::Kind::Given) {
      mpfr_set_d(value, rf.given, MPFR_RNDN);
      exact = true;
    } else if (rf.kind == RopeFrequency::Kind::Scaled) {
      // Relative error <= 2^-(pf - 11) (PREC-ORACLE-7): within the Power bound used below.
      mp::scaled_inv_freq(*rf.config, rf.seq_len, rf.index, pf, value);
    } else {
      Mp e(pf), b(64);
      mpfr_set_si(e, -2 * rf.index, MPFR_RNDN);
      mpfr_div_si(e, e, rf.rotary_dim, MPFR_RNDN);
      mpfr_set_d(b, rf.base, MPFR_RNDN);
      mpfr_pow(value, b, e, MPFR_RNDN);
      exact = rf.index == 0;
    }
  }
  // theta = p * s * f: p*s is exact in 128 bits (64 + 53), and the product with f exactly in
  // pf + 128 bits, so theta's only error is f's. cos/sin are MPFR's, correctly rounded to w bits.
  void angle(std::int64_t position, double scale, mpfr_prec_t w, mpfr_ptr theta, mpfr_ptr c,
             mpfr_ptr s) const {
    Mp ps(128);
    mpfr_set_si(ps, static_cast<long>(position), MPFR_RNDN);
    mpfr_mul_d(ps, ps, scale, MPFR_RNDN);
    mpfr_set_prec(theta, pf + 128);
    mpfr_mul(theta, ps, value, MPFR_RNDN);
    mpfr_set_prec(c, w);
    mpfr_set_prec(s, w);
    mpfr_sin_cos(s, c, theta, MPFR_RNDN);
  }
  mpfr_prec_t pf;
  Mp value;
  bool exact = false;
};

long ps_exponent(std::int64_t position, double scale) {
  const double ps = std::fabs(static_cast<double>(position) * scale);
  if (ps == 0 || !std::isfinite(ps)) return 0;
  return std::ilogb(ps) + 2;
}

void exact_angle(const AngleQuery& q, mpfr_prec_t w, mpfr_ptr theta, mpfr_ptr c, mpfr_ptr s) {
  Frequency f(q.freq, w, ps_exponent(q.position, q.position_scale));
  f.angle(q.position, q.position_scale, w, theta, c, s);
}

// When theta = p s f is a dyadic rational (so it may be representable or a rounding tie),
// sets `out` to it exactly and returns true; otherwise theta is irrational or a non-dyadic
// rational, never on a rounding boundary, and Ziv's loop ends without this. Cases:
//   Given f: always exact (p s f has <= 170 bits).
//   Power f = base^(-a/b) (a/b = 2i/d reduced), base = B 2^k with B odd: f is rational iff
//   b | k a and B^a is a perfect b-th power C^b; then f = 2^(-k a/b) / C and theta is dyadic
//   iff C divides the odd integer part of p s.
bool exact_theta(const AngleQuery& q, mpfr_ptr out) {
  Mp ps(128);
  mpfr_set_si(ps, static_cast<long>(q.position), MPFR_RNDN);
  mpfr_mul_d(ps, ps, q.position_scale, MPFR_RNDN);
  mpfr_set_prec(out, 256);
  if (q.freq.kind == RopeFrequency::Kind::Given) {
    mpfr_mul_d(out, ps, q.freq.given, MPFR_RNDN);
    return true;
  }
  if (q.freq.index == 0 || mpfr_zero_p(ps)) {
    if (q.freq.kind == RopeFrequency::Kind::Scaled) {
      // f_0 of a scaled RoPE: 1 (none, NTK, dynamic NTK), 1/factor (linear); others irrational
      // or not decided here.
      const auto k = q.freq.config->scaling.kind;
      if (k == reference::RopeScaling::Linear) {
        return mpfr_div_d(out, ps, q.freq.config->scaling.factor, MPFR_RNDN) == 0;
      }
      if (k != reference::RopeScaling::None && k != reference::RopeScaling::Ntk &&
          k != reference::RopeScaling::DynamicNtk && !mpfr_zero_p(ps)) {
        return false;
      }
    }
    mpfr_set(out, ps, MPFR_RNDN);
    return true;
  }
  if (q.freq.kind == RopeFrequency::Kind::Scaled) {
    if (q.freq.config->scaling.kind != reference::RopeScaling::None) return false;
    AngleQuery plain = q;
    plain.freq = RopeFrequency::power(q.freq.config->base, q.freq.index, q.freq.config->rotary_dim);
    return exact_theta(plain, out);
  }
  const std::int64_t g = std::gcd(2 * q.freq.index, q.freq.rotary_dim);
  const unsigned long a = static_cast<unsigned long>(2 * q.freq.index / g);
  const unsigned long b = static_cast<unsigned long>(q.freq.rotary_dim / g);
  int e2 = 0;
  const double m = std::frexp(q.freq.base, &e2);
  auto bi = static_cast<std::uint64_t>(std::ldexp(m, 53));
  long k = e2 - 53;
  while (bi % 2 == 0) {
    bi /= 2;
    ++k;
  }
  if ((k * static_cast<long>(a)) % static_cast<long>(b) != 0) return false;
  mpz_t bz, c, num;
  mpz_inits(bz, c, num, nullptr);
  mpz_set_ui(bz, static_cast<unsigned long>(bi));
  mpz_pow_ui(bz, bz, a);
  bool ok = mpz_root(c, bz, b) != 0;  // exact b-th root?
  if (ok) {
    // p s = N 2^t with N an integer: divide N by C exactly or give up (theta not dyadic).
    mpfr_exp_t t = mpfr_get_z_2exp(num, ps);
    ok = mpz_divisible_p(num, c) != 0;
    if (ok) {
      mpz_divexact(num, num, c);
      mpfr_set_z_2exp(out, num, t - k * static_cast<long>(a) / static_cast<long>(b), MPFR_RNDN);
    }
  }
  mpz_clears(bz, c, num, nullptr);
  return ok;
}

RopeAngle angle_from(const AngleQuery& q, const Frequency& f) {
  RopeAngle a;
  Mp theta(64), c(kFastPrec), s(kFastPrec);
  f.angle(q.position, q.position_scale, kFastPrec, theta, c, s);
  a.angle = mp::to_dd(theta);
  a.cos = mp::to_dd(c);
  a.sin = mp::to_dd(s);
  a.freq = mp::to_dd(f.value);
  return a;
}

void fill_rounded(const AngleQuery& q, RopeAngle& a) {
  int esc = 0;
  if (a.angle.hi == 0) {
    a.angle_rounded = mp::round_exact(0.0);
    a.cos_rounded = mp::round_exact(1.0);
    a.sin_rounded = mp::round_exact(0.0);
    return;
  }
  auto theta_at = [&](mpfr_prec_t w, mpfr_ptr out, mpfr_ptr err) {
    if (exact_theta(q, out)) {
      mpfr_set_zero(err, 1);
      return;
    }
    Mp c(w), s(w);
    exact_angle(q, w, out, c, s);
    mpfr_abs(err, out, MPFR_RNDU);
    mpfr_mul_2si(err, err, -static_cast<long>(w), MPFR_RNDU);
  };
  auto trig_at = [&](bool want_cos) {
    return [&q, want_cos](mpfr_prec_t w, mpfr_ptr out, mpfr_ptr err) {
      Mp theta(64), c(w), s(w);
      exact_angle(q, w, theta, c, s);
      mpfr_set(out, want_cos ? c.get() : s.get(), MPFR_RNDN);
      mpfr_set_ui_2exp(err, 1, -static_cast<long>(w), MPFR_RNDU);
    };
  };
  a.angle_rounded = mp::decide_all(a.angle, std::ldexp(std::fabs(a.angle.hi), -100), theta_at, esc);
  a.cos_rounded = mp::decide_all(a.cos, kTrigErr, trig_at(true), esc);
  a.sin_rounded = mp::decide_all(a.sin, kTrigErr, trig_at(false), esc);
}

// Error of the double-double rotation (PREC-ORACLE-2): cos/sin off by <= 2^-104 each, so
// |xa| 2^-104 + |xb| 2^-104; mul_d and sub add <= 2^-104 (|xa c| + |xb s|) <= 2^-104 M.
// Total <= 2^-103 M; we use 2^-101 M (margin for the second-order terms).
double pair_err(double xa, double xb) { return std::ldexp(std::fabs(xa) + std::fabs(xb), -101); }

struct PairOut {
  DoubleDouble ya, yb;
};

PairOut rotate_dd(const RopeAngle& a, double xa, double xb) {
  PairOut o;
  o.ya = dd::sub(dd::mul_d(xa, a.cos), dd::mul_d(xb, a.sin));
  o.yb = dd::add(dd::mul_d(xb, a.cos), dd::mul_d(xa, a.sin));
  return o;
}

// The element recomputed at w bits: y = xa c - xb s (first) or xb c + xa s, products exact,
// sum rounded at w + 128 bits; error <= M 2^-w + |y| 2^-(w+128) <= M 2^-(w-1).
auto recompute_pair(const AngleQuery& q, double xa, double xb, bool first) {
  return [&q, xa, xb, first](mpfr_prec_t w, mpfr_ptr out, mpfr_ptr err) {
    Mp theta(64), c(w), s(w), t1(w + 64), t2(w + 64);
    exact_angle(q, w, theta, c, s);
    if (first) {
      mpfr_mul_d(t1, c, xa, MPFR_RNDN);
      mpfr_mul_d(t2, s, xb, MPFR_RNDN);
      mpfr_sub(out, t1, t2, MPFR_RNDN);
    } else {
      mpfr_mul_d(t1, c, xb, MPFR_RNDN);
      mpfr_mul_d(t2, s, xa, MPFR_RNDN);
      mpfr_add(out, t1, t2, MPFR_RNDN);
    }
    mpfr_set_d(err, std::fabs(xa), MPFR_RNDU);
    mpfr_add_d(err, err, std::fabs(xb), MPFR_RNDU);
    mpfr_mul_2si(err, err, -static_cast<long>(w) + 1, MPFR_RNDU);
  };
}

// Non-finite inputs (PREC-BAD-2): the IEEE double evaluation on the exact cos/sin.
bool special_pair(const RopeAngle& a, double xa, double xb, PairOut& o) {
  if (std::isfinite(xa) && std::isfinite(xb)) return false;
  if (a.angle.hi == 0) {
    o.ya = {xa, 0};
    o.yb = {xb, 0};
    return true;
  }
  o.ya = {xa * a.cos.hi - xb * a.sin.hi, 0};
  o.yb = {xb * a.cos.hi + xa * a.sin.hi, 0};
  return true;
}

}  // namespace

RopeFrequency RopeFrequency::scaled(const reference::RopeConfig& c, std::int64_t index,
                                    std::int64_t seq_len) {
  RopeFrequency f;
  f.kind = Kind::Scaled;
  f.base = c.base;
  f.index = index;
  f.rotary_dim = c.rotary_dim;
  f.config = &c;
  f.seq_len = seq_len;
  return f;
}

std::vector<InvFreq> rope_inv_freq_exact(const reference::RopeConfig& c, std::int64_t seq_len) {
  reference::validate(c);
  std::vector<InvFreq> out(static_cast<std::size_t>(c.rotary_dim / 2));
  int esc = 0;
  for (std::int64_t i = 0; i < c.rotary_dim / 2; ++i) {
    Mp v(kFastPrec);
    mp::scaled_inv_freq(c, seq_len, i, kFastPrec, v);
    InvFreq& f = out[static_cast<std::size_t>(i)];
    f.exact = mp::to_dd(v);  // relative error <= 2^-118 + 2^-106
    auto at = [&c, seq_len, i](mpfr_prec_t w, mpfr_ptr o, mpfr_ptr err) {
      mpfr_set_prec(o, w);
      mp::scaled_inv_freq(c, seq_len, i, w, o);
      mpfr_abs(err, o, MPFR_RNDU);
      mpfr_mul_2si(err, err, -static_cast<long>(w) + 1, MPFR_RNDU);
    };
    f.rounded = mp::decide_all(f.exact, std::ldexp(f.exact.hi, -104), at, esc);
  }
  return out;
}

RopeAngle rope_angle(const AngleQuery& q) {
  check_query(q);
  Frequency f(q.freq, kFastPrec, ps_exponent(q.position, q.position_scale));
  RopeAngle a = angle_from(q, f);
  fill_rounded(q, a);
  return a;
}

RopePairResult rope_pair(const AngleQuery& q, double xa, double xb) {
  RopePairResult r;
  r.angle = rope_angle(q);
  PairOut o;
  if (special_pair(r.angle, xa, xb, o) || r.angle.angle.hi == 0) {
    if (r.angle.angle.hi == 0 && std::isfinite(xa) && std::isfinite(xb)) o = {{xa, 0}, {xb, 0}};
    r.ya = o.ya;
    r.yb = o.yb;
    r.ya_rounded = mp::round_exact(o.ya.hi);
    r.yb_rounded = mp::round_exact(o.yb.hi);
    return r;
  }
  o = rotate_dd(r.angle, xa, xb);
  r.ya = o.ya;
  r.yb = o.yb;
  if (xa == 0 && xb == 0) {
    r.ya_rounded = mp::round_exact(0.0);
    r.yb_rounded = mp::round_exact(0.0);
    return r;
  }
  const double err = pair_err(xa, xb);
  r.ya_rounded = mp::decide_all(o.ya, err, recompute_pair(q, xa, xb, true), r.escalations);
  r.yb_rounded = mp::decide_all(o.yb, err, recompute_pair(q, xa, xb, false), r.escalations);
  return r;
}

namespace {

void check_block(const pec_rope_args& a, const float* x, bool need_x = true) {
  const char* c = "PREC-BAD-4";
  if (a.n_tokens < 0 || a.n_heads < 1 || a.head_dim < 2) throw InvalidArgument(c, "bad RoPE block shape");
  if (a.rotary_dim < 2 || a.rotary_dim % 2 != 0 || a.rotary_dim > a.head_dim) {
    throw InvalidArgument(c, "rotary_dim must be even with 2 <= rotary_dim <= head_dim");
  }
  if (a.layout != PEC_ROPE_NEOX && a.layout != PEC_ROPE_GPTJ) throw InvalidArgument(c, "unknown RoPE layout");
  if (!(a.theta_base > 1) || !std::isfinite(a.theta_base)) throw InvalidArgument(c, "theta_base must be finite and > 1");
  if (!(a.position_scale > 0) || !std::isfinite(a.position_scale)) {
    throw InvalidArgument(c, "position_scale must be finite and > 0");
  }
  if (a.n_tokens > 0 && (a.positions == nullptr || (need_x && x == nullptr))) throw InvalidArgument(c, "null array");
  for (std::int64_t t = 0; t < a.n_tokens; ++t) {
    if (a.positions[t] < 0 || a.positions[t] >= (std::int64_t{1} << 31)) {
      throw InvalidArgument(c, "position " + std::to_string(a.positions[t]) + " outside [0, 2^31)");
    }
  }
  if (a.inv_freq != nullptr) {
    for (std::int64_t i = 0; i < a.rotary_dim / 2; ++i) {
      if (!std::isfinite(a.inv_freq[i])) throw InvalidArgument(c, "inv_freq entry is not finite");
    }
  }
}

RopeFrequency block_freq(const pec_rope_args& a, std::int64_t i) {
  if (a.inv_freq != nullptr) return RopeFrequency::exact(a.inv_freq[i]);
  return RopeFrequency::power(a.theta_base, i, a.rotary_dim);
}

// Angles of a block: each frequency once (at the precision the largest position needs), then
// each (token, frequency) angle once.
std::vector<RopeAngle> block_angles(const pec_rope_args& a) {
  const std::int64_t half = a.rotary_dim / 2;
  std::int64_t pmax = 0;
  for (std::int64_t t = 0; t < a.n_tokens; ++t) pmax = std::max(pmax, a.positions[t]);
  const long ps_exp = ps_exponent(pmax, a.position_scale);
  std::vector<RopeAngle> out(static_cast<std::size_t>(a.n_tokens * half));
  for (std::int64_t i = 0; i < half; ++i) {
    const AngleQuery base{0, a.position_scale, block_freq(a, i)};
    Frequency f(base.freq, kFastPrec, ps_exp);
    for (std::int64_t t = 0; t < a.n_tokens; ++t) {
      AngleQuery q = base;
      q.position = a.positions[t];
      out[static_cast<std::size_t>(t * half + i)] = angle_from(q, f);
    }
  }
  return out;
}

}  // namespace

std::vector<RopeAngle> rope_block_angles(const pec_rope_args& args) {
  check_block(args, nullptr, false);
  std::vector<RopeAngle> v = block_angles(args);
  const std::int64_t half = args.rotary_dim / 2;
  for (std::int64_t t = 0; t < args.n_tokens; ++t) {
    for (std::int64_t i = 0; i < half; ++i) {
      fill_rounded({args.positions[t], args.position_scale, block_freq(args, i)},
                   v[static_cast<std::size_t>(t * half + i)]);
    }
  }
  return v;
}

BlockStats rope_block(const pec_rope_args& args, const float* x, Format target, float* rounded,
                      double* exact_f64) {
  check_block(args, x);
  if (target == Format::F64 && rounded != nullptr) {
    throw InvalidArgument("PREC-BAD-4", "for the f64 target use exact_f64 (rounded is float)");
  }
  BlockStats st;
  const std::vector<RopeAngle> angles = block_angles(args);
  st.angles = static_cast<std::int64_t>(angles.size());
  const std::int64_t half = args.rotary_dim / 2, hd = args.head_dim;
  int esc = 0;
  auto emit = [&](std::size_t idx, DoubleDouble v, double err, const AngleQuery& q, double xa,
                  double xb, bool first, bool exact) {
    if (exact) {
      if (rounded) rounded[idx] = static_cast<float>(round_to(v.hi, target));
      if (exact_f64) exact_f64[idx] = v.hi;
      return;
    }
    auto rc = recompute_pair(q, xa, xb, first);
    if (rounded) rounded[idx] = static_cast<float>(mp::decide(v, err, target, rc, esc));
    if (exact_f64) exact_f64[idx] = mp::decide(v, err, Format::F64, rc, esc);
  };
  for (std::int64_t t = 0; t < args.n_tokens; ++t) {
    for (std::int64_t h = 0; h < args.n_heads; ++h) {
      const std::size_t row = static_cast<std::size_t>((t * args.n_heads + h) * hd);
      for (std::int64_t i = 0; i < half; ++i) {
        const RopeAngle& an = angles[static_cast<std::size_t>(t * half + i)];
        const std::int64_t la = args.layout == PEC_ROPE_NEOX ? i : 2 * i;
        const std::int64_t lb = args.layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
        const double xa = x[row + la], xb = x[row + lb];
        const AngleQuery q{args.positions[t], args.position_scale, block_freq(args, i)};
        PairOut o;
        bool exact = special_pair(an, xa, xb, o);
        if (!exact && (an.angle.hi == 0 || (xa == 0 && xb == 0))) {
          o = an.angle.hi == 0 ? PairOut{{xa, 0}, {xb, 0}} : PairOut{{0, 0}, {0, 0}};
          exact = true;
        }
        if (!exact) o = rotate_dd(an, xa, xb);
        const double err = pair_err(xa, xb);
        emit(row + la, o.ya, err, q, xa, xb, true, exact);
        emit(row + lb, o.yb, err, q, xa, xb, false, exact);
      }
      for (std::int64_t l = args.rotary_dim; l < hd; ++l) {
        const double v = x[row + l];
        if (rounded) rounded[row + l] = static_cast<float>(round_to(v, target));
        if (exact_f64) exact_f64[row + l] = v;
      }
    }
  }
  st.elements = args.n_tokens * args.n_heads * hd;
  st.escalations = esc;
  return st;
}

BlockStats rope_block_exact(const pec_rope_args& args, const float* x, DoubleDouble* y,
                            DoubleDouble* theta) {
  check_block(args, x);
  BlockStats st;
  const std::vector<RopeAngle> angles = block_angles(args);
  st.angles = static_cast<std::int64_t>(angles.size());
  const std::int64_t half = args.rotary_dim / 2, hd = args.head_dim;
  if (theta) {
    for (std::size_t k = 0; k < angles.size(); ++k) theta[k] = angles[k].angle;
  }
  if (!y) return st;
  for (std::int64_t t = 0; t < args.n_tokens; ++t) {
    for (std::int64_t h = 0; h < args.n_heads; ++h) {
      const std::size_t row = static_cast<std::size_t>((t * args.n_heads + h) * hd);
      for (std::int64_t i = 0; i < half; ++i) {
        const RopeAngle& an = angles[static_cast<std::size_t>(t * half + i)];
        const std::int64_t la = args.layout == PEC_ROPE_NEOX ? i : 2 * i;
        const std::int64_t lb = args.layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
        const double xa = x[row + la], xb = x[row + lb];
        PairOut o;
        if (!special_pair(an, xa, xb, o)) {
          o = an.angle.hi == 0 ? PairOut{{xa, 0}, {xb, 0}} : rotate_dd(an, xa, xb);
        }
        y[row + la] = o.ya;
        y[row + lb] = o.yb;
      }
      for (std::int64_t l = args.rotary_dim; l < hd; ++l) y[row + l] = {x[row + l], 0};
    }
  }
  st.elements = args.n_tokens * args.n_heads * hd;
  return st;
}

AngleDecimal rope_angle_decimal(const AngleQuery& q, int digits) {
  check_query(q);
  if (digits < 1 || digits > 10000) throw InvalidArgument("PREC-BAD-1", "digits outside [1, 10000]");
  const mpfr_prec_t w = static_cast<mpfr_prec_t>(digits) * 4 + 64;
  Mp theta(64), c(w), s(w);
  exact_angle(q, w, theta, c, s);
  auto str = [digits](mpfr_srcptr v) {
    std::vector<char> buf(static_cast<std::size_t>(digits) + 64);
    mpfr_snprintf(buf.data(), buf.size(), "%.*Re", digits - 1, v);
    return std::string(buf.data());
  };
  return {str(theta), str(c), str(s)};
}

}  // namespace pecheck::oracle
