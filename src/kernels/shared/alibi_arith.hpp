// ALiBi per-element arithmetic and slope rule: the single source for the SIMD kernels
// (double and vectors of double), the CUDA kernels, the host emulation and the proofs.
//
// Spec: spec/alibi.md, spec/abi.md (ABI-ALIBI-1..3).
//
// Slope of head h with n_heads heads, p the largest power of two <= n_heads:
//   h <  p: 2^(-8(h+1)/p)          h >= p: 2^(-4(2(h-p)+1)/p)
// alibi_slope_exponent returns the exponent as the exact fraction num/den (den = p).
//
// Per element (order of operations, all in double, no fused multiply-add):
//   d    = q_pos - k_pos          integers < 2^31 in magnitude, exact in double
//   symmetric: bias = slope * |d|;  out = double(score) - bias;  rounded once to float
//   causal:    k_pos > q_pos -> out = -inf; else bias = slope * d; out = double(score) - bias
// slope*|d| has relative error <= 2^-53 (slope itself is within 1 ulp of double), the
// subtraction adds <= 2^-53 relative, then one rounding to float32: the result is within
// 0.5 ulp of float plus ~2^-28 ulp of the exact score - slope*|d|.
#pragma once

#include <stdint.h>

#include "kernels/shared/hd.hpp"

namespace pecheck::kernels {

// Largest power of two <= n (n >= 1).
template <class I>
PEC_HD_FN I alibi_pow2_floor(I n) {
  I p = 1;
  while (p <= n / 2) p = p * 2;
  return p;
}

// Slope exponent of head h (0 <= h < n_heads) as num/den: slope = 2^(num/den).
template <class I>
PEC_HD_FN void alibi_slope_exponent(I n_heads, I h, I& num, I& den) {
  const I p = alibi_pow2_floor(n_heads);
  den = p;
  if (h < p) {
    num = -8 * (h + 1);
  } else {
    num = -4 * (2 * (h - p) + 1);
  }
}

// The biased score. `causal` and `ahead` (k_pos > q_pos) are masks/bools; d = q_pos - k_pos.
template <class V, class M>
PEC_HD_FN V alibi_apply(const V& score, const V& slope, const V& d, const M& causal_mask_ahead,
                        const V& minus_inf) {
  const V ad = d < 0.0 ? -d : d;
  const V bias = slope * ad;
  const V out = score - bias;
  return causal_mask_ahead ? minus_inf : out;
}

}  // namespace pecheck::kernels
