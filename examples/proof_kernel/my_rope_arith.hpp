// A user's RoPE kernel arithmetic, written ONCE and templated on the number type, so that
// the same source runs in the kernel (T = float, or a SIMD vector type) and is proved by
// `pecheck::proofs` (T = SymFloat, a solver term). See README.md in this folder.
//
// Two variants a kernel engineer might write:
//   my_rotate      : ya = xa*c - xb*s, yb = xb*c + xa*s, every operation rounded (no FMA);
//                    bit-identical to the spec's float32 evaluation -> pecheck proves it.
//   my_rotate_fma  : the same with fused multiply-adds (one rounding fewer per output);
//                    NOT bit-identical -> pecheck returns inputs where they differ, and the
//                    separate ULP-bound proof (kernel.fma-ulp-bound) says by how much.
#pragma once

#include <cmath>

namespace my_kernel {

// Fused multiply-add for plain floats; symbolic and vector types bring their own `ffma`,
// found by argument-dependent lookup.
inline float ffma(float a, float b, float c) { return std::fmaf(a, b, c); }

template <class T>
void my_rotate(const T& xa, const T& xb, const T& c, const T& s, T& ya, T& yb) {
  const T ac = xa * c;
  const T bs = xb * s;
  ya = ac - bs;
  const T bc = xb * c;
  const T as = xa * s;
  yb = bc + as;
}

template <class T>
void my_rotate_fma(const T& xa, const T& xb, const T& c, const T& s, T& ya, T& yb) {
  const T bs = xb * s;
  ya = ffma(xa, c, -bs);      // xa*c - fl(xb*s), rounded once
  const T as = xa * s;
  yb = ffma(xb, c, as);       // xb*c + fl(xa*s), rounded once
}

}  // namespace my_kernel
