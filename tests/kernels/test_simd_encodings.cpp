// pecheck_simd ALiBi, T5, sinusoidal and learned tables, every code path, against the MPFR
// oracle and the independent shared vectors, with guard zones and rejections.
// Clause: ABI-ALIBI-1 ABI-ALIBI-2 ABI-ALIBI-3 ABI-T5-1 ABI-T5-2 ABI-T5-3 ABI-SIN-1 ABI-SIN-2
// Clause: ABI-LEARN-1 ABI-LEARN-2 ABI-GEN-3 ABI-GEN-4 ABI-GEN-5
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/simd/simd.hpp"
#include "oracle/budget.hpp"
#include "oracle/oracle.hpp"
#include "util.hpp"

namespace pecheck::kernels::test {
namespace {

using simd::Path;

class SimdEnc : public ::testing::TestWithParam<Path> {
 protected:
  void SetUp() override {
    if (!simd::cpu_has(GetParam())) {
      GTEST_SKIP() << "SKIPPED path " << simd::to_string(GetParam()) << ": "
                   << simd::missing_reason(GetParam());
    }
  }
};

// Zero scores: the kernel's output is the bias itself, checked against the oracle within the
// ALiBi float32 budget; slopes for 1..64 heads against the independent MPFR table.
TEST_P(SimdEnc, AlibiBiasMeetsContractForAllHeadCountsAndModes) {
  const oracle::Budget& budget = oracle::budget("alibi", "f32");
  for (std::int64_t heads : {1, 3, 5, 8, 12, 17, 64}) {
    for (int mode : {PEC_ALIBI_SYMMETRIC, PEC_ALIBI_CAUSAL}) {
      const std::int64_t nq = 7, nk = 19;  // tails on every vector width
      auto q = random_positions(nq, 11 + heads);
      auto k = random_positions(nk, 12 + heads);
      k[3] = q[2];  // a zero offset
      pec_alibi_args a{heads, nq, nk, mode, q.data(), k.data()};
      const std::size_t n = static_cast<std::size_t>(heads * nq * nk);
      Guarded s(n);
      s.fill(std::vector<float>(n, 0.0f));
      ASSERT_EQ(simd::alibi_bias_f32(GetParam(), &a, s.data()), 0);
      EXPECT_TRUE(s.guards_intact());
      std::vector<float> rounded(n);
      std::vector<double> exact(n);
      oracle::alibi_block(a, oracle::Format::F32, rounded.data(), exact.data());
      for (std::size_t e = 0; e < n; ++e) {
        if (std::isinf(exact[e])) {
          EXPECT_EQ(s.data()[e], -INFINITY) << "masked element " << e;
          continue;
        }
        const double err = std::fabs(s.data()[e] - exact[e]);
        ASSERT_LE(budget.units(err, {std::fabs(exact[e]), 0.0}), 1.0)
            << "heads " << heads << " mode " << mode << " element " << e << ": " << s.data()[e]
            << " vs " << exact[e];
      }
    }
  }
}

// Non-zero scores: score + bias within the budget taken with magnitude |score| + |bias| (one
// rounding of the sum on top of the bias's own budget).
TEST_P(SimdEnc, AlibiAddsToScoresInPlace) {
  const oracle::Budget& budget = oracle::budget("alibi", "f32");
  const std::int64_t heads = 6, nq = 5, nk = 21;
  auto q = random_positions(nq, 3), k = random_positions(nk, 4);
  pec_alibi_args a{heads, nq, nk, PEC_ALIBI_SYMMETRIC, q.data(), k.data()};
  const std::size_t n = static_cast<std::size_t>(heads * nq * nk);
  const auto scores = random_inputs(n, 8);
  std::vector<float> out = scores, rounded(n);
  std::vector<double> bias(n);
  ASSERT_EQ(simd::alibi_bias_f32(GetParam(), &a, out.data()), 0);
  oracle::alibi_block(a, oracle::Format::F32, rounded.data(), bias.data());
  for (std::size_t e = 0; e < n; ++e) {
    const double exact = static_cast<double>(scores[e]) + bias[e];
    const double m = std::fabs(scores[e]) + std::fabs(bias[e]);
    EXPECT_LE(budget.units(std::fabs(out[e] - exact), {m, 0.0}), 1.0) << "element " << e;
  }
}

// A common shift of all positions gives the same bits (ABI-ALIBI-3, ABI-T5-3).
TEST_P(SimdEnc, AlibiAndT5AreBitIdenticalUnderAShift) {
  std::vector<std::int64_t> q = {0, 5, 900, 70000}, k = {0, 1, 64, 5000, 70001, 300000};
  std::vector<std::int64_t> qs = q, ks = k;
  const std::int64_t shift = (std::int64_t{1} << 31) - 400000;
  for (auto& v : qs) v += shift;
  for (auto& v : ks) v += shift;
  const std::int64_t heads = 5, nq = 4, nk = 6, nb = 32;
  for (int mode : {0, 1}) {
    std::vector<float> s1(heads * nq * nk, 0.0f), s2 = s1;
    pec_alibi_args a1{heads, nq, nk, mode, q.data(), k.data()}, a2{heads, nq, nk, mode, qs.data(), ks.data()};
    ASSERT_EQ(simd::alibi_bias_f32(GetParam(), &a1, s1.data()), 0);
    ASSERT_EQ(simd::alibi_bias_f32(GetParam(), &a2, s2.data()), 0);
    EXPECT_TRUE(same_bits(s1.data(), s2.data(), s1.size())) << "alibi mode " << mode;
    std::vector<float> table(nb * heads);
    for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>(i);
    std::vector<float> b1(heads * nq * nk), b2 = b1;
    pec_t5_args t1{heads, nq, nk, nb, 128, mode, q.data(), k.data(), table.data()};
    pec_t5_args t2{heads, nq, nk, nb, 128, mode, qs.data(), ks.data(), table.data()};
    ASSERT_EQ(simd::t5_bias_f32(GetParam(), &t1, b1.data()), 0);
    ASSERT_EQ(simd::t5_bias_f32(GetParam(), &t2, b2.data()), 0);
    EXPECT_TRUE(same_bits(b1.data(), b2.data(), b1.size())) << "t5 bidirectional " << mode;
  }
}

// T5 buckets against the independent MPFR vectors (ambiguous rows: the bucket or the one
// below) and against the oracle for offsets in both directions beyond max_distance.
TEST_P(SimdEnc, T5BucketsMatchIndependentVectorsAndOracle) {
  const auto rows = read_tsv("t5_buckets.tsv");
  ASSERT_GT(rows.size(), 50u);
  const std::int64_t heads = 3;
  for (const auto& r : rows) {
    const std::int64_t nb = std::stoll(r[0]), md = std::stoll(r[1]);
    const int bidir = std::stoi(r[2]);
    const std::int64_t rel = std::stoll(r[3]), bucket = std::stoll(r[4]);
    const bool ambiguous = r[5] == "1";
    std::vector<float> table(static_cast<std::size_t>(nb * heads));
    for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>(i);
    const std::int64_t q = 1000000, k = q + rel;
    pec_t5_args a{heads, 1, 1, nb, md, bidir, &q, &k, table.data()};
    Guarded out(static_cast<std::size_t>(heads));
    ASSERT_EQ(simd::t5_bias_f32(GetParam(), &a, out.data()), 0);
    EXPECT_TRUE(out.guards_intact());
    for (std::int64_t h = 0; h < heads; ++h) {
      const auto got = static_cast<std::int64_t>(out.data()[h]);
      const std::int64_t b = (got - h) / heads;
      EXPECT_EQ((got - h) % heads, 0);
      if (ambiguous) {
        EXPECT_TRUE(b == bucket || b == bucket - 1) << "nb " << nb << " md " << md << " rel " << rel;
      } else {
        EXPECT_EQ(b, bucket) << "nb " << nb << " md " << md << " bidir " << bidir << " rel " << rel;
      }
    }
  }
  // The oracle covers num_buckets >= 4; causal num_buckets = 2 (max_exact 1, no logarithmic
  // buckets) is checked directly: bucket 0 for keys at or after the query, 1 before it.
  {
    const std::int64_t q = 10;
    std::vector<std::int64_t> k = {0, 9, 10, 11, 5000};
    const std::vector<float> table = {100.0f, 200.0f};
    pec_t5_args a{1, 1, 5, 2, 4, 0, &q, k.data(), table.data()};
    std::vector<float> out(5);
    ASSERT_EQ(simd::t5_bias_f32(GetParam(), &a, out.data()), 0);
    EXPECT_EQ(out, (std::vector<float>{200.0f, 200.0f, 100.0f, 100.0f, 100.0f}));
  }
  for (std::int64_t nb : {4, 5, 8, 32, 33}) {
    for (int bidir : {0, 1}) {
      const std::int64_t md = 100;
      std::vector<std::int64_t> k;
      const std::int64_t q = 5000;
      for (std::int64_t rel = -4000; rel <= 4000; rel += 7) k.push_back(q + rel);
      std::vector<float> table(static_cast<std::size_t>(nb));
      for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>(i);
      pec_t5_args a{1, 1, static_cast<std::int64_t>(k.size()), nb, md, bidir, &q, k.data(), table.data()};
      std::vector<float> out(k.size());
      ASSERT_EQ(simd::t5_bias_f32(GetParam(), &a, out.data()), 0);
      for (std::size_t j = 0; j < k.size(); ++j) {
        const auto ob = oracle::t5_bucket(k[j] - q, nb, md, bidir != 0);
        const auto got = static_cast<std::int64_t>(out[j]);
        EXPECT_TRUE(got == ob.bucket || (ob.ambiguous && got == ob.alternative))
            << "nb " << nb << " bidir " << bidir << " rel " << k[j] - q << ": " << got << " vs "
            << ob.bucket;
      }
    }
  }
}

TEST_P(SimdEnc, SinusoidalMeetsContractAndIndependentVectors) {
  const oracle::Budget& budget = oracle::budget("sinusoidal", "f32", "accurate");
  for (const auto& r : read_tsv("sinusoidal.tsv")) {
    const std::int64_t pos = std::stoll(r[0]), d = std::stoll(r[1]), lane = std::stoll(r[3]);
    const double base = std::stod(r[2]), v = std::stod(r[4]);
    pec_sinusoidal_args a{1, d, base, &pos};
    Guarded out(static_cast<std::size_t>(d));
    ASSERT_EQ(simd::sinusoidal_f32(GetParam(), &a, out.data()), 0);
    EXPECT_TRUE(out.guards_intact());
    EXPECT_EQ(out.first_unwritten(), -1);
    const double theta = static_cast<double>(pos) * std::pow(base, -static_cast<double>(lane / 2 * 2) / d);
    EXPECT_LE(budget.units(std::fabs(out.data()[lane] - v), {1.0, theta}), 1.0)
        << "position " << pos << " d_model " << d << " lane " << lane;
  }
  for (std::int64_t d : {2, 6, 34, 512}) {
    auto pos = random_positions(5, static_cast<std::uint64_t>(d));
    pec_sinusoidal_args a{5, d, 10000.0, pos.data()};
    std::vector<float> out(static_cast<std::size_t>(5 * d)), rounded(out.size());
    std::vector<double> exact(out.size());
    ASSERT_EQ(simd::sinusoidal_f32(GetParam(), &a, out.data()), 0);
    oracle::sinusoidal_block(a, oracle::Format::F32, rounded.data(), exact.data());
    for (std::size_t e = 0; e < out.size(); ++e) {
      const std::int64_t t = static_cast<std::int64_t>(e) / d, i = (static_cast<std::int64_t>(e) % d) / 2;
      const double theta = static_cast<double>(pos[t]) * std::pow(10000.0, -2.0 * i / d);
      EXPECT_LE(budget.units(std::fabs(out[e] - exact[e]), {1.0, theta}), 1.0) << "element " << e;
    }
  }
}

TEST_P(SimdEnc, LearnedCopiesRowsAndRejectsOutOfRangePositions) {
  const std::int64_t d = 5, maxp = 9;
  const auto table = random_inputs(static_cast<std::size_t>(d * maxp), 2);
  std::vector<std::int64_t> pos = {0, 8, 3, 3};
  pec_learned_args a{4, d, maxp, pos.data(), table.data()};
  Guarded out(static_cast<std::size_t>(4 * d));
  ASSERT_EQ(simd::learned_f32(&a, out.data()), 0);
  EXPECT_TRUE(out.guards_intact());
  for (std::size_t t = 0; t < pos.size(); ++t) {
    EXPECT_TRUE(same_bits(out.data() + t * d, table.data() + pos[t] * d, d));
  }
  for (std::int64_t badpos : {std::int64_t{-1}, maxp, std::int64_t{1} << 40}) {
    pos[2] = badpos;
    Guarded o2(static_cast<std::size_t>(4 * d));
    EXPECT_NE(simd::learned_f32(&a, o2.data()), 0) << "position " << badpos;
    EXPECT_EQ(o2.first_unwritten(), 0) << "a rejected call wrote";
  }
}

// Domain clauses of ALiBi, T5 and sinusoidal: rejected, nothing written.
TEST_P(SimdEnc, RejectsInvalidArgumentsWithoutWriting) {
  std::int64_t q[2] = {0, 3}, k[2] = {1, 2}, neg[2] = {0, -5};
  std::vector<float> table(64, 1.0f);
  Guarded out(64);
  const Path p = GetParam();
  pec_alibi_args al{2, 2, 2, 0, q, k};
  al.mode = 2;
  EXPECT_NE(simd::alibi_bias_f32(p, &al, out.data()), 0);
  al.mode = 0;
  al.n_heads = 0;
  EXPECT_NE(simd::alibi_bias_f32(p, &al, out.data()), 0);
  al.n_heads = 2;
  al.k_pos = neg;
  EXPECT_NE(simd::alibi_bias_f32(p, &al, out.data()), 0);
  al.k_pos = nullptr;
  EXPECT_NE(simd::alibi_bias_f32(p, &al, out.data()), 0);
  pec_t5_args t5{2, 2, 2, 3, 128, 1, q, k, table.data()};  // bidirectional needs >= 4 buckets
  EXPECT_NE(simd::t5_bias_f32(p, &t5, out.data()), 0);
  t5.num_buckets = 8;
  t5.max_distance = 2;  // must exceed max_exact = 2
  EXPECT_NE(simd::t5_bias_f32(p, &t5, out.data()), 0);
  t5.max_distance = (std::int64_t{1} << 31) + 1;  // beyond 2^31
  EXPECT_NE(simd::t5_bias_f32(p, &t5, out.data()), 0);
  t5.max_distance = 16;
  t5.num_buckets = 1025;  // beyond 1024
  EXPECT_NE(simd::t5_bias_f32(p, &t5, out.data()), 0);
  t5.num_buckets = 8;
  t5.bidirectional = 2;
  EXPECT_NE(simd::t5_bias_f32(p, &t5, out.data()), 0);
  t5.bidirectional = 0;
  t5.table = nullptr;
  EXPECT_NE(simd::t5_bias_f32(p, &t5, out.data()), 0);
  t5.table = table.data();
  t5.q_pos = neg;
  EXPECT_NE(simd::t5_bias_f32(p, &t5, out.data()), 0);
  pec_sinusoidal_args si{2, 7, 10000.0, q};
  EXPECT_NE(simd::sinusoidal_f32(p, &si, out.data()), 0);
  si.d_model = 8;
  si.base = 0.5;
  EXPECT_NE(simd::sinusoidal_f32(p, &si, out.data()), 0);
  si.base = 10000.0;
  si.positions = neg;
  EXPECT_NE(simd::sinusoidal_f32(p, &si, out.data()), 0);
  EXPECT_EQ(out.first_unwritten(), 0);
  EXPECT_TRUE(out.guards_intact());
}

INSTANTIATE_TEST_SUITE_P(Paths, SimdEnc, ::testing::ValuesIn(simd::kAllPaths),
                         [](const auto& info) { return std::string(simd::to_string(info.param)); });

}  // namespace
}  // namespace pecheck::kernels::test
