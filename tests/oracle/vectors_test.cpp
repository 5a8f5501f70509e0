// The oracle against independent MPFR 256-bit vectors (tests/vectors, computed outside
// pecheck). Correctly rounded doubles/floats must equal strtod/strtof of the 40-digit values
// (glibc's conversions are correctly rounded), and the double-double values must agree to
// 2^-100. Clause: PREC-ORACLE-1, PREC-ORACLE-4, PREC-ORACLE-5, PREC-ORACLE-6
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "oracle/oracle.hpp"

namespace {

using Row = std::vector<std::string>;

std::vector<Row> read_tsv(const std::string& name) {
  const std::filesystem::path p =
      std::filesystem::path(PECHECK_SOURCE_DIR) / "tests" / "vectors" / name;
  std::ifstream in(p);
  // A missing folder is a failure, never a silent skip.
  EXPECT_TRUE(in.good()) << "independent vectors missing: " << p;
  std::vector<Row> rows;
  std::string line;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (!header) {
      header = true;
      continue;
    }
    Row r;
    std::stringstream ss(line);
    std::string f;
    while (std::getline(ss, f, '\t')) r.push_back(f);
    rows.push_back(r);
  }
  return rows;
}

// |(hi + lo) - s| <= 2^-k * max(|s|, floor)
bool dd_close(pecheck::oracle::DoubleDouble v, const std::string& s, int k, double floor) {
  mpfr_t a, b;
  mpfr_inits2(256, a, b, nullptr);
  mpfr_set_str(a, s.c_str(), 10, MPFR_RNDN);
  mpfr_set_d(b, v.hi, MPFR_RNDN);
  mpfr_add_d(b, b, v.lo, MPFR_RNDN);
  mpfr_sub(b, b, a, MPFR_RNDN);
  const double diff = std::fabs(mpfr_get_d(b, MPFR_RNDU));
  const double ref = std::max(std::fabs(mpfr_get_d(a, MPFR_RNDN)), floor);
  mpfr_clears(a, b, nullptr);
  return diff <= std::ldexp(ref, -k);
}

}  // namespace

TEST(OracleVectors, RopeAnglesCosSinMatchIndependentMpfr) {
  const auto rows = read_tsv("rope_angles.tsv");
  ASSERT_GT(rows.size(), 1000u);
  int huge = 0, nondyadic = 0;
  for (const auto& r : rows) {
    ASSERT_EQ(r.size(), 8u);
    const std::int64_t pos = std::stoll(r[0]);
    pecheck::oracle::AngleQuery q{pos, std::stod(r[1]),
                                  pecheck::oracle::RopeFrequency::power(std::stod(r[2]), std::stoll(r[4]),
                                                                        std::stoll(r[3]))};
    const auto a = pecheck::oracle::rope_angle(q);
    SCOPED_TRACE(r[0] + " " + r[1] + " " + r[2] + " " + r[3] + " " + r[4]);
    EXPECT_EQ(a.angle_rounded.f64, std::strtod(r[5].c_str(), nullptr));
    EXPECT_EQ(a.cos_rounded.f64, std::strtod(r[6].c_str(), nullptr));
    EXPECT_EQ(a.sin_rounded.f64, std::strtod(r[7].c_str(), nullptr));
    EXPECT_EQ(a.cos_rounded.f32, std::strtof(r[6].c_str(), nullptr));
    EXPECT_EQ(a.sin_rounded.f32, std::strtof(r[7].c_str(), nullptr));
    EXPECT_TRUE(dd_close(a.angle, r[5], 100, 0));
    EXPECT_TRUE(dd_close(a.cos, r[6], 104, 1));
    EXPECT_TRUE(dd_close(a.sin, r[7], 104, 1));
    if (pos >= (std::int64_t{1} << 30)) ++huge;
    if (r[3] == "96" || r[3] == "80") ++nondyadic;
  }
  EXPECT_GT(huge, 0) << "vectors must include huge positions";
  EXPECT_GT(nondyadic, 0) << "vectors must include non-dyadic rotary dims";
}

TEST(OracleVectors, AlibiSlopesMatchIndependentMpfr) {
  const auto rows = read_tsv("alibi_slopes.tsv");
  ASSERT_GT(rows.size(), 1000u);
  for (const auto& r : rows) {
    ASSERT_EQ(r.size(), 3u);
    const auto s = pecheck::oracle::alibi_slope(std::stoll(r[0]), std::stoll(r[1]));
    SCOPED_TRACE(r[0] + " " + r[1]);
    EXPECT_EQ(s.rounded.f64, std::strtod(r[2].c_str(), nullptr));
    EXPECT_EQ(s.rounded.f32, std::strtof(r[2].c_str(), nullptr));
    EXPECT_TRUE(dd_close(s.exact, r[2], 104, 0));
  }
}

TEST(OracleVectors, T5BucketsAndBoundariesMatchIndependentMpfr) {
  const auto rows = read_tsv("t5_buckets.tsv");
  ASSERT_GT(rows.size(), 100u);
  int on_integer = 0;
  for (const auto& r : rows) {
    ASSERT_EQ(r.size(), 6u);
    const auto b = pecheck::oracle::t5_bucket(std::stoll(r[3]), std::stoll(r[0]), std::stoll(r[1]), r[2] == "1");
    SCOPED_TRACE(r[0] + " " + r[1] + " " + r[2] + " " + r[3]);
    EXPECT_EQ(b.bucket, std::stoll(r[4]));
    EXPECT_EQ(b.on_integer, r[5] == "1");
    if (b.on_integer) {
      ++on_integer;
      EXPECT_TRUE(b.ambiguous);
    }
  }
  EXPECT_GT(on_integer, 0);
}

TEST(OracleVectors, SinusoidalMatchesIndependentMpfr) {
  const auto rows = read_tsv("sinusoidal.tsv");
  ASSERT_GT(rows.size(), 100u);
  for (const auto& r : rows) {
    ASSERT_EQ(r.size(), 5u);
    const auto v = pecheck::oracle::sinusoidal(std::stoll(r[0]), std::stoll(r[1]), std::stod(r[2]), std::stoll(r[3]));
    SCOPED_TRACE(r[0] + " " + r[1] + " " + r[3]);
    EXPECT_EQ(v.rounded.f64, std::strtod(r[4].c_str(), nullptr));
    EXPECT_EQ(v.rounded.f32, std::strtof(r[4].c_str(), nullptr));
    EXPECT_TRUE(dd_close(v.exact, r[4], 104, 1));
  }
}
