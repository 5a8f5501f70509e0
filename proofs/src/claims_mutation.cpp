// The mutation test (PROOF-MUT-1, PROOF-MUT-2, PROOF-MUT-3, PROOF-MUT-4): the proofs can fail. Each mutant injects one realistic
// bug into the symbolic instantiation of the kernels' shared source, and the same proof that
// passes on the real source must then return a counterexample that replays concretely on the
// equally mutated float arithmetic.
//   sign-flip (PROOF-MUT-1)                SymFloat's a - b becomes a + b in rope_rotate (MutFloat likewise)
//   swapped-pair              the kernel loads the pair as (x_b, x_a)
//   wrong-frequency-exponent  the key is rotated with f_{i+1} = f_i * base^(-2/d) instead of f_i
//   hqk-wrong-stride (PROOF-MUT-4)  the ALiBi/T5 index split with i = row - h*n_k (n_q expected)
//   hqk-j-uses-nq (PROOF-MUT-4)     the split with j = g - row*n_q (n_k expected)
//   t5-table-wrong-stride (PROOF-MUT-4)  T5's table index b*num_buckets + h (n_heads expected),
//                                   through grid.t5-table-index.int64 (PROOF-IDX-2)
// The index mutants are copies of grid.hpp's hqk_split with the one change, run through the
// same claim as the kernels' split (grid.hqk-index.uint32, the type the CUDA kernels use) and
// replayed on exact integers.
#include "grid_index.hpp"
#include "kernels/shared/rope_arith.hpp"
#include "proofs/kernel_check.hpp"
#include "rope_model.hpp"

namespace pecheck::proofs {
namespace {

ClaimResult rotate_mutant(Mutation m, const std::string& clause) {
  MutationScope scope(m);
  auto c = prove_rope_rotation(
      std::string("mutant.") + to_string(m),
      [](const auto& xa, const auto& xb, const auto& cs, const auto& sn, auto& ya, auto& yb) {
        kernels::rope_rotate(xa, xb, cs, sn, ya, yb);
      },
      Answer::Counterexample, clause);
  c.scheme = "mutation";
  return c;
}

ClaimResult frequency_mutant() {
  MutationScope scope(Mutation::WrongFreqExponent);
  auto c = start("mutant.wrong-frequency-exponent", "PROOF-MUT-3, ROPE-REL-1", "mutation",
                 Answer::Counterexample,
                 "rope.shift with the key's frequency exponent off by one must fail");
  const auto v = rope_model::variants().front();  // "none": f_i = base^(-2i/d)
  add_query(c, rope_model::angle_offset_query(v, std::int64_t{1} << 12),
            [v](const Model& md) { return rope_model::replay_shift(v, md); });
  finish(c);
  return c;
}

// hqk_split (src/kernels/shared/grid.hpp) with one stride wrong.
struct WrongStrideSplit {  // i = row - h * nk
  template <class N>
  kernels::grid::HQK<N> operator()(const N& g, const N& nq, const N& nk) const {
    const N row = g / nk;
    const N j = g - row * nk;
    const N h = row / nq;
    const N i = row - h * nk;
    return kernels::grid::HQK<N>{h, i, j};
  }
};
struct JUsesNqSplit {  // j = g - row * nq
  template <class N>
  kernels::grid::HQK<N> operator()(const N& g, const N& nq, const N& nk) const {
    const N row = g / nk;
    const N j = g - row * nq;
    const N h = row / nq;
    const N i = row - h * nq;
    return kernels::grid::HQK<N>{h, i, j};
  }
};

// t5_table_index (grid.hpp) with the stride num_buckets instead of n_heads: b*num_buckets + h.
struct TableWrongStride {
  template <class N>
  N operator()(const N& r, const N& c, const N& rows, const N& /*cols*/) const {
    return r * rows + c;
  }
};

ClaimResult table_mutant() {
  auto c = grid_index::table_index::prove(
      "mutant.t5-table-wrong-stride", "PROOF-MUT-4, PROOF-IDX-2", Answer::Counterexample,
      TableWrongStride{}, {grid_index::table_index::Order::Table},
      "grid.t5-table-index.int64 with table[b*num_buckets + h] must fail");
  c.scheme = "mutation";
  return c;
}

template <class Split>
ClaimResult index_mutant(const std::string& name, const std::string& what) {
  auto c = grid_index::prove(name, "PROOF-MUT-4, PROOF-IDX-1", Answer::Counterexample,
                             grid_index::widths()[1], Split{}, {grid_index::Part::Map},
                             "grid.hqk-index.uint32's map with " + what + " must fail");
  c.scheme = "mutation";
  return c;
}

}  // namespace

void add_mutation_claims(std::vector<Claim>& out) {
  out.push_back({"mutant.sign-flip", "PROOF-MUT-1", "mutation", Answer::Counterexample,
                 [] { return rotate_mutant(Mutation::SignFlip, "PROOF-MUT-1, ABI-ROPE-2"); }});
  out.push_back({"mutant.swapped-pair", "PROOF-MUT-2", "mutation", Answer::Counterexample,
                 [] { return rotate_mutant(Mutation::SwappedPair, "PROOF-MUT-2, ABI-ROPE-2"); }});
  out.push_back({"mutant.wrong-frequency-exponent", "PROOF-MUT-3", "mutation",
                 Answer::Counterexample, frequency_mutant});
  out.push_back({"mutant.hqk-wrong-stride", "PROOF-MUT-4", "mutation", Answer::Counterexample, [] {
                   return index_mutant<WrongStrideSplit>("mutant.hqk-wrong-stride",
                                                         "i = row - h*n_k");
                 }});
  out.push_back({"mutant.hqk-j-uses-nq", "PROOF-MUT-4", "mutation", Answer::Counterexample, [] {
                   return index_mutant<JUsesNqSplit>("mutant.hqk-j-uses-nq", "j = g - row*n_q");
                 }});
  out.push_back({"mutant.t5-table-wrong-stride", "PROOF-MUT-4", "mutation",
                 Answer::Counterexample, table_mutant});
}

}  // namespace pecheck::proofs
