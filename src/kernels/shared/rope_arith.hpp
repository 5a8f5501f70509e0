// RoPE per-element arithmetic and lane-pairing map: the single source for the SIMD kernels
// (instantiated with float and with vectors of float), the CUDA kernels, the host emulation
// of the CUDA grid, and the SMT proofs (instantiated with a symbolic float type).
//
// Spec: spec/rope.md (ROPE-PAIR-*), spec/abi.md (ABI-ROPE-2, ABI-ROPE-3).
//
// Operations and their order (no fused multiply-add anywhere in this file; the kernels are
// compiled with -ffp-contract=off / nvcc -fmad=false so the compiler cannot fuse them either):
//   rope_rotate:              ac = xa*c; bs = xb*s; bc = xb*c; as = xa*s;
//                             ya = ac - bs;  yb = bc + as        (4 mul, 1 sub, 1 add)
//   rope_rotate_interleaved:  y = x*c2 + xs*s2                   (1 mul, 1 mul, 1 add)
//     used by the GPTJ vector kernels on a block of interleaved pairs, with xs the block with
//     each pair swapped, c2 = (c, c) per pair and s2 = (-s, +s) per pair. Lane a gives
//     fl(fl(xa*c) + fl(xb*(-s))) = fl(fl(xa*c) - fl(xb*s)) and lane b gives
//     fl(fl(xb*c) + fl(xa*s)): bit-identical to rope_rotate, because IEEE rounding is
//     symmetric (fl(-u) = -fl(u)) and u + (-v) is the same operation as u - v.
#pragma once

#include <stdint.h>

#include "kernels/shared/hd.hpp"

namespace pecheck::kernels {

// The two lanes rotated together for frequency index i (0 <= i < rotary_dim/2).
// NEOX (layout 0): (i, i + rotary_dim/2). GPTJ (layout 1): (2i, 2i + 1).
// Lanes rotary_dim..head_dim-1 are not paired (copied through, ABI-ROPE-3).
template <class I>
struct LanePairT {
  I a;
  I b;
};

template <class I>
PEC_HD_FN LanePairT<I> rope_pair(int32_t layout, I rotary_dim, I i) {
  if (layout == 0) return LanePairT<I>{i, i + rotary_dim / 2};
  return LanePairT<I>{2 * i, 2 * i + 1};
}

// The frequency index that rotates `lane` (< rotary_dim) and whether it is the first (a) lane
// of its pair: the inverse of rope_pair, used by kernels that map one thread to one lane.
template <class I>
PEC_HD_FN I rope_lane_freq(int32_t layout, I rotary_dim, I lane, bool& is_a) {
  if (layout == 0) {
    const I half = rotary_dim / 2;
    is_a = lane < half;
    return is_a ? lane : lane - half;
  }
  is_a = (lane % 2) == 0;
  return lane / 2;
}

// One rotation, exactly as every kernel evaluates it (ABI-ROPE-2).
template <class T>
PEC_HD_FN void rope_rotate(const T& xa, const T& xb, const T& c, const T& s, T& ya, T& yb) {
  const T ac = xa * c;
  const T bs = xb * s;
  const T bc = xb * c;
  const T as = xa * s;
  ya = ac - bs;
  yb = bc + as;
}

// The interleaved (GPTJ block) form; see the header comment for why it is bit-identical.
template <class T>
PEC_HD_FN T rope_rotate_interleaved(const T& x, const T& x_swapped, const T& c2, const T& s2) {
  const T xc = x * c2;
  const T ws = x_swapped * s2;
  return xc + ws;
}

}  // namespace pecheck::kernels
