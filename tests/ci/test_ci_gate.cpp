// A gate that cannot pass by accident (issue 20: findings 1, 2, 7, 8, 9, 10, 11, 15) and a
// command line whose names line up (issue 22, item 7). Each test runs the built pecheck on an
// example or a test plug-in (tests/ci/plugins/) and reproduces one finding.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "ci_process.hpp"
#include "core/verdict.hpp"

namespace {

using namespace pecheck;
namespace fs = std::filesystem;

ci::Run verify(const std::vector<std::string>& extra, ci::RunSpec spec = {}) {
  spec.argv = {ci::pecheck_bin(), "verify"};
  spec.argv.insert(spec.argv.end(), extra.begin(), extra.end());
  return ci::run(spec);
}

// A refusal: exit 2, one line on stderr naming pecheck, nothing on stdout.
void expect_usage_line(const ci::Run& r) {
  EXPECT_EQ(r.exit_code, exit_code::usage) << r.all();
  EXPECT_EQ(ci::count_lines(r.err), 1) << r.err;
  EXPECT_TRUE(r.err.starts_with("pecheck: ")) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

nlohmann::json report_of(const ci::TempDir& t) { return nlohmann::json::parse(ci::slurp(t / "r/report.json")); }

const nlohmann::json* check_of(const nlohmann::json& report, const std::string& name) {
  for (const auto& c : report.at("checks")) {
    if (c.at("name") == name) return &c;
  }
  return nullptr;
}

// --- finding 1: a filter that selects nothing is a usage error, never a pass --------------------

TEST(GateSelectsNothing, OnlyNamingACheckOfAFunctionNotExportedIsAUsageError) {
  // The cases: the v1 name for a bf16 q+k library, a v2 scheme on a v1-only library,
  // a v1 check on a q+k-only library.
  struct Case {
    std::string lib, only, names;
  };
  for (const Case& c : {Case{"hf_rope_qk", "rope_qk.oracle", "rope_qk.bf16.oracle"},
                        Case{"kernels", "rope_qk", "pec_rope_f32"},
                        Case{"hf_rope_qk", "rope.oracle", "pec_rope_qk_bf16"}}) {
    ci::TempDir t;
    auto r = verify({"--kernel", ci::example(c.lib), "--only", c.only, "--junit", t / "junit.xml"});
    expect_usage_line(r);
    EXPECT_TRUE(has(r.err, "--only " + c.only + " selects no check")) << r.err;
    EXPECT_TRUE(has(r.err, c.names)) << "names what exists: " << r.err;
    EXPECT_FALSE(fs::exists(t / "junit.xml")) << "no 'all 0 checks passed' JUnit file";
  }
}

TEST(GateSelectsNothing, ASelectionOfOnlyStrictChecksIsAUsageErrorThatSaysStrict) {
  auto r = verify({"--kernel", ci::example("kernels"), "--only", "learned.reject.null"});
  expect_usage_line(r);
  EXPECT_TRUE(has(r.err, "--strict")) << r.err;
  // With --strict the same selection runs (and the correct kernel passes it).
  auto s = verify({"--kernel", ci::example("kernels"), "--only", "learned.reject.null", "--strict"});
  EXPECT_EQ(s.exit_code, exit_code::ok) << s.all();
}

TEST(GateSelectsNothing, AccuracyKeyForASchemeNotExportedIsAUsageError) {
  // Issue 22 item 7: --accuracy rope=accurate used to be accepted and ignored for pec_rope_qk_bf16.
  auto r = verify({"--kernel", ci::example("hf_rope_qk"), "--accuracy", "rope=accurate"});
  expect_usage_line(r);
  EXPECT_TRUE(has(r.err, "applies to no function")) << r.err;
  EXPECT_TRUE(has(r.err, "rope_qk.bf16")) << "names the keys that exist: " << r.err;
  // The key of the one naming scheme applies.
  auto ok = verify({"--kernel", ci::example("hf_rope_qk"), "--accuracy", "rope_qk.bf16=field", "--only",
                    "rope_qk.bf16.oracle", "--no-regressions"});
  EXPECT_EQ(ok.exit_code, exit_code::ok) << ok.all();
}

TEST(GateSelectsNothing, UnknownSchemeListsEverySchemeAndSuggests) {
  auto r = verify({"--kernel", ci::example("kernels"), "--accuracy", "rop=field"});
  expect_usage_line(r);
  for (const char* s : {"rope_qk", "rope_cached", "rope_cache", "mrope", "alibi", "sinusoidal"}) {
    EXPECT_TRUE(has(r.err, s)) << s << ": " << r.err;
  }
  EXPECT_TRUE(has(r.err, "did you mean 'rope'")) << r.err;
}

// --- issue 22 item 7: one naming scheme, --list-checks, suggestions, readable bounds ---------------

TEST(GateNaming, ListChecksNamesTheChecksOfTheExportedFunctions) {
  auto r = verify({"--kernel", ci::example("hf_rope_qk"), "--list-checks"});
  EXPECT_EQ(r.exit_code, exit_code::ok) << r.all();
  EXPECT_TRUE(has(r.out, "rope_qk.bf16.oracle  pec_rope_qk_bf16")) << r.out;
  EXPECT_FALSE(has(r.out, "rope.oracle")) << r.out;
  EXPECT_TRUE(has(r.out, "[--strict]")) << "tier-B checks say when they run: " << r.out;
}

TEST(GateNaming, Float32NamesMayCarryTheirDtype) {
  // rope.f32.oracle names rope.oracle (float32's names carry no dtype part), never rope.bf16.*.
  ci::TempDir t;
  auto r = verify({"--kernel", ci::example("kernels"), "--only", "rope.f32.oracle", "--no-regressions", "--report",
                   t / "r"});
  EXPECT_EQ(r.exit_code, exit_code::ok) << r.all();
  const auto j = report_of(t);
  int ran = 0;
  for (const auto& c : j.at("checks")) {
    if (c.at("status") == "skipped") continue;
    ++ran;
    EXPECT_EQ(c.at("name"), "rope.oracle");
  }
  EXPECT_EQ(ran, 1);
  auto a = verify({"--kernel", ci::example("kernels"), "--only", "rope.oracle", "--accuracy", "rope.f32=accurate",
                   "--no-regressions"});
  EXPECT_EQ(a.exit_code, exit_code::ok) << a.all();
}

TEST(GateNaming, MisspeltOptionsChecksAndClassesGetASuggestion) {
  auto o = verify({"--kernel", ci::example("kernels"), "--budget-second", "3"});
  EXPECT_EQ(o.exit_code, exit_code::usage);
  EXPECT_TRUE(has(o.err, "did you mean '--budget-seconds'")) << o.err;
  auto c = verify({"--kernel", ci::example("kernels"), "--only", "rope.oracel"});
  expect_usage_line(c);
  EXPECT_TRUE(has(c.err, "did you mean 'rope.oracle'")) << c.err;
  auto k = verify({"--kernel", ci::example("kernels"), "--accuracy", "rope=powff"});
  expect_usage_line(k);
  EXPECT_TRUE(has(k.err, "powf")) << k.err;
  auto d = verify({"--kernel", ci::example("kernels"), "--domain", "rope.layot=neox"});
  expect_usage_line(d);
  EXPECT_TRUE(has(d.err, "did you mean 'rope.layout'")) << d.err;
}

TEST(GateNaming, BoundsAreReadable) {
  for (const char* opt : {"--budget-seconds", "--call-timeout"}) {
    auto r = verify({"--kernel", ci::example("kernels"), opt, "-1"});
    EXPECT_EQ(r.exit_code, exit_code::usage) << r.all();
    EXPECT_LT(r.err.size(), 300u) << r.err;
    EXPECT_TRUE(has(r.err, "must be >") || has(r.err, "must be a number")) << r.err;
  }
}

TEST(GateNaming, NoCorpusLineWithoutCorpusWhenNothingReplayed) {
  auto r = verify({"--kernel", ci::example("kernels"), "--only", "learned.lookup"});
  EXPECT_EQ(r.exit_code, exit_code::ok) << r.all();
  EXPECT_FALSE(has(r.out, "corpus: replayed 0")) << r.out;
  EXPECT_TRUE(has(r.out, "tested: pec_learned_f32 (1 checks)")) << "the functions tested lead: " << r.out;
}

// --- finding 9: incomplete has its own exit status ---------------------------------------------

TEST(GateIncomplete, ExitsFiveNotOne) {
  // A slow (4 ms per call) but correct kernel under a cap far below its run time: nothing fails,
  // checks are cut short. The cap counts loading; 2 s leaves room for a loaded machine.
  ci::TempDir t;
  auto r = verify({"--kernel", ci::ci_plugin("slow_correct"), "--budget-seconds", "2", "--report", t / "r", "--jobs",
                   "1"});
  ASSERT_EQ(r.exit_code, exit_code::incomplete) << r.all();
  EXPECT_EQ(report_of(t).at("verdict"), "incomplete");
}

// --- finding 10: a library name without a slash is a file in the current folder ----------------

TEST(GateKernelPath, NameWithoutSlashIsInTheCurrentFolder) {
  ci::TempDir t;
  fs::copy_file(ci::example("kernels"), t / "libmine.so");
  ci::RunSpec s;
  s.cwd = t.path;
  auto r = verify({"--kernel", "libmine.so", "--only", "learned.lookup"}, s);
  EXPECT_EQ(r.exit_code, exit_code::ok) << r.all();
}

// --- finding 2: exports that look like ABI functions --------------------------------------------

TEST(GateStrayExports, OnlyMisspeltNamesAreExplainedNotNoExports) {
  auto r = verify({"--kernel", ci::ci_plugin("stray_only")});
  expect_usage_line(r);
  EXPECT_TRUE(has(r.err, "pec_rope_bf16_qk")) << r.err;
  EXPECT_TRUE(has(r.err, "did you mean pec_rope_qk_bf16")) << r.err;
  EXPECT_FALSE(has(r.err, "exports no pec_* function")) << r.err;
}

TEST(GateStrayExports, MangledCppNamesSayExternCIsMissing) {
  auto r = verify({"--kernel", ci::ci_plugin("mangled")});
  expect_usage_line(r);
  EXPECT_TRUE(has(r.err, "extern \"C\"")) << r.err;
  EXPECT_TRUE(has(r.err, "pec_rope_qk_bf16")) << r.err;
}

TEST(GateStrayExports, ACorrectFunctionBesideAMisspeltOneWarnsAndFailsStrict) {
  // By default the correct pec_learned_f32 is verified and passes, with a warning naming the
  // ignored pec_rope_qk_fp32 and the name it was meant as.
  ci::TempDir t;
  auto r = verify({"--kernel", ci::ci_plugin("stray_plus_correct"), "--report", t / "r"});
  EXPECT_EQ(r.exit_code, exit_code::ok) << r.all();
  EXPECT_TRUE(has(r.out, "warning: ")) << r.out;
  EXPECT_TRUE(has(r.out, "pec_rope_qk_fp32 (not an ABI name; did you mean pec_rope_qk_f32?)")) << r.out;
  EXPECT_TRUE(has(r.out, "tested: pec_learned_f32")) << r.out;
  // --strict fails the run on it.
  ci::TempDir t2;
  auto s = verify({"--kernel", ci::ci_plugin("stray_plus_correct"), "--strict", "--report", t2 / "r"});
  EXPECT_EQ(s.exit_code, exit_code::counterexample) << s.all();
  const auto report = report_of(t2);
  const auto* c = check_of(report, "abi.exports");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->at("status"), "fail");
  // --list-checks names it too.
  auto l = verify({"--kernel", ci::ci_plugin("stray_plus_correct"), "--list-checks"});
  EXPECT_EQ(l.exit_code, exit_code::ok) << l.all();
  EXPECT_TRUE(has(l.out, "not verified: pec_rope_qk_fp32")) << l.out;
}

// --- finding 8: stored cases outside the run's options are skipped ------------------------------

TEST(GateStoredCases, BeyondMaxPositionAreSkippedWithANoteAndTheSearchRuns) {
  // BLOOM's key-only ALiBi: the shipped ALiBi regressions call positions up to 131071; under
  // --max-position 8192 they are outside the run, so the random search decides the verdict.
  ci::TempDir t;
  auto r = verify({"--kernel", ci::example("alibi_bloom_key_only"), "--contract", "softmax", "--max-position", "8192",
                   "--only", "alibi.oracle", "--report", t / "r"});
  ASSERT_TRUE(r.exit_code == exit_code::ok || r.exit_code == exit_code::counterexample) << r.all();
  EXPECT_TRUE(has(r.out, "beyond --max-position 8192: not replayed")) << r.out;
  const auto report = report_of(t);
  const auto* c = check_of(report, "alibi.oracle");
  ASSERT_NE(c, nullptr);
  EXPECT_NE(c->value("reason", ""), "a stored counterexample fails again; random search skipped") << c->dump();
  EXPECT_GT(c->at("cases").get<long long>(), 1) << "the random search ran";
}

// --- finding 7: --require-resolved --------------------------------------------------------------

// Clause: PREC-CLASS-4
TEST(GateRequireResolved, FailsAKernelThatStopsRotatingPast2To23Rad) {
  const std::vector<std::string> opts = {"--max-position", "2147483647", "--only", "rope.oracle", "--no-regressions"};
  auto with = [&](const std::string& lib, std::vector<std::string> extra) {
    std::vector<std::string> a = {"--kernel", lib};
    a.insert(a.end(), opts.begin(), opts.end());
    a.insert(a.end(), extra.begin(), extra.end());
    return verify(a);
  };
  // The default class allows the loss (float32 carries no angle there): pass, with a note only.
  auto plain = with(ci::ci_plugin("rope_unresolved"), {});
  EXPECT_EQ(plain.exit_code, exit_code::ok) << plain.all();
  // Demanded: fails, naming the clause; a kernel whose angles are exact passes the same demand.
  auto demanded = with(ci::ci_plugin("rope_unresolved"), {"--require-resolved", "2147483647"});
  EXPECT_EQ(demanded.exit_code, exit_code::counterexample) << demanded.all();
  EXPECT_TRUE(has(demanded.out, "not resolved")) << demanded.out;
  auto exact = with(ci::example("c_kernels"), {"--require-resolved", "2147483647"});
  EXPECT_EQ(exact.exit_code, exit_code::ok) << exact.all();
  // Below the loss the same kernel meets the demand.
  auto low = with(ci::ci_plugin("rope_unresolved"), {"--require-resolved", "4000000"});
  EXPECT_EQ(low.exit_code, exit_code::ok) << low.all();
  // A demand beyond the tested positions is a usage error.
  auto beyond = verify({"--kernel", ci::example("c_kernels"), "--require-resolved", "200000"});
  expect_usage_line(beyond);
}

// --- finding 15 and 11: domain rules for parameters not taken and for cache dtypes --------------

// Clause: ABI-DOM-5
TEST(GateDomainRules, ParametersNotTakenAreNotGenerated) {
  // hf_rope with position_scale ignored fails by default; declared "not taken", it is correct.
  const std::vector<std::string> base = {"--kernel", ci::example("cat_ignore_scale"), "--only", "rope.oracle",
                                         "--no-regressions"};
  auto plain = verify(base);
  EXPECT_EQ(plain.exit_code, exit_code::counterexample) << plain.all();
  auto declared = base;
  declared.insert(declared.end(), {"--domain", "rope.position_scale=1"});
  auto d = verify(declared);
  EXPECT_EQ(d.exit_code, exit_code::ok) << d.all();
  // attn_factor: a kernel applying it twice is right when it is always 1.
  const std::vector<std::string> qk = {"--kernel", ci::example("rope_attn_twice"), "--only", "rope_qk.oracle",
                                       "--no-regressions"};
  auto twice = verify(qk);
  EXPECT_EQ(twice.exit_code, exit_code::counterexample) << twice.all();
  auto qkd = qk;
  qkd.insert(qkd.end(), {"--domain", "rope.attn_factor=1"});
  auto one = verify(qkd);
  EXPECT_EQ(one.exit_code, exit_code::ok) << one.all();
  // Any other value is refused: the rule says "not taken".
  auto bad = verify({"--kernel", ci::example("kernels"), "--domain", "rope.position_scale=2"});
  expect_usage_line(bad);
}

// Clause: ABI-DOM-6
TEST(GateDomainRules, ACachedRotationDeclaresTheCacheDtypesItTakes) {
  // vLLM/SGLang CPU style: the cache in the function's own dtype only. Declared: passes.
  const std::vector<std::string> opts = {"--only", "rope_cached.bf16.oracle", "--no-regressions"};
  auto run = [&](const std::string& lib, std::vector<std::string> extra) {
    std::vector<std::string> a = {"--kernel", ci::example(lib)};
    a.insert(a.end(), opts.begin(), opts.end());
    a.insert(a.end(), extra.begin(), extra.end());
    return verify(a);
  };
  auto declared = run("vllm_cpu_rope", {});
  EXPECT_EQ(declared.exit_code, exit_code::ok) << declared.all();
  // Undeclared, the float32-cache contract stands: a valid call with a float32 cache is rejected.
  auto undeclared = run("vllm_cpu_rope_undeclared", {});
  EXPECT_EQ(undeclared.exit_code, exit_code::counterexample) << undeclared.all();
  // The same rule on the command line.
  auto cli = run("vllm_cpu_rope_undeclared", {"--domain", "rope_cached.cache_dtype=own"});
  EXPECT_EQ(cli.exit_code, exit_code::ok) << cli.all();
}

}  // namespace
