// pecheck_cuda on a real GPU through the ABI: bit for bit equal to pecheck_simd's portable
// path (same shared arithmetic) and within the float32 contract of the MPFR oracle.
// Skips, saying why, when no CUDA device is present. Version 2: every function through the
// library's pec_* exports, bit for bit against pecheck_simd's portable path (v2_cases.hpp).
// Clause: ABI-ROPE-2 ABI-ROPE-4 ABI-ALIBI-2 ABI-T5-2 ABI-GEN-3
// Clause: ABI-STORE-1 ABI-STORE-2 ABI-QK-2 ABI-QK-4 ABI-VIEW-2 ABI-CACHE-2 ABI-CACHE-3
#include <gtest/gtest.h>

#include "kernels/cuda/cuda_api.hpp"
#include "kernels/simd/simd.hpp"
#include "oracle/budget.hpp"
#include "oracle/oracle.hpp"
#include "util.hpp"
#include "v2_cases.hpp"

namespace pecheck::kernels::test {
namespace {

class CudaDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    if (!cuda::device_available(reason)) GTEST_SKIP() << "SKIPPED (no GPU): " << reason;
  }
};

TEST_F(CudaDevice, RopeMatchesSimdBitsAndOracle) {
  const oracle::Budget& budget = oracle::budget("rope", "f32", "accurate");
  // (96, 64) takes the 4-pairs-per-thread kernel, (70, 46) the general one.
  for (const auto& [D, R] : {std::pair<std::int64_t, std::int64_t>{96, 64}, {70, 46}})
  for (std::int32_t layout : {PEC_ROPE_NEOX, PEC_ROPE_GPTJ}) {
    const std::int64_t T = 37, H = 3;
    const std::size_t n = static_cast<std::size_t>(T * H * D);
    const auto x = random_inputs(n, 3);
    const auto pos = random_positions(static_cast<std::size_t>(T), 4);
    pec_rope_args a{T, H, D, R, layout, 10000.0, 0.5, pos.data(), nullptr};
    Guarded y(n);
    ASSERT_EQ(pec_rope_f32(&a, x.data(), y.data()), 0);
    EXPECT_TRUE(y.guards_intact());
    std::vector<float> ref(n), rounded(n), in_place = x;
    std::vector<double> exact(n);
    ASSERT_EQ(pec_rope_f32(&a, in_place.data(), in_place.data()), 0);
    ASSERT_EQ(simd::rope_f32(simd::Path::Scalar, &a, x.data(), ref.data()), 0);
    std::size_t w = 0;
    EXPECT_TRUE(same_bits(y.data(), ref.data(), n, &w)) << "differs from the CPU at " << w;
    EXPECT_TRUE(same_bits(y.data(), in_place.data(), n, &w)) << "in place differs at " << w;
    oracle::rope_block(a, x.data(), oracle::Format::F32, rounded.data(), exact.data());
    const auto angles = oracle::rope_block_angles(a);
    for (std::int64_t r = 0; r < T * H; ++r) {
      for (std::int64_t i = 0; i < R / 2; ++i) {
        const std::int64_t la = r * D + (layout == PEC_ROPE_NEOX ? i : 2 * i);
        const std::int64_t lb = r * D + (layout == PEC_ROPE_NEOX ? i + R / 2 : 2 * i + 1);
        const double m = std::fabs(x[la]) + std::fabs(x[lb]);
        const double theta = std::fabs(angles[static_cast<std::size_t>((r / H) * (R / 2) + i)].angle.hi);
        for (std::int64_t e : {la, lb}) {
          EXPECT_LE(budget.units(std::fabs(y.data()[e] - exact[e]), {m, theta}), 1.0) << "element " << e;
        }
      }
    }
  }
}

TEST_F(CudaDevice, AlibiAndT5MatchSimdBits) {
  auto q = random_positions(17, 5), k = random_positions(45, 6);
  for (int mode : {0, 1}) {
    pec_alibi_args a{12, 17, 45, mode, q.data(), k.data()};
    const std::size_t n = 12 * 17 * 45;
    std::vector<float> g = random_inputs(n, 7), c = g;
    ASSERT_EQ(pec_alibi_bias_f32(&a, g.data()), 0);
    ASSERT_EQ(simd::alibi_bias_f32(simd::Path::Scalar, &a, c.data()), 0);
    EXPECT_TRUE(same_bits(g.data(), c.data(), n)) << "alibi mode " << mode;
    std::vector<float> table(32 * 12);
    for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>(i);
    pec_t5_args t{12, 17, 45, 32, 128, mode, q.data(), k.data(), table.data()};
    std::vector<float> gb(n), cb(n);
    ASSERT_EQ(pec_t5_bias_f32(&t, gb.data()), 0);
    ASSERT_EQ(simd::t5_bias_f32(simd::Path::Scalar, &t, cb.data()), 0);
    EXPECT_TRUE(same_bits(gb.data(), cb.data(), n)) << "t5 bidirectional " << mode;
  }
}

// pecheck_cuda's exports (linked first, so pec_* resolve to pecheck_cuda, not pecheck_simd).
struct DeviceImpl {
  using U = std::uint16_t;
  int rope16(std::int32_t f, const pec_rope_args* a, const U* x, U* y) {
    return f == PEC_DTYPE_BF16 ? pec_rope_bf16(a, x, y) : pec_rope_f16(a, x, y);
  }
  int qk(std::int32_t f, const pec_rope_qk_args* a, const void* q, const void* k, void* qo, void* ko) {
    if (f == PEC_DTYPE_F32) {
      return pec_rope_qk_f32(a, static_cast<const float*>(q), static_cast<const float*>(k), static_cast<float*>(qo),
                             static_cast<float*>(ko));
    }
    auto fn = f == PEC_DTYPE_BF16 ? pec_rope_qk_bf16 : pec_rope_qk_f16;
    return fn(a, static_cast<const U*>(q), static_cast<const U*>(k), static_cast<U*>(qo), static_cast<U*>(ko));
  }
  int cached(std::int32_t f, const pec_rope_cached_args* a, const void* q, const void* k, void* qo, void* ko) {
    if (f == PEC_DTYPE_F32) {
      return pec_rope_cached_f32(a, static_cast<const float*>(q), static_cast<const float*>(k),
                                 static_cast<float*>(qo), static_cast<float*>(ko));
    }
    auto fn = f == PEC_DTYPE_BF16 ? pec_rope_cached_bf16 : pec_rope_cached_f16;
    return fn(a, static_cast<const U*>(q), static_cast<const U*>(k), static_cast<U*>(qo), static_cast<U*>(ko));
  }
  int cache(std::int32_t f, const pec_rope_cache_args* a, void* c) {
    if (f == PEC_DTYPE_F32) return pec_rope_cache_f32(a, static_cast<float*>(c));
    return f == PEC_DTYPE_BF16 ? pec_rope_cache_bf16(a, static_cast<U*>(c)) : pec_rope_cache_f16(a, static_cast<U*>(c));
  }
  int alibi16(std::int32_t f, const pec_alibi_args* a, U* s) {
    return f == PEC_DTYPE_BF16 ? pec_alibi_bias_bf16(a, s) : pec_alibi_bias_f16(a, s);
  }
  int t5_16(const pec_t5_args16* a, U* b) { return pec_t5_bias_bf16(a, b); }
  int sinusoidal16(std::int32_t f, const pec_sinusoidal_args* a, U* o) {
    return f == PEC_DTYPE_BF16 ? pec_sinusoidal_bf16(a, o) : pec_sinusoidal_f16(a, o);
  }
  int learned16(const pec_learned_args16* a, U* o) { return pec_learned_f16(a, o); }
};

TEST_F(CudaDevice, Version2MatchesSimdBitsGapsUntouched) {
  DeviceImpl impl;
  v2cases::run_all(impl);
}

}  // namespace
}  // namespace pecheck::kernels::test
