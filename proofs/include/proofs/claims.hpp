// Claims: what `pecheck prove` establishes. A claim runs one or more named queries, each on
// Z3 and cvc5, and combines their answers (combine()):
//   - a proof needs at least one solver's unsat and no solver's sat; a query with
//     floating-point terms needs cvc5's unsat (Z3 4.8.12's FP support is not trusted alone);
//   - a counterexample needs a solver model that REPLAYS concretely (the claim's replay
//     function re-evaluates the model's inputs on real float / long double / MPFR arithmetic);
//     a model that does not replay gives Unknown, never a counterexample;
//   - solvers that disagree give Error; otherwise Timeout / Unknown as the solvers said.
// Each claim states what it is expected to give (a proof, or a counterexample for the claims
// that are meant to fail: not shift-invariant encodings, FMA differences, mutants).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "report/result.hpp"
#include "proofs/solver.hpp"
#include "proofs/sym.hpp"

namespace pecheck::proofs {

struct QueryRecord {
  std::string name;
  Answer answer = Answer::Unknown;
  std::string reason;
  std::vector<SolverRun> runs;
};

struct ClaimResult {
  std::string name;
  std::string clause;        // spec clause(s) the claim establishes, e.g. "ROPE-REL-1"
  std::string scheme;        // rope | alibi | t5 | sinusoidal | kernel | mutation
  std::string description;
  Answer expected = Answer::Proved;
  Answer verdict = Answer::Unknown;
  std::string reason;        // why unknown / timeout / error, or what the counterexample shows
  std::vector<QueryRecord> queries;
  double seconds = 0;
  std::optional<report::Counterexample> counterexample;  // replayed, in the verify format
  std::vector<std::string> notes;
  bool as_expected() const { return verdict == expected; }
};

// The concrete re-evaluation of a solver model. `confirmed` only when real arithmetic shows
// the claim's violation; `cx` carries the report.
struct Replay {
  bool confirmed = false;
  std::string message;
  report::Counterexample cx;
};
using ReplayFn = std::function<Replay(const Model&)>;

// Runs `q` on the solvers (Z3 is skipped for fp.fma) and combines the answers.
QueryRecord run_query(const Query& q);

// Folds a query into a claim; on a counterexample, replays each solver's model.
// Returns the query's final answer (after replay).
Answer add_query(ClaimResult& c, const Query& q, const ReplayFn& replay = {});

// Sets c.verdict from its queries: all proved -> Proved; any confirmed counterexample ->
// Counterexample; else the worst of error > timeout > unknown.
void finish(ClaimResult& c);

struct Claim {
  std::string name;
  std::string clause;
  std::string scheme;
  Answer expected = Answer::Proved;
  std::function<ClaimResult()> run;
};

std::vector<Claim> all_claims();

// Runs one claim, timing it; an exception becomes an Error verdict (never a crash).
ClaimResult run_claim(const Claim& c);

// Claim families (one file each).
void add_rope_claims(std::vector<Claim>& out);        // claims_rope.cpp
void add_sinusoidal_claims(std::vector<Claim>& out);  // claims_sinusoidal.cpp
void add_bias_claims(std::vector<Claim>& out);        // claims_bias.cpp
void add_kernel_fp_claims(std::vector<Claim>& out);   // claims_kernel_fp.cpp
void add_index_claims(std::vector<Claim>& out);       // claims_index.cpp
void add_grid_claims(std::vector<Claim>& out);        // claims_grid.cpp
void add_mutation_claims(std::vector<Claim>& out);    // claims_mutation.cpp
void add_family_claims(std::vector<Claim>& out);      // claims_family.cpp (issue 14)

// Helper: a ClaimResult pre-filled from a Claim.
ClaimResult start(const std::string& name, const std::string& clause, const std::string& scheme,
                  Answer expected, const std::string& description);

}  // namespace pecheck::proofs
