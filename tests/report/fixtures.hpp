// Results used by the report tests: a failing run whose values include NaN, infinities,
// huge and negative numbers, and text with markup, quotes, control bytes and invalid UTF-8.
#pragma once

#include <cmath>
#include <limits>

#include "report/result.hpp"

namespace pecheck::testing {

inline report::VerifyResult nasty_result() {
  using namespace pecheck::report;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  VerifyResult r;
  r.tool_version = "0.1.0";
  r.kernel = "build/examples/lib<odd> & \"name\".so";
  r.abi_version = 1;
  r.options.seed = 18446744073709551615ull;  // largest seed: must survive as an integer
  r.options.budget_seconds = 10;
  r.options.max_position = 2147483647;
  r.options.only = {"rope.oracle"};
  r.options.extra = {{"format", "json"}};
  r.exported = {"pec_rope_f32", "pec_abi_version"};
  r.missing = {"pec_alibi_bias_f32"};
  r.seconds = 1.25;

  CheckResult pass;
  pass.name = "rope.shift";
  pass.scheme = "rope";
  pass.function = "pec_rope_f32";
  pass.clause = "ROPE-REL-1";
  pass.status = CheckStatus::Pass;
  pass.cases = 500;
  pass.elements = 64000;
  pass.seconds = 0.5;
  pass.max_ulps = 1.5;
  r.checks.push_back(pass);

  CheckResult fail;
  fail.name = "rope.oracle";
  fail.scheme = "rope";
  fail.function = "pec_rope_f32";
  fail.clause = "ABI-ROPE-4";
  fail.description = "y agrees with the oracle within the f32 <contract> & more";
  fail.status = CheckStatus::Fail;
  fail.cases = 37;
  fail.elements = 9000;
  fail.seconds = inf;
  fail.max_ulps = nan;
  Counterexample cx;
  cx.clause = "ABI-ROPE-4";
  cx.kind = "mismatch";
  cx.message = "y differs from the oracle by 3.1e6 ULP at </td><script>alert(1)</script> | pipe \x01 \xff\xfe";
  cx.function = "pec_rope_f32";
  cx.args = {{"n_tokens", std::int64_t{1}},
             {"n_heads", std::int64_t{1}},
             {"head_dim", std::int64_t{2}},
             {"rotary_dim", std::int64_t{2}},
             {"layout", std::int64_t{0}},
             {"theta_base", 10000.0},
             {"position_scale", -0.0},
             {"positions", std::vector<std::int64_t>{4097, -9223372036854775807LL - 1}},
             {"inv_freq", std::vector<double>{nan, inf, -inf, 1e308, -1e-320}},
             {"note", std::string("layout=\"neox\" <&>")},
             {"table", std::monostate{}}};
  cx.inputs = {{"x", {1, 1, 2}, {1.0f, -0.0f}},
               {"weird", {4}, {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min()}}};
  WorstElement w;
  w.output = "y";
  w.index = {0, 0, 1};
  w.index_names = {"token", "head", "lane"};
  w.flat_index = 1;
  w.position = 4097;
  w.expected = 0.75;
  w.actual = nan;
  w.abs_error = inf;
  w.ulps = inf;
  w.contract_units = -inf;
  cx.worst = w;
  cx.return_code = 0;
  cx.reproduce = "pecheck verify --kernel 'a b.so' --seed 18446744073709551615 --only rope.oracle";
  cx.notes = {"ambiguous: T5 buckets 7 & 8 both accepted"};
  cx.shrink_steps = 12;
  fail.counterexample = cx;
  ErrorSeries s;
  s.label = "max error";
  s.points = {{0, 0.5}, {10, 0.5}, {4097, 3.1e6}, {nan, 1}, {1e9, inf}};
  s.budget = 4;
  fail.series = {s};
  r.checks.push_back(fail);

  CheckResult skipped;
  skipped.name = "alibi.oracle";
  skipped.scheme = "alibi";
  skipped.function = "pec_alibi_bias_f32";
  skipped.clause = "ABI-ALIBI-1";
  skipped.status = CheckStatus::Skipped;
  skipped.reason = "pec_alibi_bias_f32 is not exported";
  r.checks.push_back(skipped);

  CheckResult undecided;
  undecided.name = "t5.oracle";
  undecided.scheme = "t5";
  undecided.function = "pec_t5_bias_f32";
  undecided.clause = "ABI-T5-1";
  undecided.status = CheckStatus::Timeout;
  undecided.reason = "budget of 10 s spent before the first case";
  r.checks.push_back(undecided);
  return r;
}

// A run where every check passed (and one was skipped).
inline report::VerifyResult passing_result() {
  auto r = nasty_result();
  r.checks.erase(r.checks.begin() + 1);  // drop the failure
  r.checks.pop_back();                   // drop the timeout
  return r;
}

}  // namespace pecheck::testing
