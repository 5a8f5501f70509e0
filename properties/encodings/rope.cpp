// RoPE properties (spec/rope.md). Shift invariance in 100-digit MPFR over positions up to
// 2^31 - 1, every scaling, both layouts, full and partial rotary; the dynamic-NTK witness;
// rotation facts (norms, composition, pairing) in float and double; the scalings' structure.
#include "reference/rope.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cmath>
#include <iostream>
#include <numbers>

#include "gen.hpp"
#include "mp_model.hpp"
#include "reference/tolerance.hpp"

namespace pecheck::props {
namespace {

using reference::RopeConfig;
using reference::RopeLayout;
using reference::RopeScaling;

ModelDraw draw_model() {
  ModelDraw d;
  d.seed = *model_seed();
  d.d_model = *rc::gen::inRange<std::int64_t>(1, 9);
  return d;
}

// Clause: ROPE-REL-1, ROPE-REL-2, ROPE-SCALE-REL-1, ROPE-AXIS-2
void check_shift(RopeScaling kind, RopeLayout layout, bool partial) {
  const RopeConfig cfg = *rope_config(kind, layout, partial);
  const ShiftCase s = *shift_case(reference::kRopeMaxPosition);
  const ModelDraw md = draw_model();
  const MpCompare r = mp_rope_shift(cfg, md, s.m, s.n, s.c);
  RC_LOG() << "config " << cfg << " case " << s << " scores " << r << "\n";
  RC_ASSERT(r.agree());
}

RC_GTEST_PROP(Rope, ScoreDependsOnlyOnOffsetNeox, ()) {
  check_shift(RopeScaling::None, RopeLayout::Neox, false);
}
RC_GTEST_PROP(Rope, ScoreDependsOnlyOnOffsetGptj, ()) {
  check_shift(RopeScaling::None, RopeLayout::Gptj, false);
}
RC_GTEST_PROP(Rope, ScoreDependsOnlyOnOffsetPartialNeox, ()) {
  check_shift(RopeScaling::None, RopeLayout::Neox, true);
}
RC_GTEST_PROP(Rope, ScoreDependsOnlyOnOffsetPartialGptj, ()) {
  check_shift(RopeScaling::None, RopeLayout::Gptj, true);
}
RC_GTEST_PROP(Rope, ScoreDependsOnlyOnOffsetLinear, ()) {
  // Clause: ROPE-SCALE-LINEAR-1
  check_shift(RopeScaling::Linear, *rc::gen::element(RopeLayout::Neox, RopeLayout::Gptj),
              *rc::gen::arbitrary<bool>());
}
RC_GTEST_PROP(Rope, ScoreDependsOnlyOnOffsetNtk, ()) {
  // Clause: ROPE-SCALE-NTK-1
  check_shift(RopeScaling::Ntk, *rc::gen::element(RopeLayout::Neox, RopeLayout::Gptj),
              *rc::gen::arbitrary<bool>());
}
RC_GTEST_PROP(Rope, ScoreDependsOnlyOnOffsetYarn, ()) {
  // Clause: ROPE-SCALE-YARN-1, ROPE-SCALE-YARN-2
  check_shift(RopeScaling::Yarn, *rc::gen::element(RopeLayout::Neox, RopeLayout::Gptj),
              *rc::gen::arbitrary<bool>());
}
RC_GTEST_PROP(Rope, ScoreDependsOnlyOnOffsetLlama3, ()) {
  // Clause: ROPE-SCALE-LLAMA3-1
  check_shift(RopeScaling::Llama3, *rc::gen::element(RopeLayout::Neox, RopeLayout::Gptj),
              *rc::gen::arbitrary<bool>());
}

// Clause: ROPE-SCALE-DYN-2 — the property "dynamic NTK is shift-invariant" must be falsified;
// RapidCheck prints the shrunk witness (config, positions, both scores).
TEST(Rope, DynamicNtkScoreDependsOnAbsolutePositionWitness) {
  const bool found =
      expect_witness("dynamic NTK score is shift-invariant (expected to FAIL with a witness)", [] {
        check_shift(RopeScaling::DynamicNtk, *rc::gen::element(RopeLayout::Neox, RopeLayout::Gptj),
                    false);
      });
  EXPECT_TRUE(found)
      << "no witness: dynamic NTK looked shift-invariant, contradicting ROPE-SCALE-DYN-2";
}

// A head vector of head_dim reals from classify::gen_real (signed zeros, values near multiples
// of pi/2, large and small exponents), scaled into [2^-max_exp, 2^max_exp] magnitudes.
std::vector<double> head_vector(std::int64_t head_dim, int max_exp) {
  return *from_rng<std::vector<double>>(
      [=](Rng& r) {
        std::vector<double> v(static_cast<std::size_t>(head_dim));
        for (auto& x : v) {
          x = classify::gen_real(r);
          int e = 0;
          std::frexp(x, &e);
          if (x != 0 && (e > max_exp || e < -max_exp))
            x = std::ldexp(std::frexp(x, &e), e % max_exp);
        }
        return v;
      },
      [](const std::vector<double>& v) {
        std::vector<std::vector<double>> out;
        for (std::size_t i = 0; i < v.size(); ++i) {
          for (double c : classify::shrink_real(v[i])) {
            auto t = v;
            t[i] = c;
            out.push_back(std::move(t));
          }
        }
        return out;
      });
}

template <class T>
T max_angle(const RopeConfig& c, const std::vector<T>& f, std::int64_t p) {
  T fm = 0;
  for (const T& x : f) fm = std::max(fm, x);
  return T(p) * T(c.position_scale) * fm;
}

// Clause: ROPE-ROT-2 — every rotated pair keeps its norm (no attention factor: not YaRN).
template <class T>
void check_norm(int max_exp) {
  const auto kind = *rc::gen::element(RopeScaling::None, RopeScaling::Linear, RopeScaling::Ntk,
                                      RopeScaling::Llama3);
  const RopeConfig c = *rope_config(kind, *rc::gen::element(RopeLayout::Neox, RopeLayout::Gptj),
                                    *rc::gen::arbitrary<bool>());
  const std::int64_t p = *position(reference::kRopeMaxPosition);
  const auto xd = head_vector(c.head_dim, max_exp);
  const std::vector<T> x(xd.begin(), xd.end());
  const auto f = reference::rope_inv_freq<T>(c);
  std::vector<T> y(x.size());
  reference::rope_rotate<T>(c, std::span<const T>(f), p, std::span<const T>(x), std::span<T>(y));
  const T phi = max_angle(c, f, p);
  for (std::int64_t i = 0; i < c.rotary_dim / 2; ++i) {
    const auto [a, b] = reference::rope_pair(c, i);
    const T n0 = x[a] * x[a] + x[b] * x[b];
    const T n1 = y[a] * y[a] + y[b] * y[b];
    RC_ASSERT(std::fabs(n1 - n0) <= reference::shift_tolerance<T>((phi + T(4)) * n0));
  }
}
RC_GTEST_PROP(Rope, RotationPreservesNormFloat, ()) { check_norm<float>(40); }
RC_GTEST_PROP(Rope, RotationPreservesNormDouble, ()) { check_norm<double>(300); }

// Clause: ROPE-ROT-3 — R(p2) R(p1) x = R(p1 + p2) x.
template <class T>
void check_composition() {
  const RopeConfig c =
      *rope_config(RopeScaling::None, *rc::gen::element(RopeLayout::Neox, RopeLayout::Gptj),
                   *rc::gen::arbitrary<bool>());
  const std::int64_t p1 = *position(reference::kRopeMaxPosition / 2);
  const std::int64_t p2 = *position(reference::kRopeMaxPosition / 2);
  const auto xd = head_vector(c.head_dim, 30);
  const std::vector<T> x(xd.begin(), xd.end());
  const auto f = reference::rope_inv_freq<T>(c);
  const std::span<const T> fs(f);
  std::vector<T> y1(x.size()), y2(x.size()), y12(x.size());
  reference::rope_rotate<T>(c, fs, p1, std::span<const T>(x), std::span<T>(y1));
  reference::rope_rotate<T>(c, fs, p2, std::span<const T>(y1), std::span<T>(y2));
  reference::rope_rotate<T>(c, fs, p1 + p2, std::span<const T>(x), std::span<T>(y12));
  const T phi = max_angle(c, f, p1 + p2);
  for (std::int64_t i = 0; i < c.rotary_dim / 2; ++i) {
    const auto [a, b] = reference::rope_pair(c, i);
    const T n = std::sqrt(x[a] * x[a] + x[b] * x[b]);
    const T tol = reference::shift_tolerance<T>((phi + T(4)) * n);
    RC_ASSERT(std::fabs(y2[a] - y12[a]) <= tol);
    RC_ASSERT(std::fabs(y2[b] - y12[b]) <= tol);
  }
}
RC_GTEST_PROP(Rope, RotationsComposeFloat, ()) { check_composition<float>(); }
RC_GTEST_PROP(Rope, RotationsComposeDouble, ()) { check_composition<double>(); }

// Clause: ROPE-PAIR-1, ROPE-PAIR-2, ROPE-PAIR-3, ROPE-ROT-1 — a basis vector e_j moves only into
// its partner lane (NEOX: j +- rotary_dim/2; GPTJ: j xor 1), with cos on j and +-sin on the
// partner; pass-through lanes are copied bit for bit (signed zeros included).
RC_GTEST_PROP(Rope, PairingMapsAndPassThrough, ()) {
  const auto layout = *rc::gen::element(RopeLayout::Neox, RopeLayout::Gptj);
  const RopeConfig c = *rope_config(RopeScaling::None, layout, *rc::gen::arbitrary<bool>());
  const std::int64_t p = *position(reference::kRopeMaxPosition);
  const std::int64_t j = *rc::gen::inRange<std::int64_t>(0, c.rotary_dim);
  const auto tail = head_vector(c.head_dim, 300);
  std::vector<double> x(tail.size(), 0.0);
  for (std::int64_t k = c.rotary_dim; k < c.head_dim; ++k) x[k] = tail[k];
  x[j] = 1.0;
  const auto f = reference::rope_inv_freq<double>(c);
  std::vector<double> y(x.size());
  reference::rope_rotate<double>(c, std::span<const double>(f), p, std::span<const double>(x),
                                 std::span<double>(y));
  const std::int64_t half = c.rotary_dim / 2;
  const std::int64_t partner =
      layout == RopeLayout::Neox ? (j < half ? j + half : j - half) : (j ^ 1);
  const std::int64_t i = layout == RopeLayout::Neox ? j % half : j / 2;
  const double ang = static_cast<double>(p) * c.position_scale * f[i];
  const bool j_is_first = layout == RopeLayout::Neox ? j < half : j % 2 == 0;
  for (std::int64_t k = 0; k < c.rotary_dim; ++k) {
    if (k == j) {
      RC_ASSERT(y[k] == std::cos(ang));
    } else if (k == partner) {
      RC_ASSERT(y[k] == (j_is_first ? std::sin(ang) : -std::sin(ang)));
    } else {
      RC_ASSERT(y[k] == 0.0);
    }
  }
  for (std::int64_t k = c.rotary_dim; k < c.head_dim; ++k) {
    RC_ASSERT(std::bit_cast<std::uint64_t>(y[k]) == std::bit_cast<std::uint64_t>(x[k]));
  }
}

// Clause: ROPE-FREQ-1, ROPE-SCALE-LINEAR-1, ROPE-SCALE-NTK-1, ROPE-SCALE-YARN-1,
// ROPE-SCALE-LLAMA3-1, ROPE-SCALE-DYN-1 — the double reference's frequencies agree with a
// 100-digit evaluation within MODEL-TOL-3, for every scaling.
RC_GTEST_PROP(Rope, FrequenciesMatchHighPrecision, ()) {
  const auto kind =
      *rc::gen::element(RopeScaling::None, RopeScaling::Linear, RopeScaling::Ntk,
                        RopeScaling::DynamicNtk, RopeScaling::Yarn, RopeScaling::Llama3);
  const RopeConfig c = *rope_config(kind, RopeLayout::Neox, false);
  const std::int64_t L = *position(reference::kRopeMaxPosition) + 1;
  const auto f = reference::rope_inv_freq<double>(c, L);
  const auto g = mp_rope_inv_freq(c, L);
  const double b = reference::rope_effective_base<double>(c, L);
  RC_ASSERT(f.size() == g.size());
  for (std::size_t i = 0; i < f.size(); ++i) {
    RC_ASSERT(std::fabs(f[i] - g[i]) <= reference::freq_tolerance<double>(g[i], b));
  }
}

// Clause: ROPE-SCALE-LINEAR-1, ROPE-SCALE-NTK-1, ROPE-SCALE-YARN-1, ROPE-SCALE-LLAMA3-1 —
// structure: linear divides every f_i by F; NTK keeps f_0 and divides the lowest by F; Llama 3
// keeps short wavelengths, divides long ones by F and stays within [f_i/F, f_i]; YaRN blends
// f_i/F and f_i with the ramp of the spec, recomputed here from the spec's formula (including
// the degenerate case low > high after clamping, where the ramp runs backwards as in HF).
RC_GTEST_PROP(Rope, ScalingsStructure, ()) {
  const auto kind = *rc::gen::element(RopeScaling::Linear, RopeScaling::Ntk, RopeScaling::Yarn,
                                      RopeScaling::Llama3);
  RopeConfig c = *rope_config(kind, RopeLayout::Neox, false);
  RopeConfig plain = c;
  plain.scaling.kind = RopeScaling::None;
  const auto f = reference::rope_inv_freq<double>(plain);
  const auto g = reference::rope_inv_freq<double>(c);
  const double F = c.scaling.factor;
  auto tol = [&](double v) {
    return reference::freq_tolerance<double>(v, reference::rope_effective_base<double>(c));
  };
  if (kind == RopeScaling::Linear) {
    for (std::size_t i = 0; i < f.size(); ++i) RC_ASSERT(std::fabs(g[i] - f[i] / F) <= tol(f[i]));
  } else if (kind == RopeScaling::Ntk) {
    RC_ASSERT(g[0] == f[0]);
    RC_ASSERT(std::fabs(g.back() - f.back() / F) <= tol(f.back()));
  } else if (kind == RopeScaling::Llama3) {
    const double L0 = static_cast<double>(c.scaling.original_max_positions);
    const double two_pi = 2.0 * reference::pi_of<double>();
    for (std::size_t i = 0; i < f.size(); ++i) {
      if (two_pi / f[i] < L0 / c.scaling.high_freq_factor) RC_ASSERT(g[i] == f[i]);
      if (two_pi / f[i] > L0 / c.scaling.low_freq_factor) RC_ASSERT(g[i] == f[i] / F);
      RC_ASSERT(g[i] <= f[i] + tol(f[i]));
      RC_ASSERT(g[i] >= f[i] / F - tol(f[i]));
    }
  } else {
    const double d = static_cast<double>(c.rotary_dim);
    auto corr = [&](double rot) {
      return d *
             std::log(static_cast<double>(c.scaling.original_max_positions) /
                      (rot * 2.0 * std::numbers::pi)) /
             (2.0 * std::log(c.base));
    };
    double low = corr(c.scaling.beta_fast), high = corr(c.scaling.beta_slow);
    if (c.scaling.yarn_truncate) {
      low = std::floor(low);
      high = std::ceil(high);
    }
    low = std::max(low, 0.0);
    high = std::min(high, d - 1.0);
    if (low == high) high += 0.001;
    for (std::size_t i = 0; i < f.size(); ++i) {
      const double ramp = std::clamp((static_cast<double>(i) - low) / (high - low), 0.0, 1.0);
      const double expect = f[i] / F * ramp + f[i] * (1.0 - ramp);
      RC_LOG() << "i=" << i << " low=" << low << " high=" << high << " got " << g[i] << " expect "
               << expect << "\n";
      RC_ASSERT(std::fabs(g[i] - expect) <= tol(f[i]));
    }
  }
}

// Clause: ROPE-SCALE-DYN-1 — for L <= L0 dynamic NTK is the plain table; beyond, it is NTK with
// factor F*L/L0 - (F-1) (bit-identical: the same operations).
RC_GTEST_PROP(Rope, DynamicNtkIsNtkOfTheSequenceLength, ()) {
  RopeConfig c = *rope_config(RopeScaling::DynamicNtk, RopeLayout::Neox, false);
  const std::int64_t L = *position(reference::kRopeMaxPosition) + 1;
  const std::int64_t L0 = c.scaling.original_max_positions;
  RopeConfig ntk = c;
  ntk.scaling.kind = RopeScaling::Ntk;
  const double F = c.scaling.factor;
  ntk.scaling.factor =
      L <= L0 ? 1.0 : F * static_cast<double>(L) / static_cast<double>(L0) - (F - 1.0);
  const auto a = reference::rope_inv_freq<double>(c, L);
  const auto b = reference::rope_inv_freq<double>(ntk);
  RC_ASSERT(a == b);
  if (L <= L0) {
    RopeConfig plain = c;
    plain.scaling.kind = RopeScaling::None;
    RC_ASSERT(a == reference::rope_inv_freq<double>(plain));
  }
}

// Clause: ROPE-SCALE-YARN-2 — the attention factor: 0.1 ln F + 1 by default (1 for F = 1), the
// given value when set, the mscale ratio when both mscales are set; the double reference agrees
// with the 100-digit one within MODEL-TOL-3's form (f = factor, base e).
RC_GTEST_PROP(Rope, YarnAttentionFactor, ()) {
  RopeConfig c = *rope_config(RopeScaling::Yarn, RopeLayout::Neox, false);
  const int mode = *rc::gen::inRange(0, 3);
  if (mode == 1) c.scaling.attention_factor = *rc::gen::element(0.5, 1.0, 1.25, 2.0);
  if (mode == 2) {
    c.scaling.yarn_mscale = *rc::gen::element(0.707, 1.0, 1.5);
    c.scaling.yarn_mscale_all_dim = *rc::gen::element(0.707, 1.0, 2.0);
  }
  const double got = reference::rope_attention_factor<double>(c);
  const double hp = mp_rope_attention_factor(c);
  RC_ASSERT(std::fabs(got - hp) <= reference::freq_tolerance<double>(hp, std::exp(1.0)));
  const double F = c.scaling.factor;
  auto ms = [F](double mu) { return F <= 1.0 ? 1.0 : 0.1 * mu * std::log(F) + 1.0; };
  const double expect = mode == 1   ? c.scaling.attention_factor
                        : mode == 2 ? ms(c.scaling.yarn_mscale) / ms(c.scaling.yarn_mscale_all_dim)
                                    : ms(1.0);
  RC_ASSERT(std::fabs(got - expect) <= reference::freq_tolerance<double>(expect, std::exp(1.0)));
}

}  // namespace
}  // namespace pecheck::props
