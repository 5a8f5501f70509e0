// Properties of the RoPE family as 2025-26 models ship it (spec/rope.md, "The attention factor"
// and "The RoPE family"): the attention factor, LongRoPE, Llama 4 (iRoPE, chunked attention,
// temperature tuning) and NoPE (M-RoPE and MLA: rope_family_mm.cpp). Shift invariance in
// 100-digit MPFR where the spec claims it, shrunk witnesses where it claims the opposite, and
// for every structural property a buggy subject (implemented below) on which it must fail.
#include "rope_family_util.hpp"

namespace pecheck::props {
namespace {

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

}  // namespace
}  // namespace pecheck::props
