// Parallel lanes (`pecheck verify --jobs N`, README "Verifying a kernel"): the same cases and the
// same verdicts as one lane, and the library still loaded once. No timing is asserted here (the
// README states measured wall times).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "e2e.hpp"

namespace pecheck::e2e {
namespace {

// Everything a verdict is made of, without the measured times (the only thing lanes change) and
// the call timeout's measured figure inside hang messages ("1 s" vs "1.01 s").
nlohmann::ordered_json verdict_of(const nlohmann::ordered_json& report) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& c : report.at("checks")) {
    nlohmann::ordered_json v{{"name", c.at("name")}, {"status", c.at("status")}, {"cases", c.at("cases")}};
    if (c.contains("counterexample") && !c.at("counterexample").is_null()) {
      const auto& cx = c.at("counterexample");
      v["clause"] = cx.at("clause");
      v["kind"] = cx.at("kind");
      v["args"] = cx.at("args");
      if (cx.contains("worst") && !cx.at("worst").is_null()) v["worst"] = cx.at("worst");
    }
    if (c.contains("accuracy")) v["accuracy"] = c.at("accuracy");
    if (c.contains("max_ulps")) v["max_ulps"] = c.at("max_ulps");
    out.push_back(v);
  }
  return out;
}

// Clause: ABI-GEN-6 ABI-GEN-7
TEST(VerifyLanes, OneAndFourLanesGiveTheSameCasesAndVerdicts) {
  // Five functions that pass, and five that hang on every call (rejections and reuse included).
  for (const char* lib : {"kernels", "rope_hang_always", "alibi_crash"}) {
    TempDir a, b;
    const auto one = run_verify(example_lib(lib), a, {"--jobs", "1", "--budget-seconds", "0"});
    const auto four = run_verify(example_lib(lib), b, {"--jobs", "4", "--budget-seconds", "0"});
    ASSERT_FALSE(one.report.is_null()) << one.proc.err;
    ASSERT_FALSE(four.report.is_null()) << four.proc.err;
    EXPECT_EQ(one.proc.exit_code, four.proc.exit_code) << lib;
    EXPECT_EQ(one.report.at("verdict"), four.report.at("verdict")) << lib;
    EXPECT_EQ(verdict_of(one.report), verdict_of(four.report)) << lib;
    const auto& notes = four.report.at("notes");
    EXPECT_NE(std::find(notes.begin(), notes.end(), "kernel library loaded 1 time(s) in this run"), notes.end())
        << lib << ": the lanes share the one fork server\n" << notes.dump();
    // The corpus tally adds up to what one lane replayed.
    auto corpus_note = [](const nlohmann::ordered_json& ns) {
      for (const auto& n : ns) {
        if (n.get<std::string>().starts_with("corpus: replayed")) return n.get<std::string>();
      }
      return std::string();
    };
    EXPECT_EQ(corpus_note(one.report.at("notes")), corpus_note(notes)) << lib;
  }
}

// Clause: ABI-GEN-7
TEST(VerifyLanes, ConstructorsRunOnceAcrossLanes) {
  TempDir t;
  const std::string log = t.path + "/ctor.log";
  setenv("PECHECK_TEST_CTOR_LOG", log.c_str(), 1);
  const auto r = run_verify(example_lib("slow_start"), t, {"--jobs", "4", "--budget-seconds", "0"});
  unsetenv("PECHECK_TEST_CTOR_LOG");
  ASSERT_FALSE(r.report.is_null()) << r.proc.err;
  const std::string lines = slurp(log);
  EXPECT_EQ(std::count(lines.begin(), lines.end(), '\n'), 1) << "constructor runs:\n" << lines;
}

// Clause: ABI-GEN-1
TEST(VerifyLanes, JobsOutOfRangeIsAUsageError) {
  for (const char* j : {"0", "65", "two"}) {
    const auto p = run_process({pecheck_bin(), "verify", "--kernel", example_lib("kernels"), "--jobs", j},
                               kRunTimeoutSeconds);
    EXPECT_EQ(p.exit_code, 2) << j;
  }
}

}  // namespace
}  // namespace pecheck::e2e
