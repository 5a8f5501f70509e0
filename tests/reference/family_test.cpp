// The RoPE family (spec/rope.md, "The RoPE family"): domains, position ids, and `pecheck
// classify`'s rows — what each score is a function of, and the chunking, temperature and
// LongRoPE-switch witnesses replayed on the reference to check that they really break the
// claim. Injected broken subjects change the verdicts (CLASSIFY-5..8).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "classify/engine.hpp"
#include "classify/generators.hpp"
#include "reference/rope_family.hpp"
#include "reference/score_family.hpp"
#include "reference/tolerance.hpp"

namespace {

using namespace pecheck;
using namespace pecheck::reference;
using classify::Classification;
using classify::EngineOptions;
using classify::Subject;

template <class F>
void expect_clause(F&& f, const std::string& clause) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected " << clause;
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.clause(), clause) << e.what();
  }
}

// Clause: ROPE-ATTN-1, ROPE-LONG-ARG-1, ROPE-L4-ARG-1, ROPE-MROPE-ARG-1, ROPE-MLA-ARG-1
TEST(RopeFamily, InvalidArgumentsNameTheirClause) {
  AttnFactorConfig a;
  a.rope_type = "su";
  expect_clause([&] { rope_attn_factor<double>(a); }, "ROPE-ATTN-1");
  a.rope_type = "yarn";
  a.factor = 0.5;
  expect_clause([&] { rope_attn_factor<double>(a); }, "ROPE-ATTN-1");
  a.rope_type = "longrope";
  a.original_max_position_embeddings = 1;
  expect_clause([&] { rope_attn_factor<double>(a); }, "ROPE-ATTN-1");

  LongRopeConfig l;
  expect_clause([&] { longrope_inv_freq<double>(l, 1); }, "ROPE-LONG-ARG-1");  // no tables
  l.short_factor.assign(48, 1.0);
  l.long_factor.assign(48, 1.0);
  l.long_factor[3] = 0.0;
  expect_clause([&] { longrope_inv_freq<double>(l, 1); }, "ROPE-LONG-ARG-1");
  l.long_factor[3] = 1.0;
  l.original_max_position_embeddings = 1;
  expect_clause([&] { longrope_inv_freq<double>(l, 1); }, "ROPE-LONG-ARG-1");

  Llama4Config c;
  c.attention_chunk_size = 0;
  expect_clause([&] { validate(c); }, "ROPE-L4-ARG-1");
  c = Llama4Config{};
  c.floor_scale = 0;
  expect_clause([&] { validate(c); }, "ROPE-L4-ARG-1");
  expect_clause([&] { llama4_uses_rope(Llama4Config{}, -1); }, "ROPE-L4-ARG-1");
  c = Llama4Config{};
  c.no_rope_layer_interval = 0;
  expect_clause([&] { llama4_uses_rope(c, 3); }, "ROPE-L4-ARG-1");

  MropeConfig m;
  m.section = {16, 24, 23};
  expect_clause([&] { mrope_inv_freq<double>(m); }, "ROPE-MROPE-ARG-1");
  m.section = {0, 32, 32};
  m.layout = MropeLayout::Interleaved;  // h indices would reach 3*32-2 = 94 >= 64
  expect_clause([&] { mrope_inv_freq<double>(m); }, "ROPE-MROPE-ARG-1");

  MlaConfig d;
  d.qk_rope_head_dim = 63;
  expect_clause([&] { validate(d); }, "ROPE-MLA-ARG-1");
  d = MlaConfig{};
  d.rope.head_dim = d.rope.rotary_dim = 32;
  expect_clause([&] { validate(d); }, "ROPE-MLA-ARG-1");
}

// Clause: ROPE-MROPE-2, ROPE-MROPE-3 — the shipped layouts pair by pair.
TEST(RopeFamily, MropeAxesOfTheShippedConfigs) {
  MropeConfig q2;  // [16, 24, 24] sectioned
  for (std::int64_t i = 0; i < 64; ++i) EXPECT_EQ(mrope_axis(q2, i), i < 16 ? 0 : i < 40 ? 1 : 2);
  MropeConfig q3;
  q3.layout = MropeLayout::Interleaved;
  q3.section = {24, 20, 20};
  int count[3] = {0, 0, 0};
  for (std::int64_t i = 0; i < 64; ++i) {
    const int a = mrope_axis(q3, i);
    ++count[a];
    if (i >= 60)
      EXPECT_EQ(a, 0) << i;
    else
      EXPECT_EQ(a, static_cast<int>(i % 3)) << i;
  }
  EXPECT_EQ(count[0], 24);
  EXPECT_EQ(count[1], 20);
  EXPECT_EQ(count[2], 20);
}

// Clause: ROPE-MROPE-5 — [3 text, a 2x2x3 image, 2 text]: the image starts at 3, the text after
// it at 3 + max(1, 1, 2) + 1 = 6.
TEST(RopeFamily, MropePositionIdsOfAMultimodalSequence) {
  const auto p = mrope_position_ids({{false, 3}, {true, 0, 2, 2, 3}, {false, 2}});
  ASSERT_EQ(p.size(), 3u + 12u + 2u);
  EXPECT_EQ(p[0], (MropePosition{0, 0, 0}));
  EXPECT_EQ(p[2], (MropePosition{2, 2, 2}));
  EXPECT_EQ(p[3], (MropePosition{3, 3, 3}));
  EXPECT_EQ(p[4], (MropePosition{3, 3, 4}));   // next column
  EXPECT_EQ(p[6], (MropePosition{3, 4, 3}));   // next row
  EXPECT_EQ(p[9], (MropePosition{4, 3, 3}));   // next frame
  EXPECT_EQ(p[14], (MropePosition{4, 4, 5}));  // last patch
  EXPECT_EQ(p[15], mrope_text_position(6));
  EXPECT_EQ(p[16], mrope_text_position(7));
}

const Subject& subject(const std::string& name) {
  static const std::vector<Subject> all = classify::builtin_subjects();
  for (const auto& s : all)
    if (s.name == name) return s;
  throw std::runtime_error("no subject " + name);
}

Classification run(const std::string& name) {
  return classify::classify(subject(name), EngineOptions{});
}

// Clause: CLASSIFY-5, CLASSIFY-6, CLASSIFY-7, CLASSIFY-8, ROPE-LONG-4, ROPE-L4-5, ROPE-L4-6,
// ROPE-NOPE-1, ROPE-NOPE-2, ROPE-MROPE-6, ROPE-MLA-4 — what each score is a function of, from runs.
TEST(RopeFamily, ClassifyStatesWhatEachScoreIsAFunctionOf) {
  EXPECT_EQ(run("rope-longrope").function_of.rfind("n - m within one factor table", 0), 0u);
  EXPECT_EQ(run("llama4-rope-chunked").function_of.rfind("n - m while m and n share a chunk", 0),
            0u);
  EXPECT_EQ(run("llama4-nope-temperature").function_of, "m only (the query's absolute position)");
  const auto nope = run("nope");
  EXPECT_EQ(nope.applied_at, "none");
  EXPECT_EQ(nope.depends_on, "none");
  EXPECT_EQ(nope.function_of,
            "neither position (the causal mask, -inf for n > m, adds order only)");
  EXPECT_EQ(run("mrope-qwen2-vl").function_of, "the offset vector (Δt, Δh, Δw)");
  EXPECT_EQ(run("mrope-qwen3-vl").function_of, "the offset vector (Δt, Δh, Δw)");
  EXPECT_EQ(run("rope-mla-deepseek").function_of, "n - m");
  EXPECT_EQ(run("rope-neox-dynamic-ntk").function_of, "m and n");
  EXPECT_EQ(run("alibi-bloom-key-only").function_of, "n only (the key's absolute position)");
}

// Clause: ROPE-L4-5, CLASSIFY-3 — the chunking witness replayed: the same offset, one pair in
// one chunk (visible, finite score), the other across a chunk boundary (masked, -inf).
TEST(RopeFamily, ChunkWitnessReplaysOnTheReference) {
  const auto c = run("llama4-rope-chunked");
  ASSERT_TRUE(c.witness);
  const auto& w = *c.witness;
  classify::Rng r(w.instance_seed);
  const Llama4Config cfg = classify::gen_llama4_config(r);  // the instance's config
  EXPECT_EQ(w.n1 - w.m1, w.n2 - w.m2);
  const bool v1 = llama4_key_visible(cfg, true, w.m1, w.n1);
  const bool v2 = llama4_key_visible(cfg, true, w.m2, w.n2);
  EXPECT_NE(v1, v2) << "chunk membership must differ";
  const auto inst = subject("llama4-rope-chunked").instance(w.instance_seed);
  const double s1 = inst.score(w.m1, w.n1).value, s2 = inst.score(w.m2, w.n2).value;
  EXPECT_EQ(std::isinf(s1), !v1);
  EXPECT_EQ(std::isinf(s2), !v2);
  EXPECT_EQ(s1, w.s1);
  EXPECT_EQ(s2, w.s2);
  // shrunk to the first chunk boundary
  EXPECT_EQ(std::max(w.m2, w.m1), cfg.attention_chunk_size);
}

// Clause: ROPE-L4-6, CLASSIFY-3 — the temperature witness replayed: same offset, the queries on
// two sides of a floor_scale step, different temperatures, scores apart beyond MODEL-TOL-1.
TEST(RopeFamily, TemperatureWitnessReplaysOnTheReference) {
  const auto c = run("llama4-nope-temperature");
  ASSERT_TRUE(c.witness);
  const auto& w = *c.witness;
  classify::Rng r(w.instance_seed);
  const Llama4Config cfg = classify::gen_llama4_config(r);
  EXPECT_EQ(w.n1 - w.m1, w.n2 - w.m2);
  const double fs = cfg.floor_scale;
  EXPECT_NE(std::floor((static_cast<double>(w.m1) + 1) / fs),
            std::floor((static_cast<double>(w.m2) + 1) / fs));
  EXPECT_NE(llama4_attn_temperature<double>(cfg, w.m1), llama4_attn_temperature<double>(cfg, w.m2));
  const auto inst = subject("llama4-nope-temperature").instance(w.instance_seed);
  const auto a = inst.score(w.m1, w.n1), b = inst.score(w.m2, w.n2);
  EXPECT_GT(std::fabs(a.value - b.value), shift_tolerance<double>(a.magnitude + b.magnitude));
  // the ratio of the two scores is the ratio of the temperatures (q is scaled, nothing else)
  EXPECT_NEAR(
      a.value / b.value,
      llama4_attn_temperature<double>(cfg, w.m1) / llama4_attn_temperature<double>(cfg, w.m2),
      shift_tolerance<double>(a.magnitude + b.magnitude) / std::fabs(b.value));
}

// Clause: ROPE-LONG-4, CLASSIFY-3 — the LongRoPE witness crosses the switch: one pair on the
// short table, the other on the long one; the regime-shift property held.
TEST(RopeFamily, LongRopeWitnessCrossesTheSwitch) {
  const auto c = run("rope-longrope");
  ASSERT_TRUE(c.witness);
  const auto& w = *c.witness;
  classify::Rng r(w.instance_seed);
  const LongRopeConfig cfg = classify::gen_longrope_config(r);
  EXPECT_NE(longrope_uses_long(cfg, std::max(w.m1, w.n1) + 1),
            longrope_uses_long(cfg, std::max(w.m2, w.n2) + 1));
  EXPECT_GT(std::fabs(w.s1 - w.s2), w.tolerance);
  bool regime_held = false;
  for (const auto& e : c.evidence) regime_held |= e.property == "regime-shift" && !e.witness;
  EXPECT_TRUE(regime_held);
}

// ---- injected broken subjects (CLASSIFY-5, -7, -8) --------------------------------------------

// A one-pair M-RoPE-like subject: the query's pair is rotated by its t position and the key's by
// key_axis (correct: t as well).
Subject two_lane_mrope(int key_axis) {
  Subject s;
  s.name = "mrope-injected";
  s.family = "rope";
  s.axes = 3;
  s.max_position = std::int64_t{1} << 20;
  s.instance = [key_axis](std::uint64_t seed) {
    classify::Rng r(seed);
    const double f = r.uniform(0.01, 1.0);
    auto content = [f, key_axis](classify::Rng& rr) -> classify::Scorer3 {
      const double q0 = rr.uniform(-1, 1), q1 = rr.uniform(-1, 1), k0 = rr.uniform(-1, 1),
                   k1 = rr.uniform(-1, 1);
      return [=](const classify::Position3& m, const classify::Position3& n) {
        const double am = static_cast<double>(m[0]) * f;
        const double an = static_cast<double>(n[static_cast<std::size_t>(key_axis)]) * f;
        const double qa = q0 * std::cos(am) - q1 * std::sin(am),
                     qb = q1 * std::cos(am) + q0 * std::sin(am);
        const double ka = k0 * std::cos(an) - k1 * std::sin(an),
                     kb = k1 * std::cos(an) + k0 * std::sin(an);
        const double phi = std::max(std::fabs(am), std::fabs(an));
        return classify::Score{qa * ka + qb * kb,
                               (phi + 4.0) * std::hypot(q0, q1) * std::hypot(k0, k1)};
      };
    };
    classify::Instance in;
    in.config = "two-lane m-rope";
    auto a = std::make_shared<classify::Scorer3>(content(r));
    auto b = std::make_shared<classify::Scorer3>(content(r));
    in.score3 = *a;
    in.score = [a](std::int64_t m, std::int64_t n) {
      return (*a)(classify::Position3{m, m, m}, classify::Position3{n, n, n});
    };
    in.score_other_content = [b](std::int64_t m, std::int64_t n) {
      return (*b)(classify::Position3{m, m, m}, classify::Position3{n, n, n});
    };
    return in;
  };
  return s;
}

// Clause: CLASSIFY-5, ROPE-MROPE-6 — a key rotated by the wrong axis is invisible to text
// positions (t = h = w) but the vector shift finds it.
TEST(RopeFamily, WrongAxisForTheKeyChangesTheVerdict) {
  const auto good = classify::classify(two_lane_mrope(0), EngineOptions{});
  const auto bad = classify::classify(two_lane_mrope(1), EngineOptions{});
  EXPECT_EQ(good.depends_on, "offset");
  EXPECT_EQ(good.function_of, "the offset vector (Δt, Δh, Δw)");
  EXPECT_EQ(bad.depends_on, "positions");
  ASSERT_TRUE(bad.witness);
  EXPECT_FALSE(bad.witness->detail.empty());
}

// A NoPE-like subject with a content-independent leak of the query position into the logit
// (leak = true), or none.
Subject nope_with(bool leak, bool temperature) {
  Subject s;
  s.name = "nope-injected";
  s.family = "nope";
  s.instance = [leak, temperature](std::uint64_t seed) {
    classify::Rng r(seed);
    auto content = [leak, temperature](double logit) -> classify::Scorer {
      return [=](std::int64_t m, std::int64_t n) {
        if (n > m) return classify::Score{-std::numeric_limits<double>::infinity(), 0};
        const double tau = temperature ? 1.0 + std::log1p(std::floor((m + 1.0) / 8192.0)) : 1.0;
        const double v = tau * logit + (leak ? 1e-3 * static_cast<double>(m % 5) : 0.0);
        return classify::Score{v, tau * std::fabs(logit) + 1.0};
      };
    };
    classify::Instance in;
    in.config = "nope";
    in.score = content(r.uniform(-1, 1));
    in.score_other_content = content(r.uniform(-1, 1));
    return in;
  };
  return s;
}

// Clause: CLASSIFY-7, CLASSIFY-8, ROPE-NOPE-1 — a position leak makes NoPE's row change from
// none/none; a query temperature gives logit-scale and "m only".
TEST(RopeFamily, PositionLeakAndTemperatureChangeTheNopeVerdict) {
  const auto clean = classify::classify(nope_with(false, false), EngineOptions{});
  EXPECT_EQ(clean.applied_at, "none");
  EXPECT_EQ(clean.depends_on, "none");
  const auto leaky = classify::classify(nope_with(true, false), EngineOptions{});
  EXPECT_NE(leaky.applied_at, "none");
  EXPECT_EQ(leaky.depends_on, "positions");
  const auto temp = classify::classify(nope_with(false, true), EngineOptions{});
  EXPECT_EQ(temp.applied_at, "logit-scale");
  EXPECT_EQ(temp.function_of, "m only (the query's absolute position)");
}

}  // namespace
