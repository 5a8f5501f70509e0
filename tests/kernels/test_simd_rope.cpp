// pecheck_simd RoPE, every code path against the MPFR oracle (src/oracle) within the float32
// contract (spec/budgets.tsv, row rope/f32/accurate: the angle is formed and reduced in more
// than double precision), at positions up to 2^31 - 1, with tails, partial rotary, both
// layouts, in place, guard zones and poisoned outputs.
// Clause: ABI-ROPE-1 ABI-ROPE-2 ABI-ROPE-3 ABI-ROPE-4 ABI-GEN-3 ABI-GEN-4 ABI-GEN-5 ABI-GEN-6
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>

#include "kernels/simd/simd.hpp"
#include "oracle/budget.hpp"
#include "oracle/oracle.hpp"
#include "util.hpp"

namespace pecheck::kernels::test {
namespace {

using simd::Path;

class SimdRope : public ::testing::TestWithParam<Path> {
 protected:
  void SetUp() override {
    if (!simd::cpu_has(GetParam())) {
      GTEST_SKIP() << "SKIPPED path " << simd::to_string(GetParam()) << ": "
                   << simd::missing_reason(GetParam());
    }
  }
};

struct Shape {
  std::int64_t n_tokens, n_heads, head_dim, rotary_dim;
  std::int32_t layout;
  double base, scale;
  bool given_freq;
};

// Runs the kernel and checks every element against the oracle; returns the worst error in
// budget units (<= 1 passes).
double check_against_oracle(Path path, const Shape& s, std::uint64_t seed) {
  const std::size_t n = static_cast<std::size_t>(s.n_tokens * s.n_heads * s.head_dim);
  const std::vector<float> x = random_inputs(n, seed);
  std::vector<std::int64_t> pos = random_positions(static_cast<std::size_t>(s.n_tokens), seed + 1);
  std::vector<float> inv_freq;
  if (s.given_freq) {
    // A YaRN/Llama-3-like table: frequencies scaled down at the slow end.
    for (std::int64_t i = 0; i < s.rotary_dim / 2; ++i) {
      const double f = std::pow(s.base, -2.0 * static_cast<double>(i) / static_cast<double>(s.rotary_dim));
      inv_freq.push_back(static_cast<float>(i > s.rotary_dim / 4 ? f / 8.0 : f));
    }
  }
  pec_rope_args a{s.n_tokens, s.n_heads, s.head_dim, s.rotary_dim, s.layout, s.base, s.scale,
                  pos.data(), s.given_freq ? inv_freq.data() : nullptr};
  Guarded y(n);
  EXPECT_EQ(simd::rope_f32(path, &a, x.data(), y.data()), 0);
  EXPECT_TRUE(y.guards_intact()) << "write outside y";
  EXPECT_EQ(y.first_unwritten(), -1) << "element of y not written";

  std::vector<float> rounded(n);
  std::vector<double> exact(n);
  oracle::rope_block(a, x.data(), oracle::Format::F32, rounded.data(), exact.data());
  const std::vector<oracle::RopeAngle> angles = oracle::rope_block_angles(a);
  const oracle::Budget& budget = oracle::budget("rope", "f32", "accurate");
  const std::int64_t half = s.rotary_dim / 2;
  double worst = 0;
  for (std::int64_t t = 0; t < s.n_tokens; ++t) {
    for (std::int64_t h = 0; h < s.n_heads; ++h) {
      const std::int64_t row = (t * s.n_heads + h) * s.head_dim;
      for (std::int64_t i = 0; i < half; ++i) {
        const std::int64_t la = s.layout == PEC_ROPE_NEOX ? i : 2 * i;
        const std::int64_t lb = s.layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
        const double m = std::fabs(x[row + la]) + std::fabs(x[row + lb]);
        const double theta = std::fabs(angles[static_cast<std::size_t>(t * half + i)].angle.hi);
        for (std::int64_t lane : {la, lb}) {
          const double err = std::fabs(static_cast<double>(y.data()[row + lane]) - exact[row + lane]);
          const double u = budget.units(err, {m, theta});
          if (u > worst) worst = u;
          if (u > 1.0) {
            ADD_FAILURE() << "path " << simd::to_string(path) << " token " << t << " head " << h
                          << " lane " << lane << " position " << pos[t] << ": got "
                          << y.data()[row + lane] << " (" << std::hexfloat << y.data()[row + lane]
                          << "), exact " << exact[row + lane] << std::defaultfloat << ", " << u
                          << " budget units";
            return u;
          }
        }
      }
      // Pass-through lanes are copied bit-exactly (ABI-ROPE-3).
      std::size_t where = 0;
      EXPECT_TRUE(same_bits(x.data() + row + s.rotary_dim, y.data() + row + s.rotary_dim,
                            static_cast<std::size_t>(s.head_dim - s.rotary_dim), &where))
          << "pass-through lane " << s.rotary_dim + static_cast<std::int64_t>(where);
    }
  }
  return worst;
}

const Shape kShapes[] = {
    // n_tokens, n_heads, head_dim, rotary_dim, layout, base, scale, given inv_freq
    {7, 3, 128, 128, PEC_ROPE_NEOX, 10000.0, 1.0, false},
    {5, 2, 128, 128, PEC_ROPE_GPTJ, 10000.0, 1.0, false},
    {9, 1, 128, 64, PEC_ROPE_NEOX, 500000.0, 0.25, false},   // partial rotary, scaled
    {3, 5, 96, 80, PEC_ROPE_GPTJ, 1e6, 4.0, false},          // 2i/80 not dyadic
    {11, 2, 70, 46, PEC_ROPE_NEOX, 10000.0, 1.0, false},     // vector tails everywhere
    {4, 3, 38, 38, PEC_ROPE_GPTJ, 10000.0, 0.125, false},
    {6, 2, 128, 128, PEC_ROPE_NEOX, 10000.0, 1.0, true},     // given (scaled) inv_freq
    {1, 1, 2, 2, PEC_ROPE_GPTJ, 2.0, 1.0, false},            // the smallest head
    {2, 4, 34, 34, PEC_ROPE_NEOX, 10000.0, 3e5, false},      // angles past 2^45: quad path
    // Register-table rows, heads in uneven groups between the next token's cos/sin vectors,
    // quad-path and fast-path tokens mixed (positions < 4096 stay below 2^45 at this scale).
    {12, 20, 128, 128, PEC_ROPE_NEOX, 10000.0, 3e5, false},
    {12, 20, 128, 128, PEC_ROPE_GPTJ, 10000.0, 3e5, false},
    {6, 3, 192, 128, PEC_ROPE_GPTJ, 10000.0, 1.0, false},    // vector pass-through lanes
};

TEST_P(SimdRope, MeetsF32ContractAgainstOracleAtPositionsUpTo2e31) {
  std::uint64_t seed = 1;
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(::testing::Message() << "shape " << s.n_tokens << "x" << s.n_heads << "x"
                                      << s.head_dim << " rot " << s.rotary_dim << " layout "
                                      << s.layout << " scale " << s.scale);
    EXPECT_LE(check_against_oracle(GetParam(), s, seed++), 1.0);
  }
}

// Independent MPFR values (tests/vectors/rope_angles.tsv): rotating the unit vector e_i gives
// (cos, sin) of the angle exactly, so the kernel's cos/sin are checked at positions to 2^31-1.
TEST_P(SimdRope, UnitVectorGivesIndependentCosSinAtHugePositions) {
  const auto rows = read_tsv("rope_angles.tsv");
  ASSERT_GT(rows.size(), 100u);
  const oracle::Budget& budget = oracle::budget("rope", "f32", "accurate");
  for (const auto& r : rows) {
    const std::int64_t pos = std::stoll(r[0]);
    const double scale = std::stod(r[1]);
    const double base = std::stod(r[2]);
    const std::int64_t rot = std::stoll(r[3]);
    const std::int64_t i = std::stoll(r[4]);
    const double theta = std::stod(r[5]);
    const double c = std::stod(r[6]);
    const double s = std::stod(r[7]);
    std::vector<float> x(static_cast<std::size_t>(rot), 0.0f);
    x[static_cast<std::size_t>(i)] = 1.0f;
    pec_rope_args a{1, 1, rot, rot, PEC_ROPE_NEOX, base, scale, &pos, nullptr};
    std::vector<float> y(x.size());
    ASSERT_EQ(simd::rope_f32(GetParam(), &a, x.data(), y.data()), 0);
    const double ec = std::fabs(y[static_cast<std::size_t>(i)] - c);
    const double es = std::fabs(y[static_cast<std::size_t>(i + rot / 2)] - s);
    EXPECT_LE(budget.units(ec, {1.0, std::fabs(theta)}), 1.0)
        << "cos at position " << pos << " i " << i << " rot " << rot << ": " << y[i] << " vs " << c;
    EXPECT_LE(budget.units(es, {1.0, std::fabs(theta)}), 1.0)
        << "sin at position " << pos << " i " << i << " rot " << rot << ": " << y[i + rot / 2]
        << " vs " << s;
  }
}

// In place gives the same bits as separate buffers; every path gives the scalar path's bits
// (the shared arithmetic fixes every rounding); two calls give the same bits.
TEST_P(SimdRope, InPlaceDeterministicAndBitIdenticalAcrossPaths) {
  for (const Shape& s : kShapes) {
    const std::size_t n = static_cast<std::size_t>(s.n_tokens * s.n_heads * s.head_dim);
    const auto x = random_inputs(n, 99);
    const auto pos = random_positions(static_cast<std::size_t>(s.n_tokens), 7);
    pec_rope_args a{s.n_tokens, s.n_heads, s.head_dim, s.rotary_dim, s.layout, s.base, s.scale,
                    pos.data(), nullptr};
    std::vector<float> y1(n), y2(n), ref(n), inplace = x;
    ASSERT_EQ(simd::rope_f32(GetParam(), &a, x.data(), y1.data()), 0);
    ASSERT_EQ(simd::rope_f32(GetParam(), &a, x.data(), y2.data()), 0);
    ASSERT_EQ(simd::rope_f32(GetParam(), &a, inplace.data(), inplace.data()), 0);
    ASSERT_EQ(simd::rope_f32(Path::Scalar, &a, x.data(), ref.data()), 0);
    std::size_t w = 0;
    EXPECT_TRUE(same_bits(y1.data(), y2.data(), n, &w)) << "nondeterministic at " << w;
    EXPECT_TRUE(same_bits(y1.data(), inplace.data(), n, &w)) << "in place differs at " << w;
    EXPECT_TRUE(same_bits(y1.data(), ref.data(), n, &w)) << "differs from scalar path at " << w;
  }
}

// Streaming stores forced on (64-byte aligned outputs): the same bits as the scalar path,
// guards intact.
TEST_P(SimdRope, StreamingStoresGiveTheSameBits) {
  const std::int64_t T = 301, H = 8, D = 128;
  const std::size_t n = static_cast<std::size_t>(T * H * D);
  simd::set_stream_mode(1);
  const auto x = random_inputs(n, 5);
  const auto pos = random_positions(static_cast<std::size_t>(T), 6);
  for (std::int32_t layout : {PEC_ROPE_NEOX, PEC_ROPE_GPTJ}) {
    pec_rope_args a{T, H, D, 64, layout, 10000.0, 1.0, pos.data(), nullptr};
    Guarded y(n), ref(n);
    ASSERT_EQ(simd::rope_f32(GetParam(), &a, x.data(), y.data()), 0);
    ASSERT_EQ(simd::rope_f32(Path::Scalar, &a, x.data(), ref.data()), 0);
    EXPECT_TRUE(y.guards_intact());
    std::size_t w = 0;
    EXPECT_TRUE(same_bits(y.data(), ref.data(), n, &w)) << "layout " << layout << " at " << w;
  }
  simd::set_stream_mode(-1);
}

// Invalid calls are rejected and write nothing (ABI-ROPE-1, ABI-GEN-3); zero tokens is valid.
TEST_P(SimdRope, RejectsInvalidArgumentsWithoutWriting) {
  std::int64_t pos[2] = {0, 5};
  const std::vector<float> x(2 * 8, 1.0f);
  auto valid = [&] { return pec_rope_args{2, 1, 8, 8, PEC_ROPE_NEOX, 10000.0, 1.0, pos, nullptr}; };
  std::vector<pec_rope_args> bad;
  auto add = [&](auto mutate) {
    pec_rope_args a = valid();
    mutate(a);
    bad.push_back(a);
  };
  add([](pec_rope_args& a) { a.n_tokens = -1; });
  add([](pec_rope_args& a) { a.n_heads = 0; });
  add([](pec_rope_args& a) { a.head_dim = 1; });
  add([](pec_rope_args& a) { a.rotary_dim = 7; });
  add([](pec_rope_args& a) { a.rotary_dim = 10; });
  add([](pec_rope_args& a) { a.rotary_dim = 0; });
  add([](pec_rope_args& a) { a.layout = 2; });
  add([](pec_rope_args& a) { a.theta_base = 1.0; });
  add([](pec_rope_args& a) { a.theta_base = INFINITY; });
  add([](pec_rope_args& a) { a.theta_base = NAN; });
  add([](pec_rope_args& a) { a.position_scale = 0.0; });
  add([](pec_rope_args& a) { a.position_scale = -1.0; });
  add([](pec_rope_args& a) { a.position_scale = NAN; });
  add([](pec_rope_args& a) { a.positions = nullptr; });
  std::int64_t neg[2] = {0, -1}, big[2] = {0, std::int64_t{1} << 31};
  add([&](pec_rope_args& a) { a.positions = neg; });
  add([&](pec_rope_args& a) { a.positions = big; });
  for (std::size_t k = 0; k < bad.size(); ++k) {
    Guarded y(x.size());
    EXPECT_NE(simd::rope_f32(GetParam(), &bad[k], x.data(), y.data()), 0) << "case " << k;
    EXPECT_EQ(y.first_unwritten(), 0) << "rejected call " << k << " wrote its output";
    EXPECT_TRUE(y.guards_intact());
  }
  Guarded g(16);
  EXPECT_NE(simd::rope_f32(GetParam(), nullptr, x.data(), g.data()), 0);
  pec_rope_args a = valid();
  Guarded y(x.size());
  EXPECT_NE(simd::rope_f32(GetParam(), &a, nullptr, y.data()), 0);
  a.n_tokens = 0;
  EXPECT_EQ(simd::rope_f32(GetParam(), &a, nullptr, nullptr), 0) << "zero tokens is valid";
}

INSTANTIATE_TEST_SUITE_P(Paths, SimdRope, ::testing::ValuesIn(simd::kAllPaths),
                         [](const auto& info) { return std::string(simd::to_string(info.param)); });

}  // namespace
}  // namespace pecheck::kernels::test
