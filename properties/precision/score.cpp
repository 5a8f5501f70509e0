// The score-shift contract (spec/contracts.md PREC-SCORE-1): shift invariance holds exactly in
// real arithmetic; a float32 RoPE score moves under a shift by at most
// bound(m, n) + bound(m + delta, n + delta). Clause: PREC-SCORE-1, PREC-SCORE-2
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "gen.hpp"
#include "oracle/budget.hpp"
#include "oracle/oracle.hpp"
#include "precision/variants.hpp"

namespace po = pecheck::oracle;
namespace pp = pecheck::precision;

namespace {

constexpr std::int64_t kDim = 64;

struct Rotated {
  std::vector<float> f;              // the float reference's rotated vector
  std::vector<po::DoubleDouble> ex;  // exact
  std::vector<double> theta;         // exact angles
};

Rotated rotate(const std::vector<float>& x, std::int64_t pos, const pp::Variant& v) {
  Rotated r;
  r.f.resize(kDim);
  r.ex.resize(kDim);
  std::vector<po::DoubleDouble> th(kDim / 2);
  const std::int64_t positions[] = {pos};
  const pec_rope_args a{1, 1, kDim, kDim, PEC_ROPE_NEOX, 10000.0, 1.0, positions, nullptr};
  po::rope_block_exact(a, x.data(), r.ex.data(), th.data());
  for (std::int64_t i = 0; i < kDim / 2; ++i) {
    double ya, yb;
    pp::rope_variant_pair(v, po::Format::F32, {pos, 1.0, 10000.0, i, kDim}, x[i], x[i + kDim / 2], ya, yb);
    r.f[i] = static_cast<float>(ya);
    r.f[i + kDim / 2] = static_cast<float>(yb);
    r.theta.push_back(std::fabs(th[i].hi));
  }
  return r;
}

float dot_f(const std::vector<float>& a, const std::vector<float>& b) {
  float s = 0;
  for (std::size_t j = 0; j < a.size(); ++j) s += a[j] * b[j];
  return s;
}

long double dot_exact(const std::vector<po::DoubleDouble>& a, const std::vector<po::DoubleDouble>& b) {
  long double s = 0;
  for (std::size_t j = 0; j < a.size(); ++j) {
    s += static_cast<long double>(a[j].hi) * b[j].hi + static_cast<long double>(a[j].hi) * b[j].lo +
         static_cast<long double>(a[j].lo) * b[j].hi;
  }
  return s;
}

}  // namespace

RC_GTEST_PROP(PrecisionScore, FloatScoreMovesUnderAShiftWithinTheContract, ()) {
  std::vector<float> q(kDim), k(kDim);
  for (auto& v : q) v = static_cast<float>(*rc::gen::inRange(-1000, 1001)) / 256.0f;
  for (auto& v : k) v = static_cast<float>(*rc::gen::inRange(-1000, 1001)) / 256.0f;
  const std::int64_t m = *pecheck::prop::position(), n = *pecheck::prop::position();
  const std::int64_t top = std::max(m, n);
  const std::int64_t delta = *rc::gen::inRange<std::int64_t>(0, (std::int64_t{1} << 31) - top);
  const auto& row = po::budget("rope", "f32", "reference");
  const pp::Variant v = pp::variant("rope", "reference");
  const Rotated qm = rotate(q, m, v), kn = rotate(k, n, v), qs = rotate(q, m + delta, v), ks = rotate(k, n + delta, v);
  const std::vector<double> qd(q.begin(), q.end()), kd(k.begin(), k.end());
  const double b0 = po::rope_score_bound(row, qd, kd, qm.theta, kn.theta);
  const double b1 = po::rope_score_bound(row, qd, kd, qs.theta, ks.theta);
  const long double s0 = dot_exact(qm.ex, kn.ex), s1 = dot_exact(qs.ex, ks.ex);
  // Real arithmetic: exactly shift-invariant. The two exact scores agree to the accuracy of
  // their evaluation: elements within 2^-100 M of exact (PREC-ORACLE-2), summed in long double
  // (gamma_{d+2} with u = epsilon/2), over magnitudes <= sum_i Pq_i Pk_i * 1.5.
  double mag = 0;
  for (std::int64_t i = 0; i < kDim / 2; ++i) {
    mag += 1.5 * (std::fabs(qd[i]) + std::fabs(qd[i + kDim / 2])) * (std::fabs(kd[i]) + std::fabs(kd[i + kDim / 2]));
  }
  const double eval_err = mag * (std::ldexp(1.0, -98) +
                                 (kDim + 2) * static_cast<double>(std::numeric_limits<long double>::epsilon()));
  RC_ASSERT(std::fabs(static_cast<double>(s1 - s0)) <= 2 * eval_err);
  // Float: each score within its bound, so the shift moves it by at most b0 + b1.
  const float f0 = dot_f(qm.f, kn.f), f1 = dot_f(qs.f, ks.f);
  RC_ASSERT(std::fabs(static_cast<double>(f0 - s0)) <= b0);
  RC_ASSERT(std::fabs(static_cast<double>(f1 - s1)) <= b1);
  RC_ASSERT(std::fabs(static_cast<double>(f1) - static_cast<double>(f0)) <= b0 + b1);
}

// PREC-SCORE-2: the contract is not vacuous: with a bf16 cos/sin table the float score at
// small positions leaves the bound.
TEST(PrecisionScore, Bf16TableLeavesTheScoreBound) {
  std::vector<float> q(kDim), k(kDim);
  for (std::int64_t j = 0; j < kDim; ++j) {
    q[j] = static_cast<float>((j * 37) % 17) / 8.0f - 1.0f;
    k[j] = static_cast<float>((j * 11) % 13) / 6.0f - 1.0f;
  }
  const auto& row = po::budget("rope", "f32", "reference");
  const pp::Variant bad = pp::variant("rope", "bf16_table");
  bool violated = false;
  for (std::int64_t m = 1; m < 64 && !violated; ++m) {
    const Rotated qm = rotate(q, m, bad), kn = rotate(k, m + 3, bad);
    const std::vector<double> qd(q.begin(), q.end()), kd(k.begin(), k.end());
    const double b = po::rope_score_bound(row, qd, kd, qm.theta, kn.theta);
    violated = std::fabs(static_cast<double>(dot_f(qm.f, kn.f) - dot_exact(qm.ex, kn.ex))) > b;
  }
  EXPECT_TRUE(violated);
}
