// Properties of the RoPE family as 2025-26 models ship it (spec/rope.md, "The attention factor"
// and "The RoPE family"): LongRoPE, Llama 4 (iRoPE, chunked attention, temperature tuning), NoPE,
// M-RoPE (sectioned and interleaved) and DeepSeek's MLA decoupled RoPE. Shift invariance in
// 100-digit MPFR where the spec claims it, shrunk witnesses where it claims the opposite, and
// for every structural property a buggy subject (implemented below) on which it must fail.
#include "reference/rope_family.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cmath>
#include <functional>
#include <iostream>

#include "gen.hpp"
#include "mp_model.hpp"
#include "reference/score_family.hpp"
#include "reference/tolerance.hpp"

namespace pecheck::reference {
inline std::ostream& operator<<(std::ostream& os, const LongRopeConfig& c) {
  return os << "{head_dim=" << c.head_dim << ", rotary_dim=" << c.rotary_dim
            << ", layout=" << to_string(c.layout) << ", base=" << c.base
            << ", position_scale=" << c.position_scale
            << ", original_max=" << c.original_max_position_embeddings
            << ", max_position=" << c.max_position_embeddings
            << ", attention_factor=" << c.attention_factor
            << ", short[0]=" << (c.short_factor.empty() ? 0.0 : c.short_factor[0])
            << ", long[0]=" << (c.long_factor.empty() ? 0.0 : c.long_factor[0]) << "}";
}
inline std::ostream& operator<<(std::ostream& os, const Llama4Config& c) {
  return os << "{head_dim=" << c.rope.head_dim << ", base=" << c.rope.base
            << ", llama3 factor=" << c.rope.scaling.factor << ", chunk=" << c.attention_chunk_size
            << ", floor_scale=" << c.floor_scale << ", attn_scale=" << c.attn_scale
            << ", qk_norm=" << c.use_qk_norm << "}";
}
inline std::ostream& operator<<(std::ostream& os, const MropeConfig& c) {
  return os << "{head_dim=" << c.head_dim << ", base=" << c.base
            << ", position_scale=" << c.position_scale << ", mrope_section=[" << c.section[0] << ","
            << c.section[1] << "," << c.section[2] << "], " << to_string(c.layout) << "}";
}
inline std::ostream& operator<<(std::ostream& os, const MropePosition& p) {
  return os << "(t=" << p.t << ", h=" << p.h << ", w=" << p.w << ")";
}
inline std::ostream& operator<<(std::ostream& os, const MlaConfig& c) {
  return os << "{qk_nope_head_dim=" << c.qk_nope_head_dim
            << ", qk_rope_head_dim=" << c.qk_rope_head_dim << ", base=" << c.rope.base
            << ", yarn factor=" << c.rope.scaling.factor
            << ", mscale=" << c.rope.scaling.yarn_mscale
            << ", mscale_all_dim=" << c.rope.scaling.yarn_mscale_all_dim << "}";
}
}  // namespace pecheck::reference

namespace pecheck::props {
namespace {

using reference::Llama4Config;
using reference::LongRopeConfig;
using reference::MlaConfig;
using reference::MropeConfig;
using reference::MropeLayout;
using reference::MropePosition;

constexpr std::int64_t kMax = reference::kRopeMaxPosition;

template <class C, class Draw>
rc::Gen<C> unshrunk(Draw draw) {
  return from_rng<C>(draw, [](const C&) { return std::vector<C>{}; });
}

rc::Gen<LongRopeConfig> longrope_config() {
  return unshrunk<LongRopeConfig>([](Rng& r) { return classify::gen_longrope_config(r); });
}
rc::Gen<Llama4Config> llama4_config() {
  return unshrunk<Llama4Config>([](Rng& r) { return classify::gen_llama4_config(r); });
}
rc::Gen<MropeConfig> mrope_config(MropeLayout l) {
  return unshrunk<MropeConfig>([l](Rng& r) { return classify::gen_mrope_config(r, l); });
}
rc::Gen<MlaConfig> mla_config() {
  return unshrunk<MlaConfig>([](Rng& r) { return classify::gen_mla_config(r); });
}

ModelDraw draw_model() {
  ModelDraw d;
  d.seed = *model_seed();
  d.d_model = *rc::gen::inRange<std::int64_t>(1, 9);
  return d;
}

// A head vector of `n` reals in [-4, 4] (and signed zeros), shrinking toward 0.
std::vector<double> vec(std::int64_t n) {
  return *from_rng<std::vector<double>>(
      [n](Rng& r) {
        std::vector<double> v(static_cast<std::size_t>(n));
        for (auto& x : v) x = r.coin(8) ? (r.coin(2) ? 0.0 : -0.0) : r.uniform(-4.0, 4.0);
        return v;
      },
      [](const std::vector<double>&) { return std::vector<std::vector<double>>{}; });
}

// A double-precision model instance for scores that are compared bit for bit.
struct DModel {
  reference::Projection<double> proj;
  reference::Vec<double> xq, xk;
};
DModel dmodel(std::uint64_t seed, std::int64_t d_model, std::int64_t head_dim) {
  Rng r(seed);
  DModel m;
  m.proj.w_q.resize(d_model, head_dim);
  m.proj.w_k.resize(d_model, head_dim);
  m.xq.resize(d_model);
  m.xk.resize(d_model);
  for (auto* a : {&m.proj.w_q, &m.proj.w_k})
    for (Eigen::Index i = 0; i < a->size(); ++i) a->data()[i] = r.uniform(-1.0, 1.0);
  for (auto* a : {&m.xq, &m.xk})
    for (Eigen::Index i = 0; i < a->size(); ++i) a->data()[i] = r.uniform(-1.0, 1.0);
  m.proj.scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
  return m;
}

// MODEL-TOL-1's magnitude of one double score: sigma * a^2 * (Phi + D + 2) * norms.
double dmagnitude(const DModel& m, double a2, double phi) {
  const double D = static_cast<double>(m.proj.w_q.rows() + m.proj.w_q.cols());
  return std::fabs(m.proj.scale) * a2 * (phi + D + 2.0) * m.proj.w_q.norm() * m.xq.norm() *
         m.proj.w_k.norm() * m.xk.norm();
}

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// =============================================================================================
// ROPE-ATTN-1

// Clause: ROPE-ATTN-1 — the config function agrees with YaRN's rope_attention_factor
// (ROPE-SCALE-YARN-2) on yarn configs, with a 100-digit evaluation within MODEL-TOL-3's form, and
// with the closed forms of the spec (an explicit factor overrides; non-scaling types give 1).
RC_GTEST_PROP(RopeAttnFactor, FromAConfigAsTheSpecSays, ()) {
  reference::AttnFactorConfig a;
  const int type = *rc::gen::inRange(0, 4);
  a.rope_type = type == 0 ? "yarn" : type == 1 ? "longrope" : type == 2 ? "llama3" : "default";
  a.factor = *rc::gen::element(1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 40.0, 0.5 + 100.0 * 0.37);
  if (a.factor < 1) a.factor = 1;
  const int mode = *rc::gen::inRange(0, 3);
  if (mode == 1) a.attention_factor = *rc::gen::element(0.5, 1.0, 1.25, 2.0);
  if (mode == 2) {
    a.mscale = *rc::gen::element(0.707, 1.0, 1.5);
    a.mscale_all_dim = *rc::gen::element(0.707, 1.0, 2.0);
  }
  a.original_max_position_embeddings = std::int64_t{1} << *rc::gen::inRange(1, 18);
  a.max_position_embeddings = a.original_max_position_embeddings * *rc::gen::inRange(0, 65) + 1;
  const double got = reference::rope_attn_factor<double>(a);
  const double hp = mp_rope_attn_factor(a);
  RC_ASSERT(std::fabs(got - hp) <= reference::freq_tolerance<double>(hp, std::exp(1.0)));
  if (a.rope_type == "llama3" || a.rope_type == "default") RC_ASSERT(got == 1.0);
  if (mode == 1 && (type == 0 || type == 1)) RC_ASSERT(got == a.attention_factor);
  if (type == 0) {
    reference::RopeConfig y;
    y.scaling.kind = reference::RopeScaling::Yarn;
    y.scaling.factor = a.factor;
    y.scaling.original_max_positions = 4096;
    y.scaling.attention_factor = a.attention_factor;
    y.scaling.yarn_mscale = mode == 2 ? a.mscale : 1.0;
    y.scaling.yarn_mscale_all_dim = a.mscale_all_dim;
    const double old = reference::rope_attention_factor<double>(y);
    RC_ASSERT(std::fabs(got - old) <= reference::freq_tolerance<double>(old, std::exp(1.0)));
  }
  if (type == 1 && mode != 1) {
    const double s = static_cast<double>(a.max_position_embeddings) /
                     static_cast<double>(a.original_max_position_embeddings);
    const double want =
        s <= 1
            ? 1.0
            : std::sqrt(1 + std::log(s) /
                                std::log(static_cast<double>(a.original_max_position_embeddings)));
    RC_ASSERT(std::fabs(got - want) <= reference::freq_tolerance<double>(want, std::exp(1.0)));
  }
}

// =============================================================================================
// LongRoPE

// Clause: ROPE-LONG-1, ROPE-LONG-2 — f_i = base^(-2i/d) / lambda_i with the long table exactly
// when L > original_max; the double reference agrees with the 100-digit one (MODEL-TOL-3).
RC_GTEST_PROP(LongRope, FrequenciesAreTheBaseFrequenciesOverTheTableOfTheLength, ()) {
  const LongRopeConfig c = *longrope_config();
  const std::int64_t L = *position(kMax) + 1;
  const auto f = reference::longrope_inv_freq<double>(c, L);
  const auto g = mp_longrope_inv_freq(c, L);
  const auto plain = reference::rope_inv_freq<double>(reference::longrope_geometry(c));
  const auto& lam = L > c.original_max_position_embeddings ? c.long_factor : c.short_factor;
  RC_ASSERT(reference::longrope_uses_long(c, L) == (L > c.original_max_position_embeddings));
  for (std::size_t i = 0; i < f.size(); ++i) {
    RC_ASSERT(std::fabs(f[i] - g[i]) <= reference::freq_tolerance<double>(g[i], c.base));
    RC_ASSERT(std::fabs(f[i] * lam[i] - plain[i]) <=
              reference::freq_tolerance<double>(plain[i], c.base));
  }
}

// Clause: ROPE-LONG-3, ROPE-LONG-4 — within one factor table the score is offset-only (MPFR):
// short: all four positions below original_max; long: all of them at or above it.
void check_longrope_within_table(const LongRopeConfig& c, bool long_table) {
  const std::int64_t orig = c.original_max_position_embeddings;
  ShiftCase s = *shift_case(long_table ? kMax - orig : orig);
  if (long_table) {
    s.m += orig;
    s.n += orig;
  }
  const ModelDraw md = draw_model();
  const MpCompare r = mp_longrope_shift(c, md, s.m, s.n, s.c);
  RC_LOG() << "config " << c << " case " << s << " scores " << r << "\n";
  RC_ASSERT(r.agree());
}
RC_GTEST_PROP(LongRope, ScoreDependsOnlyOnOffsetWithinTheShortTable, ()) {
  check_longrope_within_table(*longrope_config(), false);
}
RC_GTEST_PROP(LongRope, ScoreDependsOnlyOnOffsetWithinTheLongTable, ()) {
  check_longrope_within_table(*longrope_config(), true);
}

// Clause: ROPE-LONG-4 — across the switch the same property must be falsified: RapidCheck
// prints the shrunk witness (a pair below original_max and its shift beyond it).
TEST(LongRope, ShiftAcrossTheSwitchChangesTheScoreWitness) {
  const bool found = expect_witness(
      "LongRoPE score is shift-invariant across the switch (expected to FAIL with a witness)", [] {
        const LongRopeConfig c = *longrope_config();
        const std::int64_t orig = c.original_max_position_embeddings;
        ShiftCase s = *shift_case(orig);  // below the switch ...
        s.c = *rc::gen::inRange<std::int64_t>(orig - std::min(s.m, s.n), kMax - std::max(s.m, s.n));
        const MpCompare r = mp_longrope_shift(c, draw_model(), s.m, s.n, s.c);  // ... and beyond
        RC_LOG() << "config " << c << " case " << s << " scores " << r << "\n";
        RC_ASSERT(r.agree());
      });
  EXPECT_TRUE(found) << "no witness: LongRoPE looked shift-invariant across the switch";
}

// =============================================================================================
// Llama 4

// Clause: ROPE-L4-1 — the derived iRoPE layout: every no_rope_layer_interval-th layer (3, 7, 11,
// ... for 4) is a NoPE layer; an explicit no_rope_layers list is taken as written (1 = RoPE).
RC_GTEST_PROP(Llama4, EveryFourthLayerIsNope, ()) {
  Llama4Config c;
  c.no_rope_layer_interval = *rc::gen::inRange<std::int64_t>(1, 9);
  const std::int64_t l = *rc::gen::inRange<std::int64_t>(0, 200);
  RC_ASSERT(reference::llama4_uses_rope(c, l) == ((l + 1) % c.no_rope_layer_interval != 0));
  c.no_rope_layers = {1, 0, 0, 1};
  RC_ASSERT(reference::llama4_uses_rope(c, 0) && !reference::llama4_uses_rope(c, 1) &&
            reference::llama4_uses_rope(c, 3));
  if (c.no_rope_layer_interval == 4) {
    Llama4Config d;
    RC_ASSERT(!reference::llama4_uses_rope(d, 3) && !reference::llama4_uses_rope(d, 7) &&
              reference::llama4_uses_rope(d, 4));
  }
}

// Clause: ROPE-L4-2, ROPE-L4-4, ROPE-L4-5 — a RoPE layer is offset-only within a chunk (MPFR):
// the first pair lies in chunk k1, the shifted pair in chunk k2 (k2 may equal k1), each pair
// inside its chunk; qk-norm on or off.
RC_GTEST_PROP(Llama4, RopeLayerScoreDependsOnlyOnOffsetWithinAChunk, ()) {
  const Llama4Config c = *llama4_config();
  const std::int64_t C = c.attention_chunk_size;
  const ShiftCase s = *shift_case(C);  // offsets inside a chunk, both pairs
  const std::int64_t chunks = kMax / C;
  const std::int64_t k1 = *position(chunks), k2 = *position(chunks);
  const std::int64_t m = k1 * C + s.m, n = k1 * C + s.n, shift = s.c + (k2 - k1) * C;
  RC_PRE(m + shift >= 0 && n + shift >= 0 && m + shift < kMax && n + shift < kMax);
  const MpCompare r = mp_llama4_rope_shift(c, draw_model(), m, n, shift);
  RC_LOG() << "config " << c << " m=" << m << " n=" << n << " shift=" << shift << " " << r << "\n";
  RC_ASSERT(r.agree());
}

// A shift case biased to chunk / floor_scale boundaries: the query within `near` of a multiple
// of `step`, the key at most `near` before it, a shift of either sign.
rc::Gen<ShiftCase> boundary_case(std::int64_t step, std::int64_t near) {
  return from_rng<ShiftCase>(
      [=](Rng& r) {
        ShiftCase s;
        const std::int64_t k = r.range(1, std::max<std::int64_t>(1, (kMax - 1) / step - 1));
        s.m = std::clamp<std::int64_t>(k * step + r.range(-near, near), 0, kMax - 1);
        s.n = std::max<std::int64_t>(0, s.m - r.range(0, near));
        s.c = r.coin(2) ? r.range(-near, near) : classify::gen_shift(r, s.m, s.n, kMax);
        if (s.c == 0 || !valid_shift_case(s, kMax)) s = ShiftCase{step, step - 1, -1};
        return s;
      },
      [step](const ShiftCase& s) {
        std::vector<ShiftCase> out;
        // move the pair down by whole steps (the same place relative to the boundary) ...
        const std::int64_t k = std::min(s.m, s.n) / step;
        for (std::int64_t j : classify::shrink_toward(k, 0)) {
          const ShiftCase t{s.m - (k - j) * step, s.n - (k - j) * step, s.c};
          if (valid_shift_case(t, kMax)) out.push_back(t);
        }
        // ... then simplify the shift and the offset
        for (std::int64_t k : classify::shrink_toward(s.c, 0))
          if (k != 0 && valid_shift_case({s.m, s.n, k}, kMax)) out.push_back({s.m, s.n, k});
        for (std::int64_t k : classify::shrink_toward(s.m - s.n, 0))
          if (valid_shift_case({s.m, s.m - k, s.c}, kMax)) out.push_back({s.m, s.m - k, s.c});
        return out;
      });
}

// Clause: ROPE-L4-5 — unrestricted shifts of a RoPE layer's pair must be falsified: the same
// offset with different chunk membership is masked in one pair and not in the other.
TEST(Llama4, ChunkingMakesTheScoreDependOnTheChunkWitness) {
  const bool found = expect_witness(
      "Llama 4 RoPE-layer score is shift-invariant (expected to FAIL: chunk membership)", [] {
        Llama4Config c = *llama4_config();
        const ShiftCase s = *boundary_case(c.attention_chunk_size, 64);
        const MpCompare r = mp_llama4_rope_shift(c, draw_model(), s.m, s.n, s.c);
        RC_LOG() << "config " << c << " case " << s << " scores " << r << " chunks "
                 << s.m / c.attention_chunk_size << "," << s.n / c.attention_chunk_size << " -> "
                 << (s.m + s.c) / c.attention_chunk_size << ","
                 << (s.n + s.c) / c.attention_chunk_size << "\n";
        RC_ASSERT(r.agree());
      });
  EXPECT_TRUE(found) << "no witness: chunked attention looked shift-invariant";
}

// The NoPE layer's score as a subject: the reference (temperature on the query) or a bug that
// scales the key by the key position's temperature as well.
using NopeScore =
    std::function<double(const Llama4Config&, const DModel&, std::int64_t, std::int64_t)>;
double nope_layer_reference(const Llama4Config& c, const DModel& m, std::int64_t q,
                            std::int64_t k) {
  return reference::score_llama4<double>(c, false, m.proj, m.xq, m.xk, q, k);
}
double nope_layer_bug_key_temperature(const Llama4Config& c, const DModel& m, std::int64_t q,
                                      std::int64_t k) {
  return nope_layer_reference(c, m, q, k) * reference::llama4_attn_temperature<double>(c, k);
}

// Clause: ROPE-L4-3, ROPE-L4-6 — a NoPE layer's score is a function of the query position only:
// for keys n1, n2 <= m it is the same bits; it equals tau(m) * sigma * q.k; tau is 1 below the
// first floor_scale step.
void check_nope_layer_query_only(const NopeScore& score) {
  const Llama4Config c = *llama4_config();
  const std::int64_t m = *position(kMax);
  const std::int64_t n1 = *rc::gen::inRange<std::int64_t>(0, m + 1);
  const std::int64_t n2 = *rc::gen::inRange<std::int64_t>(0, m + 1);
  const DModel md = dmodel(*model_seed(), 4, c.rope.head_dim);
  const double a = score(c, md, m, n1), b = score(c, md, m, n2);
  RC_LOG() << "config " << c << " m=" << m << " n1=" << n1 << " n2=" << n2 << " scores " << a
           << ", " << b << "\n";
  RC_ASSERT(same_bits(a, b));
  if (static_cast<double>(m) + 1.0 < c.floor_scale)
    RC_ASSERT(reference::llama4_attn_temperature<double>(c, m) == 1.0);
}
RC_GTEST_PROP(Llama4, NopeLayerScoreIsAFunctionOfTheQueryPositionOnly, ()) {
  check_nope_layer_query_only(nope_layer_reference);
}
TEST(Llama4, NopeLayerQueryOnlyPropertyFailsOnAKeyTemperatureBug) {
  EXPECT_TRUE(expect_witness("key scaled by its own temperature (bug, expected to FAIL)",
                             [] { check_nope_layer_query_only(nope_layer_bug_key_temperature); }));
}

// Clause: ROPE-L4-6 — temperature tuning makes the NoPE layer's score depend on the query's
// absolute position: shift invariance must be falsified (witness across a floor_scale step).
TEST(Llama4, TemperatureTuningMakesTheScoreDependOnTheQueryPositionWitness) {
  const bool found = expect_witness(
      "Llama 4 NoPE-layer score is shift-invariant (expected to FAIL: temperature tuning)", [] {
        const Llama4Config c = *llama4_config();
        const ShiftCase s = *boundary_case(static_cast<std::int64_t>(c.floor_scale), 64);
        const DModel md = dmodel(*model_seed(), 4, c.rope.head_dim);
        const double a = nope_layer_reference(c, md, s.m, s.n);
        const double b = nope_layer_reference(c, md, s.m + s.c, s.n + s.c);
        const double tol = reference::shift_tolerance<double>(
            dmagnitude(md, reference::llama4_attn_temperature<double>(c, s.m), 0.0) +
            dmagnitude(md, reference::llama4_attn_temperature<double>(c, s.m + s.c), 0.0));
        RC_LOG() << "config " << c << " case " << s << " scores " << a << ", " << b << " tau "
                 << reference::llama4_attn_temperature<double>(c, s.m) << " -> "
                 << reference::llama4_attn_temperature<double>(c, s.m + s.c) << "\n";
        RC_ASSERT(std::fabs(a - b) <= tol);
      });
  EXPECT_TRUE(found) << "no witness: the NoPE layer looked shift-invariant";
}

// =============================================================================================
// NoPE

using PlainScore = std::function<double(const DModel&, std::int64_t, std::int64_t)>;
double nope_reference(const DModel& m, std::int64_t q, std::int64_t k) {
  return reference::score_nope<double>(m.proj, m.xq, m.xk, q, k, true);
}
// A bug: a learned-looking position leak, 2^-20 * (q position mod 7) added to the logit.
double nope_bug_position_leak(const DModel& m, std::int64_t q, std::int64_t k) {
  return nope_reference(m, q, k) + std::ldexp(static_cast<double>(q % 7), -20);
}

// Clause: ROPE-NOPE-1, ROPE-NOPE-2 — every unmasked pair gives the same bits; a key after its
// query is masked (-inf) and a common shift keeps every mask.
void check_nope(const PlainScore& score) {
  const DModel md = dmodel(*model_seed(), *rc::gen::inRange<std::int64_t>(1, 9),
                           *rc::gen::inRange<std::int64_t>(1, 17));
  const std::int64_t m1 = *position(kMax), m2 = *position(kMax);
  const std::int64_t n1 = *rc::gen::inRange<std::int64_t>(0, m1 + 1);
  const std::int64_t n2 = *rc::gen::inRange<std::int64_t>(0, m2 + 1);
  const double a = score(md, m1, n1), b = score(md, m2, n2);
  RC_LOG() << "(" << m1 << "," << n1 << ") -> " << a << ", (" << m2 << "," << n2 << ") -> " << b
           << "\n";
  RC_ASSERT(same_bits(a, b));
  if (m1 + 1 < kMax) {
    const double masked = score(md, m1, m1 + 1);
    RC_ASSERT(std::isinf(masked) && masked < 0);
  }
}
RC_GTEST_PROP(Nope, ScoreDependsOnNeitherPosition, ()) { check_nope(nope_reference); }
TEST(Nope, PositionFreePropertyFailsOnAPositionLeak) {
  EXPECT_TRUE(expect_witness("NoPE with a position leak (bug, expected to FAIL)",
                             [] { check_nope(nope_bug_position_leak); }));
}

// =============================================================================================
// M-RoPE

// The spec's axis assignment computed independently of reference::mrope_axis, the way the
// models build it: sectioned = consecutive blocks of mrope_section; interleaved = start with t
// everywhere, then overwrite indices offset, offset + 3, ... below 3 * section[axis] (Qwen3-VL).
std::vector<int> spec_axes(const MropeConfig& c) {
  const auto half = static_cast<std::size_t>(c.rotary_dim / 2);
  std::vector<int> ax(half, 0);
  if (c.layout == MropeLayout::Sectioned) {
    std::size_t k = 0;
    for (int a = 0; a < 3; ++a)
      for (std::int64_t j = 0; j < c.section[a]; ++j) ax[k++] = a;
  } else {
    for (int a = 1; a <= 2; ++a)
      for (std::int64_t j = a; j < 3 * c.section[a]; j += 3) ax[static_cast<std::size_t>(j)] = a;
  }
  return ax;
}

using MropeRotate =
    std::function<void(const MropeConfig&, std::span<const double>, const MropePosition&,
                       std::span<const double>, std::span<double>)>;
void mrope_reference(const MropeConfig& c, std::span<const double> f, const MropePosition& p,
                     std::span<const double> x, std::span<double> y) {
  reference::mrope_rotate<double>(c, f, p, x, y);
}
// A bug: the h and w sections swapped (each rotated by the other axis's position).
void mrope_bug_wrong_axis(const MropeConfig& c, std::span<const double> f, const MropePosition& p,
                          std::span<const double> x, std::span<double> y) {
  reference::mrope_rotate<double>(c, f, {p.t, p.w, p.h}, x, y);
}

rc::Gen<MropePosition> mrope_position() {
  return rc::gen::construct<MropePosition>(position(kMax), position(kMax), position(kMax));
}

// Clause: ROPE-MROPE-1, ROPE-MROPE-2, ROPE-MROPE-3 — pair i is rotated by the position of its
// spec axis: a basis vector on the pair's first lane becomes (cos, sin) of p_axis * s * f_i,
// every other lane stays 0.
void check_axes(MropeLayout layout, const MropeRotate& rotate) {
  const MropeConfig c = *mrope_config(layout);
  const MropePosition p = *mrope_position();
  const std::int64_t i = *rc::gen::inRange<std::int64_t>(0, c.rotary_dim / 2);
  const auto f = reference::mrope_inv_freq<double>(c);
  std::vector<double> x(static_cast<std::size_t>(c.head_dim), 0.0), y(x.size());
  const auto [a, b] = reference::rope_pair(reference::mrope_geometry(c), i);
  x[static_cast<std::size_t>(a)] = 1.0;
  rotate(c, f, p, x, y);
  const int axis = spec_axes(c)[static_cast<std::size_t>(i)];
  const double ang = static_cast<double>(p.axis(axis)) * c.position_scale * f[i];
  RC_LOG() << "config " << c << " position " << p << " pair " << i << " spec axis " << axis
           << " got (" << y[a] << ", " << y[b] << ") want (" << std::cos(ang) << ", "
           << std::sin(ang) << ")\n";
  RC_ASSERT(y[a] == std::cos(ang));
  RC_ASSERT(y[b] == std::sin(ang));
}
RC_GTEST_PROP(Mrope, EachSectionRotatesByItsOwnAxisSectioned, ()) {
  check_axes(MropeLayout::Sectioned, mrope_reference);
}
RC_GTEST_PROP(Mrope, EachSectionRotatesByItsOwnAxisInterleaved, ()) {
  check_axes(MropeLayout::Interleaved, mrope_reference);
}
TEST(Mrope, AxisPropertyFailsOnAWrongAxisForASection) {
  EXPECT_TRUE(expect_witness("M-RoPE with the h and w sections swapped (bug, expected to FAIL)",
                             [] { check_axes(MropeLayout::Sectioned, mrope_bug_wrong_axis); }));
}

// Clause: ROPE-MROPE-6 — the score depends only on the offset vector: (t, h, w) positions of
// both tokens shifted by a vector, in MPFR.
void check_mrope_shift(MropeLayout layout) {
  const MropeConfig c = *mrope_config(layout);
  const ShiftCase st = *shift_case(kMax), sh = *shift_case(kMax), sw = *shift_case(kMax);
  const MropePosition m{st.m, sh.m, sw.m}, n{st.n, sh.n, sw.n}, d{st.c, sh.c, sw.c};
  const MpCompare r = mp_mrope_shift(c, draw_model(), m, n, d);
  RC_LOG() << "config " << c << " m=" << m << " n=" << n << " shift=" << d << " " << r << "\n";
  RC_ASSERT(r.agree());
}
RC_GTEST_PROP(Mrope, ScoreDependsOnlyOnTheOffsetVectorSectioned, ()) {
  check_mrope_shift(MropeLayout::Sectioned);
}
RC_GTEST_PROP(Mrope, ScoreDependsOnlyOnTheOffsetVectorInterleaved, ()) {
  check_mrope_shift(MropeLayout::Interleaved);
}

// Clause: ROPE-MROPE-4 — a text token (t = h = w = p) is rotated exactly as plain RoPE at p.
RC_GTEST_PROP(Mrope, TextTokensAreOneDimensionalRope, ()) {
  const MropeConfig c =
      *mrope_config(*rc::gen::element(MropeLayout::Sectioned, MropeLayout::Interleaved));
  const std::int64_t p = *position(kMax);
  const auto x = vec(c.head_dim);
  const auto f = reference::mrope_inv_freq<double>(c);
  std::vector<double> y(x.size()), z(x.size());
  reference::mrope_rotate<double>(c, f, reference::mrope_text_position(p), x, y);
  reference::rope_rotate<double>(reference::mrope_geometry(c), f, p, x, z);
  for (std::size_t k = 0; k < y.size(); ++k) RC_ASSERT(same_bits(y[k], z[k]));
}

// Position ids of a [text, image, text] sequence as a subject: the reference (ROPE-MROPE-5) or a
// bug that gives every token its sequence index on all three axes (text positions for an image
// token).
using PositionIds =
    std::function<std::vector<MropePosition>(const std::vector<reference::MropeSegment>&)>;
std::vector<MropePosition> ids_reference(const std::vector<reference::MropeSegment>& s) {
  return reference::mrope_position_ids(s);
}
std::vector<MropePosition> ids_bug_text_positions(const std::vector<reference::MropeSegment>& s) {
  std::vector<MropePosition> out;
  std::int64_t k = 0;
  for (const auto& seg : s) {
    const std::int64_t n = seg.image ? seg.grid_t * seg.grid_h * seg.grid_w : seg.length;
    for (std::int64_t j = 0; j < n; ++j, ++k) out.push_back(reference::mrope_text_position(k));
  }
  return out;
}

// Clause: ROPE-MROPE-5, ROPE-MROPE-6 — in [text(a), image(T x H x W), text(b)], image patch
// (t, h, w) sits at (a + t, a + h, a + w); horizontally adjacent patches are (0, 0, 1) apart and
// score exactly as the offset (0, 0, 1) from the origin; the text after the image starts at the
// image's largest position + 1.
void check_image_positions(const PositionIds& ids) {
  const std::int64_t a = *rc::gen::inRange<std::int64_t>(0, 50);
  const std::int64_t T = *rc::gen::inRange<std::int64_t>(1, 3);
  const std::int64_t H = *rc::gen::inRange<std::int64_t>(1, 6);
  const std::int64_t W = *rc::gen::inRange<std::int64_t>(2, 6);
  const std::int64_t b = *rc::gen::inRange<std::int64_t>(1, 5);
  const auto pos = ids({{false, a}, {true, 0, T, H, W}, {false, b}});
  RC_ASSERT(static_cast<std::int64_t>(pos.size()) == a + T * H * W + b);
  const std::int64_t t = *rc::gen::inRange<std::int64_t>(0, T);
  const std::int64_t h = *rc::gen::inRange<std::int64_t>(0, H);
  const std::int64_t w = *rc::gen::inRange<std::int64_t>(0, W - 1);
  const auto at = [&](std::int64_t tt, std::int64_t hh, std::int64_t ww) {
    return pos[static_cast<std::size_t>(a + (tt * H + hh) * W + ww)];
  };
  const MropePosition p = at(t, h, w), q = at(t, h, w + 1);
  RC_LOG() << "text " << a << ", image " << T << "x" << H << "x" << W << ", patch (" << t << ","
           << h << "," << w << ") at " << p << ", right neighbour at " << q << "\n";
  RC_ASSERT(p == (MropePosition{a + t, a + h, a + w}));
  const MropeConfig c =
      *mrope_config(*rc::gen::element(MropeLayout::Sectioned, MropeLayout::Interleaved));
  const DModel md = dmodel(*model_seed(), 4, c.head_dim);
  const double s = reference::score_mrope<double>(c, md.proj, md.xq, md.xk, p, q);
  const double s0 = reference::score_mrope<double>(c, md.proj, md.xq, md.xk, {0, 0, 0}, {0, 0, 1});
  const auto f = reference::mrope_inv_freq<double>(c);
  const double phi = static_cast<double>(a + T + H + W) * c.position_scale * f[0];  // f_0 = max
  RC_ASSERT(std::fabs(s - s0) <= reference::shift_tolerance<double>(dmagnitude(md, 1.0, phi) +
                                                                    dmagnitude(md, 1.0, 1.0)));
  const std::int64_t top = std::max({a + T - 1, a + H - 1, a + W - 1});
  RC_ASSERT(pos[static_cast<std::size_t>(a + T * H * W)] ==
            reference::mrope_text_position(top + 1));
}
RC_GTEST_PROP(Mrope, ImagePatchesUseTheirGridPositions, ()) {
  check_image_positions(ids_reference);
}
TEST(Mrope, ImagePositionPropertyFailsOnTextPositionsForAnImageToken) {
  EXPECT_TRUE(expect_witness("image tokens given text positions (bug, expected to FAIL)",
                             [] { check_image_positions(ids_bug_text_positions); }));
}

// =============================================================================================
// MLA decoupled RoPE

using MlaRotate =
    std::function<void(const MlaConfig&, std::int64_t, std::span<const double>, std::span<double>)>;
void mla_reference(const MlaConfig& c, std::int64_t p, std::span<const double> x,
                   std::span<double> y) {
  reference::mla_rotate_head<double>(c, p, x, y);
}
// A bug: the head treated as standard partial rotary (rotary lanes first), so the rotation hits
// the first qk_rope_head_dim lanes -- the non-rotary slice -- and leaves the rope slice alone.
void mla_bug_rotates_the_first_slice(const MlaConfig& c, std::int64_t p, std::span<const double> x,
                                     std::span<double> y) {
  reference::RopeConfig g = c.rope;
  g.head_dim = c.qk_head_dim();
  const auto f = reference::rope_inv_freq<double>(c.rope);
  reference::rope_rotate_with<double>(g, f, reference::rope_attention_factor<double>(c.rope), p, x,
                                      y);
}

// Clause: ROPE-MLA-1 — the non-rotary slice never moves: lanes [0, qk_nope_head_dim) of a query
// head are the input's bits at every position; the rope slice equals the YaRN rotation.
void check_mla_slices(const MlaConfig& c, const MlaRotate& rotate) {
  const std::int64_t p = *position(kMax);
  const auto x = vec(c.qk_head_dim());
  std::vector<double> y(x.size());
  rotate(c, p, x, y);
  for (std::int64_t k = 0; k < c.qk_nope_head_dim; ++k) {
    RC_LOG() << "position " << p << " lane " << k << ": " << x[k] << " -> " << y[k] << "\n";
    RC_ASSERT(same_bits(x[k], y[k]));
  }
  const std::vector<double> pe(x.begin() + c.qk_nope_head_dim, x.end());
  const auto want = reference::mla_rotate_key_slice<double>(c, p, pe);
  for (std::size_t k = 0; k < want.size(); ++k)
    RC_ASSERT(same_bits(y[static_cast<std::size_t>(c.qk_nope_head_dim) + k], want[k]));
}
RC_GTEST_PROP(Mla, NonRotarySliceNeverMoves, ()) { check_mla_slices(*mla_config(), mla_reference); }
TEST(Mla, NonRotarySlicePropertyFailsWhenTheWrongSliceIsRotated) {
  EXPECT_TRUE(expect_witness("MLA rotating the first slice (bug, expected to FAIL)", [] {
    MlaConfig c = *mla_config();
    RC_PRE(c.qk_nope_head_dim >= c.qk_rope_head_dim);  // the bug's rotation fits the nope slice
    check_mla_slices(c, mla_bug_rotates_the_first_slice);
  }));
}

// Key heads of one token as a subject: the reference, or a bug that rotates the shared slice for
// head 0 only (the other heads' copies taken before the rotation).
using MlaKeys = std::function<std::vector<std::vector<double>>(
    const MlaConfig&, std::int64_t, std::span<const double>, std::span<const double>)>;
std::vector<std::vector<double>> keys_reference(const MlaConfig& c, std::int64_t p,
                                                std::span<const double> kn,
                                                std::span<const double> kpe) {
  return reference::mla_key_heads<double>(c, p, kn, kpe);
}
std::vector<std::vector<double>> keys_bug_first_head_only(const MlaConfig& c, std::int64_t p,
                                                          std::span<const double> kn,
                                                          std::span<const double> kpe) {
  auto heads = reference::mla_key_heads<double>(c, p, kn, kpe);
  for (std::size_t h = 1; h < heads.size(); ++h)
    std::copy(kpe.begin(), kpe.end(), heads[h].begin() + c.qk_nope_head_dim);
  return heads;
}

// Clause: ROPE-MLA-2 — every key head carries the same rotated key slice (bit-identical to the
// one rotation of k_pe) after its own non-rotary part.
void check_mla_shared_key(const MlaKeys& keys) {
  MlaConfig c = *mla_config();
  c.n_heads = *rc::gen::inRange<std::int64_t>(1, 9);
  const std::int64_t p = *position(kMax);
  const auto kn = vec(c.n_heads * c.qk_nope_head_dim);
  const auto kpe = vec(c.qk_rope_head_dim);
  const auto heads = keys(c, p, kn, kpe);
  const auto rot = reference::mla_rotate_key_slice<double>(c, p, kpe);
  RC_ASSERT(static_cast<std::int64_t>(heads.size()) == c.n_heads);
  for (std::size_t h = 0; h < heads.size(); ++h) {
    for (std::int64_t k = 0; k < c.qk_nope_head_dim; ++k)
      RC_ASSERT(same_bits(heads[h][k], kn[h * c.qk_nope_head_dim + k]));
    for (std::size_t k = 0; k < rot.size(); ++k) {
      RC_LOG() << "head " << h << " rope lane " << k << "\n";
      RC_ASSERT(same_bits(heads[h][c.qk_nope_head_dim + k], rot[k]));
    }
  }
}
RC_GTEST_PROP(Mla, RotatedKeySliceIsSharedByEveryHead, ()) { check_mla_shared_key(keys_reference); }
TEST(Mla, SharedKeyPropertyFailsWhenOnlyTheFirstHeadIsRotated) {
  EXPECT_TRUE(expect_witness("MLA rotating the first head's key slice only (bug, expected to FAIL)",
                             [] { check_mla_shared_key(keys_bug_first_head_only); }));
}

// Clause: ROPE-MLA-4 — the score is offset-only (MPFR), the YaRN table being fixed.
RC_GTEST_PROP(Mla, ScoreDependsOnlyOnOffset, ()) {
  const MlaConfig c = *mla_config();
  const ShiftCase s = *shift_case(kMax);
  const MpCompare r = mp_mla_shift(c, draw_model(), s.m, s.n, s.c);
  RC_LOG() << "config " << c << " case " << s << " scores " << r << "\n";
  RC_ASSERT(r.agree());
}

// Clause: ROPE-MLA-3 — softmax scale = qk_head_dim^-1/2 * mscale(s, mscale_all_dim)^2 (when
// mscale_all_dim != 0); DeepSeek V3's default is (0.1 ln 40 + 1)^2 / sqrt(192).
RC_GTEST_PROP(Mla, SoftmaxScaleCarriesMscaleAllDimSquared, ()) {
  const MlaConfig c = *mla_config();
  const double got = reference::mla_softmax_scale<double>(c);
  const double s = c.rope.scaling.factor, mu = c.rope.scaling.yarn_mscale_all_dim;
  const double ms = mu == 0 || s <= 1 ? 1.0 : 0.1 * mu * std::log(s) + 1.0;
  const double want = ms * ms / std::sqrt(static_cast<double>(c.qk_head_dim()));
  RC_ASSERT(std::fabs(got - want) <= reference::freq_tolerance<double>(want, std::exp(1.0)));
  const MlaConfig v3;
  const double m3 = 0.1 * std::log(40.0) + 1.0;
  const double v = reference::mla_softmax_scale<double>(v3);
  RC_ASSERT(std::fabs(v - m3 * m3 / std::sqrt(192.0)) <=
            reference::freq_tolerance<double>(v, std::exp(1.0)));
}

}  // namespace
}  // namespace pecheck::props
