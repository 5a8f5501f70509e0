// The oracles of the RoPE family (spec/rope.md, "The RoPE family"; ROPE-ORACLE-1): the reference
// formulas of src/reference/rope_family.hpp instantiated with Boost.Multiprecision on MPFR, as
// scaled.cpp does for the scalings of ROPE-SCALE-*.
//
// Precision: each value is a handful of well-conditioned operations on positive values (log,
// sqrt, pow, floor of an exact quotient, products and quotients), each correctly rounded, so at
// P bits the relative error is <= 2^-(P-10). 70 decimal digits (~232 bits) give the fast value,
// 1000 digits (~3321 bits) the Ziv recomputation; beyond that the request is refused. The one
// discontinuity, Llama 4's floor((p + 1)/floor_scale), is of an exact quotient of two doubles
// (p < 2^31 and floor_scale are exact in either precision), so no rounding crosses it.
#include <boost/multiprecision/mpfr.hpp>
#include <cmath>
#include <stdexcept>

#include "oracle/mp_internal.hpp"
#include "reference/rope_family.hpp"

namespace pecheck::oracle {
namespace {

namespace bmp = boost::multiprecision;
template <unsigned Digits>
using MpT = bmp::number<bmp::mpfr_float_backend<Digits>>;

constexpr mpfr_prec_t kFast = 200;

// fn(T{}) evaluates the value in T; `exact_double` when the value is known to be that double.
template <class Fn>
void eval_bits(mpfr_prec_t bits, mpfr_ptr out, Fn&& fn) {
  if (bits <= 220) {
    const MpT<70> v = fn(MpT<70>{});
    mpfr_set(out, v.backend().data(), MPFR_RNDN);
  } else if (bits <= 3300) {
    const MpT<1000> v = fn(MpT<1000>{});
    mpfr_set(out, v.backend().data(), MPFR_RNDN);
  } else {
    throw std::runtime_error("oracle: RoPE-family values are available to 3300 bits");
  }
}

template <class Fn>
ExactScalar exact_scalar(Fn&& fn, const double* exact_double) {
  ExactScalar r;
  if (exact_double) {
    r.exact = {*exact_double, 0};
    r.rounded = mp::round_exact(*exact_double);
    return r;
  }
  mp::Mp v(kFast);
  eval_bits(kFast, v, fn);
  r.exact = mp::to_dd(v);
  int esc = 0;
  auto at = [&fn](mpfr_prec_t w, mpfr_ptr o, mpfr_ptr err) {
    mpfr_set_prec(o, w);
    eval_bits(w, o, fn);
    mpfr_abs(err, o, MPFR_RNDU);
    mpfr_mul_2si(err, err, -static_cast<long>(w) + 12, MPFR_RNDU);
  };
  r.rounded = mp::decide_all(r.exact, std::ldexp(std::fabs(r.exact.hi), -100), at, esc);
  return r;
}

}  // namespace

ExactScalar rope_attn_factor_exact(const reference::AttnFactorConfig& c) {
  reference::validate(c);
  const double one = 1.0;
  const bool scaled = c.rope_type == "yarn" || c.rope_type == "longrope";
  if (!scaled) return exact_scalar([](auto t) { return decltype(t)(1); }, &one);
  if (c.attention_factor > 0) {
    const double a = c.attention_factor;
    return exact_scalar([](auto t) { return decltype(t)(1); }, &a);
  }
  if (c.rope_type == "longrope" &&
      c.max_position_embeddings <= c.original_max_position_embeddings) {
    return exact_scalar([](auto t) { return decltype(t)(1); }, &one);
  }
  if (c.rope_type == "yarn" && c.factor <= 1.0) {
    return exact_scalar([](auto t) { return decltype(t)(1); }, &one);
  }
  return exact_scalar(
      [&c](auto t) {
        using T = decltype(t);
        return reference::rope_attn_factor<T>(c);
      },
      nullptr);
}

std::vector<InvFreq> longrope_inv_freq_exact(const reference::LongRopeConfig& c,
                                             std::int64_t seq_len) {
  reference::validate(c);
  std::vector<InvFreq> out(static_cast<std::size_t>(c.rotary_dim / 2));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const ExactScalar v = exact_scalar(
        [&c, seq_len, i](auto t) {
          using T = decltype(t);
          return reference::longrope_inv_freq<T>(c, seq_len)[i];
        },
        nullptr);
    out[i] = {v.exact, v.rounded};
  }
  return out;
}

ExactScalar llama4_attn_temperature_exact(const reference::Llama4Config& c, std::int64_t p) {
  reference::validate(c);
  reference::validate_rope_position(p);
  const double one = 1.0;
  // floor((p + 1)/floor_scale) = 0 exactly when p + 1 < floor_scale (both exact doubles): tau = 1
  if (!c.attn_temperature_tuning || c.attn_scale == 0 ||
      static_cast<double>(p) + 1.0 < c.floor_scale) {
    return exact_scalar([](auto t) { return decltype(t)(1); }, &one);
  }
  return exact_scalar(
      [&c, p](auto t) {
        using T = decltype(t);
        return reference::llama4_attn_temperature<T>(c, p);
      },
      nullptr);
}

ExactScalar mla_softmax_scale_exact(const reference::MlaConfig& c) {
  reference::validate(c);
  return exact_scalar(
      [&c](auto t) {
        using T = decltype(t);
        return reference::mla_softmax_scale<T>(c);
      },
      nullptr);
}

RopePairResult mrope_pair(const reference::MropeConfig& c, const reference::MropePosition& p,
                          std::int64_t i, double xa, double xb) {
  reference::validate(c);
  if (i < 0 || i >= c.rotary_dim / 2) {
    throw InvalidArgument("ROPE-MROPE-ARG-1", "frequency index outside [0, rotary_dim/2)");
  }
  AngleQuery q;
  q.position = p.axis(reference::mrope_axis(c, i));
  reference::validate_rope_position(q.position);
  q.position_scale = c.position_scale;
  q.freq = RopeFrequency::power(c.base, i, c.rotary_dim);
  return rope_pair(q, xa, xb);
}

}  // namespace pecheck::oracle
