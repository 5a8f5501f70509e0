// The mutation test (PROOF-MUT-1, PROOF-MUT-2, PROOF-MUT-3): the proofs can fail. Each mutant injects one realistic
// bug into the symbolic instantiation of the kernels' shared source, and the same proof that
// passes on the real source must then return a counterexample that replays concretely on the
// equally mutated float arithmetic.
//   sign-flip (PROOF-MUT-1)                SymFloat's a - b becomes a + b in rope_rotate (MutFloat likewise)
//   swapped-pair              the kernel loads the pair as (x_b, x_a)
//   wrong-frequency-exponent  the key is rotated with f_{i+1} = f_i * base^(-2/d) instead of f_i
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

}  // namespace

void add_mutation_claims(std::vector<Claim>& out) {
  out.push_back({"mutant.sign-flip", "PROOF-MUT-1", "mutation", Answer::Counterexample,
                 [] { return rotate_mutant(Mutation::SignFlip, "PROOF-MUT-1, ABI-ROPE-2"); }});
  out.push_back({"mutant.swapped-pair", "PROOF-MUT-2", "mutation", Answer::Counterexample,
                 [] { return rotate_mutant(Mutation::SwappedPair, "PROOF-MUT-2, ABI-ROPE-2"); }});
  out.push_back({"mutant.wrong-frequency-exponent", "PROOF-MUT-3", "mutation",
                 Answer::Counterexample, frequency_mutant});
}

}  // namespace pecheck::proofs
