// The reference encodings against independent values (tests/vectors: MPFR at 256 bits,
// computed outside pecheck, 40 significant digits). float and double are held to the precision
// budgets of spec/budgets.tsv (read through pecheck::oracle::budget); the 100-digit MPFR
// instantiation is held to the vectors' own printed precision (half a unit in the 40th digit).
// A missing vectors file FAILS the tests (they are part of the repository).
#include <gtest/gtest.h>

#include <boost/multiprecision/mpfr.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "oracle/budget.hpp"
#include "reference/alibi.hpp"
#include "reference/rope.hpp"
#include "reference/sinusoidal.hpp"
#include "reference/t5.hpp"
#include "reference/tolerance.hpp"

namespace {

namespace bmp = boost::multiprecision;
using MP = bmp::mpfr_float_100;
using namespace pecheck;

// The vectors are printed with this many significant digits (tests/vectors/README.md).
constexpr int kVectorDigits = 40;

const std::filesystem::path kVectors =
    std::filesystem::path(PECHECK_SOURCE_DIR) / "tests" / "vectors";

// Rows of a TSV file as maps column -> text; fails the calling test when the file is missing.
std::vector<std::map<std::string, std::string>> read_tsv(const std::string& name) {
  const auto path = kVectors / name;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "independent vectors missing: " << path;
  std::vector<std::map<std::string, std::string>> rows;
  std::vector<std::string> header;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) cells.push_back(c);
    if (header.empty()) {
      header = cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(std::move(row));
  }
  EXPECT_FALSE(rows.empty()) << "no rows in " << path;
  return rows;
}

std::int64_t as_int(const std::string& s) { return std::stoll(s); }
double as_double(const std::string& s) { return std::stod(s); }

// Half a unit in the last printed digit of v.
MP printed_half_unit(const MP& v) {
  using std::abs;
  if (v == 0) return MP(0);
  const MP e = floor(log10(abs(v)));
  return pow(MP(10), e - MP(kVectorDigits - 1)) / 2;
}

template <class T>
double bound(const char* scheme, const char* dtype, double magnitude, double angle) {
  return oracle::budget(scheme, dtype).bound(oracle::BudgetInputs{magnitude, angle});
}

// Clause: ALIBI-SLOPE-1, ALIBI-SLOPE-2 — every head of 1..64 heads (8 and 12 among them).
TEST(ReferenceVectors, AlibiSlopesOneToSixtyFourHeads) {
  const auto rows = read_tsv("alibi_slopes.tsv");
  std::map<std::int64_t, int> seen;
  for (const auto& r : rows) {
    const std::int64_t n = as_int(r.at("n_heads")), h = as_int(r.at("head"));
    const MP exact(r.at("slope"));
    ++seen[n];
    const double e = static_cast<double>(exact);
    EXPECT_LE(std::fabs(reference::alibi_slope<double>(n, h) - e),
              bound<double>("alibi", "f64", e, 0))
        << n << " heads, head " << h;
    EXPECT_LE(std::fabs(static_cast<double>(reference::alibi_slope<float>(n, h)) - e),
              bound<float>("alibi", "f32", e, 0))
        << n << " heads, head " << h;
    using std::abs;
    EXPECT_LE(abs(reference::alibi_slope<MP>(n, h) - exact), printed_half_unit(exact))
        << n << " heads, head " << h;
  }
  for (std::int64_t n = 1; n <= 64; ++n)
    EXPECT_EQ(seen[n], n) << "vectors lack heads of n_heads=" << n;
}

// Clause: T5-BUCKET-3, T5-BUCKET-4, T5-REL-1, T5-BUCKET-1, T5-BUCKET-2 — exact buckets equal the
// vectors everywhere; the boundary flag equals their `ambiguous` column; float/double/MP
// evaluations of the log formula equal the bucket, or bucket - 1 on ambiguous rows.
TEST(ReferenceVectors, T5Buckets) {
  const auto rows = read_tsv("t5_buckets.tsv");
  for (const auto& r : rows) {
    reference::T5Config c;
    c.num_buckets = as_int(r.at("num_buckets"));
    c.max_distance = as_int(r.at("max_distance"));
    c.bidirectional = r.at("bidirectional") == "1";
    const std::int64_t rel = as_int(r.at("relative")), want = as_int(r.at("bucket"));
    const bool amb = r.at("ambiguous") == "1";
    const std::string where = "nb=" + r.at("num_buckets") + " M=" + r.at("max_distance") +
                              " bidi=" + r.at("bidirectional") + " rel=" + r.at("relative");
    EXPECT_EQ(reference::t5_bucket(c, rel), want) << where;
    EXPECT_EQ(reference::t5_bucket_on_boundary(c, rel), amb) << where;
    for (std::int64_t got :
         {reference::t5_bucket_in<float>(c, rel), reference::t5_bucket_in<double>(c, rel),
          reference::t5_bucket_in<MP>(c, rel)}) {
      if (amb) {
        EXPECT_TRUE(got == want || got == want - 1) << where << " got " << got;
      } else {
        EXPECT_EQ(got, want) << where;
      }
    }
  }
}

// Clause: SIN-LAYOUT-1 — interleaved values for d_model 8 and 512 at positions up to 10^6.
TEST(ReferenceVectors, SinusoidalValues) {
  const auto rows = read_tsv("sinusoidal.tsv");
  for (const auto& r : rows) {
    reference::SinusoidalConfig c;
    c.d_model = as_int(r.at("d_model"));
    c.base = as_double(r.at("base"));
    const std::int64_t p = as_int(r.at("position")), lane = as_int(r.at("lane"));
    const MP exact(r.at("value"));
    const double e = static_cast<double>(exact);
    // the budget's angle term: the exact angle pos * base^(-2i/d) of this lane's pair
    const double angle =
        static_cast<double>(MP(p) * pow(MP(c.base), -MP(2 * (lane / 2)) / MP(c.d_model)));
    const std::string where =
        "pos=" + r.at("position") + " d=" + r.at("d_model") + " lane=" + r.at("lane");
    EXPECT_LE(std::fabs(reference::sinusoidal_encode<double>(c, p)[lane] - e),
              bound<double>("sinusoidal", "f64", 1, angle))
        << where;
    EXPECT_LE(std::fabs(static_cast<double>(reference::sinusoidal_encode<float>(c, p)[lane]) - e),
              bound<float>("sinusoidal", "f32", 1, angle))
        << where;
    using std::abs;
    EXPECT_LE(abs(reference::sinusoidal_encode<MP>(c, p)[lane] - exact), printed_half_unit(exact))
        << where;
  }
}

// Clause: ROPE-FREQ-1, ROPE-ANGLE-1, ROPE-ROT-1 — the angle, and the rotation of the unit vector
// e_a (pair lane a) which must give (cos, sin) at known angles, positions 0 .. 2^31 - 1.
template <class T>
void rope_rows(const char* dtype, bool budgeted) {
  const auto rows = read_tsv("rope_angles.tsv");
  for (const auto& r : rows) {
    reference::RopeConfig c;
    c.rotary_dim = as_int(r.at("rotary_dim"));
    c.head_dim = c.rotary_dim;
    c.base = as_double(r.at("base"));
    c.position_scale = as_double(r.at("position_scale"));
    const std::int64_t p = as_int(r.at("position")), i = as_int(r.at("i"));
    const MP theta(r.at("theta")), cs(r.at("cos_theta")), sn(r.at("sin_theta"));
    const auto f = reference::rope_inv_freq<T>(c);
    std::vector<T> x(static_cast<std::size_t>(c.head_dim), T(0));
    const auto [a, b] = reference::rope_pair(c, i);
    x[static_cast<std::size_t>(a)] = T(1);
    std::vector<T> y(x.size());
    reference::rope_rotate<T>(c, std::span<const T>(f), p, std::span<const T>(x), std::span<T>(y));
    const std::string where = std::string(dtype) + " pos=" + r.at("position") +
                              " scale=" + r.at("position_scale") + " base=" + r.at("base") +
                              " rd=" + r.at("rotary_dim") + " i=" + r.at("i");
    if (budgeted) {
      const double th = static_cast<double>(theta);
      const double tol = bound<T>("rope", dtype, 1.0, th);
      EXPECT_LE(std::fabs(static_cast<double>(y[a]) - static_cast<double>(cs)), tol)
          << where << " cos";
      EXPECT_LE(std::fabs(static_cast<double>(y[b]) - static_cast<double>(sn)), tol)
          << where << " sin";
    } else {
      using std::abs;
      const T ang = reference::rope_angle<T>(c, f[static_cast<std::size_t>(i)], p);
      EXPECT_LE(abs(MP(ang) - theta), printed_half_unit(theta)) << where << " angle";
      EXPECT_LE(abs(MP(y[a]) - cs), printed_half_unit(cs)) << where << " cos";
      EXPECT_LE(abs(MP(y[b]) - sn), printed_half_unit(sn)) << where << " sin";
    }
  }
}

TEST(ReferenceVectors, RopeAnglesDouble) { rope_rows<double>("f64", true); }
TEST(ReferenceVectors, RopeAnglesFloat) { rope_rows<float>("f32", true); }
TEST(ReferenceVectors, RopeAnglesMultiprecision) { rope_rows<MP>("mpfr100", false); }

}  // namespace
