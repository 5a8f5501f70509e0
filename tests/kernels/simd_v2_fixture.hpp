// Fixtures of the pecheck_simd version 2 RoPE tests (test_simd_qk_cache.cpp: values, views, the
// cache and the builder; test_simd_qk_props.cpp: scores, batch invariance, streaming stores,
// rejections): formats, strided views with guard patterns, the query+key and cache calls, and the
// SimdV2 fixture that skips a path this CPU lacks. Included by those two files only.
#pragma once
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
inline double input_value(const Fmt& f, float x) {
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
inline void expect_rotation(const Fmt& f, const QkShape& s, std::int64_t n_heads,
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

}  // namespace
}  // namespace pecheck::kernels::test
