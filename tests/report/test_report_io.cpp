// Report files are written atomically: complete or not at all, with a one-line IoError.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.hpp"
#include "fixtures.hpp"
#include "report/write.hpp"

namespace pecheck::report {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "pecheck-report-XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~TempDir() { fs::remove_all(path); }
  std::size_t entries() const {
    std::size_t n = 0;
    for ([[maybe_unused]] auto& e : fs::directory_iterator(path)) ++n;
    return n;
  }
};

TEST(ReportFiles, WritesAllThreeIntoANewFolderAndLeavesNoTemporaries) {
  TempDir d;
  const auto dir = d.path / "nested" / "report";
  auto p = write_report_dir(dir, testing::nasty_result());
  EXPECT_EQ(nlohmann::json::parse(slurp(p.json)).at("verdict"), "fail");
  EXPECT_TRUE(slurp(p.markdown).starts_with("# pecheck verify: FAIL"));
  EXPECT_NE(slurp(p.html).find("<svg"), std::string::npos);
  std::size_t n = 0;
  for (auto& e : fs::directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
    ++n;
  }
  EXPECT_EQ(n, 3u);
  // A second run replaces the report.
  write_report_dir(dir, testing::passing_result());
  EXPECT_EQ(nlohmann::json::parse(slurp(p.json)).at("verdict"), "pass");
}

TEST(ReportFiles, JunitGoesToTheGivenFile) {
  TempDir d;
  write_junit(d.path / "junit.xml", testing::nasty_result());
  EXPECT_TRUE(slurp(d.path / "junit.xml").starts_with("<?xml"));
  // A missing folder is created, as for --report (issue 22, item 7); a file in the way is an IoError.
  write_junit(d.path / "missing-folder" / "sub" / "junit.xml", testing::nasty_result());
  EXPECT_TRUE(slurp(d.path / "missing-folder" / "sub" / "junit.xml").starts_with("<?xml"));
  write_file_atomic(d.path / "plain-file", "x");
  EXPECT_THROW(write_junit(d.path / "plain-file" / "junit.xml", testing::nasty_result()), IoError);
}

TEST(ReportFiles, AFolderThatCannotBeCreatedIsAOneLineIoError) {
  TempDir d;
  write_file_atomic(d.path / "plain-file", "x");
  try {
    write_report_dir(d.path / "plain-file" / "report", testing::nasty_result());
    FAIL() << "expected IoError";
  } catch (const IoError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos);
    EXPECT_NE(what.find("plain-file"), std::string::npos) << what;
  }
  EXPECT_THROW(write_file_atomic("/proc/pecheck-cannot-write-here", "x"), IoError);
}

// A full disk, simulated with a file-size limit in a child process (so it works as root,
// where permission bits do not stop writes): the write fails part-way through report.html,
// and the previous report must survive untouched with no temporary left behind.
TEST(ReportFiles, AFullDiskLeavesThePreviousReportIntactAndNoTemporaries) {
  TempDir d;
  const auto dir = d.path / "r";
  write_report_dir(dir, testing::passing_result());
  const std::string before = slurp(dir / "report.json");
  const auto json_size = static_cast<rlim_t>(before.size());

  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);  // get EFBIG from write() instead of a signal
    rlimit lim{json_size + 16, json_size + 16};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    int code = 10;
    try {
      write_report_dir(dir, testing::nasty_result());
      code = 11;  // should not succeed
    } catch (const IoError& e) {
      code = std::string(e.what()).find('\n') == std::string::npos ? 0 : 12;
    } catch (...) {
      code = 13;
    }
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: no throw path, 11: write succeeded, 12: multi-line, 13: other exception";
  EXPECT_EQ(slurp(dir / "report.json"), before);
  for (auto& e : fs::directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  }
}

}  // namespace
}  // namespace pecheck::report
