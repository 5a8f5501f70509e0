// `pecheck verify` end to end on the correct example plug-ins, on libraries it must refuse
// (exit 2, ABI-GEN-1) and on report folders it cannot write (exit 3).
#include <filesystem>
#include <fstream>

#include "e2e.hpp"

namespace pecheck::e2e {
namespace {

const char* const kAllFunctions[] = {"pec_rope_f32", "pec_alibi_bias_f32", "pec_t5_bias_f32", "pec_sinusoidal_f32",
                                     "pec_learned_f32"};

class CorrectKernel : public ::testing::TestWithParam<const char*> {};

// Clause: ABI-GEN-1 ABI-ROPE-2 ABI-ALIBI-2 ABI-T5-2 ABI-SIN-2 ABI-LEARN-2 (a correct kernel passes all)
TEST_P(CorrectKernel, PassesEveryCheckWithExitZero) {
  TempDir tmp;
  // No wall-clock budget: on a loaded CI machine the default budget can run out before the
  // last checks start, and such a check is (rightly) reported as not decided. This test is
  // about verdicts, so it runs every case; speed is measured elsewhere, not asserted.
  auto r = run_verify(example_lib(GetParam()), tmp, {"--seed", "1", "--budget-seconds", "0", "--strict"});
  EXPECT_FALSE(r.proc.timed_out);
  EXPECT_EQ(r.proc.exit_code, 0) << r.proc.out << r.proc.err;
  expect_reports_well_formed(r, "pass");
  if (r.report.is_null()) return;
  for (const auto& c : r.report.at("checks")) {
    // Every function is exported, so every check must have run and passed: no skip, no
    // "could not decide".
    EXPECT_EQ(c.at("status"), "pass") << c.dump();
    EXPECT_GT(c.at("cases").get<long long>(), 0) << c.at("name");
  }
  for (const char* f : kAllFunctions) {
    const auto& ex = r.report.at("exported");
    EXPECT_NE(std::find(ex.begin(), ex.end(), f), ex.end()) << f;
  }
  EXPECT_TRUE(r.report.at("missing").empty());
  EXPECT_NE(slurp(r.dir + "/report.md").find("# pecheck verify: PASS"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Examples, CorrectKernel, ::testing::Values("c_kernels", "kernels"));

// Clause: ABI-GEN-1
TEST(VerifyRefuses, AMissingFileWithExitTwo) {
  TempDir tmp;
  auto r = run_verify(tmp.path + "/no-such-library.so", tmp);
  EXPECT_EQ(r.proc.exit_code, 2);
  expect_one_line_error(r.proc);
  EXPECT_TRUE(r.report.is_null());
}

// Clause: ABI-GEN-1
TEST(VerifyRefuses, AFileThatIsNotELFWithExitTwo) {
  TempDir tmp;
  const std::string fake = tmp.path + "/libfake.so";
  std::ofstream(fake) << "this is a text file, not a shared library\n";
  auto r = run_verify(fake, tmp);
  EXPECT_EQ(r.proc.exit_code, 2);
  expect_one_line_error(r.proc);
}

// Clause: ABI-GEN-1
TEST(VerifyRefuses, ALibraryWithoutPecExportsWithExitTwo) {
  TempDir tmp;
  auto r = run_verify(example_lib("no_exports"), tmp);
  EXPECT_EQ(r.proc.exit_code, 2);
  expect_one_line_error(r.proc);
}

// Clause: ABI-GEN-1
TEST(VerifyRefuses, AnotherAbiVersionWithExitTwo) {
  TempDir tmp;
  auto r = run_verify(example_lib("wrong_abi"), tmp);
  EXPECT_EQ(r.proc.exit_code, 2);
  expect_one_line_error(r.proc);
  EXPECT_NE(r.proc.err.find("42"), std::string::npos) << "the message should name the version: " << r.proc.err;
}

TEST(VerifyRefuses, BadUsageWithExitTwo) {
  auto p = run_process({pecheck_bin(), "verify"}, kRunTimeoutSeconds);  // no --kernel
  EXPECT_EQ(p.exit_code, 2);
  auto q = run_process({pecheck_bin(), "verify", "--kernel", example_lib("kernels"), "--seed", "minus-one"},
                       kRunTimeoutSeconds);
  EXPECT_EQ(q.exit_code, 2);
}

// A report folder that cannot be created: exit 3 with one line, and nothing partial.
TEST(VerifyReports, AnUnwritableReportFolderIsExitThree) {
  TempDir tmp;
  const std::string blocker = tmp.path + "/a-file";
  std::ofstream(blocker) << "x";
  auto p = run_process({pecheck_bin(), "verify", "--kernel", example_lib("kernels"), "--only", "learned",
                        "--report", blocker + "/report"},
                       kRunTimeoutSeconds);
  EXPECT_EQ(p.exit_code, 3) << p.out << p.err;
  expect_one_line_error(p);
  auto q = run_process({pecheck_bin(), "verify", "--kernel", example_lib("kernels"), "--only", "learned",
                        "--junit", blocker + "/junit.xml"},
                       kRunTimeoutSeconds);
  EXPECT_EQ(q.exit_code, 3) << q.out << q.err;
  expect_one_line_error(q);
  // A missing folder is created, as --report creates its folder (issue 22, item 7).
  auto m = run_process({pecheck_bin(), "verify", "--kernel", example_lib("kernels"), "--only", "learned",
                        "--junit", tmp.path + "/missing/sub/junit.xml"},
                       kRunTimeoutSeconds);
  EXPECT_EQ(m.exit_code, 0) << m.out << m.err;
  std::ifstream junit(tmp.path + "/missing/sub/junit.xml");
  EXPECT_TRUE(junit.good());
}

// --format json prints the same document report.json holds.
TEST(VerifyOutput, JsonFormatOnStdoutMatchesReportFile) {
  TempDir tmp;
  auto r = run_verify(example_lib("c_kernels"), tmp, {"--only", "learned", "--format", "json", "--seed", "3"});
  ASSERT_EQ(r.proc.exit_code, 0) << r.proc.err;
  auto printed = nlohmann::ordered_json::parse(r.proc.out);
  EXPECT_EQ(printed.at("verdict"), "pass");
  ASSERT_FALSE(r.report.is_null());
  EXPECT_EQ(printed.at("checks").size(), r.report.at("checks").size());
}

}  // namespace
}  // namespace pecheck::e2e
