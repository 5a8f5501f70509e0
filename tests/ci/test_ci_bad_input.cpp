// Bad input everywhere (README "CI gate", table of exit statuses): each case gets one clear
// line on stderr, its documented exit status, and never a partial or corrupt report — a report
// folder is either absent/empty or holds a complete report.json that parses.
//   0 pass | 1 counterexample | 2 usage or unloadable library | 3 output not written | 130 interrupted
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
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

// One line on stderr, naming pecheck, and nothing on stdout: the shape of every refusal.
void expect_one_line(const ci::Run& r) {
  EXPECT_EQ(ci::count_lines(r.err), 1) << r.err;
  EXPECT_TRUE(r.err.starts_with("pecheck: ")) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// No report, or no trace of one: no report files and no temporary files.
void expect_no_report(const std::string& dir) {
  for (const auto& f : ci::list_dir(dir)) ADD_FAILURE() << "left behind in the report folder: " << f;
}

// A complete report: report.json parses and says `verdict`.
void expect_complete_report(const std::string& dir, const std::string& verdict) {
  const auto j = nlohmann::json::parse(ci::slurp(dir + "/report.json"));
  EXPECT_EQ(j.at("verdict"), verdict);
  EXPECT_FALSE(ci::slurp(dir + "/report.html").empty());
  EXPECT_FALSE(ci::slurp(dir + "/report.md").empty());
  for (const auto& f : ci::list_dir(dir)) EXPECT_EQ(f.find(".tmp"), std::string::npos) << f;
}

std::string copy_of(const std::string& lib, const std::string& dest) {
  fs::copy_file(lib, dest, fs::copy_options::overwrite_existing);
  return dest;
}

TEST(BadLibrary, MissingIsAUsageError) {
  ci::TempDir t;
  auto r = verify({"--kernel", t / "nope/libmissing.so", "--report", t / "r"});
  EXPECT_EQ(r.exit_code, exit_code::usage) << r.all();
  expect_one_line(r);
  expect_no_report(t / "r");
}

TEST(BadLibrary, UnreadableIsAUsageError) {
  ci::TempDir t;
  const std::string lib = copy_of(ci::example("kernels"), t / "libunreadable.so");
  chmod(lib.c_str(), 0);
  ci::RunSpec s;
  s.unprivileged = true;  // root reads anything; as nobody the permission bites
  auto r = verify({"--kernel", lib}, s);
  EXPECT_EQ(r.exit_code, exit_code::usage) << r.all();
  expect_one_line(r);
}

TEST(BadLibrary, FolderIsAUsageError) {
  ci::TempDir t;
  auto r = verify({"--kernel", t.path});
  EXPECT_EQ(r.exit_code, exit_code::usage) << r.all();
  expect_one_line(r);
}

TEST(BadLibrary, NonElfIsAUsageError) {
  ci::TempDir t;
  ci::spit(t / "libtext.so", "this is not a shared library\n");
  auto r = verify({"--kernel", t / "libtext.so", "--report", t / "r"});
  EXPECT_EQ(r.exit_code, exit_code::usage) << r.all();
  expect_one_line(r);
  expect_no_report(t / "r");
}

TEST(BadLibrary, TruncatedElfIsAUsageError) {
  ci::TempDir t;
  const std::string whole = ci::slurp(ci::example("kernels"));
  ci::spit(t / "libtrunc.so", whole.substr(0, 200));
  auto r = verify({"--kernel", t / "libtrunc.so"});
  EXPECT_EQ(r.exit_code, exit_code::usage) << r.all();
  expect_one_line(r);
}

// A library for another architecture: a real plug-in whose ELF header says AArch64 (e_machine
// 183). No cross compiler is needed and the loader refuses it exactly as it would a real one.
TEST(BadLibrary, OtherArchitectureIsAUsageError) {
  ci::TempDir t;
  std::string bytes = ci::slurp(ci::example("kernels"));
  ASSERT_GT(bytes.size(), 20u);
  ASSERT_EQ(bytes.substr(1, 3), "ELF");
  bytes[18] = static_cast<char>(183), bytes[19] = 0;  // e_machine, little-endian
  ci::spit(t / "libaarch64.so", bytes);
  auto r = verify({"--kernel", t / "libaarch64.so", "--report", t / "r"});
  EXPECT_EQ(r.exit_code, exit_code::usage) << r.all();
  expect_one_line(r);
  expect_no_report(t / "r");
}

TEST(BadLibrary, NoExportsAndWrongAbiAreUsageErrors) {
  for (const char* lib : {"no_exports", "wrong_abi"}) {
    auto r = verify({"--kernel", ci::example(lib)});
    EXPECT_EQ(r.exit_code, exit_code::usage) << lib << "\n" << r.all();
    expect_one_line(r);
  }
}

// --- kernels that misbehave ------------------------------------------------------------

bool has_counterexample_kind(const nlohmann::json& report, const std::string& kind) {
  for (const auto& c : report.at("checks")) {
    if (c.contains("counterexample") && c.at("counterexample").is_object() &&
        c.at("counterexample").value("kind", "") == kind) {
      return true;
    }
  }
  return false;
}

TEST(BadKernel, NonZeroReturnForValidArgumentsIsACounterexample) {
  ci::TempDir t;
  auto r = verify({"--kernel", ci::example("rope_reject_partial"), "--only", "rope", "--no-regressions", "--report", t / "r"});
  EXPECT_EQ(r.exit_code, exit_code::counterexample) << r.all();
  expect_complete_report(t / "r", "fail");
  EXPECT_TRUE(has_counterexample_kind(nlohmann::json::parse(ci::slurp(t / "r/report.json")), "nonzero-return"));
}

TEST(BadKernel, WritingNanIsACounterexample) {
  ci::TempDir t;
  auto r = verify({"--kernel", ci::example("alibi_nan_mask"), "--only", "alibi.oracle", "--no-regressions",
                   "--report", t / "r"});
  EXPECT_EQ(r.exit_code, exit_code::counterexample) << r.all();
  expect_complete_report(t / "r", "fail");
  const auto j = nlohmann::json::parse(ci::slurp(t / "r/report.json"));
  bool nan_seen = false;
  for (const auto& c : j.at("checks")) {
    if (c.at("name") == "alibi.oracle" && c.at("counterexample").is_object()) {
      nan_seen = c.at("counterexample").at("worst").at("actual") == "nan";
    }
  }
  EXPECT_TRUE(nan_seen) << "the NaN the kernel wrote is reported as \"nan\"";
}

TEST(BadKernel, SlowButCorrectPasses) {
  ci::TempDir t;
  auto r = verify({"--kernel", ci::ci_plugin("slow_correct"), "--report", t / "r", "--strict"});
  EXPECT_EQ(r.exit_code, exit_code::ok) << r.all();
  expect_complete_report(t / "r", "pass");
  const auto j = nlohmann::json::parse(ci::slurp(t / "r/report.json"));
  int ran = 0;
  for (const auto& c : j.at("checks")) {
    if (c.at("status") == "skipped") continue;
    ++ran;
    EXPECT_EQ(c.at("status"), "pass") << c.dump();
  }
  EXPECT_GE(ran, 10) << "sinusoidal and learned checks ran";
}

// --- outputs that cannot be written ----------------------------------------------------

TEST(BadOutput, ReadOnlyReportFolderIsAnOutputError) {
  ci::TempDir t;
  const std::string dir = t / "ro";
  fs::create_directories(dir);
  chmod(dir.c_str(), 0555);
  ci::RunSpec s;
  s.unprivileged = true;  // root writes into read-only folders; as nobody it cannot
  auto r = verify({"--kernel", ci::example("kernels"), "--only", "sinusoidal.oracle", "--report", dir}, s);
  EXPECT_EQ(r.exit_code, exit_code::io) << r.all();
  EXPECT_EQ(ci::count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("cannot"), std::string::npos) << r.err;
  expect_no_report(dir);
}

TEST(BadOutput, ReportUnderAFileIsAnOutputError) {
  ci::TempDir t;
  ci::spit(t / "file", "x");
  auto r = verify({"--kernel", ci::example("kernels"), "--only", "sinusoidal.oracle", "--report", t / "file/r"});
  EXPECT_EQ(r.exit_code, exit_code::io) << r.all();
  EXPECT_EQ(ci::count_lines(r.err), 1) << r.err;
}

// A full disk: every write into the report folder fails with ENOSPC (LD_PRELOAD fault injection,
// tests/ci/plugins/enospc_preload.c). Nothing may be left: no report.json, no temporary file.
TEST(BadOutput, FullDiskLeavesNoPartialReport) {
  ci::TempDir t;
  const std::string dir = t / "fullreport";
  fs::create_directories(dir);
  ci::RunSpec s;
  const char* asan = std::getenv("ASAN_OPTIONS");
  s.env = {{"LD_PRELOAD", ci::ci_plugin("enospc_preload")},
           {"PECHECK_FAULT_ENOSPC", "fullreport"},
           {"ASAN_OPTIONS", std::string(asan ? asan : "") + ":verify_asan_link_order=0"}};
  auto r = verify({"--kernel", ci::example("kernels"), "--only", "sinusoidal.oracle", "--report", dir,
                   "--junit", dir + "/junit.xml"}, s);
  EXPECT_EQ(r.exit_code, exit_code::io) << r.all();
  EXPECT_EQ(ci::count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  expect_no_report(dir);
}

// --- interruption ----------------------------------------------------------------------

class Interrupted : public ::testing::TestWithParam<int> {};

TEST_P(Interrupted, ExitsWith130AndLeavesNoReport) {
  ci::TempDir t;
  ci::RunSpec s;
  s.signal = GetParam();
  s.signal_after_s = 1.0;  // the slow kernel's run takes several seconds
  auto r = verify({"--kernel", ci::ci_plugin("slow_correct"), "--report", t / "r", "--junit", t / "junit.xml",
                   "--corpus", t / "corpus"}, s);
  EXPECT_EQ(r.exit_code, exit_code::interrupted) << r.all();
  EXPECT_FALSE(r.signaled) << "pecheck exits 130 itself";
  EXPECT_EQ(ci::count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(GetParam() == SIGINT ? "interrupted" : "terminated"), std::string::npos) << r.err;
  expect_no_report(t / "r");
  EXPECT_FALSE(fs::exists(t / "junit.xml"));
  expect_no_report(t / "corpus");
}

INSTANTIATE_TEST_SUITE_P(Signals, Interrupted, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& info) { return std::string(info.param == SIGINT ? "SIGINT" : "SIGTERM"); });

// --- command lines ---------------------------------------------------------------------

TEST(BadUsage, EachIsOneLineAndExit2) {
  // With a loadable kernel, so that only the option under test can make the run fail.
  const std::string k = ci::example("kernels");
  const std::vector<std::vector<std::string>> cases = {
      {},  // no --kernel
      {"--kernel", k, "--max-position", "0"},
      {"--kernel", k, "--max-position", "2147483648"},
      {"--kernel", k, "--contract", "maybe"},
      {"--kernel", k, "--budget-seconds", "nan"},
      {"--kernel", k, "--budget-seconds", "-1"},
      {"--kernel", k, "--call-timeout", "0"},
      {"--kernel", k, "--format", "xml"},
      {"--kernel", k, "--seed", "-1"},
      {"--kernel", k, "--seed", "1e3"},
      {"--kernel", k, "--seed", "18446744073709551616"},
      {"--kernel", k, "--colour"},
      {"--kernel", k, "--case-scale", "0"},
      {"--kernel", k, "--case-scale", "65"},
      {"--kernel", k, "--case-scale", "nan"},
  };
  for (auto c : cases) {
    c.insert(c.end(), {"--only", "sinusoidal.oracle"});
    auto r = verify(c);
    EXPECT_EQ(r.exit_code, exit_code::usage) << testing::PrintToString(c) << "\n" << r.all();
    EXPECT_EQ(ci::count_lines(r.err), 1) << r.err;
  }
  auto r = verify({"--kernel", ci::example("kernels"), "--only", "rope.nosuchcheck"});
  EXPECT_EQ(r.exit_code, exit_code::usage) << r.all();
  expect_one_line(r);
}

}  // namespace
