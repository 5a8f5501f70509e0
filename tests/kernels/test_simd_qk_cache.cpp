// pecheck_simd version 2 RoPE, every code path and storage type: query and key together (GQA,
// MQA, token-major views with gaps as in a fused QKV buffer, head-major views, attn_factor),
// the rotation from a cos/sin cache, and the cache builder, against the MPFR oracle
// (src/oracle) within spec/budgets.tsv; gaps and guards untouched; in place; bit-identical
// across paths; every domain rule rejected without writing.
// Clause: ABI-QK-1 ABI-QK-2 ABI-QK-3 ABI-QK-4 ABI-VIEW-1 ABI-VIEW-2 ABI-CACHE-1 ABI-CACHE-2
// ABI-CACHE-3 Clause: ABI-STORE-1 ABI-ROPE-3 ABI-BATCH-1 ABI-GEN-3 ABI-GEN-4 ABI-GEN-5 ABI-GEN-6
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <type_traits>

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
constexpr Fmt kFormats[] = {{PEC_DTYPE_F32, oracle::Format::F32, "f32"},
                            {PEC_DTYPE_BF16, oracle::Format::BF16, "bf16"},
                            {PEC_DTYPE_F16, oracle::Format::F16, "f16"}};

// Storage elements of a test: float for f32, bit patterns for the 16-bit formats.
template <class T>
float dec(const Fmt& f, T v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else {
    return f.dtype == PEC_DTYPE_BF16 ? widen_bf16(v) : widen_f16(v);
  }
}
// A value representable in the format, encoded (no rounding happens).
template <class T>
T enc(const Fmt& f, double v) {
  if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(v);
  } else {
    const float x = static_cast<float>(v);
    return f.dtype == PEC_DTYPE_BF16 ? f32_to_bf16(x) : f32_to_f16(x);
  }
}
template <class T>
T poison(const Fmt& f) {
  if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<float>(0x7fa5a5a5u);
  } else {
    return poison16(f.dtype);
  }
}
template <class T>
bool same(T a, T b) {
  if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
  } else {
    return a == b;
  }
}
// Input values of the format: [-2, 2] with zeros, large and tiny magnitudes (f16 kept finite).
double input_value(const Fmt& f, float x) {
  if (f.dtype == PEC_DTYPE_F16) {
    if (std::fabs(x) > 1e10f)
      x *= 5e-17f;  // ~[-1e4, 1e4]: rotated by attn <= 2, still finite
    else if (std::fabs(x) < 1e-10f && x != 0)
      x *= 3e14f;
  }
  return oracle::round_to(x, f.of);
}

// A strided view [n_tokens][n_heads][head_dim] inside a poisoned buffer (ABI-VIEW-1):
// kind 0 dense, 1 token-major with gaps between heads and rows (a fused QKV row), 2 head-major
// with gaps (HF's [batch, heads, seq, dim] with padding).
template <class T>
struct ViewBuf {
  std::int64_t n_tokens, n_heads, head_dim;
  pec_strides s{};
  std::vector<T> buf;
  std::vector<char> in_view;
  static constexpr std::size_t kGuard = 32;
  ViewBuf(std::int64_t T_, std::int64_t H, std::int64_t D, int kind, T pattern)
      : n_tokens(T_), n_heads(H), head_dim(D) {
    if (kind == 0) s = {H * D, D};
    if (kind == 1) s = {H * (D + 3) + 5, D + 3};
    if (kind == 2) s = {D + 2, T_ * (D + 2) + 7};
    const std::int64_t ext = (T_ - 1) * s.token + (H - 1) * s.head + D;
    buf.assign(static_cast<std::size_t>(ext) + 2 * kGuard, pattern);
    in_view.assign(buf.size(), 0);
    for (std::int64_t t = 0; t < T_; ++t)
      for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t l = 0; l < D; ++l) in_view[at(t, h, l)] = 1;
  }
  std::size_t at(std::int64_t t, std::int64_t h, std::int64_t l) const {
    return kGuard + static_cast<std::size_t>(t * s.token + h * s.head + l);
  }
  T* base() { return buf.data() + kGuard; }
  // The view's elements widened, dense [t][h][l].
  std::vector<float> dense(const Fmt& f) const {
    std::vector<float> d;
    for (std::int64_t t = 0; t < n_tokens; ++t)
      for (std::int64_t h = 0; h < n_heads; ++h)
        for (std::int64_t l = 0; l < head_dim; ++l) d.push_back(dec(f, buf[at(t, h, l)]));
    return d;
  }
};

template <class T>
void fill_inputs(ViewBuf<T>& v, const Fmt& f, std::uint64_t seed) {
  const auto x = random_inputs(static_cast<std::size_t>(v.n_tokens * v.n_heads * v.head_dim), seed);
  std::size_t i = 0;
  for (std::int64_t t = 0; t < v.n_tokens; ++t)
    for (std::int64_t h = 0; h < v.n_heads; ++h)
      for (std::int64_t l = 0; l < v.head_dim; ++l)
        v.buf[v.at(t, h, l)] = enc<T>(f, input_value(f, x[i++]));
}

struct QkShape {
  std::int64_t n_tokens, n_q_heads, n_kv_heads, head_dim, rotary_dim;
  std::int32_t layout;
  double scale, attn;
};
const QkShape kQkShapes[] = {
    // tokens, q heads, kv heads, head_dim, rotary, layout, position_scale, attn_factor
    {5, 8, 2, 128, 128, PEC_ROPE_NEOX, 1.0, 1.0},  // GQA 4:1, register tables
    {4, 4, 4, 128, 64, PEC_ROPE_GPTJ, 1.0, 1.2},   // partial rotary, YaRN-like factor
    {7, 6, 1, 70, 46, PEC_ROPE_NEOX, 0.25, 0.7},   // MQA, vector tails
    {3, 3, 3, 38, 38, PEC_ROPE_GPTJ, 4.0, 1.0},
    {2, 4, 2, 34, 34, PEC_ROPE_NEOX, 3e5, 1.1},  // angles past 2^45: the quad path
    {1, 1, 1, 2, 2, PEC_ROPE_GPTJ, 1.0, 2.0},    // the smallest head
};

// One qk (or cached) call's four tensors; `call` runs the function under test on them.
template <class T>
struct QkTensors {
  ViewBuf<T> q, k, qo, ko;
  bool q_in_place, k_in_place;
  QkTensors(const QkShape& s, const Fmt& f, int kind, bool qi, bool ki, std::uint64_t seed)
      : q(s.n_tokens, s.n_q_heads, s.head_dim, kind, poison<T>(f)),
        k(s.n_tokens, s.n_kv_heads, s.head_dim, kind, poison<T>(f)),
        qo(s.n_tokens, s.n_q_heads, s.head_dim, (kind + 1) % 3, poison<T>(f)),
        ko(s.n_tokens, s.n_kv_heads, s.head_dim, (kind + 2) % 3, poison<T>(f)),
        q_in_place(qi),
        k_in_place(ki) {
    fill_inputs(q, f, seed);
    fill_inputs(k, f, seed + 1);
  }
  ViewBuf<T>& q_result() { return q_in_place ? q : qo; }
  ViewBuf<T>& k_result() { return k_in_place ? k : ko; }
  template <class A>
  void set_strides(A& a) {
    a.q = q.s;
    a.k = k.s;
    a.q_out = q_in_place ? q.s : qo.s;
    a.k_out = k_in_place ? k.s : ko.s;
  }
  T* q_out_ptr() { return q_in_place ? q.base() : qo.base(); }
  T* k_out_ptr() { return k_in_place ? k.base() : ko.base(); }
};

// Outputs: every view element written, every gap and guard element untouched (ABI-VIEW-2,
// ABI-GEN-4/5); inputs not in place: the whole buffer untouched.
template <class T>
void expect_views_clean(ViewBuf<T>& out, const std::vector<T>& input_before, bool in_place,
                        const Fmt& f, const char* what) {
  const T pat = poison<T>(f);
  for (std::size_t i = 0; i < out.buf.size(); ++i) {
    if (out.in_view[i]) {
      ASSERT_FALSE(same(out.buf[i], pat)) << what << ": element " << i << " not written";
    } else if (in_place) {
      ASSERT_TRUE(same(out.buf[i], input_before[i])) << what << ": gap element " << i << " written";
    } else {
      ASSERT_TRUE(same(out.buf[i], pat)) << what << ": gap element " << i << " written";
    }
  }
}

// The oracle's rotation of a dense tensor, times attn (the exact rotation with attn*cos and
// attn*sin is attn times the exact rotation), checked with magnitude attn*(|xa| + |xb|).
void expect_rotation(const Fmt& f, const QkShape& s, std::int64_t n_heads,
                     const std::vector<float>& x, const std::vector<float>& y,
                     const std::vector<std::int64_t>& pos, const char* what) {
  pec_rope_args a{s.n_tokens, n_heads, s.head_dim, s.rotary_dim, s.layout,
                  10000.0,    s.scale, pos.data(), nullptr};
  std::vector<float> rounded(x.size());
  std::vector<double> exact(x.size());
  oracle::rope_block(a, x.data(), f.of, rounded.data(), exact.data());
  const auto angles = oracle::rope_block_angles(a);
  const oracle::Budget& budget = oracle::budget("rope", f.name, "accurate");
  const std::int64_t half = s.rotary_dim / 2;
  for (std::int64_t r = 0; r < s.n_tokens * n_heads; ++r) {
    const std::int64_t t = r / n_heads, row = r * s.head_dim;
    for (std::int64_t i = 0; i < half; ++i) {
      const std::int64_t la = row + (s.layout == PEC_ROPE_NEOX ? i : 2 * i);
      const std::int64_t lb = row + (s.layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1);
      const double m = s.attn * (std::fabs(x[la]) + std::fabs(x[lb]));
      const double theta = std::fabs(angles[static_cast<std::size_t>(t * half + i)].angle.hi);
      for (std::int64_t e : {la, lb}) {
        const double want = s.attn * exact[e];
        const double u = budget.units(std::fabs(y[e] - want), {m, theta});
        ASSERT_LE(u, 1.0) << what << " " << f.name << " element " << e << " position " << pos[t]
                          << ": " << y[e] << " vs " << want;
      }
    }
    for (std::int64_t l = s.rotary_dim; l < s.head_dim; ++l) {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(y[row + l]), std::bit_cast<std::uint32_t>(x[row + l]))
          << what << " pass-through lane " << l;  // ABI-ROPE-3 (widening is exact)
    }
  }
}

class SimdV2 : public ::testing::TestWithParam<Path> {
 protected:
  void SetUp() override {
    if (!simd::cpu_has(GetParam())) {
      GTEST_SKIP() << "SKIPPED path " << simd::to_string(GetParam()) << ": "
                   << simd::missing_reason(GetParam());
    }
  }
};

template <class T>
int run_qk(Path p, const Fmt& f, const QkShape& s, const std::vector<std::int64_t>& pos,
           QkTensors<T>& ts) {
  pec_rope_qk_args a{};
  a.n_tokens = s.n_tokens;
  a.n_q_heads = s.n_q_heads;
  a.n_kv_heads = s.n_kv_heads;
  a.head_dim = s.head_dim;
  a.rotary_dim = s.rotary_dim;
  a.layout = s.layout;
  a.theta_base = 10000.0;
  a.position_scale = s.scale;
  a.attn_factor = s.attn;
  a.positions = pos.data();
  ts.set_strides(a);
  return simd::rope_qk(p, f.dtype, &a, ts.q.base(), ts.k.base(), ts.q_out_ptr(), ts.k_out_ptr());
}

template <class T>
void qk_case(Path path, const Fmt& f, const QkShape& s, int kind, bool qi, bool ki,
             std::uint64_t seed) {
  SCOPED_TRACE(::testing::Message()
               << f.name << " " << s.n_tokens << "x" << s.n_q_heads << "/" << s.n_kv_heads << "x"
               << s.head_dim << " rot " << s.rotary_dim << " layout " << s.layout << " view "
               << kind << " in place " << qi << ki);
  const auto pos = random_positions(static_cast<std::size_t>(s.n_tokens), seed + 7);
  QkTensors<T> ts(s, f, kind, qi, ki, seed);
  const std::vector<T> q_before = ts.q.buf, k_before = ts.k.buf;
  const std::vector<float> qx = ts.q.dense(f), kx = ts.k.dense(f);
  ASSERT_EQ(run_qk(path, f, s, pos, ts), 0);
  expect_views_clean(ts.q_result(), q_before, qi, f, "q_out");
  expect_views_clean(ts.k_result(), k_before, ki, f, "k_out");
  if (!qi) {
    EXPECT_TRUE(std::equal(q_before.begin(), q_before.end(), ts.q.buf.begin(), same<T>))
        << "q written";
  }
  if (!ki) {
    EXPECT_TRUE(std::equal(k_before.begin(), k_before.end(), ts.k.buf.begin(), same<T>))
        << "k written";
  }
  expect_rotation(f, s, s.n_q_heads, qx, ts.q_result().dense(f), pos, "q");
  expect_rotation(f, s, s.n_kv_heads, kx, ts.k_result().dense(f), pos, "k");
  // The scalar path, out of place, gives the same bits (ABI-QK-4 for the in-place cases).
  QkTensors<T> ref(s, f, kind, false, false, seed);
  ASSERT_EQ(run_qk(Path::Scalar, f, s, pos, ref), 0);
  const auto a = ts.q_result().dense(f), b = ref.q_result().dense(f);
  const auto c = ts.k_result().dense(f), d = ref.k_result().dense(f);
  EXPECT_TRUE(same_bits(a.data(), b.data(), a.size()))
      << "q differs from the scalar path / out of place";
  EXPECT_TRUE(same_bits(c.data(), d.data(), c.size()))
      << "k differs from the scalar path / out of place";
}

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

// ABI-QK-3: the score of every query head with the key head of its group, formed from one
// call's outputs, moves under a common shift of all positions by no more than the score
// contract (PREC-SCORE-1, oracle::rope_score_bound at the original and the shifted angles).
TEST_P(SimdV2, RopeQkScoresDependOnlyOnTheOffsetForEveryGroup) {
  const std::int64_t T = 4, Hq = 6, Hk = 2, D = 64, R = 64, group = Hq / Hk, half = R / 2;
  const auto q = random_inputs(static_cast<std::size_t>(T * Hq * D), 61);
  const auto k = random_inputs(static_cast<std::size_t>(T * Hk * D), 62);
  const std::vector<std::int64_t> pos = {3, 100, 70000, std::int64_t{1} << 30};
  const oracle::Budget& row = oracle::budget("rope", "f32", "accurate");
  auto rotate = [&](const std::vector<std::int64_t>& p, std::vector<float>& qo,
                    std::vector<float>& ko) {
    qo.assign(q.size(), 0.0f);
    ko.assign(k.size(), 0.0f);
    const pec_rope_qk_args a{T,           Hq,          Hk,         D,        R,       PEC_ROPE_NEOX,
                             10000.0,     1.0,         1.0,        p.data(), nullptr, {Hq * D, D},
                             {Hk * D, D}, {Hq * D, D}, {Hk * D, D}};
    return simd::rope_qk(GetParam(), PEC_DTYPE_F32, &a, q.data(), k.data(), qo.data(), ko.data());
  };
  auto angles = [&](const std::vector<std::int64_t>& p) {
    const pec_rope_args a{T, 1, D, R, PEC_ROPE_NEOX, 10000.0, 1.0, p.data(), nullptr};
    std::vector<double> th;
    for (const auto& r : oracle::rope_block_angles(a)) th.push_back(std::fabs(r.angle.hi));
    return th;
  };
  std::vector<float> qo, ko;
  ASSERT_EQ(rotate(pos, qo, ko), 0);
  const auto th = angles(pos);
  for (std::int64_t delta : {std::int64_t{1}, std::int64_t{4096}, std::int64_t{1} << 20}) {
    std::vector<std::int64_t> shifted = pos;
    for (auto& p : shifted) p += delta;
    std::vector<float> qs, ks;
    ASSERT_EQ(rotate(shifted, qs, ks), 0);
    const auto ths = angles(shifted);
    for (std::int64_t t = 0; t < T; ++t) {
      for (std::int64_t u = 0; u < T; ++u) {
        for (std::int64_t h = 0; h < Hq; ++h) {
          const std::int64_t g = h / group;
          const std::size_t qr = static_cast<std::size_t>((t * Hq + h) * D),
                            kr = static_cast<std::size_t>((u * Hk + g) * D);
          double s0 = 0, s1 = 0;
          for (std::int64_t l = 0; l < D; ++l) {
            s0 += static_cast<double>(qo[qr + l]) * ko[kr + l];
            s1 += static_cast<double>(qs[qr + l]) * ks[kr + l];
          }
          const std::vector<double> qv(q.begin() + static_cast<std::ptrdiff_t>(qr),
                                       q.begin() + static_cast<std::ptrdiff_t>(qr + D));
          const std::vector<double> kv(k.begin() + static_cast<std::ptrdiff_t>(kr),
                                       k.begin() + static_cast<std::ptrdiff_t>(kr + D));
          auto span_of = [&](const std::vector<double>& v, std::int64_t tok) {
            return std::span<const double>(v.data() + tok * half, static_cast<std::size_t>(half));
          };
          const double bound =
              oracle::rope_score_bound(row, qv, kv, span_of(th, t), span_of(th, u)) +
              oracle::rope_score_bound(row, qv, kv, span_of(ths, t), span_of(ths, u));
          ASSERT_LE(std::fabs(s1 - s0), bound) << "delta " << delta << " q token " << t << " head "
                                               << h << " k token " << u << " head " << g;
        }
      }
    }
  }
}

// ABI-BATCH-1: a token's outputs do not depend on the other tokens of the call: a sub-batch in
// another order (the token at another place, a different remainder length) gives its bits.
TEST_P(SimdV2, QkAndCachedAreBatchInvariant) {
  const std::int64_t T = 13, Hq = 4, Hk = 2, D = 96, R = 64;
  for (const Fmt& f : kFormats) {
    const std::size_t es = f.dtype == PEC_DTYPE_F32 ? 4 : 2;
    std::vector<std::uint8_t> q(static_cast<std::size_t>(T * Hq * D) * es),
        k(static_cast<std::size_t>(T * Hk * D) * es);
    const auto vq = random_inputs(q.size() / es, 41), vk = random_inputs(k.size() / es, 42);
    auto put = [&](std::vector<std::uint8_t>& b, const std::vector<float>& v) {
      for (std::size_t i = 0; i < v.size(); ++i) {
        const float x = static_cast<float>(input_value(f, v[i]));
        if (es == 4)
          std::memcpy(&b[i * 4], &x, 4);
        else {
          const std::uint16_t h = f.dtype == PEC_DTYPE_BF16 ? f32_to_bf16(x) : f32_to_f16(x);
          std::memcpy(&b[i * 2], &h, 2);
        }
      }
    };
    put(q, vq);
    put(k, vk);
    const auto pos = random_positions(T, 43);
    std::vector<float> cache(static_cast<std::size_t>(64 * R));
    for (std::size_t i = 0; i < cache.size(); ++i)
      cache[i] = static_cast<float>(std::cos(0.37 * static_cast<double>(i)));
    std::vector<std::int64_t> cpos(pos.size());
    for (std::size_t t = 0; t < pos.size(); ++t) cpos[t] = pos[t] % 64;
    for (int which = 0; which < 2; ++which) {
      auto run = [&](std::int64_t n, const std::int64_t* p, const std::int64_t* cp,
                     const std::uint8_t* qi, const std::uint8_t* ki, std::uint8_t* qo,
                     std::uint8_t* ko) {
        const pec_strides sq{Hq * D, D}, sk{Hk * D, D};
        if (which == 0) {
          const pec_rope_qk_args a{n,       Hq, Hk, D,  R, PEC_ROPE_GPTJ, 10000.0, 1.0, 1.1, p,
                                   nullptr, sq, sk, sq, sk};
          return simd::rope_qk(GetParam(), f.dtype, &a, qi, ki, qo, ko);
        }
        const pec_rope_cached_args a{
            n, Hq, Hk, D, R, PEC_ROPE_NEOX, PEC_DTYPE_F32, 64, cache.data(), cp, sq, sk, sq, sk};
        return simd::rope_cached(GetParam(), f.dtype, &a, qi, ki, qo, ko);
      };
      std::vector<std::uint8_t> qo(q.size()), ko(k.size());
      ASSERT_EQ(run(T, pos.data(), cpos.data(), q.data(), k.data(), qo.data(), ko.data()), 0);
      // Tokens 11, 2, 7 as a batch of three.
      const std::int64_t pick[3] = {11, 2, 7};
      const std::size_t rq = static_cast<std::size_t>(Hq * D) * es,
                        rk = static_cast<std::size_t>(Hk * D) * es;
      std::vector<std::uint8_t> sq(3 * rq), sk(3 * rk), sqo(3 * rq), sko(3 * rk);
      std::int64_t sp[3], scp[3];
      for (int j = 0; j < 3; ++j) {
        std::memcpy(&sq[j * rq], &q[static_cast<std::size_t>(pick[j]) * rq], rq);
        std::memcpy(&sk[j * rk], &k[static_cast<std::size_t>(pick[j]) * rk], rk);
        sp[j] = pos[static_cast<std::size_t>(pick[j])];
        scp[j] = cpos[static_cast<std::size_t>(pick[j])];
      }
      ASSERT_EQ(run(3, sp, scp, sq.data(), sk.data(), sqo.data(), sko.data()), 0);
      for (int j = 0; j < 3; ++j) {
        EXPECT_EQ(std::memcmp(&sqo[j * rq], &qo[static_cast<std::size_t>(pick[j]) * rq], rq), 0)
            << f.name << " fn " << which << " q token " << pick[j];
        EXPECT_EQ(std::memcmp(&sko[j * rk], &ko[static_cast<std::size_t>(pick[j]) * rk], rk), 0)
            << f.name << " fn " << which << " k token " << pick[j];
      }
    }
  }
}

// Streaming stores (forced on; outputs 64-byte aligned, aligned strides) give the same bits.
TEST_P(SimdV2, StreamingStoresGiveTheSameBits) {
  const std::int64_t T = 37, Hq = 8, Hk = 2, D = 128;
  auto alloc = [](std::size_t n) {
    return std::unique_ptr<float, decltype(&std::free)>(
        static_cast<float*>(std::aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64)),
        &std::free);
  };
  const auto q = random_inputs(static_cast<std::size_t>(T * Hq * D), 1),
             k = random_inputs(static_cast<std::size_t>(T * Hk * D), 2);
  const auto pos = random_positions(T, 3);
  std::vector<float> cache(static_cast<std::size_t>((std::int64_t{1} << 12) * D));
  for (std::size_t i = 0; i < cache.size(); ++i)
    cache[i] = static_cast<float>(std::sin(0.001 * static_cast<double>(i)));
  std::vector<std::int64_t> cpos(static_cast<std::size_t>(T));
  for (std::int64_t t = 0; t < T; ++t)
    cpos[static_cast<std::size_t>(t)] = (pos[static_cast<std::size_t>(t)] & 4095);
  for (std::int32_t layout : {PEC_ROPE_NEOX, PEC_ROPE_GPTJ}) {
    auto qo = alloc(q.size()), ko = alloc(k.size()), qr = alloc(q.size()), kr = alloc(k.size());
    pec_rope_qk_args a{T,       Hq,          Hk,          D,           64,
                       layout,  10000.0,     1.0,         1.0,         pos.data(),
                       nullptr, {Hq * D, D}, {Hk * D, D}, {Hq * D, D}, {Hk * D, D}};
    pec_rope_cached_args c{
        T,    Hq,           Hk,          D,           64,          layout,      PEC_DTYPE_F32,
        4096, cache.data(), cpos.data(), {Hq * D, D}, {Hk * D, D}, {Hq * D, D}, {Hk * D, D}};
    for (int which = 0; which < 2; ++which) {
      simd::set_stream_mode(1);
      ASSERT_EQ(which == 0 ? simd::rope_qk(GetParam(), PEC_DTYPE_F32, &a, q.data(), k.data(),
                                           qo.get(), ko.get())
                           : simd::rope_cached(GetParam(), PEC_DTYPE_F32, &c, q.data(), k.data(),
                                               qo.get(), ko.get()),
                0);
      simd::set_stream_mode(0);
      ASSERT_EQ(which == 0 ? simd::rope_qk(Path::Scalar, PEC_DTYPE_F32, &a, q.data(), k.data(),
                                           qr.get(), kr.get())
                           : simd::rope_cached(Path::Scalar, PEC_DTYPE_F32, &c, q.data(), k.data(),
                                               qr.get(), kr.get()),
                0);
      simd::set_stream_mode(-1);
      EXPECT_TRUE(same_bits(qo.get(), qr.get(), q.size()))
          << "layout " << layout << " fn " << which;
      EXPECT_TRUE(same_bits(ko.get(), kr.get(), k.size()))
          << "layout " << layout << " fn " << which;
    }
  }
}

// Every rule of ABI-QK-1, ABI-VIEW-1, ABI-CACHE-1 and ABI-CACHE-3 rejected, nothing written
// (ABI-GEN-3); zero tokens with NULL tensors is valid.
TEST_P(SimdV2, RejectsEveryDomainRuleWithoutWriting) {
  const Path p = GetParam();
  const std::int64_t T = 3, H = 2, D = 8;
  std::int64_t pos[3] = {0, 5, 2}, neg[3] = {0, -1, 2}, big[3] = {0, std::int64_t{1} << 31, 2};
  std::vector<float> q(static_cast<std::size_t>(T * H * D), 0.5f), k = q;
  std::vector<float> cache(static_cast<std::size_t>(8 * D), 0.25f);
  auto valid_qk = [&] {
    return pec_rope_qk_args{T,          H,          H,         D,   D,       PEC_ROPE_NEOX,
                            10000.0,    1.0,        1.0,       pos, nullptr, {H * D, D},
                            {H * D, D}, {H * D, D}, {H * D, D}};
  };
  std::vector<std::function<void(pec_rope_qk_args&)>> qk_bad = {
      [](auto& a) { a.n_tokens = -1; },
      [](auto& a) { a.n_q_heads = 0; },
      [](auto& a) { a.n_kv_heads = 0; },
      [](auto& a) {
        a.n_kv_heads = 3;
        a.n_q_heads = 4;
      },
      [](auto& a) { a.head_dim = 1; },
      [](auto& a) { a.rotary_dim = 10; },
      [](auto& a) { a.rotary_dim = 5; },
      [](auto& a) { a.layout = 2; },
      [](auto& a) { a.theta_base = 1.0; },
      [](auto& a) { a.position_scale = 0; },
      [](auto& a) { a.attn_factor = 0; },
      [](auto& a) { a.attn_factor = NAN; },
      [](auto& a) { a.attn_factor = INFINITY; },
      [&](auto& a) { a.positions = neg; },
      [&](auto& a) { a.positions = big; },
      [](auto& a) { a.positions = nullptr; },
      [](auto& a) { a.q.head = D - 1; },
      [](auto& a) { a.k_out.token = D; },  // rows overlap
      [](auto& a) { a.q_out.head = -1; },
  };
  for (std::size_t i = 0; i < qk_bad.size(); ++i) {
    pec_rope_qk_args a = valid_qk();
    qk_bad[i](a);
    Guarded qo(q.size() + 64), ko(k.size() + 64);
    EXPECT_NE(simd::rope_qk(p, PEC_DTYPE_F32, &a, q.data(), k.data(), qo.data(), ko.data()), 0)
        << "qk rule " << i;
    EXPECT_EQ(qo.first_unwritten(), 0) << "qk rule " << i;
    EXPECT_EQ(ko.first_unwritten(), 0) << "qk rule " << i;
  }
  {
    // Outputs overlapping an input (one element shifted), in place with other strides, q_out
    // overlapping k_out, NULL tensors, a bad storage type.
    pec_rope_qk_args a = valid_qk();
    std::vector<float> buf(q.size() * 3, 0.5f);
    Guarded ko(k.size());
    EXPECT_NE(simd::rope_qk(p, PEC_DTYPE_F32, &a, buf.data(), k.data(), buf.data() + 1, ko.data()),
              0);
    a.q_out.token = H * D + 1;
    EXPECT_NE(simd::rope_qk(p, PEC_DTYPE_F32, &a, buf.data(), k.data(), buf.data(), ko.data()), 0);
    a = valid_qk();
    EXPECT_NE(simd::rope_qk(p, PEC_DTYPE_F32, &a, q.data(), k.data(), buf.data(), buf.data() + D),
              0);
    EXPECT_NE(simd::rope_qk(p, PEC_DTYPE_F32, &a, q.data(), k.data(), q.data(), q.data()),
              0);  // k_out over q
    EXPECT_NE(simd::rope_qk(p, PEC_DTYPE_F32, &a, nullptr, k.data(), buf.data(), ko.data()), 0);
    EXPECT_NE(simd::rope_qk(p, 3, &a, q.data(), k.data(), buf.data(), ko.data()), 0);
    EXPECT_NE(simd::rope_qk(p, PEC_DTYPE_F32, nullptr, q.data(), k.data(), buf.data(), ko.data()),
              0);
    EXPECT_EQ(ko.first_unwritten(), 0);
    // In place with a different head stride is still in place when there is one head (the
    // stride is not used); with two heads it is an overlap.
    pec_rope_qk_args one = valid_qk();
    one.n_q_heads = one.n_kv_heads = 1;
    one.q = {D, 0};
    one.q_out = {D, 5};
    EXPECT_EQ(simd::rope_qk(p, PEC_DTYPE_F32, &one, buf.data(), k.data(), buf.data(), ko.data()), 0);
    one.n_q_heads = one.n_kv_heads = 2;
    one.q = {2 * D, D};
    one.q_out = {3 * D, D + 1};  // valid on its own, but the same pointer as q
    EXPECT_NE(simd::rope_qk(p, PEC_DTYPE_F32, &one, buf.data(), k.data(), buf.data(), ko.data()), 0);
    a.n_tokens = 0;
    EXPECT_EQ(simd::rope_qk(p, PEC_DTYPE_F32, &a, nullptr, nullptr, nullptr, nullptr), 0)
        << "zero tokens is valid";
  }
  auto valid_cached = [&] {
    return pec_rope_cached_args{T,
                                H,
                                H,
                                D,
                                D,
                                PEC_ROPE_GPTJ,
                                PEC_DTYPE_F32,
                                8,
                                cache.data(),
                                pos,
                                {H * D, D},
                                {H * D, D},
                                {H * D, D},
                                {H * D, D}};
  };
  std::int64_t past[3] = {0, 8, 2};
  std::vector<std::function<void(pec_rope_cached_args&)>> cached_bad = {
      [](auto& a) { a.cache_dtype = 3; },
      [](auto& a) { a.cache_positions = 0; },
      [&](auto& a) { a.positions = past; },
      [&](auto& a) { a.positions = neg; },
      [](auto& a) { a.cos_sin_cache = nullptr; },
      [](auto& a) { a.rotary_dim = 10; },
      [](auto& a) { a.n_q_heads = 3; },
      [](auto& a) { a.layout = -1; },
      [](auto& a) { a.k.head = 2; },
  };
  for (std::size_t i = 0; i < cached_bad.size(); ++i) {
    pec_rope_cached_args a = valid_cached();
    cached_bad[i](a);
    Guarded qo(q.size()), ko(k.size());
    EXPECT_NE(simd::rope_cached(p, PEC_DTYPE_F32, &a, q.data(), k.data(), qo.data(), ko.data()), 0)
        << "cached rule " << i;
    EXPECT_EQ(qo.first_unwritten(), 0) << "cached rule " << i;
    EXPECT_EQ(ko.first_unwritten(), 0) << "cached rule " << i;
  }
  {
    pec_rope_cached_args a = valid_cached();
    Guarded ko(k.size());
    EXPECT_NE(simd::rope_cached(p, PEC_DTYPE_F32, &a, q.data(), k.data(), cache.data(), ko.data()),
              0)
        << "q_out over the cache";
    EXPECT_EQ(ko.first_unwritten(), 0);
  }
  auto valid_cache = [] { return pec_rope_cache_args{16, 8, 10000.0, 1.0, 1.0, nullptr}; };
  std::vector<std::function<void(pec_rope_cache_args&)>> cache_bad = {
      [](auto& a) { a.cache_positions = 0; },
      [](auto& a) { a.cache_positions = (std::int64_t{1} << 31) + 1; },
      [](auto& a) { a.rotary_dim = 7; },
      [](auto& a) { a.rotary_dim = 0; },
      [](auto& a) { a.theta_base = NAN; },
      [](auto& a) { a.position_scale = -1; },
      [](auto& a) { a.attn_factor = -1; },
  };
  for (std::size_t i = 0; i < cache_bad.size(); ++i) {
    pec_rope_cache_args a = valid_cache();
    cache_bad[i](a);
    Guarded out(16 * 8);
    EXPECT_NE(simd::rope_cache(p, PEC_DTYPE_F32, &a, out.data()), 0) << "cache rule " << i;
    EXPECT_EQ(out.first_unwritten(), 0) << "cache rule " << i;
  }
  pec_rope_cache_args a = valid_cache();
  EXPECT_NE(simd::rope_cache(p, PEC_DTYPE_BF16, &a, nullptr), 0);
}

INSTANTIATE_TEST_SUITE_P(Paths, SimdV2, ::testing::ValuesIn(simd::kAllPaths),
                         [](const auto& info) { return std::string(simd::to_string(info.param)); });

}  // namespace
}  // namespace pecheck::kernels::test
