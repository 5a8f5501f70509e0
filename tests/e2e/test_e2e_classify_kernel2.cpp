// `pecheck classify --kernel` on the version 2 M-RoPE and cached RoPE functions (spec/README.md
// CLASSIFY-9), with the scalar plug-ins of classify_plugins/mrope_kernel.c and
// rope_cached_kernel.c: an honest kernel is relative (of the offset vector for M-RoPE), a kernel
// that drops axes, indexes the cache by the token or ships a position-dependent builder is named
// as what it is, with evidence or a witness that really shows it.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

#include "e2e.hpp"

namespace pecheck::e2e {
namespace {

struct Classified {
  ProcessResult proc;
  nlohmann::json json;
};

Classified classify_kernel(const std::string& name) {
  const std::string lib = std::string(PECHECK_CLASSIFY_PLUGINS) + "/lib" + name + ".so";
  Classified c;
  c.proc = run_process({pecheck_bin(), "classify", "--kernel", lib, "--format", "json"}, kRunTimeoutSeconds);
  if (c.proc.exit_code == 0 || c.proc.exit_code == 1) c.json = nlohmann::json::parse(c.proc.out);
  return c;
}

const nlohmann::json& encoding(const Classified& c, const std::string& name) {
  for (const auto& e : c.json.at("encodings")) {
    if (e.at("name") == name) return e;
  }
  static const nlohmann::json none = nlohmann::json::object();
  ADD_FAILURE() << "no classification named " << name << " in " << c.proc.out;
  return none;
}

std::size_t count_named(const Classified& c, const std::string& prefix) {
  std::size_t k = 0;
  for (const auto& e : c.json.at("encodings")) k += e.at("name").get<std::string>().rfind(prefix, 0) == 0;
  return k;
}

// The evidence run of `property`; a null json when the classification has none.
nlohmann::json evidence(const nlohmann::json& e, const std::string& property) {
  for (const auto& p : e.at("evidence"))
    if (p.at("property") == property) return p;
  ADD_FAILURE() << "no " << property << " run in " << e.dump();
  return nullptr;
}

bool holds(const nlohmann::json& e, const std::string& property) {
  const auto p = evidence(e, property);
  return p.is_object() && p.at("counterexample").is_null();
}

double score_gap(const nlohmann::json& w) {
  return std::fabs(w.at("first").at("score").get<double>() - w.at("second").at("score").get<double>());
}

// Clause: CLASSIFY-9 ABI-MROPE-3 CLASSIFY-5
TEST(ClassifyKernelV2, HonestMropeIsAFunctionOfTheOffsetVectorInBothLayouts) {
  const auto c = classify_kernel("mrope_honest");
  ASSERT_EQ(c.proc.exit_code, 0) << c.proc.err << c.proc.out;
  // One subject per exported storage type and M-RoPE layout: f32 and bf16, sectioned and interleaved.
  EXPECT_EQ(count_named(c, "kernel:pec_mrope_"), 4u) << c.proc.out;
  for (const char* n : {"kernel:pec_mrope_f32:sectioned", "kernel:pec_mrope_f32:interleaved",
                        "kernel:pec_mrope_bf16:sectioned", "kernel:pec_mrope_bf16:interleaved"}) {
    const auto& e = encoding(c, n);
    EXPECT_EQ(e.at("applied_at"), "qk-rotation") << n << e.dump();
    EXPECT_EQ(e.at("depends_on"), "offset") << n << e.dump();
    EXPECT_EQ(e.at("function_of"), "the offset vector (Δt, Δh, Δw)") << n << e.dump();
    EXPECT_TRUE(e.at("witness").is_null()) << n;
    EXPECT_TRUE(holds(e, "vector-shift")) << n;
    // Every axis enters: changing only its offset moved the score beyond the tolerance.
    for (const char* ax : {"axis-free:t", "axis-free:h", "axis-free:w"}) {
      const auto p = evidence(e, ax);
      ASSERT_TRUE(p.is_object() && p.at("counterexample").is_object()) << n << " " << ax;
      EXPECT_GT(score_gap(p.at("counterexample")), p.at("counterexample").at("tolerance").get<double>()) << n << ax;
    }
  }
  // The drawn configurations name their layout and sections.
  for (const char* l : {"sectioned", "interleaved"}) {
    const auto p = evidence(encoding(c, std::string("kernel:pec_mrope_f32:") + l), "axis-free:h");
    ASSERT_TRUE(p.is_object() && p.at("counterexample").is_object()) << l;
    EXPECT_NE(p.at("counterexample").at("config").get<std::string>().find(std::string("] ") + l), std::string::npos)
        << p.dump();
  }
}

// A declared domain (interleaved only, 128-lane heads, full rotary) is honoured: one subject, with
// Qwen3-VL's sections at 64 pairs.
// Clause: CLASSIFY-9 ABI-DOM-1
TEST(ClassifyKernelV2, MropeSubjectsKeepToTheDeclaredDomain) {
  const auto c = classify_kernel("mrope_interleaved_128");
  ASSERT_EQ(c.proc.exit_code, 0) << c.proc.err << c.proc.out;
  ASSERT_EQ(c.json.at("encodings").size(), 1u) << c.proc.out;
  const auto& e = encoding(c, "kernel:pec_mrope_f32:interleaved");
  EXPECT_EQ(e.at("depends_on"), "offset") << e.dump();
  EXPECT_EQ(e.at("function_of"), "the offset vector (Δt, Δh, Δw)") << e.dump();
  for (const char* ax : {"axis-free:t", "axis-free:h", "axis-free:w"}) {
    const auto p = evidence(e, ax);
    ASSERT_TRUE(p.is_object() && p.at("counterexample").is_object()) << ax;
    const std::string cfg = p.at("counterexample").at("config").get<std::string>();
    EXPECT_NE(cfg.find("head_dim=128 rotary_dim=128 "), std::string::npos) << cfg;
    EXPECT_NE(cfg.find("mrope_section=[24,20,20] interleaved"), std::string::npos) << cfg;
  }
}

// A kernel that rotates every pair by the t row is still relative (its score is a function of Δt)
// but not of the vector: the h and w rows do not enter at all. classify says so: depends_on
// `offset`, function_of "Δt only (the h and w positions do not enter)".
// Clause: CLASSIFY-9 ABI-MROPE-3
TEST(ClassifyKernelV2, MropeKernelUsingTheTRowForEveryPairIsDeltaTOnly) {
  const auto c = classify_kernel("mrope_t_only");
  ASSERT_EQ(c.proc.exit_code, 0) << c.proc.err << c.proc.out;
  for (const char* n : {"kernel:pec_mrope_f32:sectioned", "kernel:pec_mrope_f32:interleaved"}) {
    const auto& e = encoding(c, n);
    EXPECT_EQ(e.at("applied_at"), "qk-rotation") << n << e.dump();
    EXPECT_EQ(e.at("depends_on"), "offset") << n << e.dump();
    EXPECT_EQ(e.at("function_of"), "Δt only (the h and w positions do not enter)") << n << e.dump();
    EXPECT_TRUE(holds(e, "axis-free:h")) << n;
    EXPECT_TRUE(holds(e, "axis-free:w")) << n;
    const auto t = evidence(e, "axis-free:t");
    ASSERT_TRUE(t.is_object() && t.at("counterexample").is_object()) << n;
    const auto& w = t.at("counterexample");
    // Only the t positions changed, and with them the t offset.
    EXPECT_NE(w.at("first").at("n").get<std::int64_t>() - w.at("first").at("m").get<std::int64_t>(),
              w.at("second").at("n").get<std::int64_t>() - w.at("second").at("m").get<std::int64_t>());
    EXPECT_GT(score_gap(w), w.at("tolerance").get<double>());
  }
}

// Clause: CLASSIFY-9 ABI-MROPE-3
TEST(ClassifyKernelV2, MropeKernelScaledByTheAbsoluteTPositionIsPositionDependent) {
  const auto c = classify_kernel("mrope_abs_scale");
  ASSERT_EQ(c.proc.exit_code, 0) << c.proc.err << c.proc.out;
  for (const char* n : {"kernel:pec_mrope_f32:sectioned", "kernel:pec_mrope_f32:interleaved"}) {
    const auto& e = encoding(c, n);
    EXPECT_EQ(e.at("depends_on"), "positions") << n << e.dump();
    ASSERT_TRUE(e.at("witness").is_object()) << n << e.dump();
    const auto& w = e.at("witness");
    EXPECT_EQ(w.at("property"), "vector-shift");
    EXPECT_GT(score_gap(w), w.at("tolerance").get<double>()) << w.dump();
    // first/second m are the query's t positions (before and after the shift): the factor is a
    // step of the 8192-block of t + 1, so the two lie in different blocks.
    EXPECT_NE((w.at("first").at("m").get<std::int64_t>() + 1) / 8192,
              (w.at("second").at("m").get<std::int64_t>() + 1) / 8192)
        << w.dump();
    EXPECT_GT(w.at("shrink_steps").get<int>(), 0);
  }
}

// Clause: CLASSIFY-9
TEST(ClassifyKernelV2, HonestCachedKernelWithItsOwnBuilderIsRelative) {
  const auto c = classify_kernel("rope_cached_honest");
  ASSERT_EQ(c.proc.exit_code, 0) << c.proc.err << c.proc.out;
  // The builders are measured through the cached subjects, not listed as unmeasured.
  EXPECT_TRUE(c.json.at("not_measured").empty()) << c.json.at("not_measured").dump();
  for (const char* st : {"f32", "bf16"}) {
    const auto& e = encoding(c, std::string("kernel:pec_rope_cached_") + st);
    EXPECT_EQ(e.at("applied_at"), "qk-rotation") << st << e.dump();
    EXPECT_EQ(e.at("depends_on"), "offset") << st << e.dump();
    EXPECT_EQ(e.at("function_of"), "n - m") << st;
    EXPECT_TRUE(e.at("witness").is_null()) << st;
    // The configuration says which cache was used: the library's own builder of the storage type.
    const auto p = evidence(e, "position-free");
    ASSERT_TRUE(p.is_object() && p.at("counterexample").is_object()) << st;
    EXPECT_NE(p.at("counterexample").at("config").get<std::string>().find(
                  std::string("cache=pec_rope_cache_") + st + " (the library's builder)"),
              std::string::npos)
        << p.dump();
  }
}

// Without a builder pecheck builds a correctly rounded cache in the storage type (attn_factor 1),
// and the configuration says so.
// Clause: CLASSIFY-9
TEST(ClassifyKernelV2, HonestCachedKernelWithoutABuilderIsRelativeOnPechecksCache) {
  const auto c = classify_kernel("rope_cached_no_builder");
  ASSERT_EQ(c.proc.exit_code, 0) << c.proc.err << c.proc.out;
  for (const char* st : {"f32", "bf16"}) {
    const auto& e = encoding(c, std::string("kernel:pec_rope_cached_") + st);
    EXPECT_EQ(e.at("applied_at"), "qk-rotation") << st << e.dump();
    EXPECT_EQ(e.at("depends_on"), "offset") << st << e.dump();
    EXPECT_TRUE(e.at("witness").is_null()) << st;
    const auto p = evidence(e, "position-free");
    ASSERT_TRUE(p.is_object() && p.at("counterexample").is_object()) << st;
    const std::string cfg = p.at("counterexample").at("config").get<std::string>();
    EXPECT_NE(cfg.find("cache=pecheck's (correctly rounded, attn_factor 1)"), std::string::npos) << cfg;
    EXPECT_NE(cfg.find(std::string("cache_dtype=") + st), std::string::npos) << cfg;
  }
}

// The kernel reads row t (its token index) instead of row positions[t]: whatever the positions,
// both tokens get rows 0 and 1, so no position enters the score at all.
// Clause: CLASSIFY-9 CLASSIFY-7
TEST(ClassifyKernelV2, CachedKernelIndexingByTokenIgnoresThePositions) {
  const auto c = classify_kernel("rope_cached_token_index");
  ASSERT_EQ(c.proc.exit_code, 0) << c.proc.err << c.proc.out;
  const auto& e = encoding(c, "kernel:pec_rope_cached_f32");
  EXPECT_EQ(e.at("applied_at"), "none") << e.dump();
  EXPECT_EQ(e.at("depends_on"), "none") << e.dump();
  EXPECT_EQ(e.at("function_of"), "neither position") << e.dump();
  EXPECT_TRUE(holds(e, "position-free"));
}

// The honest kernel with a builder that interpolates (p / 2) the rows p >= 2048 only: offset-only
// while both positions stay below 2048, so the witness reaches row 2048 or beyond.
// Clause: CLASSIFY-9
TEST(ClassifyKernelV2, CachedKernelWithAPositionDependentBuilderIsPositionDependent) {
  const auto c = classify_kernel("rope_cached_builder_pi");
  ASSERT_EQ(c.proc.exit_code, 0) << c.proc.err << c.proc.out;
  const auto& e = encoding(c, "kernel:pec_rope_cached_f32");
  EXPECT_EQ(e.at("depends_on"), "positions") << e.dump();
  ASSERT_TRUE(e.at("witness").is_object()) << e.dump();
  const auto& w = e.at("witness");
  EXPECT_GT(score_gap(w), w.at("tolerance").get<double>()) << w.dump();
  const auto top = [](const nlohmann::json& p) {
    return std::max(p.at("m").get<std::int64_t>(), p.at("n").get<std::int64_t>());
  };
  EXPECT_TRUE(top(w.at("first")) >= 2048 || top(w.at("second")) >= 2048) << w.dump();
  EXPECT_NE(w.at("config").get<std::string>().find("(the library's builder)"), std::string::npos);
}

}  // namespace
}  // namespace pecheck::e2e
