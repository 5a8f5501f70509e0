// Version 2 calls run through a candidate implementation (pecheck_cuda's host emulation, or
// pecheck_cuda on a GPU) and through pecheck_simd's portable path on identical buffers; the
// whole buffers (views, gaps between rows and heads, guards) must come out bit-identical.
// pecheck_simd's bits are themselves checked against the MPFR oracle on every path
// (test_simd_storage.cpp, test_simd_qk_cache.cpp), so equality carries the contract over, and
// equality of the gaps shows the candidate writes none of them (ABI-VIEW-2).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/shared/f16_conv.hpp"
#include "kernels/simd/simd.hpp"
#include "util.hpp"

namespace pecheck::kernels::test::v2cases {

using simd::Path;

// Raw buffer of n 32-bit words (floats) or 16-bit patterns, filled with deterministic values
// that are valid numbers of the format, plus guards and gaps set to a poison pattern.
struct Raw {
  std::vector<std::uint8_t> bytes;
  template <class T>
  T* as(std::size_t off = 0) {
    return reinterpret_cast<T*>(bytes.data()) + off;
  }
};

inline Raw make_raw(std::int32_t fmt, std::size_t n, std::uint64_t seed) {
  const std::size_t es = fmt == PEC_DTYPE_F32 ? 4 : 2;
  Raw r;
  r.bytes.resize(n * es);
  const auto v = random_inputs(n, seed);
  for (std::size_t i = 0; i < n; ++i) {
    float x = v[i];
    if (fmt == PEC_DTYPE_F16 && std::fabs(x) > 1e4f) x = 1e-16f * x;  // keep f16 finite
    if (fmt == PEC_DTYPE_F32) {
      r.as<float>()[i] = x;
    } else {
      r.as<std::uint16_t>()[i] = fmt == PEC_DTYPE_BF16 ? f32_to_bf16(x) : f32_to_f16(x);
    }
  }
  return r;
}

inline bool same_raw(const Raw& a, const Raw& b, std::size_t* where) {
  for (std::size_t i = 0; i < a.bytes.size(); ++i) {
    if (a.bytes[i] != b.bytes[i]) {
      *where = i;
      return false;
    }
  }
  return true;
}

constexpr std::int32_t kFormats[] = {PEC_DTYPE_F32, PEC_DTYPE_BF16, PEC_DTYPE_F16};

// Impl provides: rope16(fmt, args, x, y), qk(fmt, args, q, k, qo, ko), cached(fmt, ...),
// cache(fmt, args, out), alibi16(fmt, args, s), t5_16(args, b), sinusoidal16(fmt, args, o),
// learned16(args, o); each returns the call's status.
template <class Impl>
void run_all(Impl& impl) {
  const Path ref = Path::Scalar;
  std::size_t w = 0;
  // RoPE on one 16-bit tensor (v1 layout), including quad-path angles.
  struct Shape {
    std::int64_t T, H, D, R;
    std::int32_t layout;
    double scale;
  };
  for (const Shape& s :
       {Shape{5, 3, 128, 128, PEC_ROPE_NEOX, 1.0}, Shape{4, 2, 70, 46, PEC_ROPE_GPTJ, 0.5},
        Shape{3, 2, 34, 34, PEC_ROPE_NEOX, 3e5}}) {
    for (std::int32_t fmt : {PEC_DTYPE_BF16, PEC_DTYPE_F16}) {
      const std::size_t n = static_cast<std::size_t>(s.T * s.H * s.D);
      const auto pos = random_positions(static_cast<std::size_t>(s.T), 11);
      const pec_rope_args a{s.T, s.H, s.D, s.R, s.layout, 10000.0, s.scale, pos.data(), nullptr};
      Raw x = make_raw(fmt, n, 1), y1 = make_raw(fmt, n, 2), y2 = y1;
      ASSERT_EQ(impl.rope16(fmt, &a, x.as<std::uint16_t>(), y1.as<std::uint16_t>()), 0);
      ASSERT_EQ(simd::rope_16(ref, fmt, &a, x.as<std::uint16_t>(), y2.as<std::uint16_t>()), 0);
      EXPECT_TRUE(same_raw(y1, y2, &w)) << "rope16 fmt " << fmt << " byte " << w;
    }
  }
  // Query + key: a fused token-major buffer with q in place and k out of place into a
  // head-major view with gaps; GQA 3:1; attn_factor; quad-path positions in one shape.
  for (std::int32_t fmt : kFormats) {
    for (const auto& [layout, scale] :
         {std::pair<std::int32_t, double>{PEC_ROPE_NEOX, 1.0}, {PEC_ROPE_GPTJ, 3e5}}) {
      const std::int64_t T = 7, Hq = 6, Hk = 2, D = 40, R = 32;
      const std::int64_t row = (Hq + 2 * Hk) * D + 8;  // q, k, v heads and padding per token
      const std::size_t nbuf = static_cast<std::size_t>(T * row);
      const std::size_t nk_out = static_cast<std::size_t>(Hk * (T * (D + 3) + 5));
      const auto pos = random_positions(T, 12);
      pec_rope_qk_args a{T,       Hq,       Hk,       D,        R,
                         layout,  10000.0,  scale,    1.3,      pos.data(),
                         nullptr, {row, D}, {row, D}, {row, D}, {D + 3, T * (D + 3) + 5}};
      Raw b1 = make_raw(fmt, nbuf, 3), b2 = b1, k1 = make_raw(fmt, nk_out, 4), k2 = k1;
      const std::size_t es = fmt == PEC_DTYPE_F32 ? 4 : 2;
      auto at = [&](Raw& r, std::int64_t off) {
        return static_cast<void*>(r.bytes.data() + off * es);
      };
      ASSERT_EQ(impl.qk(fmt, &a, at(b1, 0), at(b1, Hq * D), at(b1, 0), at(k1, 0)), 0);
      ASSERT_EQ(simd::rope_qk(ref, fmt, &a, at(b2, 0), at(b2, Hq * D), at(b2, 0), at(k2, 0)), 0);
      EXPECT_TRUE(same_raw(b1, b2, &w)) << "qk fused buffer fmt " << fmt << " byte " << w;
      EXPECT_TRUE(same_raw(k1, k2, &w)) << "qk k_out fmt " << fmt << " byte " << w;
      // Cached: the cache in every format, rows read by position.
      for (std::int32_t cf : kFormats) {
        const std::int64_t P = 9;
        std::vector<std::int64_t> cpos;
        for (std::int64_t t = 0; t < T; ++t) cpos.push_back((3 * t + 2) % P);
        Raw cache = make_raw(cf, static_cast<std::size_t>(P * R), 5);
        pec_rope_cached_args c{T,
                               Hq,
                               Hk,
                               D,
                               R,
                               layout,
                               cf,
                               P,
                               cache.bytes.data(),
                               cpos.data(),
                               {row, D},
                               {row, D},
                               {row, D},
                               {D + 3, T * (D + 3) + 5}};
        Raw c1 = make_raw(fmt, nbuf, 6), c2 = c1, o1 = make_raw(fmt, nk_out, 7), o2 = o1;
        ASSERT_EQ(impl.cached(fmt, &c, at(c1, 0), at(c1, Hq * D), at(c1, 0), at(o1, 0)), 0);
        ASSERT_EQ(simd::rope_cached(ref, fmt, &c, at(c2, 0), at(c2, Hq * D), at(c2, 0), at(o2, 0)),
                  0);
        EXPECT_TRUE(same_raw(c1, c2, &w))
            << "cached fmt " << fmt << " cache " << cf << " byte " << w;
        EXPECT_TRUE(same_raw(o1, o2, &w))
            << "cached k_out fmt " << fmt << " cache " << cf << " byte " << w;
      }
      // A rejected call writes nothing (n_q_heads not a multiple of n_kv_heads).
      pec_rope_qk_args bad = a;
      bad.n_kv_heads = 4;
      Raw r1 = make_raw(fmt, nbuf, 8), r0 = r1, rk = make_raw(fmt, nk_out, 9), rk0 = rk;
      EXPECT_NE(impl.qk(fmt, &bad, at(r1, 0), at(r1, Hq * D), at(r1, 0), at(rk, 0)), 0);
      EXPECT_TRUE(same_raw(r1, r0, &w) && same_raw(rk, rk0, &w)) << "rejected call wrote";
    }
  }
  // The cache builder, nearest (f32) and via round-to-odd (16-bit), quad-path rows included.
  for (std::int32_t fmt : kFormats) {
    for (double scale : {1.0, 1e12}) {
      const pec_rope_cache_args a{70, 46, 10000.0, scale, 0.9, nullptr};
      Raw c1 = make_raw(fmt, 70 * 46, 10), c2 = c1;
      ASSERT_EQ(impl.cache(fmt, &a, c1.bytes.data()), 0);
      ASSERT_EQ(simd::rope_cache(ref, fmt, &a, c2.bytes.data()), 0);
      EXPECT_TRUE(same_raw(c1, c2, &w))
          << "cache builder fmt " << fmt << " scale " << scale << " byte " << w;
    }
  }
  // ALiBi on 16-bit scores, T5 with a 16-bit table, sinusoidal, learned.
  const auto q = random_positions(9, 13), k = random_positions(33, 14);
  for (std::int32_t fmt : {PEC_DTYPE_BF16, PEC_DTYPE_F16}) {
    for (int mode : {0, 1}) {
      const pec_alibi_args a{5, 9, 33, mode, q.data(), k.data()};
      Raw s1 = make_raw(fmt, 5 * 9 * 33, 15), s2 = s1;
      ASSERT_EQ(impl.alibi16(fmt, &a, s1.as<std::uint16_t>()), 0);
      ASSERT_EQ(simd::alibi_bias_16(ref, fmt, &a, s2.as<std::uint16_t>()), 0);
      EXPECT_TRUE(same_raw(s1, s2, &w))
          << "alibi16 fmt " << fmt << " mode " << mode << " byte " << w;
    }
    const pec_sinusoidal_args sa{9, 38, 10000.0, q.data()};
    Raw o1 = make_raw(fmt, 9 * 38, 16), o2 = o1;
    ASSERT_EQ(impl.sinusoidal16(fmt, &sa, o1.as<std::uint16_t>()), 0);
    ASSERT_EQ(simd::sinusoidal_16(ref, fmt, &sa, o2.as<std::uint16_t>()), 0);
    EXPECT_TRUE(same_raw(o1, o2, &w)) << "sinusoidal16 fmt " << fmt << " byte " << w;
  }
  std::vector<std::uint16_t> table(32 * 5);
  for (std::size_t i = 0; i < table.size(); ++i)
    table[i] = static_cast<std::uint16_t>(0x3c00 + 7 * i);
  for (int bidir : {0, 1}) {
    const pec_t5_args16 t{5, 9, 33, 32, 128, bidir, q.data(), k.data(), table.data()};
    Raw b1 = make_raw(PEC_DTYPE_BF16, 5 * 9 * 33, 17), b2 = b1;
    ASSERT_EQ(impl.t5_16(&t, b1.as<std::uint16_t>()), 0);
    ASSERT_EQ(simd::t5_bias_16(ref, &t, b2.as<std::uint16_t>()), 0);
    EXPECT_TRUE(same_raw(b1, b2, &w)) << "t5_16 bidirectional " << bidir << " byte " << w;
  }
  std::vector<std::int64_t> lpos = {3, 0, 7, 7, 1};
  std::vector<std::uint16_t> ltab(8 * 6);
  for (std::size_t i = 0; i < ltab.size(); ++i)
    ltab[i] = static_cast<std::uint16_t>(0x7f81 + 977 * i);
  const pec_learned_args16 la{5, 6, 8, lpos.data(), ltab.data()};
  Raw l1 = make_raw(PEC_DTYPE_F16, 30, 18), l2 = l1;
  ASSERT_EQ(impl.learned16(&la, l1.as<std::uint16_t>()), 0);
  ASSERT_EQ(simd::learned_16(&la, l2.as<std::uint16_t>()), 0);
  EXPECT_TRUE(same_raw(l1, l2, &w)) << "learned16 byte " << w;
}

}  // namespace pecheck::kernels::test::v2cases
