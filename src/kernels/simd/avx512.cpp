// AVX-512 path (x86-64-v4: F, DQ, BW, VL): 8 doubles per vector for the cos/sin and 16 floats
// (512-bit) for the rotation, whose cos/sin tables then fit in registers for a head dimension
// up to 128 (impl.inc, rows_reg). PEC_AVX512_FLOAT_BYTES=32 builds the former 256-bit float
// variant for A/B measurements (src/kernels/DESIGN.md). Compiled with -march=x86-64-v4 (this
// file only); reached only when the CPU has AVX-512 F, DQ, BW and VL.
#include <immintrin.h>

#include <cstring>

#include "kernels/common/plans.hpp"

#ifndef PEC_AVX512_FLOAT_BYTES
#define PEC_AVX512_FLOAT_BYTES 64
#endif
typedef float pec_avx512_vf __attribute__((vector_size(PEC_AVX512_FLOAT_BYTES)));
typedef double pec_avx512_vd __attribute__((vector_size(64)));
typedef float pec_avx512_vfh __attribute__((vector_size(32)));
typedef long long pec_avx512_vl __attribute__((vector_size(64)));
typedef int pec_avx512_vi __attribute__((vector_size(PEC_AVX512_FLOAT_BYTES)));

namespace pecheck::kernels {
// Vector fused multiply-add for the shared two_prod (must precede the shared headers).
static inline pec_avx512_vd ffma(pec_avx512_vd a, pec_avx512_vd b, pec_avx512_vd c) {
  return reinterpret_cast<pec_avx512_vd>(_mm512_fmadd_pd(
      reinterpret_cast<__m512d>(a), reinterpret_cast<__m512d>(b), reinterpret_cast<__m512d>(c)));
}
// The encoding of each double as a 64-bit integer (rope_angle.hpp's quadrant).
static inline pec_avx512_vl dbits(pec_avx512_vd v) { return reinterpret_cast<pec_avx512_vl>(v); }
}  // namespace pecheck::kernels

#include "kernels/shared/alibi_arith.hpp"
#include "kernels/shared/rope_angle.hpp"
#include "kernels/shared/rope_arith.hpp"
#include "kernels/shared/sinusoidal_arith.hpp"
#include "kernels/shared/t5_arith.hpp"
#include "kernels/simd/isa.hpp"

namespace pecheck::kernels::simd::avx512 {

using VF = pec_avx512_vf;
using VD = pec_avx512_vd;
using VFH = pec_avx512_vfh;
using VI = pec_avx512_vi;
#define PEC_NF (PEC_AVX512_FLOAT_BYTES / 4)
#define PEC_ND 8
#include "kernels/simd/vec_gcc.inc"
#undef PEC_NF
#undef PEC_ND

#if PEC_AVX512_FLOAT_BYTES == 64
static inline void stream_f(float* p, VF v) { _mm512_stream_ps(p, reinterpret_cast<__m512>(v)); }
#else
static inline void stream_f(float* p, VF v) { _mm256_stream_ps(p, reinterpret_cast<__m256>(v)); }
#endif
// Vector registers the RoPE cos/sin tables may occupy (of 32).
constexpr int64_t kTableRegs = 16;
static inline void store_fence() { _mm_sfence(); }

#include "kernels/simd/impl.inc"

}  // namespace pecheck::kernels::simd::avx512
