// `pecheck verify --shard I/N` (src/verify/shard.hpp): N runners with the same seed cover
// exactly what one unsharded run covers. For a fixed seed, on correct and buggy kernels, the
// shards' results merged (merge_shards) equal the unsharded result check by check: status,
// cases run, and the counterexample (clause, kind, message, shrunk arguments and inputs).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ci_process.hpp"
#include "core/error.hpp"
#include "core/verdict.hpp"
#include "report/result.hpp"
#include "verify/shard.hpp"
#include "verify/verify.hpp"

namespace {

using namespace pecheck;
using verifier::Shard;

TEST(ShardSpec, ParsesIOverN) {
  EXPECT_EQ(verifier::parse_shard("0/1"), (Shard{0, 1}));
  EXPECT_EQ(verifier::parse_shard("3/4"), (Shard{3, 4}));
  EXPECT_EQ(verifier::to_string(Shard{2, 5}), "2/5");
  for (const char* bad : {"", "1", "/", "1/", "/2", "2/2", "5/3", "-1/3", "1/0", "1/3x", " 1/3", "1/ 3", "a/b",
                          "0/99999999999999999999", "0/65537"}) {
    EXPECT_THROW(verifier::parse_shard(bad), UsageError) << "'" << bad << "'";
  }
}

TEST(ShardSpec, EveryCaseIndexHasExactlyOneShard) {
  for (std::int64_t n = 1; n <= 7; ++n) {
    for (std::int64_t i = 0; i < 100; ++i) {
      int owners = 0;
      for (std::int64_t s = 0; s < n; ++s) owners += verifier::shard_owns(Shard{s, n}, i);
      EXPECT_EQ(owners, 1) << "case " << i << " of " << n << " shards";
    }
  }
}

VerifyOptions base_options() {
  VerifyOptions o;
  o.seed = 20261129;
  o.budget_seconds = 0;     // no time budget: what runs is a function of the seed alone
  o.case_scale = 0.4;       // fewer cases per check, the same generator for each index
  o.regressions = false;    // the replayed vectors would decide the buggy checks first
  return o;
}

void expect_same(const report::VerifyResult& merged, const report::VerifyResult& whole, const std::string& kernel) {
  ASSERT_EQ(merged.checks.size(), whole.checks.size());
  for (std::size_t k = 0; k < whole.checks.size(); ++k) {
    const auto& m = merged.checks[k];
    const auto& w = whole.checks[k];
    SCOPED_TRACE(kernel + " " + w.name);
    EXPECT_EQ(m.name, w.name);
    EXPECT_EQ(m.status, w.status);
    EXPECT_EQ(m.cases, w.cases);
    if (w.status == report::CheckStatus::Pass) {
      EXPECT_EQ(m.elements, w.elements);
    }
    ASSERT_EQ(m.counterexample.has_value(), w.counterexample.has_value());
    if (!w.counterexample) continue;
    const auto& a = *m.counterexample;
    const auto& b = *w.counterexample;
    EXPECT_EQ(a.clause, b.clause);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.message, b.message);
    EXPECT_EQ(verifier::case_index_of(a), verifier::case_index_of(b));
    ASSERT_EQ(a.args.size(), b.args.size());
    for (std::size_t i = 0; i < a.args.size(); ++i) {
      EXPECT_EQ(a.args[i].name, b.args[i].name);
      EXPECT_EQ(report::format_arg(a.args[i].value), report::format_arg(b.args[i].value)) << a.args[i].name;
    }
    ASSERT_EQ(a.inputs.size(), b.inputs.size());
    for (std::size_t i = 0; i < a.inputs.size(); ++i) {
      EXPECT_EQ(a.inputs[i].values.size(), b.inputs[i].values.size());
      EXPECT_TRUE(std::equal(a.inputs[i].values.begin(), a.inputs[i].values.end(), b.inputs[i].values.begin(),
                             b.inputs[i].values.end(),
                             [](float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; }));
    }
  }
}

class ShardUnion : public ::testing::TestWithParam<const char*> {};

TEST_P(ShardUnion, ThreeShardsEqualTheUnshardedRun) {
  const std::string lib = ci::example(GetParam());
  const VerifyOptions o = base_options();
  const report::VerifyResult whole = verify_library(lib, o);
  ASSERT_GT(whole.ran(), 0);
  std::vector<report::VerifyResult> parts;
  std::int64_t part_cases = 0;
  for (std::int64_t s = 0; s < 3; ++s) {
    VerifyOptions p = o;
    p.shard_index = s, p.shard_count = 3;
    parts.push_back(verify_library(lib, p));
    EXPECT_EQ(parts.back().options.shard, std::to_string(s) + "/3");
    for (const auto& c : parts.back().checks) part_cases += c.status == report::CheckStatus::Pass ? c.cases : 0;
  }
  expect_same(verifier::merge_shards(parts), whole, GetParam());
  // Passing checks: the shards ran disjoint parts whose sizes add up to the whole.
  std::int64_t whole_cases = 0;
  for (const auto& c : whole.checks) whole_cases += c.status == report::CheckStatus::Pass ? c.cases : 0;
  EXPECT_EQ(part_cases, whole_cases);
  EXPECT_EQ(verifier::merge_shards(parts).passed(), whole.passed());
}

INSTANTIATE_TEST_SUITE_P(Kernels, ShardUnion,
                         ::testing::Values("kernels", "rope_layout_swap", "alibi_pow2_slopes", "t5_sign",
                                           "learned_clamp"));

TEST(ShardCli, ShardIsRecordedAndBadShardsAreUsageErrors) {
  ci::TempDir t;
  auto r = ci::run({ci::pecheck_bin(), "verify", "--kernel", ci::example("kernels"), "--only", "sinusoidal",
                    "--shard", "1/3", "--report", t / "r"});
  ASSERT_EQ(r.exit_code, exit_code::ok) << r.all();
  const auto j = nlohmann::json::parse(ci::slurp(t / "r/report.json"));
  EXPECT_EQ(j.at("options").at("shard"), "1/3") << j.at("options").dump();
  for (const char* bad : {"3/3", "x", "1/0", "-1/2"}) {
    auto b = ci::run({ci::pecheck_bin(), "verify", "--kernel", ci::example("kernels"), "--shard", bad});
    EXPECT_EQ(b.exit_code, exit_code::usage) << bad << "\n" << b.all();
    EXPECT_EQ(ci::count_lines(b.err), 1) << b.err;
  }
}

TEST(ShardMerge, RefusesPartsOfDifferentRuns) {
  report::VerifyResult a, b;
  a.options.seed = 1, b.options.seed = 2;
  EXPECT_THROW(verifier::merge_shards({a, b}), UsageError);
  EXPECT_THROW(verifier::merge_shards({}), UsageError);
}

}  // namespace
