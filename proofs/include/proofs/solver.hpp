// The one layer that owns the SMT solvers (Z3 4.8.12 and cvc5 1.0.3). Nothing else in pecheck
// includes z3++.h or cvc5/cvc5.h: queries are written in the term language of term.hpp and
// answered here with a closed set of answers.
//
// A query is named (the name appears in every report), carries its own time limit, and asks
// whether `claim` holds under `assumptions`: the solver checks assumptions AND NOT claim.
//   unsat   -> Proved           sat -> Counterexample (with a model of every variable)
//   unknown -> Unknown(reason)  or Timeout when the time limit was reached
//   a tool exception -> Error(message)
// A Timeout or Unknown is never a proof.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/verdict.hpp"
#include "proofs/term.hpp"

namespace pecheck::proofs {

enum class Answer { Proved, Counterexample, Unknown, Timeout, Error };
std::string_view to_string(Answer a);       // proved | counterexample | unknown | timeout | error
Verdict to_verdict(Answer a);               // Proved -> Verdict::Pass, ...

enum class Backend { Z3, Cvc5 };
std::string_view to_string(Backend b);      // z3 | cvc5
std::string solver_version(Backend b);

// The value of one variable in a model.
struct Value {
  Sort sort;
  bool boolean = false;
  std::uint64_t bits = 0;  // BV (and so FP variables, which are built from BV variables)
  std::string text;        // Int / Real: exact rational "p" or "p/q" (Z3 algebraic: decimal)
  double to_double() const;
};

struct Model {
  std::map<std::string, Value> vars;
  std::map<std::string, std::string> watched;  // label -> value text of Query::watch terms
  bool has(const std::string& name) const { return vars.count(name) != 0; }
  double real(const std::string& name) const;           // Int/Real variable as double
  std::uint64_t bits(const std::string& name) const;    // BV variable
  std::int64_t int64(const std::string& name) const;    // BV(64) variable, two's complement
  float f32(const std::string& fp_var_name) const;      // fp_var(name, f32)
  std::string describe() const;                         // "name=value, ..." for messages
};

struct Query {
  std::string name;                 // e.g. "rope.rel.pair"
  std::vector<Term> assumptions;    // axioms and hypotheses
  Term claim;                       // Boolean: what must hold
  std::vector<std::pair<std::string, Term>> watch;  // extra values to report from a model
  double time_limit_s = 10;         // per solver
  // Z3 sees IEEE fp.add / fp.mul operands in a canonical order. Sound (both operations are
  // commutative in IEEE 754, NaN included) and it lets Z3 decide equal operation sequences
  // without bit-blasting a multiplier, which Z3 4.8.12 cannot finish for binary32.
  bool z3_canonical_commutative = true;
  // Both solvers see the query rewritten by ieee_normalize (term.hpp); the rewrite rules are
  // proved separately (kernel.ieee-lemmas), and the claim says it uses them.
  bool ieee_normalize = false;
  // The solver that gets the full time limit (the other cross-checks with a short one).
  // Default: cvc5 for floating-point and bit-vector queries, Z3 for real/integer arithmetic.
  std::optional<Backend> primary;
  // Z3 runs its SMT core (tactic "smt": simplex, nonlinear-arithmetic lemmas, branch and
  // bound) instead of the strategy it picks for the logic. For nonlinear integer queries
  // (SymIdx): Z3 4.8.12's QF_NIA strategy neither finishes the index-map queries nor honours its
  // time limit, while its SMT core decides them in well under a second.
  bool z3_smt_core = false;
};

struct SolverRun {
  Backend backend = Backend::Z3;
  bool ran = false;         // false: skipped (see reason), e.g. fp.fma with Z3 4.8.12
  Answer answer = Answer::Unknown;
  std::string reason;       // unknown/timeout/error/skipped: why
  double seconds = 0;
  std::optional<Model> model;  // for Counterexample
};

SolverRun run_z3(const Query& q);
SolverRun run_cvc5(const Query& q);
SolverRun run_backend(Backend b, const Query& q);

// Whether the query uses floating-point terms (a proof then needs cvc5's confirmation) or a
// fused multiply-add (Z3 4.8.12's fp.fma is known unsound: Z3 is skipped).
bool uses_fp(const Query& q);
bool uses_fma(const Query& q);
bool uses_bv(const Query& q);

// A quick satisfiability check for path exploration: false only on a definite unsat.
bool z3_maybe_sat(const std::vector<Term>& conditions, double time_limit_s = 5);
// The same with one incremental Z3 solver kept across calls (push/pop), for PathExplorer:
// `base` is asserted once, each call checks base AND conditions.
std::function<bool(const std::vector<Term>&)> z3_feasibility(const std::vector<Term>& base,
                                                             double time_limit_s = 5);

}  // namespace pecheck::proofs
