// AVX2 + FMA path (x86-64-v3): 8 floats / 4 doubles per vector. Compiled with
// -march=x86-64-v3 (this file only); reached only when the CPU has AVX2, FMA, BMI2, F16C.
#include <immintrin.h>

#include <cstring>
#include <type_traits>

#include "kernels/common/plans.hpp"

typedef float pec_avx2_vf __attribute__((vector_size(32)));
typedef double pec_avx2_vd __attribute__((vector_size(32)));
typedef float pec_avx2_vfh __attribute__((vector_size(16)));
typedef long long pec_avx2_vl __attribute__((vector_size(32)));
typedef int pec_avx2_vi __attribute__((vector_size(32)));

namespace pecheck::kernels {
// Vector fused multiply-add for the shared two_prod (must precede the shared headers).
static inline pec_avx2_vd ffma(pec_avx2_vd a, pec_avx2_vd b, pec_avx2_vd c) {
  return reinterpret_cast<pec_avx2_vd>(_mm256_fmadd_pd(
      reinterpret_cast<__m256d>(a), reinterpret_cast<__m256d>(b), reinterpret_cast<__m256d>(c)));
}
// The encoding of each double as a 64-bit integer (rope_angle.hpp's quadrant).
static inline pec_avx2_vl dbits(pec_avx2_vd v) { return reinterpret_cast<pec_avx2_vl>(v); }
}  // namespace pecheck::kernels

#include "kernels/shared/alibi_arith.hpp"
#include "kernels/shared/f16_conv.hpp"
#include "kernels/shared/rope_angle.hpp"
#include "kernels/shared/rope_arith.hpp"
#include "kernels/shared/sinusoidal_arith.hpp"
#include "kernels/shared/t5_arith.hpp"
#include "kernels/simd/isa.hpp"

namespace pecheck::kernels::simd::avx2 {

using VF = pec_avx2_vf;
using VD = pec_avx2_vd;
using VFH = pec_avx2_vfh;
using VI = pec_avx2_vi;
#define PEC_NF 8
#define PEC_ND 4
#include "kernels/simd/vec_gcc.inc"
#undef PEC_NF
#undef PEC_ND

static inline void stream_f(float* p, VF v) { _mm256_stream_ps(p, reinterpret_cast<__m256>(v)); }
static inline void store_fence() { _mm_sfence(); }
// Vectors the two RoPE cos/sin tables of the register-table rows may take (impl.inc). 16 is all
// of AVX2's ymm registers, so for K = 8 (NEOX rotary 128, GPT-J 64) part of the tables spills to
// the stack; measured still faster than the generic rows (in cache, one thread: NEOX 128 0.67x
// memcpy against 0.53x, GPT-J 64 0.82x against 0.65x).
constexpr int64_t kTableRegs = 16;

// 16-bit storage: F16C (vcvtph2ps / vcvtps2ph, nearest-even) for binary16, the integer rule
// for bfloat16 (no AVX2 instruction rounds to bfloat16).
static inline VF ld_f16(const uint16_t* p) {
  return reinterpret_cast<VF>(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
}
static inline VFH ld_f16_h(const uint16_t* p) {
  return reinterpret_cast<VFH>(_mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
}
static inline void st_f16(uint16_t* p, VF v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                   _mm256_cvtps_ph(reinterpret_cast<__m256>(v), _MM_FROUND_TO_NEAREST_INT));
}
static inline void st_f16_h(uint16_t* p, VFH v) {
  _mm_storel_epi64(reinterpret_cast<__m128i*>(p),
                   _mm_cvtps_ph(reinterpret_cast<__m128>(v), _MM_FROUND_TO_NEAREST_INT));
}
static inline void st_bf16(uint16_t* p, VF v) {
  const U16F u = bf16_narrow_soft<VUF, U16F>(v);
  std::memcpy(p, &u, sizeof u);
}
static inline void st_bf16_h(uint16_t* p, VFH v) {
  const U16H u = bf16_narrow_soft<VUH, U16H>(v);
  std::memcpy(p, &u, sizeof u);
}

#include "kernels/simd/impl.inc"
#include "kernels/simd/impl2.inc"

}  // namespace pecheck::kernels::simd::avx2
