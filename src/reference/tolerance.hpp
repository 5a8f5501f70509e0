// The one place the score-comparison tolerances live (spec/README.md, MODEL-TOL-1/2).
// Tests and properties read them from here; no tolerance literals in test bodies.
#pragma once

#include <limits>

namespace pecheck::reference {

// MODEL-TOL-1: K in |s(m,n) - s(m+c,n+c)| <= K * u_T * M (derivation in spec/README.md).
inline constexpr double kShiftBudgetUnits = 16.0;
// MODEL-TOL-2: softmax probabilities compared within this many logit tolerances.
inline constexpr double kSoftmaxBudgetFactor = 4.0;

// Unit roundoff of T: half the machine epsilon.
template <class T>
T unit_roundoff() {
  return std::numeric_limits<T>::epsilon() / T(2);
}

// MODEL-TOL-1 for a magnitude M (the sum of both scores' magnitude terms).
template <class T>
T shift_tolerance(const T& magnitude) {
  return T(kShiftBudgetUnits) * unit_roundoff<T>() * magnitude;
}

// MODEL-TOL-2 for the largest logit tolerance t of a row.
template <class T>
T softmax_tolerance(const T& logit_tolerance) {
  return T(kSoftmaxBudgetFactor) * logit_tolerance;
}

}  // namespace pecheck::reference
