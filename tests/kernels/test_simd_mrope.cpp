// pecheck_simd M-RoPE (pec_mrope_*), every code path and storage type: Qwen2-VL / Qwen2.5-VL
// (sectioned) and Qwen3-VL (interleaved) against a double-precision reference written here,
// zero sections, partial rotary, GQA and MQA, token- and head-major views with gaps, in place;
// text positions bit-identical to pec_rope_qk_*; every pair equal to rope_qk at its axis's
// position (the quad path of huge angles included); scores under independent shifts of the
// three axes; every domain rule rejected unwritten.
// Clause: ABI-MROPE-1 ABI-MROPE-2 ABI-MROPE-3 ABI-QK-4 ABI-VIEW-1 ABI-VIEW-2
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/shared/f16_conv.hpp"
#include "kernels/simd/simd.hpp"
#include "util.hpp"

namespace pecheck::kernels::test {
namespace {

using simd::Path;

// The axis (0 t, 1 h, 2 w) of frequency pair i, written from spec/rope.md alone:
// ROPE-MROPE-2 (sectioned) and ROPE-MROPE-3 (interleaved).
int axis_of(std::int32_t mlayout, const std::int64_t sec[3], std::int64_t i) {
  if (mlayout == PEC_MROPE_SECTIONED) return i < sec[0] ? 0 : i < sec[0] + sec[1] ? 1 : 2;
  if (i % 3 == 1 && i < 3 * sec[1]) return 1;
  if (i % 3 == 2 && i < 3 * sec[2]) return 2;
  return 0;
}
using AxisFn = std::function<int(std::int64_t)>;

struct Fmt {
  std::int32_t dtype;
  const char* name;
  int mant, emin;  // stored significand bits, smallest normal exponent
};
constexpr Fmt kF32{PEC_DTYPE_F32, "f32", 23, -126}, kBf16{PEC_DTYPE_BF16, "bf16", 7, -126},
    kF16{PEC_DTYPE_F16, "f16", 10, -14};
constexpr Fmt kFormats[] = {kF32, kBf16, kF16};

template <class T>
float dec(const Fmt& f, T v) {
  if constexpr (std::is_same_v<T, float>) return v;
  else return f.dtype == PEC_DTYPE_BF16 ? widen_bf16(v) : widen_f16(v);
}
template <class T>
T enc(const Fmt& f, float x) {  // x rounded to the format (inputs only)
  if constexpr (std::is_same_v<T, float>) return x;
  else return f.dtype == PEC_DTYPE_BF16 ? f32_to_bf16(x) : f32_to_f16(x);
}
template <class T>
T poison(const Fmt& f) {
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<float>(0x7fa5a5a5u);
  else return poison16(f.dtype);
}
template <class T>
std::uint32_t bits(T v) {
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<std::uint32_t>(v);
  else return v;
}
// A buffer's bit patterns (the poison is a NaN: compare bits, not values).
template <class T>
std::vector<std::uint32_t> bits_of(const std::vector<T>& v) {
  std::vector<std::uint32_t> out;
  for (T e : v) out.push_back(bits(e));
  return out;
}

// [n_tokens][n_heads][head_dim] inside a poisoned buffer: kind 0 dense, 1 token-major with gaps
// between heads and rows (a fused QKV row), 2 head-major with gaps (HF [batch, heads, seq, dim]).
template <class T>
struct View {
  std::int64_t n_tokens, n_heads, dim;
  pec_strides s{};
  std::vector<T> buf;
  static constexpr std::int64_t kGuard = 24;
  View(std::int64_t nt, std::int64_t nh, std::int64_t d, int kind, T pat) : n_tokens(nt), n_heads(nh), dim(d) {
    s = kind == 0 ? pec_strides{nh * d, d} : kind == 1 ? pec_strides{nh * (d + 5) + 3, d + 5}
                                                       : pec_strides{d + 1, nt * (d + 1) + 6};
    buf.assign(static_cast<std::size_t>((nt - 1) * s.token + (nh - 1) * s.head + d + 2 * kGuard), pat);
  }
  std::size_t at(std::int64_t t, std::int64_t h, std::int64_t l) const {
    return static_cast<std::size_t>(kGuard + t * s.token + h * s.head + l);
  }
  T* base() { return buf.data() + kGuard; }
  bool in_view(std::size_t i) const {
    const std::int64_t o = static_cast<std::int64_t>(i) - kGuard;
    if (o < 0) return false;
    for (std::int64_t t = 0; t < n_tokens; ++t)
      for (std::int64_t h = 0; h < n_heads; ++h) {
        const std::int64_t b = t * s.token + h * s.head;
        if (o >= b && o < b + dim) return true;
      }
    return false;
  }
};

template <class T>
void fill(View<T>& v, const Fmt& f, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  for (std::int64_t t = 0; t < v.n_tokens; ++t)
    for (std::int64_t h = 0; h < v.n_heads; ++h)
      for (std::int64_t l = 0; l < v.dim; ++l) {
        const auto k = rng() % 12;
        float x = k == 0 ? 0.0f : u(rng);
        if (k == 1) x *= f.dtype == PEC_DTYPE_F16 ? 300.0f : 1e15f;
        if (k == 2) x *= f.dtype == PEC_DTYPE_F16 ? 0.01f : 1e-15f;
        v.buf[v.at(t, h, l)] = enc<T>(f, x);
      }
}

struct Shape {
  const char* name;
  std::int64_t n_tokens, n_q, n_kv, head_dim, rot;
  std::int32_t layout, mlayout;
  std::int64_t sec[3];
  double theta, scale, attn;
  bool inv_freq;
};
const Shape kShapes[] = {
    {"qwen2-vl", 5, 8, 2, 128, 128, PEC_ROPE_NEOX, PEC_MROPE_SECTIONED, {16, 24, 24}, 1e6, 1.0, 1.0, false},
    {"qwen3-vl", 4, 4, 1, 128, 128, PEC_ROPE_NEOX, PEC_MROPE_INTERLEAVED, {24, 20, 20}, 5e6, 1.0, 1.0, false},
    {"partial-gptj", 3, 4, 1, 80, 48, PEC_ROPE_GPTJ, PEC_MROPE_SECTIONED, {8, 8, 8}, 1e4, 0.5, 1.3, false},
    {"zero-t", 3, 4, 4, 40, 32, PEC_ROPE_NEOX, PEC_MROPE_SECTIONED, {0, 12, 4}, 1e4, 1.0, 0.8, true},
    {"zero-w-il", 2, 8, 2, 64, 64, PEC_ROPE_GPTJ, PEC_MROPE_INTERLEAVED, {21, 11, 0}, 1e6, 2.0, 1.0, false},
    {"t-only", 2, 2, 1, 34, 34, PEC_ROPE_NEOX, PEC_MROPE_SECTIONED, {17, 0, 0}, 1e4, 1.0, 1.0, false},
    {"tails-il", 3, 3, 3, 38, 38, PEC_ROPE_GPTJ, PEC_MROPE_INTERLEAVED, {7, 6, 6}, 1e4, 4.0, 1.1, true},
};

std::vector<float> inv_freq_of(const Shape& s) {
  std::vector<float> f(static_cast<std::size_t>(s.rot / 2));
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(0.9 / (1.0 + 1.7 * i));
  return f;
}

pec_mrope_args args_of(const Shape& s, const std::vector<std::int64_t>& pos, const float* inv) {
  pec_mrope_args a{};
  a.n_tokens = s.n_tokens, a.n_q_heads = s.n_q, a.n_kv_heads = s.n_kv;
  a.head_dim = s.head_dim, a.rotary_dim = s.rot, a.layout = s.layout, a.mrope_layout = s.mlayout;
  for (int j = 0; j < 3; ++j) a.mrope_section[j] = s.sec[j];
  a.theta_base = s.theta, a.position_scale = s.scale, a.attn_factor = s.attn;
  a.positions = pos.data(), a.inv_freq = inv;
  return a;
}

// [3][n_tokens] positions below 2^16: an image grid (s + t, s + h, s + w) after a text run,
// then unrelated triples.
std::vector<std::int64_t> mixed_positions(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> p(static_cast<std::size_t>(3 * n));
  for (std::int64_t t = 0; t < n; ++t) {
    std::int64_t v[3];
    if (t == 0) v[0] = v[1] = v[2] = 7;  // text
    else if (t < 3) v[0] = 8, v[1] = 8 + (t - 1), v[2] = 8 + 2 * t;  // image patches
    else for (auto& x : v) x = static_cast<std::int64_t>(rng() % 65536);
    for (int a = 0; a < 3; ++a) p[static_cast<std::size_t>(a * n + t)] = v[a];
  }
  return p;
}

// Half an ulp of the format at |v| (subnormal spacing below the smallest normal).
double half_ulp(const Fmt& f, double v) {
  int e = 0;
  (void)std::frexp(std::fabs(v), &e);
  return std::ldexp(0.5, std::max(e - 1, f.emin) - f.mant);
}

// Worst error over a tensor against the reference, in units of the tolerance (<= 1 passes).
// The kernel rounds attn*cos and attn*sin to float (2^-24 relative each), then forms
// fl(fl(xa*c) - fl(xb*s)): three more roundings of 2^-24 relative, so |y - exact| <=
// 4*2^-24*attn*(|xa| + |xb|) (a few float32 ulps of the magnitude) plus 2^-140 for
// underflow. The reference's own error (double angles of positions < 2^16 * 4) is below
// 2^-30 of the magnitude. A 16-bit format adds one rounding of the float result: half an ulp
// of the format at |exact| + the float32 bound. Pass-through lanes must be bit-exact.
template <class T>
double worst(const Fmt& f, const Shape& s, const View<T>& x, const View<T>& y,
             const std::vector<std::int64_t>& pos, const AxisFn& axis, const float* inv) {
  const std::int64_t half = s.rot / 2;
  double w = 0.0;
  for (std::int64_t t = 0; t < s.n_tokens; ++t)
    for (std::int64_t h = 0; h < x.n_heads; ++h) {
      for (std::int64_t i = 0; i < half; ++i) {
        const double fi = inv != nullptr ? static_cast<double>(inv[i])
                                         : std::pow(s.theta, -2.0 * static_cast<double>(i) / static_cast<double>(s.rot));
        const double p = static_cast<double>(pos[static_cast<std::size_t>(axis(i) * s.n_tokens + t)]);
        const double ang = p * s.scale * fi, c = s.attn * std::cos(ang), sn = s.attn * std::sin(ang);
        const std::int64_t la = s.layout == PEC_ROPE_NEOX ? i : 2 * i;
        const std::int64_t lb = s.layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
        const double xa = dec(f, x.buf[x.at(t, h, la)]), xb = dec(f, x.buf[x.at(t, h, lb)]);
        const double want[2] = {xa * c - xb * sn, xb * c + xa * sn};
        const double f32_tol = 4.0 * std::ldexp(1.0, -24) * s.attn * (std::fabs(xa) + std::fabs(xb)) + 0x1p-140;
        for (int e = 0; e < 2; ++e) {
          const double got = dec(f, y.buf[y.at(t, h, e == 0 ? la : lb)]);
          const double tol = f.dtype == PEC_DTYPE_F32 ? f32_tol : f32_tol + half_ulp(f, std::fabs(want[e]) + f32_tol);
          const double err = std::fabs(got - want[e]);
          w = std::max(w, std::isfinite(got) ? err / tol : INFINITY);
        }
      }
      for (std::int64_t l = s.rot; l < s.head_dim; ++l)
        if (bits(y.buf[y.at(t, h, l)]) != bits(x.buf[x.at(t, h, l)])) return INFINITY;  // pass-through
    }
  return w;
}

// One call's four views: q and k of `kind`, outputs of the two other kinds (or in place).
template <class T>
struct Call {
  View<T> q, k, qo, ko;
  bool qi, ki;
  Call(const Shape& s, const Fmt& f, int kind, bool q_in, bool k_in, std::uint64_t seed)
      : q(s.n_tokens, s.n_q, s.head_dim, kind, poison<T>(f)), k(s.n_tokens, s.n_kv, s.head_dim, kind, poison<T>(f)),
        qo(s.n_tokens, s.n_q, s.head_dim, (kind + 1) % 3, poison<T>(f)),
        ko(s.n_tokens, s.n_kv, s.head_dim, (kind + 2) % 3, poison<T>(f)), qi(q_in), ki(k_in) {
    fill(q, f, seed);
    fill(k, f, seed + 1);
  }
  View<T>& qr() { return qi ? q : qo; }
  View<T>& kr() { return ki ? k : ko; }
  template <class A>
  void strides(A& a) {
    a.q = q.s;
    a.k = k.s;
    a.q_out = qr().s;
    a.k_out = kr().s;
  }
  int mrope(Path p, const Fmt& f, pec_mrope_args a) {
    strides(a);
    return simd::mrope(p, f.dtype, &a, q.base(), k.base(), qr().base(), kr().base());
  }
  int rope_qk(Path p, const Fmt& f, const pec_mrope_args& m, const std::int64_t* pos) {
    pec_rope_qk_args a{m.n_tokens, m.n_q_heads, m.n_kv_heads, m.head_dim, m.rotary_dim, m.layout, m.theta_base,
                       m.position_scale, m.attn_factor, pos, m.inv_freq, {}, {}, {}, {}};
    strides(a);
    return simd::rope_qk(p, f.dtype, &a, q.base(), k.base(), qr().base(), kr().base());
  }
};

// Output gaps and guards still poisoned (in place: as before), every view element written.
template <class T>
void expect_clean(const Fmt& f, const View<T>& out, const std::vector<T>& before, const char* what) {
  for (std::size_t i = 0; i < out.buf.size(); ++i) {
    if (out.in_view(i)) {
      ASSERT_NE(bits(out.buf[i]), bits(poison<T>(f))) << what << " element " << i << " unwritten";
    } else {
      ASSERT_EQ(bits(out.buf[i]), bits(before[i])) << what << " gap element " << i << " written";
    }
  }
}

class SimdMrope : public ::testing::TestWithParam<Path> {
 protected:
  void SetUp() override {
    if (!simd::cpu_has(GetParam()))
      GTEST_SKIP() << "SKIPPED path " << simd::to_string(GetParam()) << ": " << simd::missing_reason(GetParam());
  }
};

// The test's axis rule reproduces spec/rope.md's worked examples (so the reference below is
// the spec's, not the kernel's).
TEST(MropeReference, AxisRulesMatchTheSpecExamples) {
  const std::int64_t q2[3] = {16, 24, 24}, q3[3] = {24, 20, 20};
  for (std::int64_t i = 0; i < 64; ++i) {
    EXPECT_EQ(axis_of(PEC_MROPE_SECTIONED, q2, i), i < 16 ? 0 : i < 40 ? 1 : 2) << i;
    const int want = i >= 60 ? 0 : static_cast<int>(i % 3);  // h at 1, 4, .., 58; w at 2, .., 59
    EXPECT_EQ(axis_of(PEC_MROPE_INTERLEAVED, q3, i), want) << i;
  }
  int count[3] = {0, 0, 0};
  for (std::int64_t i = 0; i < 64; ++i) ++count[axis_of(PEC_MROPE_INTERLEAVED, q3, i)];
  EXPECT_EQ(count[0], 24);
  EXPECT_EQ(count[1], 20);
  EXPECT_EQ(count[2], 20);
}

template <class T>
void reference_case(Path p, const Fmt& f, const Shape& s, int kind, std::uint64_t seed) {
  SCOPED_TRACE(::testing::Message() << f.name << " " << s.name << " view " << kind);
  const auto pos = mixed_positions(s.n_tokens, seed);
  const auto inv = inv_freq_of(s);
  const float* invp = s.inv_freq ? inv.data() : nullptr;
  const pec_mrope_args a = args_of(s, pos, invp);
  const AxisFn axis = [&](std::int64_t i) { return axis_of(s.mlayout, s.sec, i); };
  const bool qi = kind == 1, ki = kind == 2;  // q in place in fused rows, k in place head-major
  Call<T> c(s, f, kind, qi, ki, seed);
  const View<T> qx = c.q, kx = c.k;
  const std::vector<T> qo_before = c.qr().buf, ko_before = c.kr().buf;
  ASSERT_EQ(c.mrope(p, f, a), 0);
  expect_clean(f, c.qr(), qo_before, "q_out");
  expect_clean(f, c.kr(), ko_before, "k_out");
  if (!qi) {
    EXPECT_EQ(bits_of(c.q.buf), bits_of(qx.buf)) << "q written";
  }
  if (!ki) {
    EXPECT_EQ(bits_of(c.k.buf), bits_of(kx.buf)) << "k written";
  }
  EXPECT_LE(worst(f, s, qx, c.qr(), pos, axis, invp), 1.0) << "q";
  EXPECT_LE(worst(f, s, kx, c.kr(), pos, axis, invp), 1.0) << "k";
  // Out of place on the scalar path: the same bits (every path; in place as out of place).
  Call<T> r(s, f, kind, false, false, seed);
  ASSERT_EQ(r.mrope(Path::Scalar, f, a), 0);
  for (std::int64_t t = 0; t < s.n_tokens; ++t)
    for (std::int64_t l = 0; l < s.head_dim; ++l) {
      for (std::int64_t h = 0; h < s.n_q; ++h)
        ASSERT_EQ(bits(c.qr().buf[c.qr().at(t, h, l)]), bits(r.qo.buf[r.qo.at(t, h, l)])) << t << " " << h << " " << l;
      for (std::int64_t h = 0; h < s.n_kv; ++h)
        ASSERT_EQ(bits(c.kr().buf[c.kr().at(t, h, l)]), bits(r.ko.buf[r.ko.at(t, h, l)])) << t << " " << h << " " << l;
    }
}

// Clause: ABI-MROPE-2 (values against the double reference, both layouts, zero sections,
// partial rotary with bit-exact pass-through, GQA and MQA, views with gaps, in place)
TEST_P(SimdMrope, MatchesTheDoubleReferenceWithViewsGapsAndInPlace) {
  std::uint64_t seed = 300;
  for (const Fmt& f : kFormats)
    for (const Shape& s : kShapes)
      for (int kind = 0; kind < 3; ++kind) {
        if (f.dtype == PEC_DTYPE_F32) reference_case<float>(GetParam(), f, s, kind, seed++);
        else reference_case<std::uint16_t>(GetParam(), f, s, kind, seed++);
        if (HasFatalFailure()) return;
      }
}

// The check can fail: the same outputs against the reference with two sections' axes swapped,
// or with every pair on the temporal axis (an image token rotated by its text position), are
// far outside the tolerance.
TEST_P(SimdMrope, TheReferenceRejectsASwappedAxisOrTextPositions) {
  for (const Shape& s : {kShapes[0], kShapes[1]}) {
    const auto pos = mixed_positions(s.n_tokens, 11);
    const pec_mrope_args a = args_of(s, pos, nullptr);
    Call<float> c(s, kF32, 0, false, false, 12);
    ASSERT_EQ(c.mrope(GetParam(), kF32, a), 0);
    const AxisFn right = [&](std::int64_t i) { return axis_of(s.mlayout, s.sec, i); };
    const AxisFn swapped = [&](std::int64_t i) { return (3 - right(i)) % 3; };  // h <-> w
    const AxisFn text = [](std::int64_t) { return 0; };
    EXPECT_LE(worst(kF32, s, c.q, c.qo, pos, right, nullptr), 1.0) << s.name;
    EXPECT_GT(worst(kF32, s, c.q, c.qo, pos, swapped, nullptr), 1e3) << s.name;
    EXPECT_GT(worst(kF32, s, c.q, c.qo, pos, text, nullptr), 1e3) << s.name;
  }
}

// Clause: ABI-MROPE-2 (ROPE-MROPE-4: with t = h = w the output is pec_rope_qk's, bit for bit,
// at every position up to 2^31 - 1 and angles past 2^45, every storage type, layout and view)
TEST_P(SimdMrope, TextPositionsAreBitIdenticalToRopeQk) {
  std::uint64_t seed = 500;
  for (const Fmt& f : kFormats)
    for (Shape s : kShapes)
      for (double scale : {1.0, 3e5}) {
        s.scale = scale;
        const auto p1 = random_positions(static_cast<std::size_t>(s.n_tokens), seed++);
        std::vector<std::int64_t> p3;
        for (int a = 0; a < 3; ++a) p3.insert(p3.end(), p1.begin(), p1.end());
        const auto inv = inv_freq_of(s);
        const pec_mrope_args a = args_of(s, p3, s.inv_freq ? inv.data() : nullptr);
        const int kind = static_cast<int>(seed % 3);
        auto run = [&](auto tag, bool mrope) {
          using T = decltype(tag);
          Call<T> c(s, f, kind, kind == 1, kind == 2, seed);
          EXPECT_EQ(mrope ? c.mrope(GetParam(), f, a) : c.rope_qk(GetParam(), f, a, p1.data()), 0);
          return std::make_pair(bits_of(c.qr().buf), bits_of(c.kr().buf));
        };
        if (f.dtype == PEC_DTYPE_F32) EXPECT_EQ(run(float{}, true), run(float{}, false)) << f.name << " " << s.name << " " << scale;
        else EXPECT_EQ(run(std::uint16_t{}, true), run(std::uint16_t{}, false)) << f.name << " " << s.name << " " << scale;
      }
}

// Clause: ABI-MROPE-2 (each pair of each token has the bits of pec_rope_qk at the position of
// its own axis: unrelated triples over the whole range [0, 2^31), the quad path for one axis
// and not another, so M-RoPE is exactly as accurate as rope_qk)
TEST_P(SimdMrope, EachPairEqualsRopeQkAtItsAxisPosition) {
  std::uint64_t seed = 700;
  for (const Fmt& f : kFormats)
    for (Shape s : kShapes)
      for (double scale : {1.0, 3e5}) {
        s.scale = scale;
        const std::int64_t n = s.n_tokens;
        std::vector<std::int64_t> p3 = random_positions(static_cast<std::size_t>(3 * n), seed++);
        p3[0] = 3;  // token 0: small t (fast path) with h, w near 2^31 (quad path at 3e5)
        p3[static_cast<std::size_t>(n)] = (std::int64_t{1} << 31) - 1;
        p3[static_cast<std::size_t>(2 * n)] = (std::int64_t{1} << 30) + 5;
        const auto inv = inv_freq_of(s);
        const pec_mrope_args a = args_of(s, p3, s.inv_freq ? inv.data() : nullptr);
        auto check = [&](auto tag) {
          using T = decltype(tag);
          Call<T> m(s, f, 1, false, false, seed);
          ASSERT_EQ(m.mrope(GetParam(), f, a), 0);
          for (int ax = 0; ax < 3; ++ax) {
            Call<T> r(s, f, 1, false, false, seed);
            ASSERT_EQ(r.rope_qk(GetParam(), f, a, p3.data() + ax * n), 0);
            for (std::int64_t i = 0; i < s.rot / 2; ++i) {
              if (axis_of(s.mlayout, s.sec, i) != ax) continue;
              const std::int64_t la = s.layout == PEC_ROPE_NEOX ? i : 2 * i;
              const std::int64_t lb = s.layout == PEC_ROPE_NEOX ? i + s.rot / 2 : 2 * i + 1;
              for (std::int64_t t = 0; t < n; ++t)
                for (std::int64_t l : {la, lb}) {
                  for (std::int64_t h = 0; h < s.n_q; ++h)
                    ASSERT_EQ(bits(m.qo.buf[m.qo.at(t, h, l)]), bits(r.qo.buf[r.qo.at(t, h, l)]))
                        << f.name << " " << s.name << " pair " << i << " axis " << ax << " token " << t;
                  for (std::int64_t h = 0; h < s.n_kv; ++h)
                    ASSERT_EQ(bits(m.ko.buf[m.ko.at(t, h, l)]), bits(r.ko.buf[r.ko.at(t, h, l)]))
                        << f.name << " " << s.name << " pair " << i << " axis " << ax << " token " << t;
                }
            }
          }
        };
        if (f.dtype == PEC_DTYPE_F32) check(float{});
        else check(std::uint16_t{});
        if (HasFatalFailure()) return;
      }
}

// Clause: ABI-MROPE-3 (scores of every query head with its group's key head, from one call,
// move under independent shifts (c_t, c_h, c_w) of the three rows by no more than the two
// calls' rotation error: per lane e_l = 4*2^-24*attn*(|xa| + |xb|) of its pair (worst's bound),
// so |s - s'| <= sum_l (e_l|k_l| + e'_l|q_l| + e_l e'_l) over both calls, plus the double dot's
// rounding; one token's h shifted by one more moves some score far past that bound)
TEST_P(SimdMrope, ScoresDependOnlyOnTheOffsetVector) {
  for (const Shape& s : {kShapes[0], kShapes[1]}) {
    const std::int64_t n = s.n_tokens, half = s.rot / 2, group = s.n_q / s.n_kv;
    auto mag = [&](const View<float>& x, std::int64_t t, std::int64_t h, std::int64_t l) {
      if (l >= s.rot) return 0.0;
      const std::int64_t o = s.layout == PEC_ROPE_GPTJ ? l ^ 1 : l < half ? l + half : l - half;
      return 4.0 * std::ldexp(1.0, -24) * s.attn * (std::fabs(x.buf[x.at(t, h, l)]) + std::fabs(x.buf[x.at(t, h, o)]));
    };
    auto scores = [&](const std::vector<std::int64_t>& p, std::vector<double>& err) {
      Call<float> c(s, kF32, 1, true, false, 32);  // q in place in fused rows, k head-major
      const View<float> qx = c.q;
      EXPECT_EQ(c.mrope(GetParam(), kF32, args_of(s, p, nullptr)), 0);
      std::vector<double> sc;
      err.clear();
      for (std::int64_t t = 0; t < n; ++t)
        for (std::int64_t u = 0; u < n; ++u)
          for (std::int64_t h = 0; h < s.n_q; ++h) {
            double d = 0, e = 0, abs = 0;
            for (std::int64_t l = 0; l < s.head_dim; ++l) {
              const double qv = c.q.buf[c.q.at(t, h, l)], kv = c.ko.buf[c.ko.at(u, h / group, l)];
              const double eq = mag(qx, t, h, l), ek = mag(c.k, u, h / group, l);
              d += qv * kv;
              abs += std::fabs(qv * kv);
              e += eq * std::fabs(kv) + ek * std::fabs(qv) + eq * ek;
            }
            sc.push_back(d);
            err.push_back(e + 0x1p-48 * abs);
          }
      return sc;
    };
    const auto p0 = mixed_positions(n, 31);
    auto p1 = p0;
    const std::int64_t shift[3] = {1000, 37, 5};
    for (int a = 0; a < 3; ++a)
      for (std::int64_t t = 0; t < n; ++t) p1[static_cast<std::size_t>(a * n + t)] += shift[a];
    auto p2 = p1;
    p2[static_cast<std::size_t>(n + 1)] += 1;  // token 1's h only
    std::vector<double> e0, e1, e2;
    const auto s0 = scores(p0, e0), s1 = scores(p1, e1), s2 = scores(p2, e2);
    double moved = 0.0, wrong = 0.0;
    for (std::size_t i = 0; i < s0.size(); ++i) {
      moved = std::max(moved, std::fabs(s0[i] - s1[i]) / (e0[i] + e1[i]));
      wrong = std::max(wrong, std::fabs(s0[i] - s2[i]) / (e0[i] + e2[i]));
    }
    EXPECT_LE(moved, 1.0) << s.name;
    EXPECT_GT(wrong, 100.0) << s.name;
  }
}

// The exported symbols run the process-wide path (dispatch wiring of all three storage types).
TEST(MropeExports, ExportsGiveTheBitsOfTheActivePath) {
  Path p;
  std::string why;
  if (!simd::active_path(p, why)) GTEST_SKIP() << "SKIPPED: " << why;
  const Shape& s = kShapes[0];
  const auto pos = mixed_positions(s.n_tokens, 21);
  const pec_mrope_args a0 = args_of(s, pos, nullptr);
  auto run = [&](auto tag, const Fmt& f, auto fn) {
    Call<decltype(tag)> c(s, f, 0, false, false, 22), d(s, f, 0, false, false, 22);
    pec_mrope_args a = a0;
    c.strides(a);
    EXPECT_EQ(fn(&a, c.q.base(), c.k.base(), c.qo.base(), c.ko.base()), 0) << f.name;
    EXPECT_EQ(d.mrope(p, f, a0), 0) << f.name;
    EXPECT_EQ(bits_of(c.qo.buf), bits_of(d.qo.buf)) << f.name;
    EXPECT_EQ(bits_of(c.ko.buf), bits_of(d.ko.buf)) << f.name;
  };
  run(float{}, kF32, pec_mrope_f32);
  run(std::uint16_t{}, kBf16, pec_mrope_bf16);
  run(std::uint16_t{}, kF16, pec_mrope_f16);
}

// Clause: ABI-MROPE-1 (every rule of the domain, ABI-QK-1's and the M-RoPE ones, returns
// non-zero and writes nothing, for each storage type; the limits' edges are accepted)
TEST_P(SimdMrope, RejectsEveryDomainRuleWithoutWriting) {
  const Path p = GetParam();
  const std::int64_t T = 3, H = 2, D = 16;
  // Rows t, h, w (a bad value in each row in turn below).
  std::int64_t pos[9] = {0, 5, 2, 0, 6, 2, 0, 7, 2};
  std::int64_t neg_h[9] = {0, 5, 2, 0, -1, 2, 0, 7, 2}, big_w[9] = {0, 5, 2, 0, 6, 2, 0, std::int64_t{1} << 31, 2};
  std::int64_t neg_t[9] = {-3, 5, 2, 0, 6, 2, 0, 7, 2};
  std::vector<float> q(static_cast<std::size_t>(T * H * D), 0.5f), k = q;
  auto valid = [&] {
    pec_mrope_args a{};
    a.n_tokens = T;
    a.n_q_heads = a.n_kv_heads = H;
    a.head_dim = a.rotary_dim = D;
    a.layout = PEC_ROPE_NEOX;
    a.mrope_layout = PEC_MROPE_INTERLEAVED;
    a.mrope_section[0] = 3, a.mrope_section[1] = 3, a.mrope_section[2] = 2;  // 3*3-2 = 7, 3*2-1 = 5 < 8
    a.theta_base = 10000.0, a.position_scale = a.attn_factor = 1.0, a.positions = pos;
    a.q = a.k = a.q_out = a.k_out = pec_strides{H * D, D};
    return a;
  };
  std::vector<std::function<void(pec_mrope_args&)>> bad = {
      [](auto& a) { a.n_tokens = -1; },
      [](auto& a) { a.n_q_heads = 0; },
      [](auto& a) { a.n_kv_heads = 0; },
      [](auto& a) { a.n_q_heads = 3; },  // not a multiple of n_kv_heads
      [](auto& a) { a.head_dim = 1; },
      [](auto& a) { a.rotary_dim = 18; },
      [](auto& a) { a.rotary_dim = 7; },
      [](auto& a) { a.layout = 2; },
      [](auto& a) { a.theta_base = 1.0; },
      [](auto& a) { a.theta_base = NAN; },
      [](auto& a) { a.position_scale = 0; },
      [](auto& a) { a.attn_factor = 0; },
      [](auto& a) { a.attn_factor = INFINITY; },
      [](auto& a) { a.q.head = D - 1; },
      [](auto& a) { a.k_out.token = D; },  // rows overlap
      [](auto& a) { a.q_out.head = -1; },
      [](auto& a) { a.mrope_layout = 2; },
      [](auto& a) { a.mrope_layout = -1; },
      [](auto& a) {
        a.mrope_layout = PEC_MROPE_SECTIONED;
        a.mrope_section[0] = -1, a.mrope_section[1] = 4, a.mrope_section[2] = 5;  // sum 8
      },
      [](auto& a) { a.mrope_section[0] = 2; },  // sum 7
      [](auto& a) { a.mrope_section[0] = 4; },  // sum 9
      [](auto& a) { a.mrope_section[0] = 2, a.mrope_section[1] = 4; },  // 3*4 - 2 = 10 >= 8
      [](auto& a) { a.mrope_section[0] = 2, a.mrope_section[2] = 3; },  // 3*3 - 1 = 8 >= 8
      [](auto& a) { a.positions = nullptr; },
      [&](auto& a) { a.positions = neg_t; },
      [&](auto& a) { a.positions = neg_h; },
      [&](auto& a) { a.positions = big_w; },
  };
  for (const Fmt& f : kFormats) {
    for (std::size_t i = 0; i < bad.size(); ++i) {
      pec_mrope_args a = valid();
      bad[i](a);
      if (f.dtype == PEC_DTYPE_F32) {
        Guarded qo(q.size()), ko(k.size());
        EXPECT_NE(simd::mrope(p, f.dtype, &a, q.data(), k.data(), qo.data(), ko.data()), 0) << "rule " << i;
        EXPECT_EQ(qo.first_unwritten(), 0) << "rule " << i;
        EXPECT_TRUE(qo.guards_intact() && ko.guards_intact() && ko.first_unwritten() == 0) << "rule " << i;
      } else {
        std::vector<std::uint16_t> q16(q.size(), 0x3c00), k16 = q16;
        Guarded16 qo(q.size(), poison16(f.dtype)), ko(k.size(), poison16(f.dtype));
        EXPECT_NE(simd::mrope(p, f.dtype, &a, q16.data(), k16.data(), qo.data(), ko.data()), 0)
            << f.name << " rule " << i;
        EXPECT_TRUE(qo.first_unwritten() == 0 && ko.first_unwritten() == 0) << f.name << " rule " << i;
      }
    }
  }
  pec_mrope_args a = valid();
  Guarded qo(q.size()), ko(k.size());
  EXPECT_NE(simd::mrope(p, 3, &a, q.data(), k.data(), qo.data(), ko.data()), 0) << "storage type";
  EXPECT_NE(simd::mrope(p, PEC_DTYPE_F32, nullptr, q.data(), k.data(), qo.data(), ko.data()), 0);
  EXPECT_NE(simd::mrope(p, PEC_DTYPE_F32, &a, q.data(), k.data(), q.data() + 1, ko.data()), 0) << "q_out over q";
  EXPECT_NE(simd::mrope(p, PEC_DTYPE_F32, &a, nullptr, k.data(), qo.data(), ko.data()), 0);
  EXPECT_EQ(qo.first_unwritten(), 0);
  EXPECT_EQ(ko.first_unwritten(), 0);
  // Valid: the interleaved edges above, the same sections sectioned ([2, 4, 2] has no limit
  // there), zero sections, and zero tokens with NULL tensors and positions.
  EXPECT_EQ(simd::mrope(p, PEC_DTYPE_F32, &a, q.data(), k.data(), qo.data(), ko.data()), 0);
  a.mrope_layout = PEC_MROPE_SECTIONED;
  a.mrope_section[0] = 2, a.mrope_section[1] = 4, a.mrope_section[2] = 2;
  EXPECT_EQ(simd::mrope(p, PEC_DTYPE_F32, &a, q.data(), k.data(), qo.data(), ko.data()), 0);
  a.mrope_section[0] = 0, a.mrope_section[1] = 0, a.mrope_section[2] = 8;
  EXPECT_EQ(simd::mrope(p, PEC_DTYPE_F32, &a, q.data(), k.data(), qo.data(), ko.data()), 0);
  a.mrope_layout = PEC_MROPE_INTERLEAVED;
  a.mrope_section[0] = 8, a.mrope_section[2] = 0;
  EXPECT_EQ(simd::mrope(p, PEC_DTYPE_F32, &a, q.data(), k.data(), qo.data(), ko.data()), 0);
  a.n_tokens = 0;
  a.positions = nullptr;
  EXPECT_EQ(simd::mrope(p, PEC_DTYPE_F32, &a, nullptr, nullptr, nullptr, nullptr), 0) << "zero tokens";
}

INSTANTIATE_TEST_SUITE_P(Paths, SimdMrope, ::testing::ValuesIn(simd::kAllPaths),
                         [](const auto& info) { return std::string(simd::to_string(info.param)); });

}  // namespace
}  // namespace pecheck::kernels::test
