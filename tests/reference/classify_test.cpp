// The classification of `pecheck classify` comes from property runs (spec/README.md,
// CLASSIFY-1..3): the built-in encodings get the classes the spec claims, with witnesses where
// invariance fails, and a broken implementation injected into the engine changes its verdict.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "classify/engine.hpp"
#include "classify/generators.hpp"
#include "classify/report.hpp"
#include "reference/score_model.hpp"

namespace {

using namespace pecheck;
using classify::Classification;
using classify::EngineOptions;
using classify::Subject;

const std::vector<Classification>& builtin_results() {
  static const std::vector<Classification> r = [] {
    std::vector<Classification> out;
    for (const auto& s : classify::builtin_subjects())
      out.push_back(classify::classify(s, EngineOptions{}));
    return out;
  }();
  return r;
}

const Classification& result(const std::string& name) {
  for (const auto& c : builtin_results())
    if (c.name == name) return c;
  throw std::runtime_error("no encoding " + name);
}

struct Expect {
  const char* applied_at;
  const char* depends_on;
  bool softmax;
};

// Clause: CLASSIFY-1, CLASSIFY-2, CLASSIFY-4, SIN-AXIS-1, SIN-AXIS-2, LEARNED-AXIS-1,
// LEARNED-AXIS-2, T5-AXIS-1, T5-AXIS-2, ROPE-AXIS-1, ROPE-AXIS-2, ROPE-SCALE-REL-1,
// ROPE-SCALE-DYN-2, ALIBI-AXIS-1, ALIBI-AXIS-2, ALIBI-SOFTMAX-1 — the spec's table (spec/README.md)
// from runs.
TEST(Classify, BuiltinEncodingsGetTheSpecsClasses) {
  const std::map<std::string, Expect> want = {
      {"sinusoidal", {"input", "positions", false}},
      {"sinusoidal-concat", {"input", "positions", false}},
      {"learned", {"input", "positions", false}},
      {"t5-bidirectional", {"logits", "offset", true}},
      {"t5-causal", {"logits", "offset", true}},
      {"rope-neox", {"qk-rotation", "offset", true}},
      {"rope-gptj", {"qk-rotation", "offset", true}},
      {"rope-neox-partial", {"qk-rotation", "offset", true}},
      {"rope-gptj-partial", {"qk-rotation", "offset", true}},
      {"rope-neox-linear", {"qk-rotation", "offset", true}},
      {"rope-neox-ntk", {"qk-rotation", "offset", true}},
      {"rope-neox-dynamic-ntk", {"qk-rotation", "positions", false}},
      {"rope-neox-yarn", {"qk-rotation", "offset", true}},
      {"rope-neox-llama3", {"qk-rotation", "offset", true}},
      {"alibi-symmetric", {"logits", "abs-offset", true}},
      {"alibi-causal", {"logits", "offset", true}},
      {"alibi-bloom-key-only", {"logits", "positions", true}},
      // The RoPE family as 2025-26 models ship it (spec/rope.md, issue 14).
      {"rope-longrope", {"qk-rotation", "positions", false}},
      {"llama4-rope-chunked", {"qk-rotation", "positions", false}},
      {"llama4-nope-temperature", {"logit-scale", "positions", false}},
      {"nope", {"none", "none", true}},
      {"mrope-qwen2-vl", {"qk-rotation", "offset", true}},
      {"mrope-qwen3-vl", {"qk-rotation", "offset", true}},
      {"rope-mla-deepseek", {"qk-rotation", "offset", true}},
  };
  EXPECT_EQ(builtin_results().size(), want.size());
  for (const auto& [name, e] : want) {
    const Classification& c = result(name);
    EXPECT_EQ(c.applied_at, e.applied_at) << name;
    EXPECT_EQ(c.depends_on, e.depends_on) << name;
    EXPECT_EQ(c.softmax_row_invariant, e.softmax) << name;
    EXPECT_EQ(c.witness.has_value(), std::string(e.depends_on) == "positions") << name;
    EXPECT_GT(c.cases, 0) << name;
  }
}

// Clause: CLASSIFY-3 — witnesses are concrete (same offset, different scores beyond the
// tolerance), shrunk, and reproducible from the seed.
TEST(Classify, WitnessesAreConcreteShrunkAndReproducible) {
  for (const char* name :
       {"sinusoidal", "learned", "rope-neox-dynamic-ntk", "alibi-bloom-key-only"}) {
    const Classification& c = result(name);
    ASSERT_TRUE(c.witness) << name;
    const auto& w = *c.witness;
    EXPECT_EQ(w.n1 - w.m1, w.n2 - w.m2) << name;
    EXPECT_GT(std::fabs(w.s1 - w.s2), w.tolerance) << name;
    std::printf("%s witness: s(%lld,%lld)=%.17g s(%lld,%lld)=%.17g [%s]\n", name,
                static_cast<long long>(w.m1), static_cast<long long>(w.n1), w.s1,
                static_cast<long long>(w.m2), static_cast<long long>(w.n2), w.s2, w.config.c_str());
  }
  // absolute encodings shrink to the smallest positions: (0,0) against (1,1)
  EXPECT_EQ(result("sinusoidal").witness->m2 + result("sinusoidal").witness->n2, 2);
  for (const auto& s : classify::builtin_subjects()) {
    if (s.name != "rope-neox-dynamic-ntk") continue;
    const auto again = classify::classify(s, EngineOptions{});
    ASSERT_TRUE(again.witness);
    EXPECT_EQ(again.witness->m1, result(s.name).witness->m1);
    EXPECT_EQ(again.witness->n1, result(s.name).witness->n1);
    EXPECT_EQ(again.witness->s2, result(s.name).witness->s2);
  }
}

// A two-lane RoPE-like subject whose angle is angle_of(p) * f: the correct angle is p; a broken
// one uses p^2 (angle no longer linear in the position).
Subject two_lane_rope(const std::string& name, double (*angle_of)(std::int64_t)) {
  Subject s;
  s.name = name;
  s.family = "rope";
  s.max_position = std::int64_t{1} << 20;
  s.instance = [angle_of](std::uint64_t seed) {
    classify::Rng r(seed);
    const double f = r.uniform(0.01, 1.0);
    // one scorer per token content (q, k); the frequency is shared
    auto content = [angle_of, f](classify::Rng& rr) -> classify::Scorer {
      const double q0 = rr.uniform(-1, 1), q1 = rr.uniform(-1, 1), k0 = rr.uniform(-1, 1),
                   k1 = rr.uniform(-1, 1);
      return [=](std::int64_t m, std::int64_t n) {
        const double am = angle_of(m) * f, an = angle_of(n) * f;
        const double qa = q0 * std::cos(am) - q1 * std::sin(am),
                     qb = q1 * std::cos(am) + q0 * std::sin(am);
        const double ka = k0 * std::cos(an) - k1 * std::sin(an),
                     kb = k1 * std::cos(an) + k0 * std::sin(an);
        const double phi = std::max(std::fabs(am), std::fabs(an));
        const double mag = (phi + 4.0) * std::hypot(q0, q1) * std::hypot(k0, k1);
        return classify::Score{qa * ka + qb * kb, mag};
      };
    };
    classify::Instance in;
    in.config = "two-lane";
    in.score = content(r);
    in.score_other_content = content(r);
    return in;
  };
  return s;
}

// Clause: CLASSIFY-1, ROPE-REL-1 — inject a RoPE whose angle uses position^2: the verdict flips
// from offset to positions, with a witness.
TEST(Classify, BrokenRopeAngleChangesTheVerdict) {
  const auto good = classify::classify(
      two_lane_rope("good", [](std::int64_t p) { return static_cast<double>(p); }),
      EngineOptions{});
  const auto bad = classify::classify(
      two_lane_rope("p-squared",
                    [](std::int64_t p) { return static_cast<double>(p) * static_cast<double>(p); }),
      EngineOptions{});
  EXPECT_EQ(good.depends_on, "offset");
  EXPECT_FALSE(good.witness);
  EXPECT_EQ(bad.depends_on, "positions");
  ASSERT_TRUE(bad.witness);
  EXPECT_FALSE(bad.softmax_row_invariant);
  // Clause: CLASSIFY-4 — both rotate q and k alike, so both are measured as qk-rotation
  EXPECT_EQ(good.applied_at, "qk-rotation");
  EXPECT_EQ(bad.applied_at, "qk-rotation");
}

// A T5 subject with the bucket taken of `rel_of(m, n)`: correct is n - m; a broken one uses the
// key's absolute position n.
Subject t5_with(std::int64_t (*rel_of)(std::int64_t, std::int64_t)) {
  Subject s;
  s.name = "t5-injected";
  s.family = "t5";
  s.instance = [rel_of](std::uint64_t seed) {
    classify::Rng r(seed);
    const reference::T5Config c = classify::gen_t5_config(r, true);
    auto table = std::make_shared<std::vector<double>>(static_cast<std::size_t>(c.num_buckets));
    for (auto& v : *table) v = r.uniform(-4, 4);
    // one scorer per token content (its logit q.k); the bias table is shared
    auto content = [c, table, rel_of](double logit) -> classify::Scorer {
      return [=](std::int64_t m, std::int64_t n) {
        const std::int64_t b = reference::t5_bucket(c, rel_of(m, n));
        const double bias = (*table)[static_cast<std::size_t>(b)];
        return classify::Score{logit + bias, std::fabs(logit) + std::fabs(bias)};
      };
    };
    classify::Instance in;
    in.config = "t5";
    in.score = content(r.uniform(-1, 1));
    in.score_other_content = content(r.uniform(-1, 1));
    return in;
  };
  return s;
}

// Clause: CLASSIFY-1, T5-REL-1 — a T5 bias of the absolute key position is caught.
TEST(Classify, BrokenT5AbsolutePositionChangesTheVerdict) {
  const auto good = classify::classify(
      t5_with([](std::int64_t m, std::int64_t n) { return n - m; }), EngineOptions{});
  const auto bad =
      classify::classify(t5_with([](std::int64_t, std::int64_t n) { return n; }), EngineOptions{});
  EXPECT_EQ(good.depends_on, "offset");
  EXPECT_EQ(bad.depends_on, "positions");
  ASSERT_TRUE(bad.witness);
  EXPECT_EQ(good.applied_at, "logits");  // Clause: CLASSIFY-4
  EXPECT_EQ(bad.applied_at, "logits");
  // and a bias of |n - m| is classified abs-offset (the swap property holds)
  const auto sym = classify::classify(
      t5_with([](std::int64_t m, std::int64_t n) -> std::int64_t { return n > m ? m - n : n - m; }),
      EngineOptions{});
  EXPECT_EQ(sym.depends_on, "abs-offset");
}

// Clause: CLASSIFY-1 — the JSON document has the shape other tools read (issue 2).
TEST(Classify, JsonShape) {
  const auto j = classify::to_json(builtin_results(), EngineOptions{}.seed);
  ASSERT_TRUE(j.contains("encodings"));
  ASSERT_TRUE(j["encodings"].is_array());
  for (const auto& e : j["encodings"]) {
    for (const char* k : {"name", "family", "applied_at", "depends_on", "softmax_row_invariant",
                          "cases", "witness"}) {
      EXPECT_TRUE(e.contains(k)) << k;
    }
    EXPECT_TRUE(e["softmax_row_invariant"].is_boolean());
    EXPECT_TRUE(e["cases"].is_number_integer());
    if (!e["witness"].is_null()) {
      for (const char* k : {"first", "second"}) {
        EXPECT_TRUE(e["witness"][k].contains("m"));
        EXPECT_TRUE(e["witness"][k].contains("n"));
        EXPECT_TRUE(e["witness"][k].contains("score"));
      }
    }
  }
}

#ifdef PECHECK_BINARY
int run(const std::string& args, std::string* out) {
  FILE* p = popen((std::string(PECHECK_BINARY) + " " + args + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  std::size_t k;
  while ((k = fread(buf, 1, sizeof buf, p)) > 0) out->append(buf, k);
  const int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// Clause: CLASSIFY-1 — the command line: JSON on stdout, exit 0; bad usage exits 2 with a message.
TEST(ClassifyCli, JsonAndBadUsage) {
  std::string out;
  ASSERT_EQ(run("classify --format json --seed 7", &out), 0) << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["encodings"].size(), classify::builtin_subjects().size());
  std::string err;
  EXPECT_EQ(run("classify --format xml", &err), 2) << err;
  EXPECT_NE(err.find("xml"), std::string::npos) << err;
  err.clear();
  EXPECT_EQ(run("classify --only no-such-encoding", &err), 2) << err;
  EXPECT_NE(err.find("unknown encoding"), std::string::npos) << err;
  err.clear();
  EXPECT_EQ(run("classify --seed notanumber", &err), 2) << err;
  for (const char* seed : {"-1", "18446744073709551616"}) {  // no wrap-around, no saturation
    err.clear();
    EXPECT_EQ(run(std::string("classify --seed ") + seed, &err), 2) << seed << ": " << err;
  }
}
#endif

}  // namespace
