// pecheck_simd version 2 RoPE, every code path and storage type: query and key together (GQA,
// MQA, token-major views with gaps as in a fused QKV buffer, head-major views, attn_factor),
// the rotation from a cos/sin cache, and the cache builder, against the MPFR oracle
// (src/oracle) within spec/budgets.tsv; gaps and guards untouched; in place; bit-identical
// across paths; every domain rule rejected without writing.
// Clause: ABI-QK-1 ABI-QK-2 ABI-QK-3 ABI-QK-4 ABI-VIEW-1 ABI-VIEW-2 ABI-CACHE-1 ABI-CACHE-2
// ABI-CACHE-3 Clause: ABI-STORE-1 ABI-ROPE-3 ABI-BATCH-1 ABI-GEN-3 ABI-GEN-4 ABI-GEN-5 ABI-GEN-6
#include "simd_v2_fixture.hpp"

namespace pecheck::kernels::test {
namespace {

using simd::Path;

TEST_P(SimdV2, RopeQkMeetsContractWithGqaStridesGapsAndInPlace) {
  std::uint64_t seed = 100;
  for (const Fmt& f : kFormats) {
    for (const QkShape& s : kQkShapes) {
      for (int kind = 0; kind < 3; ++kind) {
        const bool qi = kind == 1,
                   ki = kind == 2;  // q in place in fused rows, k in place head-major
        if (f.dtype == PEC_DTYPE_F32)
          qk_case<float>(GetParam(), f, s, kind, qi, ki, seed++);
        else
          qk_case<std::uint16_t>(GetParam(), f, s, kind, qi, ki, seed++);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// q and k heads interleaved in one fused token-major buffer [T][Hq + Hk (+ V)][D], both in
// place: the views share a buffer but no element (ABI-VIEW-1), the V heads stay untouched.
TEST_P(SimdV2, RopeQkInPlaceOnAFusedQkvBuffer) {
  const std::int64_t T = 6, Hq = 4, Hk = 2, D = 64;
  const std::int64_t row = (Hq + 2 * Hk) * D;
  std::vector<float> buf = random_inputs(static_cast<std::size_t>(T * row), 9);
  const std::vector<float> before = buf;
  const auto pos = random_positions(T, 10);
  pec_rope_qk_args a{T,   Hq,         Hk,      D,        D,        PEC_ROPE_NEOX, 10000.0, 1.0,
                     1.0, pos.data(), nullptr, {row, D}, {row, D}, {row, D},      {row, D}};
  ASSERT_EQ(simd::rope_qk(GetParam(), PEC_DTYPE_F32, &a, buf.data(), buf.data() + Hq * D,
                          buf.data(), buf.data() + Hq * D),
            0);
  // Against pec_rope_f32 on the dense q and k (same arithmetic for attn_factor 1: same bits).
  for (int part = 0; part < 2; ++part) {
    const std::int64_t H = part == 0 ? Hq : Hk, h0 = part == 0 ? 0 : Hq;
    std::vector<float> x, y(static_cast<std::size_t>(T * H * D));
    for (std::int64_t t = 0; t < T; ++t)
      for (std::int64_t e = 0; e < H * D; ++e)
        x.push_back(before[static_cast<std::size_t>(t * row + h0 * D + e)]);
    pec_rope_args r{T, H, D, D, PEC_ROPE_NEOX, 10000.0, 1.0, pos.data(), nullptr};
    ASSERT_EQ(simd::rope_f32(GetParam(), &r, x.data(), y.data()), 0);
    for (std::int64_t t = 0; t < T; ++t)
      for (std::int64_t e = 0; e < H * D; ++e)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(buf[static_cast<std::size_t>(t * row + h0 * D + e)]),
                  std::bit_cast<std::uint32_t>(y[static_cast<std::size_t>(t * H * D + e)]))
            << "part " << part << " token " << t << " element " << e;
  }
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t e = (Hq + Hk) * D; e < row; ++e)
      ASSERT_EQ(std::bit_cast<std::uint32_t>(buf[static_cast<std::size_t>(t * row + e)]),
                std::bit_cast<std::uint32_t>(before[static_cast<std::size_t>(t * row + e)]))
          << "V head written";
}

// The cache builder (ABI-CACHE-3): attn*cos and attn*sin of the exact angles, every position,
// within the RoPE accuracy class of the storage type (magnitude attn_factor).
TEST_P(SimdV2, RopeCacheBuilderMeetsContractAgainstOracle) {
  struct C {
    std::int64_t positions, rot;
    double scale, attn;
    bool given;
  };
  for (const C& c :
       {C{300, 128, 1.0, 1.0, false}, C{67, 46, 1e12, 0.8, false}, C{40, 64, 1.0, 1.3, true}}) {
    const std::int64_t half = c.rot / 2;
    std::vector<float> inv_freq;
    for (std::int64_t i = 0; i < half; ++i)
      inv_freq.push_back(static_cast<float>(std::pow(5e5, -2.0 * i / c.rot) / 3));
    std::vector<oracle::RopeAngle> ang;
    for (std::int64_t p = 0; p < c.positions; ++p) {
      for (std::int64_t i = 0; i < half; ++i) {
        oracle::AngleQuery q{
            p, c.scale,
            c.given ? oracle::RopeFrequency::exact(inv_freq[static_cast<std::size_t>(i)])
                    : oracle::RopeFrequency::power(10000.0, i, c.rot)};
        ang.push_back(oracle::rope_angle(q));
      }
    }
    const pec_rope_cache_args a{c.positions, c.rot,  10000.0,
                                c.scale,     c.attn, c.given ? inv_freq.data() : nullptr};
    for (const Fmt& f : kFormats) {
      const oracle::Budget& budget = oracle::budget("rope", f.name, "accurate");
      const std::size_t n = static_cast<std::size_t>(c.positions * c.rot);
      std::vector<float> got(n);
      if (f.dtype == PEC_DTYPE_F32) {
        Guarded g(n);
        ASSERT_EQ(simd::rope_cache(GetParam(), f.dtype, &a, g.data()), 0);
        EXPECT_TRUE(g.guards_intact());
        EXPECT_EQ(g.first_unwritten(), -1);
        std::vector<float> ref(n);
        ASSERT_EQ(simd::rope_cache(Path::Scalar, f.dtype, &a, ref.data()), 0);
        EXPECT_TRUE(same_bits(g.data(), ref.data(), n)) << "differs from the scalar path";
        std::copy(g.data(), g.data() + n, got.begin());
      } else {
        Guarded16 g(n, poison16(f.dtype));
        ASSERT_EQ(simd::rope_cache(GetParam(), f.dtype, &a, g.data()), 0);
        EXPECT_TRUE(g.guards_intact());
        EXPECT_EQ(g.first_unwritten(), -1);
        std::vector<std::uint16_t> ref(n);
        ASSERT_EQ(simd::rope_cache(Path::Scalar, f.dtype, &a, ref.data()), 0);
        EXPECT_TRUE(std::equal(ref.begin(), ref.end(), g.data())) << "differs from the scalar path";
        for (std::size_t i = 0; i < n; ++i) got[i] = dec(f, g.data()[i]);
      }
      for (std::int64_t p = 0; p < c.positions; ++p) {
        for (std::int64_t i = 0; i < half; ++i) {
          const auto& r = ang[static_cast<std::size_t>(p * half + i)];
          const double theta = std::fabs(r.angle.hi);
          const double ec =
              std::fabs(got[static_cast<std::size_t>(p * c.rot + i)] - c.attn * r.cos.hi);
          const double es =
              std::fabs(got[static_cast<std::size_t>(p * c.rot + half + i)] - c.attn * r.sin.hi);
          ASSERT_LE(budget.units(ec, {c.attn, theta}), 1.0)
              << f.name << " cos p " << p << " i " << i;
          ASSERT_LE(budget.units(es, {c.attn, theta}), 1.0)
              << f.name << " sin p " << p << " i " << i;
        }
      }
    }
  }
}

template <class T>
int run_cached(Path p, const Fmt& f, const QkShape& s, const std::vector<std::int64_t>& pos,
               std::int32_t cache_dtype, std::int64_t cache_positions, const void* cache,
               QkTensors<T>& ts) {
  pec_rope_cached_args a{};
  a.n_tokens = s.n_tokens;
  a.n_q_heads = s.n_q_heads;
  a.n_kv_heads = s.n_kv_heads;
  a.head_dim = s.head_dim;
  a.rotary_dim = s.rotary_dim;
  a.layout = s.layout;
  a.cache_dtype = cache_dtype;
  a.cache_positions = cache_positions;
  a.cos_sin_cache = cache;
  a.positions = pos.data();
  ts.set_strides(a);
  return simd::rope_cached(p, f.dtype, &a, ts.q.base(), ts.k.base(), ts.q_out_ptr(),
                           ts.k_out_ptr());
}

// Exact cached rotation of one tensor: y[a] = xa*C - xb*S, y[b] = xb*C + xa*S with the cache
// entries as exact numbers (one fma of exact float products: error 2^-53 relative), within the
// float32 rotation of the storage type's reference row at angle 0: PREC-CACHE-1's default class
// (float32 arithmetic, one rounding to storage; C and S are inputs, so no angle term).
void expect_cached_rotation(const Fmt& f, const QkShape& s, std::int64_t n_heads,
                            const std::vector<float>& x, const std::vector<float>& y,
                            const std::vector<std::int64_t>& pos, const std::vector<float>& cache,
                            const char* what) {
  const oracle::Budget& budget = oracle::budget("rope", f.name, "reference");
  const std::int64_t half = s.rotary_dim / 2;
  for (std::int64_t r = 0; r < s.n_tokens * n_heads; ++r) {
    const std::int64_t t = r / n_heads, row = r * s.head_dim;
    for (std::int64_t i = 0; i < half; ++i) {
      const double C = cache[static_cast<std::size_t>(pos[t] * s.rotary_dim + i)];
      const double S = cache[static_cast<std::size_t>(pos[t] * s.rotary_dim + half + i)];
      const std::int64_t la = row + (s.layout == PEC_ROPE_NEOX ? i : 2 * i);
      const std::int64_t lb = row + (s.layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1);
      const double xa = x[la], xb = x[lb];
      const double ya = std::fma(-xb, S, xa * C), yb = std::fma(xa, S, xb * C);
      const double m = (std::fabs(xa) + std::fabs(xb)) * std::max(std::fabs(C), std::fabs(S));
      ASSERT_LE(budget.units(std::fabs(y[la] - ya), {m, 0.0}), 1.0)
          << what << " " << f.name << " element " << la << ": " << y[la] << " vs " << ya;
      ASSERT_LE(budget.units(std::fabs(y[lb] - yb), {m, 0.0}), 1.0)
          << what << " " << f.name << " element " << lb << ": " << y[lb] << " vs " << yb;
    }
    for (std::int64_t l = s.rotary_dim; l < s.head_dim; ++l) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(y[row + l]), std::bit_cast<std::uint32_t>(x[row + l]))
          << "pass-through";
    }
  }
}

// A cache whose rows at the call's positions hold values of cache_dtype in [-1.25, 1.25] and
// every other row a NaN pattern: a kernel that reads another row (the token index instead of
// the position) writes NaN and fails.
struct TestCache {
  std::vector<float> values;  // widened, [positions][rot]
  std::vector<float> f32;
  std::vector<std::uint16_t> u16;
  const void* data(std::int32_t dtype) const {
    return dtype == PEC_DTYPE_F32 ? static_cast<const void*>(f32.data())
                                  : static_cast<const void*>(u16.data());
  }
};
TestCache make_cache(const Fmt& cf, std::int64_t P, std::int64_t rot,
                     const std::vector<std::int64_t>& pos, std::uint64_t seed) {
  TestCache c;
  c.values.assign(static_cast<std::size_t>(P * rot), std::numeric_limits<float>::quiet_NaN());
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.25, 1.25);
  for (std::int64_t p : pos)
    for (std::int64_t i = 0; i < rot; ++i)
      c.values[static_cast<std::size_t>(p * rot + i)] =
          static_cast<float>(oracle::round_to(u(rng), cf.of));
  for (float v : c.values) {
    if (cf.dtype == PEC_DTYPE_F32)
      c.f32.push_back(v);
    else
      c.u16.push_back(cf.dtype == PEC_DTYPE_BF16 ? f32_to_bf16(v) : f32_to_f16(v));
  }
  return c;
}

template <class T>
void cached_case(Path path, const Fmt& f, const Fmt& cf, const QkShape& s, int kind,
                 std::uint64_t seed) {
  SCOPED_TRACE(::testing::Message()
               << f.name << " cache " << cf.name << " " << s.n_tokens << "x" << s.n_q_heads << "/"
               << s.n_kv_heads << "x" << s.head_dim << " rot " << s.rotary_dim << " layout "
               << s.layout << " view " << kind);
  // Positions: repeated, unordered, never the token index; the cache has unread rows.
  std::vector<std::int64_t> pos;
  for (std::int64_t t = 0; t < s.n_tokens; ++t) pos.push_back((t * 7 + 3) % 11 + (t % 2) * 4);
  const std::int64_t P = 20;
  const TestCache cache = make_cache(cf, P, s.rotary_dim, pos, seed);
  const bool qi = kind == 2, ki = kind == 1;
  QkTensors<T> ts(s, f, kind, qi, ki, seed);
  const std::vector<T> q_before = ts.q.buf, k_before = ts.k.buf;
  const std::vector<float> qx = ts.q.dense(f), kx = ts.k.dense(f);
  ASSERT_EQ(run_cached(path, f, s, pos, cf.dtype, P, cache.data(cf.dtype), ts), 0);
  expect_views_clean(ts.q_result(), q_before, qi, f, "q_out");
  expect_views_clean(ts.k_result(), k_before, ki, f, "k_out");
  expect_cached_rotation(f, s, s.n_q_heads, qx, ts.q_result().dense(f), pos, cache.values, "q");
  expect_cached_rotation(f, s, s.n_kv_heads, kx, ts.k_result().dense(f), pos, cache.values, "k");
  QkTensors<T> ref(s, f, kind, false, false, seed);
  ASSERT_EQ(run_cached(Path::Scalar, f, s, pos, cf.dtype, P, cache.data(cf.dtype), ref), 0);
  const auto a = ts.q_result().dense(f), b = ref.q_result().dense(f);
  const auto c = ts.k_result().dense(f), d = ref.k_result().dense(f);
  EXPECT_TRUE(same_bits(a.data(), b.data(), a.size()))
      << "q differs from the scalar path / out of place";
  EXPECT_TRUE(same_bits(c.data(), d.data(), c.size()))
      << "k differs from the scalar path / out of place";
}

TEST_P(SimdV2, RopeCachedMeetsContractForEveryStorageAndCacheType) {
  std::uint64_t seed = 500;
  for (const Fmt& f : kFormats) {
    for (const Fmt& cf : kFormats) {
      for (const QkShape& s : kQkShapes) {
        const int kind = static_cast<int>(seed % 3);
        if (f.dtype == PEC_DTYPE_F32)
          cached_case<float>(GetParam(), f, cf, s, kind, seed++);
        else
          cached_case<std::uint16_t>(GetParam(), f, cf, s, kind, seed++);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// A float32 cache from the builder makes the cached rotation give exactly pec_rope_qk's bits
// (the same cos/sin floats, the same rotation), for every storage type and layout.
TEST_P(SimdV2, CachedRotationWithBuiltCacheEqualsQkBits) {
  for (const Fmt& f : kFormats) {
    for (const QkShape& s : kQkShapes) {
      if (s.scale != 1.0) continue;  // the builder indexes positions 0..P-1 at the call's scale
      std::vector<std::int64_t> pos;
      for (std::int64_t t = 0; t < s.n_tokens; ++t) pos.push_back(1000 + 97 * t);
      const std::int64_t P = pos.back() + 1;
      std::vector<float> cache(static_cast<std::size_t>(P * s.rotary_dim));
      const pec_rope_cache_args ca{P, s.rotary_dim, 10000.0, 1.0, s.attn, nullptr};
      ASSERT_EQ(simd::rope_cache(GetParam(), PEC_DTYPE_F32, &ca, cache.data()), 0);
      auto check = [&](auto tag) {
        using T = decltype(tag);
        QkTensors<T> a(s, f, 1, false, false, 77), b(s, f, 1, false, false, 77);
        ASSERT_EQ(run_qk(GetParam(), f, s, pos, a), 0);
        ASSERT_EQ(run_cached(GetParam(), f, s, pos, PEC_DTYPE_F32, P, cache.data(), b), 0);
        const auto x = a.qo.dense(f), y = b.qo.dense(f), z = a.ko.dense(f), w = b.ko.dense(f);
        EXPECT_TRUE(same_bits(x.data(), y.data(), x.size()))
            << f.name << " q: cached differs from qk";
        EXPECT_TRUE(same_bits(z.data(), w.data(), z.size()))
            << f.name << " k: cached differs from qk";
      };
      if (f.dtype == PEC_DTYPE_F32)
        check(0.0f);
      else
        check(std::uint16_t{0});
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, SimdV2, ::testing::ValuesIn(simd::kAllPaths),
                         [](const auto& info) { return std::string(simd::to_string(info.param)); });

}  // namespace
}  // namespace pecheck::kernels::test
