// Formats, nearest-even rounding and ULP metrics. Clause: PREC-ULP-1, PREC-ULP-2, PREC-ULP-3
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "core/error.hpp"
#include "oracle/format.hpp"
#include "oracle/mp_internal.hpp"

namespace po = pecheck::oracle;

TEST(Format, NearestEvenRoundingAtTiesSubnormalsAndOverflow) {
  using po::Format;
  EXPECT_EQ(po::round_to(1.0 + 0x1p-8, Format::BF16), 1.0);                 // tie to even
  EXPECT_EQ(po::round_to(1.0 + 3 * 0x1p-8, Format::BF16), 1.0 + 0x1p-6);    // tie to even (up)
  EXPECT_EQ(po::round_to(1.0 + 0x1p-8 + 0x1p-30, Format::BF16), 1.0 + 0x1p-7);
  EXPECT_EQ(po::round_to(65519.99, Format::F16), 65504.0);
  EXPECT_EQ(po::round_to(65520.0, Format::F16), HUGE_VAL);                  // overflow threshold
  EXPECT_EQ(po::round_to(-65520.0, Format::F16), -HUGE_VAL);
  EXPECT_EQ(po::round_to(0x1p-25, Format::F16), 0.0);                       // half min subnormal: tie to 0
  EXPECT_EQ(po::round_to(0x1.8p-25, Format::F16), 0x1p-24);
  EXPECT_TRUE(std::signbit(po::round_to(-0x1p-30, Format::F16)));
  EXPECT_EQ(po::round_to(0x1p-150, Format::F32), 0.0);
  EXPECT_EQ(po::round_to(0x1.0000001p-150, Format::F32), 0x1p-149);
  EXPECT_TRUE(std::isnan(po::round_to(NAN, Format::F32)));
  EXPECT_EQ(po::format_info(Format::F16).max_finite, 65504.0);
  EXPECT_EQ(po::format_info(Format::BF16).max_finite, 0x1.fep127);
  EXPECT_EQ(po::format_info(Format::F32).max_finite, static_cast<double>(FLT_MAX));
}

// round_to to binary32 equals the hardware double->float conversion (nearest-even) everywhere,
// and the MPFR rounding agrees with both; bf16 equals the bit-level nearest-even rounding.
TEST(Format, RoundToMatchesHardwareAndMpfr) {
  std::mt19937_64 g(7);
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t bits = g();
    double x;
    std::memcpy(&x, &bits, 8);
    if (!std::isfinite(x) || std::fabs(x) > 1e40 || std::fabs(x) < 1e-50) {
      x = std::ldexp(static_cast<double>(bits >> 11), -static_cast<int>(bits % 200) - 40);
    }
    const float hw = static_cast<float>(x);
    ASSERT_EQ(po::round_to(x, po::Format::F32), static_cast<double>(hw)) << x;
    mpfr_t m;
    mpfr_init2(m, 64);
    mpfr_set_d(m, x, MPFR_RNDN);
    ASSERT_EQ(po::mp::round_mp(m, po::Format::F32), static_cast<double>(hw)) << x;
    ASSERT_EQ(po::mp::round_mp(m, po::Format::BF16), po::round_to(x, po::Format::BF16)) << x;
    ASSERT_EQ(po::mp::round_mp(m, po::Format::F16), po::round_to(x, po::Format::F16)) << x;
    mpfr_clear(m);
    // bf16 from its bits: round the float's 32-bit pattern at bit 16, nearest-even.
    if (std::isfinite(hw) && x == static_cast<double>(hw)) {
      std::uint32_t u;
      std::memcpy(&u, &hw, 4);
      const std::uint32_t r = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u;
      float b;
      std::memcpy(&b, &r, 4);
      ASSERT_EQ(po::round_to(x, po::Format::BF16), static_cast<double>(b)) << x;
    }
  }
}

TEST(Format, UlpDistanceTreatsZerosNansAndInfinitiesExplicitly) {
  using po::Format;
  EXPECT_EQ(po::ulp_distance(0.0, -0.0, Format::F32).ulps, 0);
  EXPECT_EQ(po::ulp_distance(1.0, std::nextafter(1.0f, 2.0f), Format::F32).ulps, 1);
  EXPECT_EQ(po::ulp_distance(-0x1p-149, 0x1p-149, Format::F32).ulps, 2);
  EXPECT_EQ(po::ulp_distance(1.0, 0.99609375, Format::BF16).ulps, 1);  // 1 - 2^-8
  EXPECT_EQ(po::ulp_distance(FLT_MAX, HUGE_VAL, Format::F32).ulps, 1);
  const auto both = po::ulp_distance(NAN, NAN, Format::F32);
  EXPECT_EQ(both.nan, po::NanMatch::Both);
  EXPECT_EQ(both.ulps, 0);
  const auto one = po::ulp_distance(NAN, 1.0, Format::F32);
  EXPECT_EQ(one.nan, po::NanMatch::One);
  EXPECT_TRUE(std::isinf(one.ulps));
  EXPECT_THROW(po::ulp_distance(1.0 + 0x1p-40, 1.0, Format::F32), pecheck::InvalidArgument);
  // Distances across a binade: 2^k - ulp to 2^k + ulp is 2 values apart in any format.
  EXPECT_EQ(po::ulp_distance(2.0 - 0x1p-10, 2.0 + 0x1p-9, Format::F16).ulps, 2);
}

TEST(Format, UlpErrorIsInUnitsOfTheExactValuesUlp) {
  using po::Format;
  EXPECT_EQ(po::ulp_error(1.0 + 0x1p-23, 1.0, 0.0, Format::F32), 1.0);
  EXPECT_EQ(po::ulp_error(1.0, 1.0, 0x1p-60, Format::F32), 0x1p-37);
  EXPECT_EQ(po::ulp_error(NAN, 1.0, 0.0, Format::F32), HUGE_VAL);
  EXPECT_EQ(po::ulp_error(HUGE_VAL, HUGE_VAL, 0.0, Format::F32), 0);
}
