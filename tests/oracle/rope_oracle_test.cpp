// The RoPE oracle against MPFR at 4096 bits computed directly in this test (angles near
// multiples of pi from the continued fraction of pi, the largest positions, random inputs),
// the Ziv escalation, blocks, and bad input.
// Clause: PREC-ORACLE-1, PREC-ORACLE-2, PREC-ORACLE-3, PREC-BAD-1, PREC-BAD-2, PREC-BAD-3, PREC-BAD-4
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "oracle/mp_internal.hpp"
#include "oracle/oracle.hpp"

namespace po = pecheck::oracle;

namespace {

// y = xa cos(p s f) - xb sin(p s f) (first) or xb cos + xa sin, at 4096 bits; f given exactly.
struct Ref {
  double f64;
  float f32;
};
Ref reference(std::int64_t p, double s, double f, double xa, double xb, bool first) {
  mpfr_t th, c, sn, y, t;
  mpfr_inits2(4096, th, c, sn, y, t, nullptr);
  mpfr_set_si(th, static_cast<long>(p), MPFR_RNDN);
  mpfr_mul_d(th, th, s, MPFR_RNDN);
  mpfr_mul_d(th, th, f, MPFR_RNDN);
  mpfr_sin_cos(sn, c, th, MPFR_RNDN);
  mpfr_mul_d(y, c, first ? xa : xb, MPFR_RNDN);
  mpfr_mul_d(t, sn, first ? xb : xa, MPFR_RNDN);
  if (first) {
    mpfr_sub(y, y, t, MPFR_RNDN);
  } else {
    mpfr_add(y, y, t, MPFR_RNDN);
  }
  Ref r{mpfr_get_d(y, MPFR_RNDN), mpfr_get_flt(y, MPFR_RNDN)};
  mpfr_clears(th, c, sn, y, t, nullptr);
  return r;
}

}  // namespace

// Numerators of continued-fraction convergents of pi: p is within 1/p of a multiple of pi, so
// sin(p) is tiny and a sloppy argument reduction loses every bit. Plus the largest positions.
TEST(RopeOracle, HardAnglesMatchMpfrAt4096Bits) {
  const std::int64_t hard[] = {355,      103993,    104348,    208341,    312689,    833719,
                               1146408,  4272943,   5419351,   80143857,  165707065, 245850922,
                               411557987, 1068966896, 2147483647, 2147483646, 1073741824};
  for (std::int64_t p : hard) {
    for (double f : {1.0, 0.5, 0.25, static_cast<double>(0.86596431f)}) {
      const po::AngleQuery q{p, 1.0, po::RopeFrequency::exact(f)};
      const auto r = po::rope_pair(q, 1.0, 0.0);  // ya = cos, yb = sin
      const Ref c = reference(p, 1.0, f, 1.0, 0.0, true);
      const Ref s = reference(p, 1.0, f, 1.0, 0.0, false);
      SCOPED_TRACE(p);
      EXPECT_EQ(r.ya_rounded.f64, c.f64);
      EXPECT_EQ(r.yb_rounded.f64, s.f64);
      EXPECT_EQ(r.ya_rounded.f32, c.f32);
      EXPECT_EQ(r.yb_rounded.f32, s.f32);
      EXPECT_EQ(r.angle.sin_rounded.f64, s.f64);
    }
  }
}

TEST(RopeOracle, RandomPairsMatchMpfrAt4096Bits) {
  std::mt19937_64 g(12345);
  std::uniform_int_distribution<std::int64_t> pos(0, (std::int64_t{1} << 31) - 1);
  std::uniform_real_distribution<float> xs(-4.0f, 4.0f);
  for (int n = 0; n < 300; ++n) {
    const std::int64_t p = n % 3 == 0 ? pos(g) % 5000 : pos(g);
    const double s = n % 5 == 0 ? 0.25 : 1.0;
    const float f = std::pow(10000.0f, -static_cast<float>(n % 64) / 64.0f);  // a float table
    const float xa = xs(g), xb = xs(g);
    const auto r = po::rope_pair({p, s, po::RopeFrequency::exact(f)}, xa, xb);
    const Ref a = reference(p, s, f, xa, xb, true), b = reference(p, s, f, xa, xb, false);
    EXPECT_EQ(r.ya_rounded.f64, a.f64) << p;
    EXPECT_EQ(r.yb_rounded.f64, b.f64) << p;
    EXPECT_EQ(r.ya_rounded.f32, a.f32) << p;
    EXPECT_EQ(r.yb_rounded.f32, b.f32) << p;
    // bf16/f16: the f32 value is not a double rounding witness, so compare with round_to of the
    // f64 value only where that value is far from a bf16/f16 midpoint (exactness of round_to is
    // checked in format_test); here: bf16/f16 results are representable and within half an ulp.
    EXPECT_TRUE(po::representable(r.ya_rounded.bf16, po::Format::BF16));
    EXPECT_LE(std::fabs(r.ya_rounded.bf16 - a.f64), po::ulp_of(a.f64, po::Format::BF16) / 2);
    EXPECT_LE(std::fabs(r.ya_rounded.f16 - a.f64), po::ulp_of(a.f64, po::Format::F16) / 2);
  }
}

TEST(RopeOracle, DecimalAngleToManyDigitsAgreesWithDoubleDouble) {
  const po::AngleQuery q{2147483647, 4.0, po::RopeFrequency::power(10000.0, 1, 96)};
  const auto d = po::rope_angle_decimal(q, 60);
  const auto a = po::rope_angle(q);
  mpfr_t x;
  mpfr_init2(x, 300);
  mpfr_set_str(x, d.cos.c_str(), 10, MPFR_RNDN);
  mpfr_sub_d(x, x, a.cos.hi, MPFR_RNDN);
  mpfr_sub_d(x, x, a.cos.lo, MPFR_RNDN);
  EXPECT_LE(std::fabs(mpfr_get_d(x, MPFR_RNDN)), 0x1p-104);
  mpfr_clear(x);
}

// Ziv: a value within the fast error of a binary32 midpoint is decided by recomputation.
TEST(RopeOracle, ZivEscalatesNearAMidpointAndDecidesCorrectly) {
  const double mid = 1.0 + 0x1p-24;  // midpoint between 1 and 1 + 2^-23
  for (double off : {0x1p-90, -0x1p-90}) {
    int esc = 0;
    auto exact = [off, mid](mpfr_prec_t w, mpfr_ptr out, mpfr_ptr err) {
      mpfr_set_prec(out, w);
      mpfr_set_d(out, mid, MPFR_RNDN);
      mpfr_add_d(out, out, off, MPFR_RNDN);
      mpfr_set_ui_2exp(err, 1, -static_cast<long>(w), MPFR_RNDU);
    };
    const double r = po::mp::decide({mid, 0}, 0x1p-80, po::Format::F32, exact, esc);
    EXPECT_EQ(esc, 1);
    EXPECT_EQ(r, off > 0 ? 1.0 + 0x1p-23 : 1.0);
  }
}

TEST(RopeOracle, BlockAgreesWithPairsForBothLayoutsAndPartialRotary) {
  const std::int64_t pos[] = {0, 7, 4095, 2147483647};
  std::vector<float> x(4 * 2 * 12);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 2.5f + 0.125f * static_cast<float>(i);
  for (int layout : {PEC_ROPE_NEOX, PEC_ROPE_GPTJ}) {
    pec_rope_args a{4, 2, 12, 8, layout, 10000.0, 1.0, pos, nullptr};
    std::vector<float> y(x.size());
    std::vector<double> y64(x.size());
    const auto st = po::rope_block(a, x.data(), po::Format::F32, y.data(), y64.data());
    EXPECT_EQ(st.angles, 4 * 4);
    EXPECT_EQ(st.elements, static_cast<std::int64_t>(x.size()));
    for (int t = 0; t < 4; ++t) {
      for (int h = 0; h < 2; ++h) {
        const std::size_t row = static_cast<std::size_t>((t * 2 + h) * 12);
        for (int i = 0; i < 4; ++i) {
          const int la = layout == PEC_ROPE_NEOX ? i : 2 * i, lb = layout == PEC_ROPE_NEOX ? i + 4 : 2 * i + 1;
          const auto r = po::rope_pair({pos[t], 1.0, po::RopeFrequency::power(10000.0, i, 8)}, x[row + la], x[row + lb]);
          EXPECT_EQ(y[row + la], r.ya_rounded.f32);
          EXPECT_EQ(y[row + lb], r.yb_rounded.f32);
          EXPECT_EQ(y64[row + la], r.ya_rounded.f64);
        }
        for (int l = 8; l < 12; ++l) EXPECT_EQ(y[row + l], x[row + l]);  // pass-through lanes
      }
    }
  }
}

// PREC-BAD-2: NaN propagates; at angle 0 the rotation is the identity; inf follows IEEE.
TEST(RopeOracle, NonFiniteInputsHaveDefinedResults) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = HUGE_VAL;
  const po::AngleQuery q{3, 1.0, po::RopeFrequency::exact(1.0)};
  auto r = po::rope_pair(q, nan, 1.0);
  EXPECT_TRUE(std::isnan(r.ya_rounded.f32));
  EXPECT_TRUE(std::isnan(r.yb_rounded.f16));
  r = po::rope_pair({0, 1.0, po::RopeFrequency::exact(1.0)}, inf, 2.0);
  EXPECT_EQ(r.ya_rounded.f32, HUGE_VALF);
  EXPECT_EQ(r.yb_rounded.f32, 2.0f);
  r = po::rope_pair(q, inf, 0.0);  // cos 3 < 0, sin 3 > 0
  EXPECT_EQ(r.ya_rounded.f32, -HUGE_VALF);
  EXPECT_EQ(r.yb_rounded.f32, HUGE_VALF);
}

// PREC-BAD-3: results beyond a format's range round to +-inf in that format only.
TEST(RopeOracle, OverflowOfTheTargetFormatGivesInfinity) {
  // angle pi/4-ish rotation of (FLT_MAX, -FLT_MAX) has |ya| ~ 1.41 FLT_MAX.
  const auto r = po::rope_pair({1, 1.0, po::RopeFrequency::exact(0.78539816)}, FLT_MAX, -FLT_MAX);
  EXPECT_EQ(r.ya_rounded.f32, HUGE_VALF);
  EXPECT_TRUE(std::isfinite(r.ya_rounded.f64));
  const auto h = po::rope_pair({1, 1.0, po::RopeFrequency::exact(0.78539816)}, 60000.0, -60000.0);
  EXPECT_EQ(h.ya_rounded.f16, HUGE_VALF);
  EXPECT_TRUE(std::isfinite(h.ya_rounded.f32));
}

TEST(RopeOracle, NegativePositionIsTheMathematicalNegativeAngle) {
  const auto a = po::rope_angle({-12345, 1.0, po::RopeFrequency::power(10000.0, 3, 128)});
  const auto b = po::rope_angle({12345, 1.0, po::RopeFrequency::power(10000.0, 3, 128)});
  EXPECT_EQ(a.cos_rounded.f64, b.cos_rounded.f64);
  EXPECT_EQ(a.sin_rounded.f64, -b.sin_rounded.f64);
}

// PREC-BAD-4: the block API has the ABI's domain.
TEST(RopeOracle, BlockRejectsArgumentsOutsideTheAbiDomain) {
  std::vector<float> x(8), y(8);
  const std::int64_t neg[] = {-1};
  const std::int64_t big[] = {std::int64_t{1} << 31};
  const std::int64_t ok[] = {1};
  pec_rope_args a{1, 1, 8, 8, PEC_ROPE_NEOX, 10000.0, 1.0, neg, nullptr};
  EXPECT_THROW(po::rope_block(a, x.data(), po::Format::F32, y.data(), nullptr), pecheck::InvalidArgument);
  a.positions = big;
  EXPECT_THROW(po::rope_block(a, x.data(), po::Format::F32, y.data(), nullptr), pecheck::InvalidArgument);
  a.positions = ok;
  a.rotary_dim = 7;
  EXPECT_THROW(po::rope_block(a, x.data(), po::Format::F32, y.data(), nullptr), pecheck::InvalidArgument);
  a.rotary_dim = 8;
  a.theta_base = 1.0;
  EXPECT_THROW(po::rope_block(a, x.data(), po::Format::F32, y.data(), nullptr), pecheck::InvalidArgument);
  a.theta_base = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(po::rope_block(a, x.data(), po::Format::F32, y.data(), nullptr), pecheck::InvalidArgument);
  EXPECT_THROW(po::rope_angle({1, std::numeric_limits<double>::infinity(), po::RopeFrequency::exact(1.0)}),
               pecheck::InvalidArgument);
  EXPECT_THROW(po::alibi_bias(8, 0, -1, 0, PEC_ALIBI_SYMMETRIC), pecheck::InvalidArgument);
  EXPECT_THROW(po::alibi_slope(0, 0), pecheck::InvalidArgument);
}

TEST(AlibiOracle, CausalMasksFutureKeysAndBiasIsSlopeTimesDistance) {
  const auto m = po::alibi_bias(12, 3, 5, 9, PEC_ALIBI_CAUSAL);
  EXPECT_TRUE(m.masked);
  EXPECT_EQ(m.rounded.f32, -HUGE_VALF);
  const auto b = po::alibi_bias(12, 9, 2000000000, 3, PEC_ALIBI_SYMMETRIC);
  const auto s = po::alibi_slope(12, 9);
  mpfr_t v;
  mpfr_init2(v, 4096);
  mpfr_set_d(v, -1.5, MPFR_RNDN);  // p = 8, head 9: -4 (2 (9 - 8) + 1) / 8
  mpfr_exp2(v, v, MPFR_RNDN);
  mpfr_mul_si(v, v, -(2000000000 - 3), MPFR_RNDN);
  EXPECT_EQ(b.rounded.f64, mpfr_get_d(v, MPFR_RNDN));
  EXPECT_EQ(b.rounded.f32, mpfr_get_flt(v, MPFR_RNDN));
  EXPECT_LT(s.exact.hi, 1.0);
  mpfr_clear(v);
}
