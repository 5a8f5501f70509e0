// The per-instruction-set entry points of pecheck_simd. Each ISA unit (scalar.cpp,
// avx2.cpp, avx512.cpp) defines them in its own namespace from impl.inc; dispatch.cpp picks
// one set once per process (PECHECK_SIMD or the best the CPU has).
#pragma once

#include <stdint.h>

#include "kernels/common/plans.hpp"

#define PECHECK_SIMD_DECLARE_ISA(ns)                                                          \
  namespace pecheck::kernels::simd::ns {                                                      \
  void rope(const RopePlan& pl, const float* x, float* y, int64_t t0, int64_t t1,             \
            float* scratch);                                                                  \
  void alibi(const AlibiPlan& pl, float* scores);                                             \
  void t5(const T5Plan& pl, float* bias, int32_t* buckets);                                   \
  void sinusoidal(const SinusoidalPlan& pl, float* out, float* scratch);                      \
  /* version 2 (impl2.inc) */                                                                 \
  void rope_v2(const RopeV2Plan& pl, float* scratch);                                         \
  void rope_cache(const RopeCachePlan& pl, void* cache, float* scratch);                      \
  void alibi16(const AlibiPlan& pl, int32_t format, uint16_t* scores);                        \
  void t5_16(const T5Plan& pl, const uint16_t* table_t, uint16_t* bias, int32_t* buckets);    \
  void sinusoidal16(const SinusoidalPlan& pl, int32_t format, uint16_t* out, float* scratch); \
  void convert16(int32_t format, const float* in, uint16_t* out, int64_t n,                   \
                 const uint16_t* in16, float* out32);                                         \
  }

PECHECK_SIMD_DECLARE_ISA(scalar)
PECHECK_SIMD_DECLARE_ISA(avx2)
PECHECK_SIMD_DECLARE_ISA(avx512)
PECHECK_SIMD_DECLARE_ISA(avx512bf16)
