// RoPE per-element arithmetic and lane-pairing map, single source for the SIMD kernels'
// scalar tails, the CUDA kernels, the host emulation of the CUDA grid, and the SMT proofs.
//
// Spec: spec/rope.md (ROPE-PAIR-*, ROPE-ROT-*), spec/abi.md.
#pragma once

#include <stdint.h>

#include "kernels/shared/hd.hpp"

namespace pecheck::kernels {

// The two lanes rotated together for frequency index i (0 <= i < rotary_dim/2).
// NEOX (layout 0): (i, i + rotary_dim/2). GPTJ (layout 1): (2i, 2i + 1).
// Lanes rotary_dim..head_dim-1 are not paired (copied through).
struct LanePair {
  int64_t a;
  int64_t b;
};

template <class I>
PEC_HD inline LanePair rope_pair(int32_t layout, I rotary_dim, I i) {
  if (layout == 0) return LanePair{static_cast<int64_t>(i), static_cast<int64_t>(i + rotary_dim / 2)};
  return LanePair{static_cast<int64_t>(2 * i), static_cast<int64_t>(2 * i + 1)};
}

// One rotation, exactly as the kernels evaluate it (no FMA contraction):
//   ya = xa*c - xb*s,  yb = xb*c + xa*s
// T only needs *, -, + (a symbolic float type in proofs/ provides them).
template <class T>
PEC_HD inline void rope_rotate(const T& xa, const T& xb, const T& c, const T& s, T& ya, T& yb) {
  const T ac = xa * c;
  const T bs = xb * s;
  const T bc = xb * c;
  const T as = xa * s;
  ya = ac - bs;
  yb = bc + as;
}

}  // namespace pecheck::kernels
