// Runs a piece of the kernels' shared source on symbolic integers: every feasible path is
// executed (PathExplorer, with an incremental Z3 feasibility check), the results are merged
// into one term, and the overflow obligations SymInt recorded are collected (internal header).
#pragma once

#include <vector>

#include "proofs/solver.hpp"
#include "proofs/sym.hpp"

namespace pecheck::proofs {

struct Explored {
  Term value;
  std::vector<ObligationScope::Obligation> obligations;
  std::size_t paths = 0;
};

template <class F>
Explored run_symbolic(const std::vector<Term>& preconditions, F&& body) {
  ObligationScope scope;
  PathExplorer ex({}, z3_feasibility(preconditions));
  auto paths = ex.explore([&] { return body().term(); });
  std::vector<std::pair<Term, Term>> pv(paths.begin(), paths.end());
  return {merge_paths(pv), scope.obligations(), paths.size()};
}

// Every obligation holds on its path.
inline Term obligations_hold(const std::vector<ObligationScope::Obligation>& obs) {
  std::vector<Term> all;
  for (auto& o : obs) all.push_back(implies(o.path, o.holds));
  return t_and(all);
}

inline Term bv64(std::int64_t v) { return bv_lit(64, static_cast<std::uint64_t>(v)); }
inline Term in_bv_range(const Term& x, std::int64_t lo, std::int64_t hi) {  // lo <= x < hi
  return t_and({bv_bin(Op::BvSle, bv64(lo), x), bv_bin(Op::BvSlt, x, bv64(hi))});
}

}  // namespace pecheck::proofs
