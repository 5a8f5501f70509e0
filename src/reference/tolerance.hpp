// The one place the score-comparison tolerances live (spec/README.md, MODEL-TOL-1/2).
// Tests and properties read them from here; no tolerance literals in test bodies.
#pragma once

#include <cmath>
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

// MODEL-TOL-3 for an inverse frequency f of effective base b computed in T:
// K * u * |f| * (2 + |ln b|).
template <class T>
T freq_tolerance(const T& f, const T& base) {
  using std::abs;
  using std::log;
  return shift_tolerance<T>(abs(f) * (T(2) + abs(log(base))));
}

// T5-BUCKET-4: error bound of the T5 logarithmic value v = n ln(d/e) / ln(M/e) evaluated in T:
// K * u * (v + n) * (1 + 1/ln(M/e)).
template <class T>
T t5_log_tolerance(const T& v, const T& n, const T& log_ratio) {
  return shift_tolerance<T>((v + n) * (T(1) + T(1) / log_ratio));
}

// MODEL-TOL-2 for the largest logit tolerance t of a row.
template <class T>
T softmax_tolerance(const T& logit_tolerance) {
  return T(kSoftmaxBudgetFactor) * logit_tolerance;
}

}  // namespace pecheck::reference
