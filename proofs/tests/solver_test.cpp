// The solver layer answers with its closed verdict set and never turns "could not decide"
// into a proof. Clause: PROOF-SOLVER-1, PROOF-SOLVER-2.
#include <gtest/gtest.h>

#include "proofs/claims.hpp"

namespace pecheck::proofs {
namespace {

TEST(Solver, ProvesATautologyWithBothSolvers) {
  const Term x = var("x", Sort::real());
  Query q;
  q.name = "test.tautology";
  q.claim = eq(add(x, x), mul(real_lit(2), x));
  const QueryRecord r = run_query(q);
  EXPECT_EQ(r.answer, Answer::Proved);
  for (auto& run : r.runs) EXPECT_EQ(run.answer, Answer::Proved) << to_string(run.backend);
}

TEST(Solver, FindsACounterexampleWithAModel) {
  const Term x = var("x", Sort::bv(64));
  Query q;
  q.name = "test.false";
  q.claim = t_not(eq(x, bv_lit(64, 42)));
  const QueryRecord r = run_query(q);
  ASSERT_EQ(r.answer, Answer::Counterexample);
  for (auto& run : r.runs) {
    ASSERT_TRUE(run.model.has_value());
    EXPECT_EQ(run.model->bits("x"), 42u);
  }
}

TEST(Solver, UnreplayedModelIsNotACounterexample) {
  const Term x = var("x", Sort::bv(8));
  Query q;
  q.name = "test.unreplayed";
  q.claim = t_not(eq(x, bv_lit(8, 1)));
  ClaimResult c = start("test", "", "test", Answer::Counterexample, "");
  const Answer a = add_query(c, q, [](const Model&) { return Replay{}; });  // never confirms
  EXPECT_EQ(a, Answer::Unknown);
  finish(c);
  EXPECT_EQ(c.verdict, Answer::Unknown);
  EXPECT_FALSE(c.as_expected());
}

TEST(Solver, FmaQueriesSkipZ3) {
  const Term a = fp_var("a", Sort::f32());
  Query q;
  q.name = "test.fma";
  q.claim = fp_same(fp_fma(a, a, a), fp_fma(a, a, a));
  const SolverRun z = run_z3(q);
  EXPECT_FALSE(z.ran);
  EXPECT_EQ(run_cvc5(q).answer, Answer::Proved);
}

TEST(Solver, TimeoutIsNeverAProof) {
  // Commutativity of binary32 multiplication without canonical operand order: Z3 4.8.12
  // cannot finish it within a short limit.
  const Term a = fp_var("a", Sort::f32()), b = fp_var("b", Sort::f32());
  Query q;
  q.name = "test.timeout";
  q.claim = fp_same(fp_bin(Op::FpMul, a, b), fp_bin(Op::FpMul, b, a));
  q.z3_canonical_commutative = false;
  q.time_limit_s = 1;
  const SolverRun z = run_z3(q);
  EXPECT_NE(z.answer, Answer::Proved);
  EXPECT_TRUE(z.answer == Answer::Timeout || z.answer == Answer::Unknown) << z.reason;
}

TEST(Solver, IeeeNormalizeRewritesNegations) {
  const Term a = fp_var("a", Sort::f32()), b = fp_var("b", Sort::f32());
  const Term t = fp_bin(Op::FpAdd, a, fp_bin(Op::FpMul, a, fp_un(Op::FpNeg, b)));
  EXPECT_EQ(to_string(ieee_normalize(t)), to_string(fp_bin(Op::FpSub, a, fp_bin(Op::FpMul, a, b))));
}

}  // namespace
}  // namespace pecheck::proofs
