// Portable path: the kernels of impl.inc on plain float/double (one lane), compiled for the
// baseline x86-64 (or any other) target.
#include <cstring>

#include "kernels/common/plans.hpp"
#include "kernels/shared/alibi_arith.hpp"
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
static inline VD load_f_as_d(const float* p) { return static_cast<double>(*p); }
static inline VF swap_pairs(VF x) { return x; }
static inline VF interleave_lo(VF a, VF) { return a; }  // unused (GPTJ tables need NF >= 2)
static inline VF interleave_hi(VF a, VF) { return a; }
static inline void stream_f(float* p, VF v) { *p = v; }
static inline void store_fence() {}
constexpr int64_t kTableRegs = 0;  // no register-table rows on one lane

#include "kernels/simd/impl.inc"

}  // namespace pecheck::kernels::simd::scalar
