// `pecheck classify --kernel LIB.so` (spec/README.md CLASSIFY-9): the two axes measured through a
// library's own exported functions, right in both directions — honest relative kernels are
// called relative, a "relative" kernel that is secretly position-dependent (dynamic NTK and
// LongRoPE switches, BLOOM's key-only ALiBi) is named as such with a witness that really breaks
// the claim, and a kernel that crashes is an error, never a classification.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "e2e.hpp"

namespace pecheck::e2e {
namespace {

struct Classified {
  ProcessResult proc;
  nlohmann::json json;
};

Classified classify_kernel(const std::string& lib, std::vector<std::string> extra = {}) {
  std::vector<std::string> argv{pecheck_bin(), "classify", "--kernel", lib, "--format", "json"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  Classified c;
  c.proc = run_process(argv, kRunTimeoutSeconds);
  if (c.proc.exit_code == 0 || c.proc.exit_code == 1) c.json = nlohmann::json::parse(c.proc.out);
  return c;
}

const nlohmann::json& encoding(const Classified& c, const std::string& name) {
  for (const auto& e : c.json.at("encodings")) {
    if (e.at("name") == name) return e;
  }
  static const nlohmann::json none;
  ADD_FAILURE() << "no classification named " << name << " in " << c.proc.out;
  return none;
}

std::string plugin(const std::string& name) { return std::string(PECHECK_CLASSIFY_PLUGINS) + "/lib" + name + ".so"; }

// Clause: CLASSIFY-9 CLASSIFY-4
TEST(ClassifyKernel, HonestExampleKernelsGetTheirEncodingsAxes) {
  const auto c = classify_kernel(example_lib("kernels"));
  ASSERT_EQ(c.proc.exit_code, 0) << c.proc.err << c.proc.out;
  const auto& rope = encoding(c, "kernel:pec_rope_f32");
  EXPECT_EQ(rope.at("applied_at"), "qk-rotation");
  EXPECT_EQ(rope.at("depends_on"), "offset");
  EXPECT_TRUE(rope.at("witness").is_null());
  EXPECT_EQ(encoding(c, "kernel:pec_alibi_bias_f32:symmetric").at("depends_on"), "abs-offset");
  EXPECT_EQ(encoding(c, "kernel:pec_alibi_bias_f32:causal").at("depends_on"), "offset");
  EXPECT_EQ(encoding(c, "kernel:pec_alibi_bias_f32:causal").at("applied_at"), "logits");
  EXPECT_EQ(encoding(c, "kernel:pec_t5_bias_f32:bidirectional").at("depends_on"), "offset");
  for (const char* abs : {"kernel:pec_sinusoidal_f32", "kernel:pec_learned_f32"}) {
    const auto& e = encoding(c, abs);
    EXPECT_EQ(e.at("applied_at"), "input") << abs;
    EXPECT_EQ(e.at("depends_on"), "positions") << abs;
    ASSERT_FALSE(e.at("witness").is_null()) << abs;
    // The witness has one offset and two different scores beyond the tolerance.
    const auto& w = e.at("witness");
    EXPECT_EQ(w.at("first").at("n").get<long long>() - w.at("first").at("m").get<long long>(),
              w.at("second").at("n").get<long long>() - w.at("second").at("m").get<long long>());
    EXPECT_GT(std::abs(w.at("first").at("score").get<double>() - w.at("second").at("score").get<double>()),
              w.at("tolerance").get<double>());
  }
}

// Clause: CLASSIFY-9
TEST(ClassifyKernel, FieldFloat32RopeKernelsAreRelativeWithinTheirAccuracyClass) {
  // ggml's running product and HF's powf angles are float32 kernels with errors growing with
  // the position; the score tolerance is their class's contract, so rounding is not mistaken
  // for a position dependence.
  for (const char* k : {"hf_rope", "ggml_rope"}) {
    const auto c = classify_kernel(example_lib(k));
    ASSERT_EQ(c.proc.exit_code, 0) << k << c.proc.err;
    const auto& rope = encoding(c, "kernel:pec_rope_f32");
    EXPECT_EQ(rope.at("depends_on"), "offset") << k << rope.dump();
  }
}

// straddle: the witness's two pairs lie on either side of the switch (a table switch: within one
// side the kernel is offset-only); otherwise at least one lies beyond it (dynamic NTK's base keeps
// growing with the length past the switch, so two lengths beyond it differ too).
void expect_switch_witness(const std::string& lib, std::int64_t switch_len, bool straddle) {
  const auto c = classify_kernel(lib);
  ASSERT_EQ(c.proc.exit_code, 0) << c.proc.err;
  const auto& rope = encoding(c, "kernel:pec_rope_f32");
  EXPECT_EQ(rope.at("depends_on"), "positions") << rope.dump();
  ASSERT_FALSE(rope.at("witness").is_null());
  const auto& w = rope.at("witness");
  const auto len = [](const nlohmann::json& p) {
    return std::max(p.at("m").get<std::int64_t>(), p.at("n").get<std::int64_t>()) + 1;
  };
  const bool beyond1 = len(w.at("first")) > switch_len, beyond2 = len(w.at("second")) > switch_len;
  if (straddle) {
    EXPECT_NE(beyond1, beyond2) << w.dump();
  } else {
    EXPECT_TRUE(beyond1 || beyond2) << w.dump();
  }
  EXPECT_GT(w.at("shrink_steps").get<int>(), 0);
}

// Clause: CLASSIFY-9 ROPE-SCALE-DYN-2
TEST(ClassifyKernel, DynamicNtkKernelIsPositionDependentAcrossItsSwitch) {
  expect_switch_witness(plugin("rope_dynamic_ntk"), 4096, false);
}

// Clause: CLASSIFY-9
TEST(ClassifyKernel, LongRopeKernelIsPositionDependentAcrossItsSwitch) {
  expect_switch_witness(plugin("rope_longrope_switch"), 4096, true);
}

// Clause: CLASSIFY-9 ROPE-ATTN-1
TEST(ClassifyKernel, TemperatureScaledQueryIsPositionDependentAcrossItsBlocks) {
  const auto c = classify_kernel(plugin("rope_qk_temperature"));
  ASSERT_EQ(c.proc.exit_code, 0) << c.proc.err;
  const auto& e = encoding(c, "kernel:pec_rope_qk_f32");
  EXPECT_EQ(e.at("depends_on"), "positions") << e.dump();
  ASSERT_FALSE(e.at("witness").is_null());
  const auto& w = e.at("witness");
  // The scale is a step function of the query position's 8192-block ((p + 1) / 8192): the two
  // queries of the witness sit in different blocks.
  EXPECT_NE((w.at("first").at("m").get<std::int64_t>() + 1) / 8192, (w.at("second").at("m").get<std::int64_t>() + 1) / 8192)
      << w.dump();
}

// Clause: CLASSIFY-9 PREC-SOFTMAX-1
TEST(ClassifyKernel, BloomKeyOnlyAlibiIsPositionDependentButSoftmaxInvariant) {
  const auto c = classify_kernel(example_lib("alibi_bloom_key_only"));
  ASSERT_EQ(c.proc.exit_code, 0) << c.proc.err;
  // The example is BLOOM's form in causal mode only; its symmetric mode is the offset form.
  const auto& causal = encoding(c, "kernel:pec_alibi_bias_f32:causal");
  EXPECT_EQ(causal.at("depends_on"), "positions") << causal.dump();
  EXPECT_FALSE(causal.at("witness").is_null());
  EXPECT_TRUE(causal.at("softmax_row_invariant").get<bool>());
  EXPECT_EQ(encoding(c, "kernel:pec_alibi_bias_f32:symmetric").at("depends_on"), "abs-offset");
}

// Clause: CLASSIFY-9 ABI-GEN-7
TEST(ClassifyKernel, CrashingKernelIsAnErrorNotAClassification) {
  const auto c = classify_kernel(example_lib("alibi_crash"));
  EXPECT_EQ(c.proc.exit_code, 1) << c.proc.out << c.proc.err;
  ASSERT_TRUE(c.json.is_object());
  ASSERT_FALSE(c.json.at("errors").empty());
  EXPECT_NE(c.json.at("errors")[0].get<std::string>().find("pec_alibi_bias_f32"), std::string::npos);
  for (const auto& e : c.json.at("encodings")) EXPECT_EQ(e.at("family"), "alibi") << "only alibi is exported? " << e.dump();
}

// Clause: CLASSIFY-9 ABI-GEN-1
TEST(ClassifyKernel, UnloadableLibraryIsAUsageError) {
  const auto p = run_process({pecheck_bin(), "classify", "--kernel", "/nonexistent/libnothing.so"}, kRunTimeoutSeconds);
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_EQ(std::count(p.err.begin(), p.err.end(), '\n'), 1) << p.err;
}

}  // namespace
}  // namespace pecheck::e2e
