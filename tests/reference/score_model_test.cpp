// The score model assembles s(m, n) as a real model does (spec/README.md, MODEL-SCORE-1..3):
// each score equals the explicit composition of its parts, bit for bit (same operations).
#include "reference/score_model.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "classify/generators.hpp"

namespace {

using namespace pecheck::reference;
using pecheck::classify::Rng;

struct Parts {
  Projection<double> p;
  Vec<double> xq, xk;
};

Parts draw(Rng& r, Eigen::Index d_model, Eigen::Index head_dim) {
  Parts s;
  s.p.w_q = Mat<double>::NullaryExpr(d_model, head_dim, [&] { return r.uniform(-1, 1); });
  s.p.w_k = Mat<double>::NullaryExpr(d_model, head_dim, [&] { return r.uniform(-1, 1); });
  s.xq = Vec<double>::NullaryExpr(d_model, [&] { return r.uniform(-1, 1); });
  s.xk = Vec<double>::NullaryExpr(d_model, [&] { return r.uniform(-1, 1); });
  s.p.scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
  return s;
}

// Clause: MODEL-SCORE-1 — encodings added to the embeddings before W_q / W_k.
TEST(ScoreModel, AbsoluteEncodingsEnterBeforeProjection) {
  Rng r(11);
  for (int t = 0; t < 50; ++t) {
    SinusoidalConfig c;
    c.d_model = 2 * r.range(1, 8);
    const Parts s = draw(r, c.d_model, r.range(1, 8));
    const std::int64_t m = pecheck::classify::gen_position(r, kSinusoidalMaxPosition);
    const std::int64_t n = pecheck::classify::gen_position(r, kSinusoidalMaxPosition);
    const Vec<double> xq = s.xq + detail::to_vec(sinusoidal_encode<double>(c, m));
    const Vec<double> xk = s.xk + detail::to_vec(sinusoidal_encode<double>(c, n));
    const Vec<double> q = s.p.w_q.transpose() * xq;
    const Vec<double> k = s.p.w_k.transpose() * xk;
    EXPECT_EQ(score_sinusoidal<double>(c, s.p, s.xq, s.xk, m, n), s.p.scale * q.dot(k));
  }
}

// Clause: MODEL-SCORE-2 — RoPE rotates the projected q and k.
TEST(ScoreModel, RopeRotatesProjectedQueryAndKey) {
  Rng r(12);
  for (int t = 0; t < 50; ++t) {
    RopeConfig c = pecheck::classify::gen_rope_config(
        r, RopeScaling::None, r.coin(2) ? RopeLayout::Neox : RopeLayout::Gptj, r.coin(2));
    const Parts s = draw(r, r.range(1, 8), c.head_dim);
    const std::int64_t m = pecheck::classify::gen_position(r, kRopeMaxPosition);
    const std::int64_t n = pecheck::classify::gen_position(r, kRopeMaxPosition);
    const Vec<double> q = s.p.w_q.transpose() * s.xq;
    const Vec<double> k = s.p.w_k.transpose() * s.xk;
    const auto qr = rope_rotate<double>(c, m, std::span<const double>(q.data(), q.size()));
    const auto kr = rope_rotate<double>(c, n, std::span<const double>(k.data(), k.size()));
    const double want = s.p.scale * detail::to_vec(qr).dot(detail::to_vec(kr));
    EXPECT_EQ(score_rope<double>(c, s.p, s.xq, s.xk, m, n), want);
  }
}

// Clause: MODEL-SCORE-3 — T5 and ALiBi add their bias to the logit; masked entries are -inf.
TEST(ScoreModel, BiasesAddToTheLogit) {
  Rng r(13);
  for (int t = 0; t < 50; ++t) {
    const Parts s = draw(r, r.range(1, 8), r.range(1, 8));
    const double logit = s.p.scale * (s.p.w_q.transpose() * s.xq).dot(s.p.w_k.transpose() * s.xk);
    const std::int64_t m = pecheck::classify::gen_position(r, kAlibiMaxPosition);
    const std::int64_t n = pecheck::classify::gen_position(r, kAlibiMaxPosition);
    const double slope = alibi_slope<double>(12, r.range(0, 11));
    for (AlibiMode mode : {AlibiMode::Symmetric, AlibiMode::Causal, AlibiMode::BloomKeyOnly}) {
      EXPECT_EQ(score_alibi<double>(mode, slope, s.p, s.xq, s.xk, m, n),
                logit + alibi_bias<double>(mode, slope, m, n));
    }
    if (n > m) {
      EXPECT_EQ(score_alibi<double>(AlibiMode::Causal, slope, s.p, s.xq, s.xk, m, n), -INFINITY);
    }
    T5Config c;
    c.n_heads = 3;
    std::vector<double> table(static_cast<std::size_t>(c.num_buckets * c.n_heads));
    for (auto& v : table) v = r.uniform(-2, 2);
    const std::span<const double> tv(table);
    EXPECT_EQ(score_t5<double>(c, tv, 2, s.p, s.xq, s.xk, m, n),
              logit + table[t5_bucket(c, n - m) * 3 + 2]);
  }
}

}  // namespace
