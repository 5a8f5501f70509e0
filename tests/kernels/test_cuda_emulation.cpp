// The CUDA kernels' per-thread source (src/kernels/shared/grid.hpp) run on the CPU for every
// block and thread index of small grids, checked against the MPFR oracle within the float32
// contract and bit for bit against the SIMD library (same shared arithmetic, same bits).
// Runs in CI without a GPU and without nvcc. Version 2 (grid_v2.hpp and the wrapper's host
// steps, kernels/common/v2_host.hpp): every function bit for bit against pecheck_simd
// (v2_cases.hpp), gaps and guards included.
// Clause: ABI-ROPE-2 ABI-ROPE-3 ABI-ROPE-4 ABI-ALIBI-2 ABI-T5-2
// Clause: ABI-STORE-1 ABI-STORE-2 ABI-QK-2 ABI-QK-4 ABI-VIEW-2 ABI-CACHE-2 ABI-CACHE-3 ABI-GEN-3
#include <gtest/gtest.h>

#include "emulate.hpp"
#include "kernels/simd/simd.hpp"
#include "oracle/budget.hpp"
#include "oracle/oracle.hpp"
#include "util.hpp"
#include "v2_cases.hpp"

namespace pecheck::kernels::test {
namespace {

struct Case {
  std::int64_t n_tokens, n_heads, head_dim, rotary_dim;
  std::int32_t layout;
  double scale;
};

// Grids that end mid-block (tails), partial rotary, both layouts, and a quad-path row.
// The first four shapes also take the 4-pairs-per-thread kernel (rotary_dim % 8 == 0).
const Case kCases[] = {
    {3, 2, 128, 128, PEC_ROPE_NEOX, 1.0}, {5, 3, 128, 64, PEC_ROPE_GPTJ, 1.0},
    {2, 2, 16, 16, PEC_ROPE_GPTJ, 3e5},   {4, 3, 36, 24, PEC_ROPE_NEOX, 0.5},
    {5, 3, 70, 46, PEC_ROPE_GPTJ, 0.25},  {1, 1, 2, 2, PEC_ROPE_NEOX, 1.0},
    {7, 1, 34, 20, PEC_ROPE_NEOX, 4.0},
};

TEST(CudaEmulation, RopeEveryThreadMatchesOracleAndSimdBits) {
  const oracle::Budget& budget = oracle::budget("rope", "f32", "accurate");
  std::uint64_t seed = 40;
  for (const Case& k : kCases) {
    const std::size_t n = static_cast<std::size_t>(k.n_tokens * k.n_heads * k.head_dim);
    const auto x = random_inputs(n, seed++);
    const auto pos = random_positions(static_cast<std::size_t>(k.n_tokens), seed++);
    pec_rope_args a{k.n_tokens, k.n_heads, k.head_dim, k.rotary_dim, k.layout, 10000.0, k.scale, pos.data(), nullptr};
    Guarded y(n), y_general(n);
    ASSERT_EQ(emulate_rope(a, x.data(), y.data()), 0);
    ASSERT_EQ(emulate_rope(a, x.data(), y_general.data(), /*allow4=*/false), 0);
    EXPECT_TRUE(y.guards_intact());
    EXPECT_TRUE(y_general.guards_intact());
    EXPECT_EQ(y.first_unwritten(), -1);
    EXPECT_EQ(y_general.first_unwritten(), -1);
    std::vector<float> in_place = x;
    ASSERT_EQ(emulate_rope(a, in_place.data(), in_place.data()), 0);
    std::vector<float> simd_y(n);
    ASSERT_EQ(simd::rope_f32(simd::Path::Scalar, &a, x.data(), simd_y.data()), 0);
    std::size_t w = 0;
    EXPECT_TRUE(same_bits(y.data(), simd_y.data(), n, &w)) << "differs from pecheck_simd at " << w;
    EXPECT_TRUE(same_bits(y_general.data(), simd_y.data(), n, &w)) << "general kernel differs at " << w;
    EXPECT_TRUE(same_bits(y.data(), in_place.data(), n, &w)) << "in place differs at " << w;

    std::vector<float> rounded(n);
    std::vector<double> exact(n);
    oracle::rope_block(a, x.data(), oracle::Format::F32, rounded.data(), exact.data());
    const auto angles = oracle::rope_block_angles(a);
    const std::int64_t half = k.rotary_dim / 2;
    for (std::int64_t r = 0; r < k.n_tokens * k.n_heads; ++r) {
      const std::int64_t t = r / k.n_heads;
      for (std::int64_t i = 0; i < half; ++i) {
        const std::int64_t la = r * k.head_dim + (k.layout == PEC_ROPE_NEOX ? i : 2 * i);
        const std::int64_t lb = r * k.head_dim + (k.layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1);
        const double m = std::fabs(x[la]) + std::fabs(x[lb]);
        const double theta = std::fabs(angles[static_cast<std::size_t>(t * half + i)].angle.hi);
        for (std::int64_t e : {la, lb}) {
          EXPECT_LE(budget.units(std::fabs(y.data()[e] - exact[e]), {m, theta}), 1.0)
              << "element " << e << " position " << pos[t];
        }
      }
    }
  }
}

TEST(CudaEmulation, AlibiEveryThreadMatchesOracleAndSimdBits) {
  const oracle::Budget& budget = oracle::budget("alibi", "f32");
  for (std::int64_t heads : {1, 6, 12}) {
    for (int mode : {0, 1}) {
      auto q = random_positions(9, 1), k = random_positions(33, 2);
      pec_alibi_args a{heads, 9, 33, mode, q.data(), k.data()};
      const std::size_t n = static_cast<std::size_t>(heads * 9 * 33);
      std::vector<float> emu(n, 0.0f), ref(n, 0.0f), rounded(n);
      std::vector<double> exact(n);
      ASSERT_EQ(emulate_alibi(a, emu.data()), 0);
      ASSERT_EQ(simd::alibi_bias_f32(simd::Path::Scalar, &a, ref.data()), 0);
      EXPECT_TRUE(same_bits(emu.data(), ref.data(), n));
      oracle::alibi_block(a, oracle::Format::F32, rounded.data(), exact.data());
      for (std::size_t e = 0; e < n; ++e) {
        if (std::isinf(exact[e])) {
          EXPECT_EQ(emu[e], -INFINITY);
        } else {
          EXPECT_LE(budget.units(std::fabs(emu[e] - exact[e]), {std::fabs(exact[e]), 0.0}), 1.0);
        }
      }
    }
  }
}

TEST(CudaEmulation, T5EveryThreadMatchesOracleAndSimdBits) {
  const std::int64_t heads = 3, nb = 32, md = 128;
  std::vector<std::int64_t> q = {0, 100, 5000}, k;
  for (std::int64_t v = 0; v < 5400; v += 37) k.push_back(v);
  std::vector<float> table(static_cast<std::size_t>(nb * heads));
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>(i);
  for (int bidir : {0, 1}) {
    pec_t5_args a{heads, 3, static_cast<std::int64_t>(k.size()), nb, md, bidir, q.data(), k.data(), table.data()};
    const std::size_t n = static_cast<std::size_t>(heads * 3) * k.size();
    std::vector<float> emu(n), ref(n);
    ASSERT_EQ(emulate_t5(a, emu.data()), 0);
    ASSERT_EQ(simd::t5_bias_f32(simd::Path::Scalar, &a, ref.data()), 0);
    EXPECT_TRUE(same_bits(emu.data(), ref.data(), n));
    for (std::int64_t h = 0; h < heads; ++h) {
      for (std::size_t i = 0; i < q.size(); ++i) {
        for (std::size_t j = 0; j < k.size(); ++j) {
          const auto ob = oracle::t5_bucket(k[j] - q[i], nb, md, bidir != 0);
          const float got = emu[(static_cast<std::size_t>(h) * q.size() + i) * k.size() + j];
          const bool ok = got == table[static_cast<std::size_t>(ob.bucket * heads + h)] ||
                          (ob.ambiguous && got == table[static_cast<std::size_t>(ob.alternative * heads + h)]);
          EXPECT_TRUE(ok) << "rel " << k[j] - q[i] << " head " << h;
        }
      }
    }
  }
}

// pecheck_cuda's version 2 calls as the wrapper runs them, each kernel for every thread.
struct EmuImpl {
  template <template <int> class Fn, class... A>
  static int by_format(std::int32_t fmt, A... a) {
    if (fmt == PEC_DTYPE_F32) return Fn<0>::run(a...);
    if (fmt == PEC_DTYPE_BF16) return Fn<1>::run(a...);
    return Fn<2>::run(a...);
  }
  template <int F>
  struct Rope16 {
    static int run(const pec_rope_args* a, const std::uint16_t* x, std::uint16_t* y) { return emulate_rope16<F>(*a, x, y); }
  };
  template <int F>
  struct Qk {
    static int run(const pec_rope_qk_args* a, const void* q, const void* k, void* qo, void* ko) {
      return emulate_rope_qk<F>(*a, q, k, qo, ko);
    }
  };
  template <int F>
  struct Cached {
    static int run(const pec_rope_cached_args* a, const void* q, const void* k, void* qo, void* ko) {
      return emulate_rope_cached<F>(*a, q, k, qo, ko);
    }
  };
  template <int F>
  struct Cache {
    static int run(const pec_rope_cache_args* a, void* c) {
      return emulate_rope_cache<F>(*a, static_cast<grid::StoreT<F>*>(c));
    }
  };
  template <int F>
  struct Alibi16 {
    static int run(const pec_alibi_args* a, std::uint16_t* s) { return emulate_alibi16<F>(*a, s); }
  };
  template <int F>
  struct Sin16 {
    static int run(const pec_sinusoidal_args* a, std::uint16_t* o) { return emulate_sinusoidal16<F>(*a, o); }
  };
  int rope16(std::int32_t f, const pec_rope_args* a, const std::uint16_t* x, std::uint16_t* y) {
    return by_format<Rope16>(f, a, x, y);
  }
  int qk(std::int32_t f, const pec_rope_qk_args* a, const void* q, const void* k, void* qo, void* ko) {
    return by_format<Qk>(f, a, q, k, qo, ko);
  }
  int cached(std::int32_t f, const pec_rope_cached_args* a, const void* q, const void* k, void* qo, void* ko) {
    return by_format<Cached>(f, a, q, k, qo, ko);
  }
  int cache(std::int32_t f, const pec_rope_cache_args* a, void* c) { return by_format<Cache>(f, a, c); }
  int alibi16(std::int32_t f, const pec_alibi_args* a, std::uint16_t* s) { return by_format<Alibi16>(f, a, s); }
  int t5_16(const pec_t5_args16* a, std::uint16_t* b) { return emulate_t5_16(*a, b); }
  int sinusoidal16(std::int32_t f, const pec_sinusoidal_args* a, std::uint16_t* o) { return by_format<Sin16>(f, a, o); }
  int learned16(const pec_learned_args16* a, std::uint16_t* o) { return emulate_learned16(*a, o); }
};

TEST(CudaEmulation, Version2EveryThreadGivesSimdBitsGapsUntouched) {
  EmuImpl impl;
  v2cases::run_all(impl);
}

}  // namespace
}  // namespace pecheck::kernels::test
