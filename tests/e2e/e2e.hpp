// End-to-end helpers: run the built `pecheck` binary on an example plug-in and load what it
// wrote. PECHECK_BIN and PECHECK_EXAMPLES_DIR come from tests/e2e/CMakeLists.txt.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../report/xml_check.hpp"
#include "process.hpp"

namespace pecheck::e2e {

inline std::string pecheck_bin() { return PECHECK_BIN; }
inline std::string example_lib(const std::string& name) {
  return std::string(PECHECK_EXAMPLES_DIR) + "/libexample_" + name + ".so";
}

// Generous: a verify run is budgeted at a few seconds; this only stops a runaway.
inline constexpr double kRunTimeoutSeconds = 120;

struct VerifyRun {
  ProcessResult proc;
  std::string dir;                 // the --report folder
  std::string junit;               // the --junit file
  nlohmann::ordered_json report;   // report.json, parsed (null when absent)
};

inline VerifyRun run_verify(const std::string& lib, const TempDir& tmp, std::vector<std::string> extra = {}) {
  VerifyRun r;
  r.dir = tmp.path + "/report";
  r.junit = tmp.path + "/junit.xml";
  std::vector<std::string> argv = {pecheck_bin(), "verify", "--kernel", lib, "--report", r.dir, "--junit", r.junit};
  argv.insert(argv.end(), extra.begin(), extra.end());
  r.proc = run_process(argv, kRunTimeoutSeconds);
  if (std::filesystem::exists(r.dir + "/report.json")) {
    r.report = nlohmann::ordered_json::parse(slurp(r.dir + "/report.json"));
  }
  return r;
}

// Every report file exists and is well formed; JSON has the promised top-level shape.
inline void expect_reports_well_formed(const VerifyRun& r, const std::string& verdict) {
  ASSERT_FALSE(r.report.is_null()) << "no report.json; stderr: " << r.proc.err;
  EXPECT_EQ(r.report.at("verdict"), verdict);
  ASSERT_TRUE(r.report.at("checks").is_array());
  EXPECT_FALSE(r.report.at("checks").empty());
  for (const auto& c : r.report.at("checks")) {
    for (const char* key : {"name", "scheme", "clause", "status", "cases"}) EXPECT_TRUE(c.contains(key)) << key;
    if (c.at("status") == "fail") {
      EXPECT_TRUE(c.contains("counterexample")) << c.at("name");
      EXPECT_TRUE(c.contains("reproduce")) << c.at("name");
    }
  }
  const std::string md = slurp(r.dir + "/report.md");
  EXPECT_TRUE(md.starts_with("# pecheck verify: ")) << md.substr(0, 80);
  const std::string html = slurp(r.dir + "/report.html");
  EXPECT_EQ(testing::xml_problem(html, /*html=*/true), "");
  const std::string junit = slurp(r.junit);
  EXPECT_TRUE(junit.starts_with("<?xml")) << junit.substr(0, 80);
  EXPECT_EQ(testing::xml_problem(junit), "");
  // Nothing half-written is left behind.
  for (const auto& e : std::filesystem::directory_iterator(r.dir)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  }
}

// A one-line message on stderr, as every pecheck refusal must give.
inline void expect_one_line_error(const ProcessResult& p) {
  EXPECT_FALSE(p.err.empty());
  std::string e = p.err;
  while (!e.empty() && e.back() == '\n') e.pop_back();
  EXPECT_EQ(e.find('\n'), std::string::npos) << p.err;
  EXPECT_TRUE(e.starts_with("pecheck: ")) << p.err;
}

}  // namespace pecheck::e2e
