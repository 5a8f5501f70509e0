// The failure corpus (src/verify/corpus.hpp) and the shipped regression vectors (regressions/):
// the file format replays bit-exact and rejects what it cannot check; `pecheck verify --corpus`
// stores counterexamples, replays them first (a regression is caught without random search),
// reports fixed ones, and works from another folder; the regressions catch the field bugs of
// the example plug-ins by default and are passed by correct kernels.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "ci_process.hpp"
#include "core/error.hpp"
#include "core/verdict.hpp"
#include "verify/corpus/corpus.hpp"
#include "verify/corpus/corpus_cases.hpp"

namespace {

using namespace pecheck::verifier;
using pecheck::ci::TempDir;
namespace fs = std::filesystem;

CorpusEntry sample() {
  CorpusEntry e;
  e.check = "rope.oracle";
  e.function = "pec_rope_f32";
  e.clause = "ABI-ROPE-2";
  e.kind = "mismatch";
  e.message = "y differs\nfrom the exact rotation";  // a newline must not break the file
  e.seed = 18446744073709551615ull;
  e.case_index = 17;
  e.kernel = "lib/with space.so";
  e.kernel_id = "fnv1a64=0123456789abcdef bytes=10";
  e.pecheck_version = "0.1.0";
  e.max_position = 131072;
  e.args = {{"n_tokens", std::int64_t{2}},
            {"n_heads", std::int64_t{1}},
            {"head_dim", std::int64_t{2}},
            {"rotary_dim", std::int64_t{2}},
            {"layout", std::int64_t{0}},
            {"theta_base", 10000.0},
            {"position_scale", 0.1},
            {"positions", std::vector<std::int64_t>{0, 2147483647}},
            {"inv_freq", std::monostate{}}};
  e.inputs = {{"x",
               {2, 1, 2},
               {-0.0f, std::bit_cast<float>(0x7fa00001u) /* signalling NaN */, 1e-45f,
                -std::numeric_limits<float>::infinity()}}};
  return e;
}

std::string render_without(const CorpusEntry& e, const std::string& line_prefix) {
  std::string text = render_corpus_entry(e), out;
  std::size_t p = 0;
  while (p < text.size()) {
    const auto nl = text.find('\n', p);
    const std::string line = text.substr(p, nl - p + 1);
    if (!line.starts_with(line_prefix)) out += line;
    p = nl + 1;
  }
  return out;
}

TEST(CorpusFormat, RoundTripIsBitExact) {
  const CorpusEntry e = sample();
  const CorpusEntry back = parse_corpus_entry(render_corpus_entry(e));
  EXPECT_EQ(back.check, e.check);
  EXPECT_EQ(back.seed, e.seed);
  EXPECT_EQ(back.case_index, 17);
  EXPECT_EQ(back.kernel, e.kernel);
  EXPECT_EQ(back.message, "y differs from the exact rotation");
  ASSERT_EQ(back.args.size(), e.args.size());
  for (std::size_t i = 0; i < e.args.size(); ++i) {
    EXPECT_EQ(back.args[i].name, e.args[i].name);
    EXPECT_EQ(back.args[i].value.index(), e.args[i].value.index()) << e.args[i].name;
  }
  EXPECT_EQ(std::get<double>(back.args[6].value), 0.1);  // not exactly representable in decimal
  ASSERT_EQ(back.inputs.size(), 1u);
  ASSERT_EQ(back.inputs[0].values.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(std::bit_cast<std::uint32_t>(back.inputs[0].values[i]), std::bit_cast<std::uint32_t>(e.inputs[0].values[i]))
        << "element " << i;
  }
  EXPECT_EQ(back.inputs[0].shape, (std::vector<std::int64_t>{2, 1, 2}));
  EXPECT_EQ(render_corpus_entry(back), render_corpus_entry(e));
}

TEST(CorpusFormat, FileNameIsContentAddressed) {
  CorpusEntry a = sample(), b = sample();
  b.seed = 3, b.kernel = "elsewhere.so", b.message = "other words";  // provenance only
  EXPECT_EQ(a.file_name(), b.file_name());
  EXPECT_TRUE(a.file_name().starts_with("rope.oracle-"));
  EXPECT_TRUE(a.file_name().ends_with(".case"));
  b.inputs[0].values[0] = 1.0f;
  EXPECT_NE(a.file_name(), b.file_name());
}

TEST(CorpusFormat, RejectsWhatItCannotCheck) {
  const std::string good = render_corpus_entry(sample());
  const auto rejects = [](const std::string& text) {
    EXPECT_THROW(parse_corpus_entry(text, "t.case"), pecheck::UsageError) << text.substr(0, 400);
  };
  rejects("");
  rejects("hello\n");
  rejects(render_without(sample(), "end"));                     // truncated
  rejects(good + "arg extra int 1\n");                          // text after end
  rejects("pecheck-corpus 2\ncheck rope.oracle\nfunction pec_rope_f32\nend\n");  // future format
  rejects("pecheck-corpus 1\ncheck rope.oracle\nend\n");        // no function
  rejects("pecheck-corpus 1\ncheck ../../etc/passwd\nfunction f\nend\n");  // not a name
  rejects("pecheck-corpus 1\ncheck a\nfunction f\ncolour blue\nend\n");
  rejects("pecheck-corpus 1\ncheck a\nfunction f\narg n int 1\narg n int 2\nend\n");
  rejects("pecheck-corpus 1\ncheck a\nfunction f\narg n int 99999999999999999999\nend\n");
  rejects("pecheck-corpus 1\ncheck a\nfunction f\narg n real 0x1.zp+0\nend\n");
  rejects("pecheck-corpus 1\ncheck a\nfunction f\narg n complex 1\nend\n");
  rejects("pecheck-corpus 1\ncheck a\nfunction f\ntensor x 1 0x1.0000001p+0\nend\n");  // not a float
  rejects("pecheck-corpus 1\ncheck a\nfunction f\ntensor x 1 nan(0x3f800000)\nend\n");  // 1.0f, not a NaN
  rejects("pecheck-corpus 1\ncheck a\nfunction f\narg r real 1e999\nend\n");
}

TEST(CorpusFormat, MessagesNameFileAndLine) {
  try {
    parse_corpus_entry("pecheck-corpus 1\ncheck a\nfunction f\narg n int x\nend\n", "dir/x.case");
    FAIL() << "accepted a bad integer";
  } catch (const pecheck::UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("dir/x.case"), std::string::npos) << m;
    EXPECT_NE(m.find("line 4"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

TEST(CorpusFormat, ReplayNeedsAConsistentCall) {
  CorpusEntry e = sample();
  e.inputs[0].values = {0.5f, 0.25f, 1.0f, 2.0f};
  EXPECT_NO_THROW(validate_entry(e));
  CorpusEntry short_x = e;
  short_x.inputs[0].values.pop_back();  // 3 values for 2 x 1 x 2
  EXPECT_THROW(validate_entry(short_x), pecheck::UsageError);
  CorpusEntry bad_pos = e;
  bad_pos.args[7].value = std::vector<std::int64_t>{0, std::int64_t{1} << 31};  // outside [0, 2^31)
  EXPECT_THROW(validate_entry(bad_pos), pecheck::UsageError);  // invalid, but rope.oracle takes valid calls
  bad_pos.check = "rope.reject";
  EXPECT_NO_THROW(validate_entry(bad_pos));  // a rejection case may break the domain
  // A pre-split rejection entry replays under the check of the rule it breaks (ABI-GEN-8).
  EXPECT_EQ(current_check_name(bad_pos), "rope.reject.positions");
  bad_pos.check = "rope.reject.positions";
  EXPECT_NO_THROW(validate_entry(bad_pos));
  EXPECT_EQ(current_check_name(bad_pos), "rope.reject.positions");
  CorpusEntry valid_reject = e;
  valid_reject.check = "rope.reject";
  EXPECT_THROW(current_check_name(valid_reject), pecheck::UsageError);  // a valid call is no rejection case
  CorpusEntry huge = e;
  huge.args[0].value = std::int64_t{1} << 40;
  EXPECT_THROW(validate_entry(huge), pecheck::UsageError);
  CorpusEntry wrong_fn = e;
  wrong_fn.function = "pec_alibi_bias_f32";
  EXPECT_THROW(validate_entry(wrong_fn), pecheck::UsageError);
  CorpusEntry unknown = e;
  unknown.args.push_back({"colour", std::string("blue")});
  EXPECT_THROW(validate_entry(unknown), pecheck::UsageError);
}

TEST(CorpusFormat, ShippedRegressionsAreValid) {
  const auto regs = builtin_regressions();
  ASSERT_GE(regs.size(), 6u) << "regressions/*.case must be compiled in (regressions/embed.cmake)";
  for (const auto& e : regs) {
    EXPECT_NO_THROW(validate_entry(e)) << e.source;
    EXPECT_FALSE(e.clause.empty()) << e.source;
  }
}

// --- the command line -------------------------------------------------------------------

nlohmann::json report_json(const std::string& dir) { return nlohmann::json::parse(pecheck::ci::slurp(dir + "/report.json")); }

nlohmann::json check_of(const nlohmann::json& r, const std::string& name) {
  for (const auto& c : r.at("checks")) {
    if (c.at("name") == name) return c;
  }
  throw std::runtime_error("no check " + name);
}

std::string corpus_file_arg(const nlohmann::json& check) {
  for (const auto& [k, v] : check.at("counterexample").at("args").items()) {
    if (k == "corpus_file") return v.get<std::string>();
  }
  return "";
}

TEST(CorpusCli, StoresThenReplaysFirstThenReportsFixed) {
  TempDir t;
  const std::string corpus = t / "corpus";
  const std::string buggy = pecheck::ci::example("rope_layout_swap");
  auto first = pecheck::ci::run({pecheck::ci::pecheck_bin(), "verify", "--kernel", buggy, "--only", "rope.oracle",
                                 "--no-regressions", "--corpus", corpus, "--report", t / "r1"});
  ASSERT_EQ(first.exit_code, pecheck::exit_code::counterexample) << first.all();
  const auto files = pecheck::ci::list_dir(corpus);
  ASSERT_EQ(files.size(), 1u) << first.all();
  EXPECT_TRUE(files[0].starts_with("rope.oracle-")) << files[0];
  const CorpusEntry stored = parse_corpus_entry(pecheck::ci::slurp(corpus + "/" + files[0]));
  EXPECT_EQ(stored.clause, check_of(report_json(t / "r1"), "rope.oracle").at("counterexample").at("clause"));

  // Moved to another folder (another machine's checkout): replayed first, before any search.
  const std::string moved = t / "elsewhere";
  fs::copy(corpus, moved);
  auto again = pecheck::ci::run({pecheck::ci::pecheck_bin(), "verify", "--kernel", buggy, "--only", "rope.oracle",
                                 "--no-regressions", "--corpus", moved, "--report", t / "r2"});
  ASSERT_EQ(again.exit_code, pecheck::exit_code::counterexample) << again.all();
  EXPECT_NE(again.out.find("fails again"), std::string::npos) << again.out;
  const auto& c = check_of(report_json(t / "r2"), "rope.oracle");
  EXPECT_EQ(c.at("cases"), 1) << "the stored case alone decided the check";
  EXPECT_NE(corpus_file_arg(c).find(files[0]), std::string::npos);
  EXPECT_EQ(pecheck::ci::list_dir(moved).size(), 1u) << "nothing new to store";

  // The bug fixed (a correct kernel): the stored case passes and is reported as fixed.
  auto fixed = pecheck::ci::run({pecheck::ci::pecheck_bin(), "verify", "--kernel", pecheck::ci::example("kernels"),
                                 "--only", "rope.oracle", "--corpus", moved});
  EXPECT_EQ(fixed.exit_code, pecheck::exit_code::ok) << fixed.all();
  EXPECT_NE(fixed.out.find("passes now (fixed"), std::string::npos) << fixed.out;
}

// A stored case without provenance ("-" for the kernel and its identity, no case index):
// the note says so instead of "first found on - (-)" (issue #13).
TEST(CorpusCli, ACaseWithoutProvenanceIsNotReportedWithDashes) {
  TempDir t;
  CorpusEntry e = sample();
  e.kernel = "-";
  e.kernel_id = "-";
  e.case_index = -1;
  e.inputs = {{"x", {2, 1, 2}, {0.5f, -0.25f, 1.0f, 0.125f}}};
  store_corpus_entry(t / "c", e);
  auto r = pecheck::ci::run({pecheck::ci::pecheck_bin(), "verify", "--kernel", pecheck::ci::example("kernels"),
                             "--only", "rope.oracle", "--corpus", t / "c"});
  EXPECT_EQ(r.exit_code, pecheck::exit_code::ok) << r.all();
  EXPECT_NE(r.out.find("passes now (fixed; first found (no provenance recorded in the file))"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("(-)"), std::string::npos) << r.out;
}

TEST(CorpusCli, BadCorpusIsAUsageError) {
  TempDir t;
  fs::create_directories(t / "c");
  pecheck::ci::spit(t / "c/rope.oracle-bad.case", "pecheck-corpus 1\ncheck rope.oracle\nfunction pec_rope_f32\n");
  auto r = pecheck::ci::run({pecheck::ci::pecheck_bin(), "verify", "--kernel", pecheck::ci::example("kernels"),
                             "--corpus", t / "c", "--report", t / "r"});
  EXPECT_EQ(r.exit_code, pecheck::exit_code::usage) << r.all();
  EXPECT_EQ(pecheck::ci::count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(t / "r")) << "no report for a run that did not start";
}

TEST(CorpusCli, UnwritableCorpusIsAnOutputError) {
  TempDir t;
  pecheck::ci::spit(t / "file", "not a folder");
  auto r = pecheck::ci::run({pecheck::ci::pecheck_bin(), "verify", "--kernel", pecheck::ci::example("rope_layout_swap"),
                             "--only", "rope.oracle", "--no-regressions", "--corpus", t / "file/corpus"});
  EXPECT_EQ(r.exit_code, pecheck::exit_code::io) << r.all();
  EXPECT_EQ(pecheck::ci::count_lines(r.err), 1) << r.err;
}

// Each field bug the shipped vectors cover, on the example plug-in that reintroduces it: the
// replayed vector (not the random search) reports it, by default; correct kernels pass them.
struct FieldBug {
  const char* kernel;
  const char* check;
};
class Regressions : public ::testing::TestWithParam<FieldBug> {};

TEST_P(Regressions, CaughtByTheShippedVectorFirst) {
  TempDir t;
  auto r = pecheck::ci::run({pecheck::ci::pecheck_bin(), "verify", "--kernel", pecheck::ci::example(GetParam().kernel),
                             "--only", GetParam().check, "--report", t / "r"});
  ASSERT_EQ(r.exit_code, pecheck::exit_code::counterexample) << r.all();
  const auto& c = check_of(report_json(t / "r"), GetParam().check);
  EXPECT_EQ(c.at("status"), "fail");
  EXPECT_TRUE(corpus_file_arg(c).starts_with("regressions/")) << c.dump(2);
}

INSTANTIATE_TEST_SUITE_P(FieldBugs, Regressions,
                         ::testing::Values(FieldBug{"rope_fp16_angle", "rope.oracle"},
                                           FieldBug{"rope_bf16_angle", "rope.oracle"},
                                           FieldBug{"rope_layout_swap", "rope.oracle"},
                                           FieldBug{"rope_partial_drop", "rope.passthrough"},
                                           FieldBug{"alibi_pow2_slopes", "alibi.oracle"},
                                           FieldBug{"t5_sign", "t5.oracle"}),
                         [](const auto& info) { return std::string(info.param.kernel); });

TEST(Regressions, CorrectKernelsPassEveryShippedVector) {
  for (const std::string& lib : {pecheck::ci::example("kernels"), pecheck::ci::example("c_kernels"), pecheck::ci::simd_plugin()}) {
    // --only on the checks the vectors belong to: the replay is what this test is about.
    std::vector<std::string> argv{pecheck::ci::pecheck_bin(), "verify", "--kernel", lib, "--budget-seconds", "0"};
    for (const auto& e : builtin_regressions()) argv.insert(argv.end(), {"--only", e.check});
    auto r = pecheck::ci::run(argv);
    EXPECT_EQ(r.exit_code, pecheck::exit_code::ok) << lib << "\n" << r.all();
  }
}

}  // namespace
