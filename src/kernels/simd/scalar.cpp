// Portable path: the kernels of impl.inc on plain float/double (one lane), compiled for the
// baseline x86-64 (or any other) target.
#include <cstring>
#include <type_traits>

#include "kernels/common/plans.hpp"
#include "kernels/shared/alibi_arith.hpp"
#include "kernels/shared/f16_conv.hpp"
#include "kernels/shared/rope_angle.hpp"
#include "kernels/shared/rope_arith.hpp"
#include "kernels/shared/sinusoidal_arith.hpp"
#include "kernels/shared/t5_arith.hpp"
#include "kernels/simd/isa.hpp"

namespace pecheck::kernels::simd::scalar {

using VF = float;
using VD = double;
constexpr int64_t NF = 1;
constexpr int64_t ND = 1;

static inline VF load_f(const float* p) { return *p; }
static inline void store_f(float* p, VF v) { *p = v; }
static inline VD load_d(const double* p) { return *p; }
static inline VD splat_d(double x) { return x; }
static inline void store_f_from_d(float* p, VD v) { *p = static_cast<float>(v); }
[[maybe_unused]] static inline VD load_f_as_d(const float* p) { return static_cast<double>(*p); }
static inline VF swap_pairs(VF x) { return x; }
[[maybe_unused]] static inline VF interleave_lo(VF a, VF) { return a; }  // unused (GPTJ tables need NF >= 2)
[[maybe_unused]] static inline VF interleave_hi(VF a, VF) { return a; }
static inline void stream_f(float* p, VF v) { *p = v; }
static inline void store_fence() {}
constexpr int64_t kTableRegs = 0;  // no register-table rows on one lane

// 16-bit storage: the portable conversions of shared/f16_conv.hpp (one lane; _h: the double
// vector's width, also one lane).
using VFH = float;
static inline float ld_bf16(const uint16_t* p) { return bf16_to_f32(*p); }
[[maybe_unused]] static inline float ld_bf16_h(const uint16_t* p) { return bf16_to_f32(*p); }
static inline float ld_f16(const uint16_t* p) { return f16_to_f32(*p); }
[[maybe_unused]] static inline float ld_f16_h(const uint16_t* p) { return f16_to_f32(*p); }
static inline void st_bf16(uint16_t* p, float v) { *p = f32_to_bf16(v); }
[[maybe_unused]] static inline void st_bf16_h(uint16_t* p, float v) { *p = f32_to_bf16(v); }
static inline void st_f16(uint16_t* p, float v) { *p = f32_to_f16(v); }
[[maybe_unused]] static inline void st_f16_h(uint16_t* p, float v) { *p = f32_to_f16(v); }
[[maybe_unused]] static inline double widen_h(float f) { return static_cast<double>(f); }
[[maybe_unused]] static inline float to_f_odd(double d) { return f32_round_odd(d); }
static inline void store_f_odd_from_d(float* p, double v) { *p = f32_round_odd(v); }

#include "kernels/simd/impl.inc"
#include "kernels/simd/impl2.inc"

}  // namespace pecheck::kernels::simd::scalar
