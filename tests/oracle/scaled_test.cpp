// Scaled RoPE frequencies (ROPE-SCALE-* of spec/rope.md) in the oracle: the reference formulas
// instantiated in MPFR agree exactly with the independent power path where the scaling is a
// power-of-two division or the identity. Clause: PREC-ORACLE-7
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "oracle/oracle.hpp"
#include "reference/rope.hpp"

namespace po = pecheck::oracle;
namespace ref = pecheck::reference;

TEST(ScaledFrequencies, NoScalingEqualsThePowerPath) {
  ref::RopeConfig c;
  c.rotary_dim = 96;
  c.head_dim = 96;
  for (std::int64_t i : {0, 1, 17, 47}) {
    for (std::int64_t p : {1, 4097, 2147483647}) {
      const auto a = po::rope_angle({p, 1.0, po::RopeFrequency::scaled(c, i)});
      const auto b = po::rope_angle({p, 1.0, po::RopeFrequency::power(10000.0, i, 96)});
      EXPECT_EQ(a.cos_rounded.f64, b.cos_rounded.f64) << i << " " << p;
      EXPECT_EQ(a.sin_rounded.f32, b.sin_rounded.f32) << i << " " << p;
      EXPECT_EQ(a.angle_rounded.f64, b.angle_rounded.f64) << i << " " << p;
    }
  }
}

TEST(ScaledFrequencies, LinearByEightEqualsAPositionScaleOfAnEighth) {
  ref::RopeConfig c;
  c.scaling.kind = ref::RopeScaling::Linear;
  c.scaling.factor = 8.0;
  for (std::int64_t i : {0, 5, 63}) {
    const auto a = po::rope_angle({123457, 1.0, po::RopeFrequency::scaled(c, i)});
    const auto b = po::rope_angle({123457, 0.125, po::RopeFrequency::power(10000.0, i, 128)});
    EXPECT_EQ(a.cos_rounded.f64, b.cos_rounded.f64) << i;
    EXPECT_EQ(a.sin_rounded.bf16, b.sin_rounded.bf16) << i;
  }
}

// Llama 3: wavelengths above original/low_freq_factor are divided by the factor, those below
// original/high_freq_factor kept (ROPE-SCALE-LLAMA3-1); with factor 8 both are exact relations.
TEST(ScaledFrequencies, Llama3KeepsHighAndDividesLowFrequencies) {
  ref::RopeConfig c;
  c.base = 500000.0;
  c.scaling.kind = ref::RopeScaling::Llama3;
  c.scaling.factor = 8.0;
  c.scaling.original_max_positions = 8192;
  const auto f = po::rope_inv_freq_exact(c);
  ASSERT_EQ(f.size(), 64u);
  int kept = 0, divided = 0;
  for (std::int64_t i = 0; i < 64; ++i) {
    const auto plain = po::rope_angle({1, 1.0, po::RopeFrequency::power(500000.0, i, 128)}).angle_rounded.f64;
    const double wavelen = 2 * std::numbers::pi / plain;
    if (wavelen < 8192.0 / 4.0 * 0.999) {
      EXPECT_EQ(f[static_cast<std::size_t>(i)].rounded.f64, plain) << i;
      ++kept;
    } else if (wavelen > 8192.0 / 1.0 * 1.001) {
      EXPECT_EQ(f[static_cast<std::size_t>(i)].rounded.f64, plain / 8) << i;
      ++divided;
    }
  }
  EXPECT_GT(kept, 0);
  EXPECT_GT(divided, 0);
}

TEST(ScaledFrequencies, YarnAnglesAreComputedAtLargePositions) {
  ref::RopeConfig c;
  c.scaling.kind = ref::RopeScaling::Yarn;
  c.scaling.factor = 4.0;
  c.scaling.original_max_positions = 4096;
  const auto f = po::rope_inv_freq_exact(c);
  for (std::int64_t i : {0, 20, 63}) {
    const auto a = po::rope_angle({2147483647, 1.0, po::RopeFrequency::scaled(c, i)});
    EXPECT_EQ(a.freq.hi, f[static_cast<std::size_t>(i)].exact.hi);
    EXPECT_LE(std::fabs(a.cos.hi), 1.0);
  }
}
