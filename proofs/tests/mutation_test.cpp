// The proofs can fail (PROOF-MUT-1..4): each mutant of the kernels' shared source, injected
// into its symbolic instantiation, turns a proof into a counterexample that replays on the
// equally mutated float arithmetic (the index mutants of PROOF-MUT-4: on exact integers);
// without the mutation the same proof goes through.
#include <gtest/gtest.h>

#include "proofs/claims.hpp"

namespace pecheck::proofs {
namespace {

const Claim& find(const std::vector<Claim>& all, const std::string& name) {
  for (auto& c : all) if (c.name == name) return c;
  throw std::runtime_error("no claim " + name);
}

void expect_killed(const std::string& mutant, const std::string& original) {
  const auto all = all_claims();
  const ClaimResult m = run_claim(find(all, mutant));
  EXPECT_EQ(to_string(m.verdict), "counterexample") << mutant << ": " << m.reason;
  ASSERT_TRUE(m.counterexample.has_value()) << "the mutant's counterexample must replay";
  std::printf("  %s killed: %s\n", mutant.c_str(), m.reason.c_str());
  EXPECT_EQ(active_mutation(), Mutation::None) << "a mutation leaked out of its scope";
  const ClaimResult o = run_claim(find(all, original));
  EXPECT_EQ(to_string(o.verdict), "proved") << original << ": " << o.reason;
}

// Clause: PROOF-MUT-1
TEST(Mutation, SignFlipInRotationIsCaught) { expect_killed("mutant.sign-flip", "kernel.rope-rotate-f32"); }
// Clause: PROOF-MUT-2
TEST(Mutation, SwappedPairIsCaught) { expect_killed("mutant.swapped-pair", "kernel.rope-rotate-f32"); }
// Clause: PROOF-MUT-3
TEST(Mutation, WrongFrequencyExponentIsCaught) {
  expect_killed("mutant.wrong-frequency-exponent", "rope.shift.none");
}

// Clause: PROOF-MUT-4
TEST(Mutation, WrongIndexStrideIsCaught) {
  expect_killed("mutant.hqk-wrong-stride", "grid.hqk-index.uint32");
}
// Clause: PROOF-MUT-4
TEST(Mutation, IndexSplitWithNqForNkIsCaught) {
  expect_killed("mutant.hqk-j-uses-nq", "grid.hqk-index.uint32");
}

// Clause: PROOF-MUT-4, PROOF-IDX-2
TEST(Mutation, T5TableIndexWithWrongStrideIsCaught) {
  expect_killed("mutant.t5-table-wrong-stride", "grid.t5-table-index.int64");
}

}  // namespace
}  // namespace pecheck::proofs
