// `pecheck precision` (PREC-CLI-1): the library sweep and writers, and the built command's
// output, files and exit statuses. Clause: PREC-CLI-1
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

#include "core/error.hpp"
#include "core/verdict.hpp"
#include "precision/precision.hpp"

namespace fs = std::filesystem;
namespace pp = pecheck::precision;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("pecheck_oracle_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

struct CmdResult {
  int status;
  std::string out;
};

CmdResult run_cmd(const std::string& args) {
  const std::string cmd = std::string(PECHECK_BINARY) + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  while (p && std::fgets(buf.data(), buf.size(), p)) out += buf.data();
  const int st = p ? ::pclose(p) : -1;
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

}  // namespace

TEST(PrecisionCommand, SweepWritesCsvAndSvgAtomically) {
  pp::SweepOptions o;
  o.max_position = 5000;
  o.samples = 1;
  std::vector<pp::SweepResult> rs = {pp::sweep(pp::variant("rope", "reference"), o),
                                     pp::sweep(pp::variant("rope", "fp16_positions"), o)};
  EXPECT_FALSE(rs[0].first_exceeding.has_value());
  ASSERT_TRUE(rs[1].first_exceeding.has_value());
  const fs::path d = fresh_dir("lib");
  const auto paths = pp::write_outputs(d, rs);
  ASSERT_EQ(paths.size(), 2u);
  std::ifstream csv(paths[0]);
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "scheme,dtype,variant,degraded,budget_row,position,max_ulps,max_budget_units,exceeds");
  std::stringstream svg;
  svg << std::ifstream(paths[1]).rdbuf();
  EXPECT_NE(svg.str().find("<svg"), std::string::npos);
  for (const auto& e : fs::directory_iterator(d)) {  // no temporary files left behind
    EXPECT_TRUE(e.path() == paths[0] || e.path() == paths[1]) << e.path();
  }
  fs::remove_all(d);
}

TEST(PrecisionCommand, UnwritableOutputIsAnIoError) {
  pp::SweepOptions o;
  o.max_position = 10;
  const auto r = pp::sweep(pp::variant("alibi", "reference"), o);
  EXPECT_THROW(pp::write_outputs("/dev/null/cannot", {r}), pecheck::IoError);
}

TEST(PrecisionCommand, BinaryPrintsFirstExceedingPositionsAndExitStatuses) {
  const fs::path d = fresh_dir("bin");
  CmdResult r = run_cmd("precision --scheme rope --max-position 3000 --samples 1 --out " + d.string());
  EXPECT_EQ(r.status, pecheck::exit_code::ok) << r.out;
  EXPECT_NE(r.out.find("fp16_positions"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2049"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(d / "precision_rope_f32.csv"));
  EXPECT_TRUE(fs::exists(d / "precision_rope_f32.svg"));
  r = run_cmd("precision --scheme t5 --max-position 3000 --out " + d.string());
  EXPECT_EQ(r.status, pecheck::exit_code::ok) << r.out;
  r = run_cmd("precision --scheme rope --dtype f8 --out " + d.string());
  EXPECT_EQ(r.status, pecheck::exit_code::usage) << r.out;
  r = run_cmd("precision --scheme rope --variant nope --out " + d.string());
  EXPECT_EQ(r.status, pecheck::exit_code::usage) << r.out;
  r = run_cmd("precision --scheme rope --max-position -5 --out " + d.string());
  EXPECT_EQ(r.status, pecheck::exit_code::usage) << r.out;
  r = run_cmd("precision --scheme rope --seed -1 --out " + d.string());
  EXPECT_EQ(r.status, pecheck::exit_code::usage) << r.out;
  r = run_cmd("precision --scheme rope --rotary-dim 96 --base 500000 --max-position 300 --samples 1 --out " + d.string());
  EXPECT_EQ(r.status, pecheck::exit_code::ok) << r.out;
  r = run_cmd("precision --scheme rope --rotary-dim 7 --out " + d.string());
  EXPECT_EQ(r.status, pecheck::exit_code::usage) << r.out;
  r = run_cmd("precision --scheme alibi --max-position 100 --out /dev/null/cannot");
  EXPECT_EQ(r.status, pecheck::exit_code::io) << r.out;
  fs::remove_all(d);
}
