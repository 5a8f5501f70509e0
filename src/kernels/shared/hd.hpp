// PEC_HD marks functions shared by CUDA device code, host code and the symbolic (SMT)
// instantiation in proofs/. Nothing in src/kernels/shared may depend on a particular
// number type: arithmetic goes through operators and the unqualified calls `ffma(a, b, c)`
// (fused multiply-add, one rounding) and `dbits(x)` (the encoding, as integer) resolved per type,
// so that proofs/ can instantiate the very same source with a symbolic float type (found by
// argument-dependent lookup).
//
// PEC_HD_FN gives shared functions internal linkage (`static inline`): the SIMD library
// compiles this source once per instruction set (baseline, AVX2, AVX-512) into one shared
// object, and internal linkage keeps the linker from merging an AVX-512 copy of a helper into
// the portable path (which would fault on a CPU without AVX-512).
#pragma once

#if defined(__CUDACC__)
#define PEC_HD __host__ __device__
#else
#define PEC_HD
#endif

#define PEC_HD_FN static inline PEC_HD

#if !defined(__CUDACC__)
#include <cmath>
#endif

namespace pecheck::kernels {

// Fused multiply-add of doubles with a single rounding (IEEE 754 fusedMultiplyAdd).
// Vector and symbolic number types provide their own overload of `ffma`.
PEC_HD_FN double ffma(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// The encoding of a double as a 64-bit integer (rope_angle.hpp reads the quadrant from it).
// Vector types provide their own overload.
PEC_HD_FN long long dbits(double x) {
#if defined(__CUDA_ARCH__)
  return __double_as_longlong(x);
#else
  long long b;
  __builtin_memcpy(&b, &x, sizeof b);
  return b;
#endif
}

}  // namespace pecheck::kernels
