// Learned absolute embedding properties (spec/learned.md): lookup is exact, positions outside
// the table are errors, and the projected score depends on absolute positions (witness).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <memory>

#include "gen.hpp"
#include "reference/score_model.hpp"
#include "reference/tolerance.hpp"

namespace pecheck::props {
namespace {

using reference::LearnedConfig;

struct Table {
  LearnedConfig cfg;
  std::vector<double> values;
};
std::ostream& operator<<(std::ostream& os, const Table& t) {
  return os << "{max_positions=" << t.cfg.max_positions << ", d_model=" << t.cfg.d_model << "}";
}

rc::Gen<Table> table() {
  return from_rng<Table>(
      [](Rng& r) {
        Table t;
        t.cfg.max_positions = r.coin(2) ? 512 : r.range(2, 4096);
        t.cfg.d_model = r.range(1, 16);
        t.values.resize(static_cast<std::size_t>(t.cfg.max_positions * t.cfg.d_model));
        for (auto& v : t.values) v = classify::gen_real(r);
        return t;
      },
      [](const Table&) { return std::vector<Table>{}; });
}

// Clause: LEARNED-LOOKUP-1 — row p, bit for bit.
RC_GTEST_PROP(Learned, LookupReturnsTheRowBitExactly, ()) {
  const Table t = *table();
  const std::int64_t p = *position(t.cfg.max_positions);
  const auto row = reference::learned_encode<double>(t.cfg, std::span<const double>(t.values), p);
  RC_ASSERT(static_cast<std::int64_t>(row.size()) == t.cfg.d_model);
  for (std::int64_t c = 0; c < t.cfg.d_model; ++c) {
    RC_ASSERT(
        std::bit_cast<std::uint64_t>(row[c]) ==
        std::bit_cast<std::uint64_t>(t.values[static_cast<std::size_t>(p * t.cfg.d_model + c)]));
  }
}

// Clause: LEARNED-ARG-2, LEARNED-ARG-1 — a position outside [0, max_positions) throws.
RC_GTEST_PROP(Learned, OutOfRangePositionThrows, ()) {
  const Table t = *table();
  const std::int64_t over = *rc::gen::inRange<std::int64_t>(0, 1 << 20);
  const std::int64_t p = *rc::gen::arbitrary<bool>() ? t.cfg.max_positions + over : -1 - over;
  RC_ASSERT_THROWS_AS(
      reference::learned_encode<double>(t.cfg, std::span<const double>(t.values), p),
      InvalidArgument);
}

// Clause: LEARNED-AXIS-2, LEARNED-AXIS-1 — the projected score (MODEL-SCORE-1) is not
// shift-invariant: the property must be falsified; RapidCheck prints the shrunk witness.
TEST(Learned, ProjectedScoreDependsOnAbsolutePositionWitness) {
  const bool found = expect_witness(
      "learned projected score is shift-invariant (expected to FAIL with a witness)", [] {
        const Table t = *table();
        const ShiftCase s = *shift_case(t.cfg.max_positions);
        RC_PRE(valid_shift_case(s, t.cfg.max_positions));
        Rng r(*model_seed());
        const std::int64_t hd = r.range(1, 8);
        reference::Projection<double> pr;
        pr.w_q = reference::Mat<double>::NullaryExpr(t.cfg.d_model, hd,
                                                     [&] { return r.uniform(-1, 1); });
        pr.w_k = reference::Mat<double>::NullaryExpr(t.cfg.d_model, hd,
                                                     [&] { return r.uniform(-1, 1); });
        const reference::Vec<double> xq =
            reference::Vec<double>::NullaryExpr(t.cfg.d_model, [&] { return r.uniform(-1, 1); });
        const reference::Vec<double> xk =
            reference::Vec<double>::NullaryExpr(t.cfg.d_model, [&] { return r.uniform(-1, 1); });
        const std::span<const double> tv(t.values);
        const double a = reference::score_learned<double>(t.cfg, tv, pr, xq, xk, s.m, s.n);
        const double b =
            reference::score_learned<double>(t.cfg, tv, pr, xq, xk, s.m + s.c, s.n + s.c);
        // MODEL-TOL-1 magnitude: D + 2 times the norm product (no angles); rows enter exactly.
        auto row = [&](std::int64_t p) {
          return reference::detail::to_vec(reference::learned_encode<double>(t.cfg, tv, p));
        };
        const double D = static_cast<double>(t.cfg.d_model + hd);
        auto mag = [&](std::int64_t m, std::int64_t n) {
          return (D + 2) * pr.w_q.norm() * (xq + row(m)).norm() * pr.w_k.norm() *
                 (xk + row(n)).norm();
        };
        const double tol =
            reference::shift_tolerance<double>(mag(s.m, s.n) + mag(s.m + s.c, s.n + s.c));
        RC_LOG() << t << " " << s << " scores " << a << " vs " << b << " tolerance " << tol << "\n";
        RC_ASSERT(std::fabs(a - b) <= tol);
      });
  EXPECT_TRUE(found)
      << "no witness: the learned-table score looked shift-invariant (LEARNED-AXIS-2)";
}

}  // namespace
}  // namespace pecheck::props
