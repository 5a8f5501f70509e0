// Internal to the oracle (not part of its API): MPFR helpers shared by rope.cpp and
// encodings.cpp, and the Ziv escalation loop. Includes <mpfr.h>; never include it from a
// public header.
#pragma once

#include <mpfr.h>

#include <stdexcept>

#include "oracle/dd.hpp"
#include "oracle/oracle.hpp"
#include "reference/rope.hpp"

namespace pecheck::oracle::mp {

// An MPFR number with RAII (MPFR's C API gives exact control of each operation's precision).
class Mp {
 public:
  explicit Mp(mpfr_prec_t prec) { mpfr_init2(v_, prec); }
  ~Mp() { mpfr_clear(v_); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
  operator mpfr_ptr() { return v_; }
  operator mpfr_srcptr() const { return v_; }
  mpfr_ptr get() { return v_; }

 private:
  mpfr_t v_;
};

// Nearest-even rounding of x to the format, exact (the significand is rounded as an integer
// multiple of the format's quantum at x's exponent, subnormals and overflow included).
double round_mp(mpfr_srcptr x, Format f);
// Ziv's check in MPFR: [x - err, x + err] rounds to one value of the format.
bool ziv_round_mp(mpfr_srcptr x, mpfr_srcptr err, Format f, double& out);
// x as hi + lo with |x - (hi + lo)| <= 2^-106 |x| (for x within the double range).
DoubleDouble to_dd(mpfr_srcptr x);

// The largest precision the escalation reaches before declaring an internal error. Only exact
// values can sit on a rounding boundary, and those are handled exactly before rounding.
inline constexpr mpfr_prec_t kMaxPrec = 1 << 16;

// Correct rounding of one value to format f: fast decision on (v, err); otherwise `recompute`
// (callable (mpfr_prec_t W, mpfr_ptr value, mpfr_ptr err)) at 256, 512, ... bits.
template <class Recompute>
double decide(DoubleDouble v, double err, Format f, Recompute&& recompute, int& escalations) {
  double out = 0;
  if (dd::ziv_round(v, err, f, out)) return out;
  ++escalations;
  for (mpfr_prec_t w = 256; w <= kMaxPrec; w *= 2) {
    Mp x(w + 128), e(64);
    recompute(w, x.get(), e.get());
    if (ziv_round_mp(x, e, f, out)) return out;
  }
  throw std::runtime_error("oracle: rounding undecided at 65536 bits (an exact case not caught)");
}

template <class Recompute>
Rounded decide_all(DoubleDouble v, double err, Recompute&& recompute, int& escalations) {
  Rounded r;
  r.f64 = decide(v, err, Format::F64, recompute, escalations);
  r.f32 = static_cast<float>(decide(v, err, Format::F32, recompute, escalations));
  r.bf16 = static_cast<float>(decide(v, err, Format::BF16, recompute, escalations));
  r.f16 = static_cast<float>(decide(v, err, Format::F16, recompute, escalations));
  return r;
}

// f_i of a scaled RoPE (scaled.cpp) with relative error <= 2^-(bits - 10); bits <= 3300.
void scaled_inv_freq(const reference::RopeConfig& c, std::int64_t seq_len, std::int64_t i,
                     mpfr_prec_t bits, mpfr_ptr out);

// An exactly known double value rounded to every format.
Rounded round_exact(double x);

}  // namespace pecheck::oracle::mp
