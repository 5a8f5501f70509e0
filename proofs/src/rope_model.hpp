// The RoPE score in real arithmetic with cos and sin uninterpreted, built by instantiating the
// kernels' own angle and rotation source (src/kernels/shared/rope_angle.hpp, rope_arith.hpp)
// with SymReal. Shared by the RoPE claims and the mutation test (internal header).
#pragma once

#include <string>
#include <vector>

#include "proofs/claims.hpp"

namespace pecheck::proofs::rope_model {

Term cos_of(const Term& x);  // uninterpreted "cos"
Term sin_of(const Term& x);  // uninterpreted "sin"

// cos^2 + sin^2 = 1 at a, b and the angle-difference formulas for b - a.
std::vector<Term> trig_axioms(const Term& a, const Term& b);

// The angle the kernels form: rope_angle_dd instantiated in exact arithmetic, a_hi + a_lo.
SymReal kernel_angle(const SymReal& position, const SymReal& scale, const SymReal& f_hi,
                     const SymReal& f_lo);

// <R(am) q, R(an) k> for one pair, with rope_rotate from the kernels' shared source.
SymReal pair_score(const Term& am, const Term& an, const SymReal& q0, const SymReal& q1,
                   const SymReal& k0, const SymReal& k1);

// How a scaling variant forms f_i (ROPE-SCALE-*): an uninterpreted function of the variant's
// parameters and, for dynamic NTK only, of the sequence length L = max(m, n) + 1.
struct Variant {
  std::string name;     // none | linear | ntk | yarn | llama3 | dynamic-ntk
  std::string clause;   // ROPE-SCALE-*
  std::vector<std::string> params;  // symbolic parameters the frequency depends on
  bool depends_on_length = false;   // dynamic NTK
  bool temperature = false;         // YaRN: cos and sin carry the attention factor
};
std::vector<Variant> variants();

// Positions of the dynamic NTK replay (spec defaults scaled down so positions stay small).
inline constexpr std::int64_t kDynOriginalMax = 16;
inline constexpr std::int64_t kDynRotaryDim = 8;
inline constexpr double kDynFactor = 2.0;
inline constexpr std::int64_t kDynFreqIndex = 1;  // f_0 = 1 for every base: use i = 1

// The score's shift invariance, split into lemmas the solvers decide quickly:
//  (1) angle-offset: A_k(n+t) - A_q(m+t) = A_k(n) - A_q(m), the angles the kernels form
//      (rope_angle_dd) with the variant's frequency; positions in [0, bound). Dynamic NTK (f
//      depends on L = max(m, n) + 1) and the WrongFreqExponent mutation (the key uses f * r,
//      r != 1) violate it.
//  (2) rope.relative-pair: score(m, n) = <q, R(A(n) - A(m)) k>        (proved once, any angles)
//  (3) congruence: equal angle differences give equal scores, with the variant's attention
//      factor (YaRN) on cos and sin.
// (2) rewrites both scores, (1) and (3) equate them.
Query angle_offset_query(const Variant& v, std::int64_t bound);
Query congruence_query(const Variant& v);

// Concrete replay of an angle-offset model in long double with the real cos and sin and the
// reference's frequencies (rope_inv_freq): confirmed when the scores of q = k = (1, 0) at
// (m, n) and (m + t, n + t) differ by more than the evaluation error.
Replay replay_shift(const Variant& v, const Model& m);

}  // namespace pecheck::proofs::rope_model
