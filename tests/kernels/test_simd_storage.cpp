// pecheck_simd 16-bit storage (ABI version 2), every code path: the conversions (hardware
// vcvtneps2bf16 / F16C and the portable rule) against correct rounding (src/oracle) and against
// each other bit for bit, and the 16-bit variants of the version 1 functions against the MPFR
// oracle within the bf16/f16 rows of spec/budgets.tsv, bit-identical across paths.
// Clause: ABI-STORE-1 ABI-STORE-2 ABI-ROPE-2 ABI-ROPE-3 ABI-ROPE-4 ABI-ALIBI-2 ABI-T5-2
// Clause: ABI-SIN-2 ABI-LEARN-2 ABI-GEN-3 ABI-GEN-4 ABI-GEN-5 ABI-GEN-6
#include <gtest/gtest.h>

#include "kernels/shared/f16_conv.hpp"
#include "kernels/simd/simd.hpp"
#include "oracle/budget.hpp"
#include "oracle/oracle.hpp"
#include "util.hpp"

namespace pecheck::kernels::test {
namespace {

using simd::Path;

struct Fmt {
  std::int32_t dtype;
  oracle::Format of;
  const char* name;
};
constexpr Fmt kFormats16[] = {{PEC_DTYPE_BF16, oracle::Format::BF16, "bf16"},
                              {PEC_DTYPE_F16, oracle::Format::F16, "f16"}};

float widen(const Fmt& f, std::uint16_t h) {
  return f.dtype == PEC_DTYPE_BF16 ? widen_bf16(h) : widen_f16(h);
}
// Encoding of a value representable in the format (exact: no rounding happens).
std::uint16_t encode(const Fmt& f, double v) {
  const float x = static_cast<float>(v);
  return f.dtype == PEC_DTYPE_BF16 ? f32_to_bf16(x) : f32_to_f16(x);
}

// Floats whose low bits sit on every rounding boundary of the format: all upper bit patterns
// above the format's last kept bit, with the dropped bits 0, 1, just below half, half, just
// above half and all ones (bf16 keeps 16 bits of the float, f16 rounds at fraction bit 13).
std::vector<float> boundary_floats(const Fmt& f) {
  const int drop = f.dtype == PEC_DTYPE_BF16 ? 16 : 13;
  const std::uint32_t half = 1u << (drop - 1), all = (1u << drop) - 1;
  const std::uint32_t lows[] = {0, 1, half - 1, half, half + 1, all};
  std::vector<float> v;
  for (std::uint64_t hi = 0; hi < (std::uint64_t{1} << (32 - drop)); ++hi) {
    for (std::uint32_t lo : lows)
      v.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(hi << drop) | lo));
  }
  return v;
}

TEST(Storage16, PortableConversionRoundsCorrectlyAndWidensExactly) {
  for (const Fmt& f : kFormats16) {
    for (float x : boundary_floats(f)) {
      const std::uint16_t h = f.dtype == PEC_DTYPE_BF16 ? f32_to_bf16(x) : f32_to_f16(x);
      const double want = oracle::round_to(static_cast<double>(x), f.of);
      const float got = widen(f, h);
      if (std::isnan(x)) {
        ASSERT_TRUE(std::isnan(got))
            << f.name << " NaN " << std::hex << std::bit_cast<std::uint32_t>(x);
        continue;
      }
      ASSERT_EQ(std::bit_cast<std::uint64_t>(static_cast<double>(got)),
                std::bit_cast<std::uint64_t>(want))
          << f.name << " of " << std::hexfloat << x << ": " << got << " vs " << want;
    }
    for (std::uint32_t h = 0; h < 65536; ++h) {
      const auto u = static_cast<std::uint16_t>(h);
      const float a = f.dtype == PEC_DTYPE_BF16 ? bf16_to_f32(u) : f16_to_f32(u);
      const float b = widen(f, u);
      if (std::isnan(b)) {
        ASSERT_TRUE(std::isnan(a));
        // NaN payload kept (bf16: the bits move up; f16: quieted, as vcvtph2ps does).
        ASSERT_EQ(std::bit_cast<std::uint32_t>(a) >> (f.dtype == PEC_DTYPE_BF16 ? 16 : 13),
                  f.dtype == PEC_DTYPE_BF16 ? h : (((h & 0x8000u) << 3) | 0x3fe00u | (h & 0x3ffu)));
      } else {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(a), std::bit_cast<std::uint32_t>(b))
            << f.name << " " << h;
      }
    }
  }
}

class SimdStore : public ::testing::TestWithParam<Path> {
 protected:
  void SetUp() override {
    if (!simd::cpu_has(GetParam())) {
      GTEST_SKIP() << "SKIPPED path " << simd::to_string(GetParam()) << ": "
                   << simd::missing_reason(GetParam());
    }
  }
};

// The path's own conversions (vector blocks and tails) give the portable rule's bits for every
// boundary float, NaNs and subnormals included (vcvtneps2bf16 alone flushes f32 subnormals).
TEST_P(SimdStore, PathConversionsGiveThePortableBits) {
  for (const Fmt& f : kFormats16) {
    const std::vector<float> x = boundary_floats(f);
    std::vector<std::uint16_t> in16(x.size()), got(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) in16[i] = static_cast<std::uint16_t>(i * 40503u);
    std::vector<float> wide(x.size());
    ASSERT_EQ(simd::convert_16(GetParam(), f.dtype, x.data(), got.data(), in16.data(), wide.data(),
                               static_cast<std::int64_t>(x.size())),
              0);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::uint16_t want = f.dtype == PEC_DTYPE_BF16 ? f32_to_bf16(x[i]) : f32_to_f16(x[i]);
      ASSERT_EQ(got[i], want) << f.name << " path " << simd::to_string(GetParam()) << " of 0x"
                              << std::hex << std::bit_cast<std::uint32_t>(x[i]);
      const float w = f.dtype == PEC_DTYPE_BF16 ? bf16_to_f32(in16[i]) : f16_to_f32(in16[i]);
      ASSERT_EQ(std::bit_cast<std::uint32_t>(wide[i]), std::bit_cast<std::uint32_t>(w))
          << f.name << " widen " << in16[i];
    }
  }
}

// Inputs that are values of the format: [-2, 2], exact zeros, and large and tiny magnitudes
// (f16: near its largest finite values and in its subnormal range).
std::vector<std::uint16_t> inputs16(const Fmt& f, std::size_t n, std::uint64_t seed) {
  std::vector<float> v = random_inputs(n, seed);
  std::vector<std::uint16_t> h(n);
  for (std::size_t i = 0; i < n; ++i) {
    float x = v[i];
    if (f.dtype == PEC_DTYPE_F16) {
      if (std::fabs(x) > 1e10f)
        x *= 1.5e-17f;  // ~[-3e4, 3e4]
      else if (std::fabs(x) < 1e-10f && x != 0)
        x *= 3e14f;  // subnormal range of f16
    }
    h[i] = encode(f, oracle::round_to(x, f.of));
  }
  return h;
}

struct Shape {
  std::int64_t n_tokens, n_heads, head_dim, rotary_dim;
  std::int32_t layout;
  double scale;
};
const Shape kShapes[] = {
    {7, 3, 128, 128, PEC_ROPE_NEOX, 1.0}, {5, 2, 128, 64, PEC_ROPE_GPTJ, 1.0},
    {11, 2, 70, 46, PEC_ROPE_NEOX, 0.25}, {4, 3, 38, 38, PEC_ROPE_GPTJ, 4.0},
    {2, 4, 34, 34, PEC_ROPE_NEOX, 3e5},   {1, 1, 2, 2, PEC_ROPE_GPTJ, 1.0},
};

int call_rope16(Path p, const Fmt& f, const pec_rope_args* a, const std::uint16_t* x,
                std::uint16_t* y) {
  return simd::rope_16(p, f.dtype, a, x, y);
}

TEST_P(SimdStore, Rope16MeetsStorageContractAgainstOracle) {
  std::uint64_t seed = 3;
  for (const Fmt& f : kFormats16) {
    const oracle::Budget& budget = oracle::budget("rope", f.name, "accurate");
    for (const Shape& s : kShapes) {
      SCOPED_TRACE(::testing::Message()
                   << f.name << " shape " << s.n_tokens << "x" << s.n_heads << "x" << s.head_dim
                   << " rot " << s.rotary_dim << " layout " << s.layout);
      const std::size_t n = static_cast<std::size_t>(s.n_tokens * s.n_heads * s.head_dim);
      const auto x = inputs16(f, n, seed++);
      const auto pos = random_positions(static_cast<std::size_t>(s.n_tokens), seed++);
      pec_rope_args a{s.n_tokens, s.n_heads, s.head_dim, s.rotary_dim, s.layout,
                      10000.0,    s.scale,   pos.data(), nullptr};
      Guarded16 y(n, poison16(f.dtype));
      ASSERT_EQ(call_rope16(GetParam(), f, &a, x.data(), y.data()), 0);
      EXPECT_TRUE(y.guards_intact());
      EXPECT_EQ(y.first_unwritten(), -1);
      std::vector<float> xw(n), rounded(n);
      std::vector<double> exact(n);
      for (std::size_t i = 0; i < n; ++i) xw[i] = widen(f, x[i]);
      oracle::rope_block(a, xw.data(), f.of, rounded.data(), exact.data());
      const auto angles = oracle::rope_block_angles(a);
      const std::int64_t half = s.rotary_dim / 2;
      for (std::int64_t r = 0; r < s.n_tokens * s.n_heads; ++r) {
        const std::int64_t t = r / s.n_heads, row = r * s.head_dim;
        for (std::int64_t i = 0; i < half; ++i) {
          const std::int64_t la = row + (s.layout == PEC_ROPE_NEOX ? i : 2 * i);
          const std::int64_t lb = row + (s.layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1);
          const double m = std::fabs(xw[la]) + std::fabs(xw[lb]);
          const double theta = std::fabs(angles[static_cast<std::size_t>(t * half + i)].angle.hi);
          for (std::int64_t e : {la, lb}) {
            const double u = budget.units(std::fabs(widen(f, y.data()[e]) - exact[e]), {m, theta});
            ASSERT_LE(u, 1.0) << "element " << e << " position " << pos[t] << ": "
                              << widen(f, y.data()[e]) << " vs " << exact[e];
          }
        }
        for (std::int64_t l = s.rotary_dim; l < s.head_dim; ++l) {
          ASSERT_EQ(y.data()[row + l], x[row + l]) << "pass-through lane " << l;  // ABI-ROPE-3
        }
      }
      // Every path gives the scalar path's bits; in place gives the same bits; determinism.
      std::vector<std::uint16_t> ref(n), again(n), inplace = x;
      ASSERT_EQ(call_rope16(Path::Scalar, f, &a, x.data(), ref.data()), 0);
      ASSERT_EQ(call_rope16(GetParam(), f, &a, x.data(), again.data()), 0);
      ASSERT_EQ(call_rope16(GetParam(), f, &a, inplace.data(), inplace.data()), 0);
      EXPECT_TRUE(std::equal(ref.begin(), ref.end(), y.data())) << "differs from the scalar path";
      EXPECT_TRUE(std::equal(again.begin(), again.end(), y.data())) << "nondeterministic";
      EXPECT_TRUE(std::equal(inplace.begin(), inplace.end(), y.data())) << "in place differs";
    }
  }
}

// Zero scores: the stored value is the bias rounded once to the format (ABI-STORE-2); f16 sums
// beyond -65520 are -inf; non-zero 16-bit scores give the scalar path's bits on every path.
TEST_P(SimdStore, Alibi16MeetsStorageContractAndOverflowsF16ToInfinity) {
  for (const Fmt& f : kFormats16) {
    const oracle::Budget& budget = oracle::budget("alibi", f.name);
    for (std::int64_t heads : {1, 5, 12}) {
      for (int mode : {PEC_ALIBI_SYMMETRIC, PEC_ALIBI_CAUSAL}) {
        const std::int64_t nq = 7, nk = 19;
        auto q = random_positions(nq, 21 + heads), k = random_positions(nk, 22 + heads);
        k[3] = q[2];
        pec_alibi_args a{heads, nq, nk, mode, q.data(), k.data()};
        const std::size_t n = static_cast<std::size_t>(heads * nq * nk);
        std::vector<std::uint16_t> s(n, 0);
        ASSERT_EQ(simd::alibi_bias_16(GetParam(), f.dtype, &a, s.data()), 0);
        std::vector<float> rounded(n);
        std::vector<double> exact(n);
        oracle::alibi_block(a, oracle::Format::F32, rounded.data(), exact.data());
        for (std::size_t e = 0; e < n; ++e) {
          const float got = widen(f, s[e]);
          const double max = oracle::format_info(f.of).max_finite;
          if (std::isinf(exact[e]) || exact[e] <= -(max + oracle::ulp_of(max, f.of) / 2)) {
            ASSERT_EQ(got, -INFINITY) << f.name << " element " << e << " exact " << exact[e];
            continue;
          }
          ASSERT_LE(budget.units(std::fabs(got - exact[e]), {std::fabs(exact[e]), 0.0}), 1.0)
              << f.name << " heads " << heads << " element " << e << ": " << got << " vs "
              << exact[e];
        }
        std::vector<std::uint16_t> s1 = inputs16(f, n, 5), s2 = s1;
        ASSERT_EQ(simd::alibi_bias_16(GetParam(), f.dtype, &a, s1.data()), 0);
        ASSERT_EQ(simd::alibi_bias_16(Path::Scalar, f.dtype, &a, s2.data()), 0);
        EXPECT_EQ(s1, s2) << f.name << ": differs from the scalar path";
      }
    }
  }
}

// The 16-bit table is copied bit-exactly, bucket for bucket as the float32 kernel: table
// entries encode their own index, so the two outputs must name the same entries.
TEST_P(SimdStore, T5With16BitTableCopiesTheFloat32KernelsEntries) {
  const std::int64_t heads = 3, nb = 32, md = 128;
  std::vector<std::int64_t> q = {0, 100, 5000, (std::int64_t{1} << 31) - 1}, k;
  for (std::int64_t v = 0; v < 5400; v += 37) k.push_back(v);
  k.push_back((std::int64_t{1} << 31) - 1);
  std::vector<float> table(static_cast<std::size_t>(nb * heads));
  std::vector<std::uint16_t> table16(table.size());
  for (std::size_t i = 0; i < table.size(); ++i) {
    table[i] = static_cast<float>(i);
    table16[i] = static_cast<std::uint16_t>(
        0x7c01 + i);  // f16 NaN and bf16 finite patterns: copied, not converted
  }
  for (int bidir : {0, 1}) {
    pec_t5_args a{heads,    4,        static_cast<std::int64_t>(k.size()),
                  nb,       md,       bidir,
                  q.data(), k.data(), table.data()};
    pec_t5_args16 a16{heads,    4,        static_cast<std::int64_t>(k.size()),
                      nb,       md,       bidir,
                      q.data(), k.data(), table16.data()};
    const std::size_t n = static_cast<std::size_t>(heads * 4) * k.size();
    std::vector<float> ref(n);
    Guarded16 out(n, 0x7fa5);
    ASSERT_EQ(simd::t5_bias_f32(GetParam(), &a, ref.data()), 0);
    ASSERT_EQ(simd::t5_bias_16(GetParam(), &a16, out.data()), 0);
    EXPECT_TRUE(out.guards_intact());
    for (std::size_t e = 0; e < n; ++e) {
      ASSERT_EQ(out.data()[e], static_cast<std::uint16_t>(0x7c01 + static_cast<int>(ref[e])))
          << "element " << e;
    }
  }
}

TEST_P(SimdStore, Sinusoidal16MeetsStorageContractAgainstOracle) {
  for (const Fmt& f : kFormats16) {
    const oracle::Budget& budget = oracle::budget("sinusoidal", f.name, "accurate");
    for (std::int64_t d : {2, 64, 38}) {
      const auto pos = random_positions(9, 31 + d);
      pec_sinusoidal_args a{9, d, 10000.0, pos.data()};
      const std::size_t n = static_cast<std::size_t>(9 * d);
      Guarded16 out(n, poison16(f.dtype));
      ASSERT_EQ(simd::sinusoidal_16(GetParam(), f.dtype, &a, out.data()), 0);
      EXPECT_TRUE(out.guards_intact());
      EXPECT_EQ(out.first_unwritten(), -1);
      std::vector<float> rounded(n);
      std::vector<double> exact(n);
      oracle::sinusoidal_block(a, oracle::Format::F32, rounded.data(), exact.data());
      std::vector<std::uint16_t> ref(n);
      ASSERT_EQ(simd::sinusoidal_16(Path::Scalar, f.dtype, &a, ref.data()), 0);
      for (std::size_t e = 0; e < n; ++e) {
        const std::int64_t t = static_cast<std::int64_t>(e) / d,
                           i = (static_cast<std::int64_t>(e) % d) / 2;
        const double theta = static_cast<double>(pos[t]) * std::pow(10000.0, -2.0 * i / d);
        ASSERT_LE(budget.units(std::fabs(widen(f, out.data()[e]) - exact[e]), {1.0, theta}), 1.0)
            << f.name << " d " << d << " element " << e;
        ASSERT_EQ(out.data()[e], ref[e]) << "differs from the scalar path at " << e;
      }
    }
  }
}

TEST_P(SimdStore, Learned16CopiesRowsBitExactlyAndRejectsOutOfRange) {
  const std::int64_t d = 5, maxp = 9;
  std::vector<std::uint16_t> table(static_cast<std::size_t>(d * maxp));
  for (std::size_t i = 0; i < table.size(); ++i)
    table[i] = static_cast<std::uint16_t>(0x7f81 + 977 * i);
  std::vector<std::int64_t> pos = {8, 0, 3, 3};
  pec_learned_args16 a{4, d, maxp, pos.data(), table.data()};
  Guarded16 out(static_cast<std::size_t>(4 * d), 0x7fa5);
  ASSERT_EQ(simd::learned_16(&a, out.data()), 0);
  EXPECT_TRUE(out.guards_intact());
  for (std::int64_t t = 0; t < 4; ++t) {
    for (std::int64_t c = 0; c < d; ++c)
      ASSERT_EQ(out.data()[t * d + c], table[static_cast<std::size_t>(pos[t] * d + c)]);
  }
  for (std::int64_t bad : {std::int64_t{-1}, maxp}) {
    pos[2] = bad;
    Guarded16 o2(static_cast<std::size_t>(4 * d), 0x7fa5);
    EXPECT_NE(simd::learned_16(&a, o2.data()), 0) << "position " << bad;
    EXPECT_EQ(o2.first_unwritten(), 0);
  }
}

// The 16-bit variants keep their _f32 function's domain (ABI-STORE-2); rejected calls write
// nothing (ABI-GEN-3).
TEST_P(SimdStore, Variants16RejectInvalidArgumentsWithoutWriting) {
  const Path p = GetParam();
  std::int64_t pos[2] = {0, 5}, neg[2] = {0, -1};
  const std::vector<std::uint16_t> x(16, 0x3f80);
  for (const Fmt& f : kFormats16) {
    std::vector<pec_rope_args> bad;
    auto valid = [&] {
      return pec_rope_args{2, 1, 8, 8, PEC_ROPE_NEOX, 10000.0, 1.0, pos, nullptr};
    };
    for (int k = 0; k < 6; ++k) {
      pec_rope_args a = valid();
      if (k == 0) a.rotary_dim = 10;
      if (k == 1) a.rotary_dim = 7;
      if (k == 2) a.layout = 2;
      if (k == 3) a.theta_base = 1.0;
      if (k == 4) a.positions = neg;
      if (k == 5) a.position_scale = NAN;
      bad.push_back(a);
    }
    for (std::size_t k = 0; k < bad.size(); ++k) {
      Guarded16 y(16, poison16(f.dtype));
      EXPECT_NE(simd::rope_16(p, f.dtype, &bad[k], x.data(), y.data()), 0)
          << f.name << " case " << k;
      EXPECT_EQ(y.first_unwritten(), 0) << "rejected call wrote its output";
    }
    pec_alibi_args al{2, 1, 2, 2, pos, pos};  // mode 2
    Guarded16 s(4, poison16(f.dtype));
    EXPECT_NE(simd::alibi_bias_16(p, f.dtype, &al, s.data()), 0);
    al.mode = 0;
    al.k_pos = neg;
    EXPECT_NE(simd::alibi_bias_16(p, f.dtype, &al, s.data()), 0);
    EXPECT_EQ(s.first_unwritten(), 0);
    pec_sinusoidal_args sa{2, 7, 10000.0, pos};  // odd d_model
    Guarded16 o(14, poison16(f.dtype));
    EXPECT_NE(simd::sinusoidal_16(p, f.dtype, &sa, o.data()), 0);
    EXPECT_EQ(o.first_unwritten(), 0);
  }
  std::vector<std::uint16_t> table(8);
  pec_t5_args16 t5{1, 2, 2, 1, 128, 0, pos, pos, table.data()};  // num_buckets 1
  Guarded16 b(4, 0x7fa5);
  EXPECT_NE(simd::t5_bias_16(p, &t5, b.data()), 0);
  t5.num_buckets = 8;
  t5.max_distance = 4;  // <= max_exact
  EXPECT_NE(simd::t5_bias_16(p, &t5, b.data()), 0);
  t5.max_distance = 128;
  t5.table = nullptr;
  EXPECT_NE(simd::t5_bias_16(p, &t5, b.data()), 0);
  EXPECT_EQ(b.first_unwritten(), 0);
}

INSTANTIATE_TEST_SUITE_P(Paths, SimdStore, ::testing::ValuesIn(simd::kAllPaths),
                         [](const auto& info) { return std::string(simd::to_string(info.param)); });

}  // namespace
}  // namespace pecheck::kernels::test
