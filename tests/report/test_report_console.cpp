// The console block of a failure (issue 22, "Why" items 2, 3 and 6): a kernel engineer reads the
// shrunk case's inputs, the failing element's indices and enum names; the numbers never
// contradict themselves (no ULP figure where the exact value is 0, none for a NaN, no
// "(0 ULP, 0 x budget)" on a failure, the storage type named beside ULPs, both values of a
// determinism failure); hints are printed; long check names and `incomplete` keep the columns.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "report/write.hpp"

namespace pecheck::report {
namespace {

CheckResult failing(const std::string& name, const std::string& function, Counterexample cx) {
  CheckResult c;
  c.name = name;
  c.scheme = "rope_qk";
  c.function = function;
  c.clause = cx.clause;
  c.status = CheckStatus::Fail;
  c.cases = 1;
  cx.function = function;
  c.counterexample = std::move(cx);
  return c;
}

Counterexample layout_swap() {  // what the GPT-J-for-NeoX kernel shrinks to
  Counterexample cx;
  cx.clause = "ABI-QK-2";
  cx.kind = "mismatch";
  cx.message = "k_out differs from attn_factor x the exact rotation by 2.9e3 x the bf16 RoPE bound";
  cx.args = {{"n_tokens", std::int64_t{1}}, {"layout", std::int64_t{0}},     {"positions", std::vector<std::int64_t>{1}},
             {"inv_freq", std::monostate{}}, {"generator", std::string("inv_freq table (linearly scaled)")}};
  cx.inputs = {{"k", {1, 1, 4}, {0, 0, 0, 1}}};
  WorstElement w;
  w.output = "k_out";
  w.index = {0, 0, 2};
  w.index_names = {"token", "head", "lane"};
  w.position = 1;
  w.expected = 0;
  w.actual = -0.099609375;
  w.abs_error = 0.099609375;
  w.ulps = 1.08465004e+39;  // ULPs of 0: meaningless, must not be printed
  w.contract_units = 5.42325022e+38;  // error / a bound of ~0: meaningless, not printed
  cx.worst = w;
  cx.notes = {"hint: q_out and k_out equal the rotation with the GPT-J pairing", "not a hint"};
  cx.reproduce = "pecheck verify --kernel libx.so --seed 0 --only rope_qk.bf16.oracle";
  return cx;
}

std::string line_with(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (l.find(needle) != std::string::npos) return l;
  }
  return "";
}

TEST(ReportConsole, FailureShowsInputsIndicesEnumNamesAndHints) {
  VerifyResult r;
  r.checks.push_back(failing("rope_qk.bf16.oracle", "pec_rope_qk_bf16", layout_swap()));
  const std::string t = render_text(r);
  EXPECT_NE(t.find("layout=neox"), std::string::npos) << t;
  EXPECT_EQ(t.find("layout=0"), std::string::npos) << t;
  EXPECT_NE(t.find("inputs: k=[0, 0, 0, 1]"), std::string::npos) << t;
  EXPECT_NE(t.find("at k_out[token=0, head=0, lane=2] (position 1): expected 0 (exact), actual -0.099609375"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("hint: q_out and k_out equal the rotation with the GPT-J pairing"), std::string::npos) << t;
  EXPECT_EQ(t.find("not a hint"), std::string::npos) << t;  // only hints of the notes
  // inv_freq=null beside a generator that names an inv_freq table contradicts itself: neither.
  EXPECT_EQ(t.find("inv_freq=null"), std::string::npos) << t;
  EXPECT_EQ(t.find("linearly scaled"), std::string::npos) << t;
  // Expected 0 from zero operands: the absolute error alone, no ULP figure, no class units.
  const std::string w = line_with(t, "at k_out[");
  EXPECT_EQ(w.find("x the bound"), std::string::npos) << w;
  EXPECT_NE(w.find("|error| 0.099609375"), std::string::npos) << w;
  EXPECT_EQ(w.find("ulp"), std::string::npos) << w;
  EXPECT_EQ(w.find("e+39"), std::string::npos) << w;
}

// A production-size witness (the .large checks): 1,327 positions and a 84,928-value input read
// back from a report that did not list it; the terminal shows the first values and the counts.
TEST(ReportConsole, LongListsShowTheirFirstValuesAndTheirLength) {
  Counterexample cx = layout_swap();
  std::vector<std::int64_t> pos(1327);
  for (std::size_t i = 0; i < pos.size(); ++i) pos[i] = static_cast<std::int64_t>(1000 + i);
  cx.args[2] = {"positions", pos};
  Tensor q{"q", {1327, 8, 8}, {}};
  q.omitted = 84928;
  cx.inputs.push_back(q);
  VerifyResult r;
  r.checks.push_back(failing("rope_qk.large", "pec_rope_qk_f32", cx));
  const std::string t = render_text(r);
  EXPECT_NE(t.find("positions=[1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010, 1011, 1012, 1013, "
                   "1014, 1015, ... (1327 values)]"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("2326"), std::string::npos) << "the last position is not printed";
  EXPECT_NE(t.find("q=[84928 values, not listed in the report]"), std::string::npos) << t;
}

TEST(ReportConsole, UlpsAreOfTheStorageTypeAndLabelled) {
  Counterexample cx = layout_swap();
  cx.worst->expected = 0.5;
  cx.worst->ulps = 25.5;
  cx.worst->contract_units = 2900;
  VerifyResult r;
  r.checks.push_back(failing("rope_qk.bf16.oracle", "pec_rope_qk_bf16", cx));
  r.checks.push_back(failing("rope_qk.f16.oracle", "pec_rope_qk_f16", cx));
  r.checks.push_back(failing("rope_qk.oracle", "pec_rope_qk_f32", cx));
  const std::string t = render_text(r);
  EXPECT_NE(t.find("25.5 ulp of bf16"), std::string::npos) << t;
  EXPECT_NE(t.find("25.5 ulp of fp16"), std::string::npos) << t;
  EXPECT_NE(t.find("25.5 ulp of float32"), std::string::npos) << t;
  EXPECT_NE(t.find("2900 x the bound, |error| 0.099609375, 25.5 ulp of bf16"), std::string::npos) << t;
}

TEST(ReportConsole, NanAndZeroFiguresAreNotPrintedAsNumbers) {
  Counterexample nan = layout_swap();
  nan.kind = "nan";
  nan.worst->expected = 0.25;
  nan.worst->actual = NAN;
  nan.worst->abs_error = NAN;
  nan.worst->ulps = NAN;
  nan.worst->contract_units = INFINITY;
  Counterexample zero = layout_swap();  // a failure whose element figures are all 0
  zero.kind = "nondeterministic";
  zero.worst->expected = 0.5;
  zero.worst->actual = 0.50390625;
  zero.worst->abs_error = 0;
  zero.worst->ulps = 0;
  zero.worst->contract_units = 0;
  VerifyResult r;
  r.checks.push_back(failing("rope_qk.bf16.oracle", "pec_rope_qk_bf16", nan));
  r.checks.push_back(failing("rope_qk.bf16.determinism", "pec_rope_qk_bf16", zero));
  const std::string t = render_text(r);
  EXPECT_EQ(t.find("nan ULP"), std::string::npos) << t;
  EXPECT_EQ(t.find("nan ulp"), std::string::npos) << t;
  EXPECT_EQ(t.find("inf x"), std::string::npos) << t;
  EXPECT_EQ(t.find("0 ULP"), std::string::npos) << t;
  EXPECT_EQ(t.find("0 x"), std::string::npos) << t;
  EXPECT_NE(t.find("actual nan (not a number)"), std::string::npos) << t;
  EXPECT_NE(t.find("first call 0.5, second call 0.50390625"), std::string::npos) << t;
}

TEST(ReportConsole, LongNamesAndIncompleteKeepTheColumns) {
  VerifyResult r;
  for (const auto& [name, status] : {std::pair{std::string("rope.oracle"), CheckStatus::Pass},
                                     std::pair{std::string("rope_cached.bf16.reject.cache-dtype-and-more"), CheckStatus::Pass},
                                     std::pair{std::string("rope.shift"), CheckStatus::Incomplete}}) {
    CheckResult c;
    c.name = name;
    c.clause = "ABI-ROPE-2";
    c.status = status;
    c.cases = 12;
    r.checks.push_back(c);
  }
  const std::string t = render_text(r);
  std::istringstream in(t);
  std::size_t clause_col = std::string::npos;
  int rows = 0;
  for (std::string l; std::getline(in, l);) {
    const auto p = l.find("ABI-ROPE-2");
    if (p == std::string::npos) continue;
    ++rows;
    if (clause_col == std::string::npos) clause_col = p;
    EXPECT_EQ(p, clause_col) << t;
    EXPECT_EQ(l.find("cases"), l.size() - 5) << l;
  }
  EXPECT_EQ(rows, 3) << t;
}

}  // namespace
}  // namespace pecheck::report

namespace pecheck::report {
namespace {

// Issue 22, "Why" item 4: a passing report of a library exporting one function of many is not a
// page of "not exported" rows: they are one line; the functions tested carry their grade; an
// all-zero error series (a pass-through check) draws no plot.
TEST(ReportHtmlFirstScreen, SkippedChecksAreOneLineAndFunctionsCarryTheirGrade) {
  VerifyResult r;
  r.kernel = "libmine.so";
  r.missing = {"pec_rope_f32", "pec_alibi_bias_f32"};
  for (int i = 0; i < 346; ++i) {
    CheckResult s;
    s.name = "rope.skipped" + std::to_string(i);
    s.function = i % 2 ? "pec_rope_f32" : "pec_alibi_bias_f32";
    s.status = CheckStatus::Skipped;
    s.reason = s.function + " is not exported";
    r.checks.push_back(s);
  }
  CheckResult oracle;
  oracle.name = "rope_qk.bf16.oracle";
  oracle.function = "pec_rope_qk_bf16";
  oracle.status = CheckStatus::Pass;
  oracle.cases = 160;
  Accuracy a;
  a.accuracy_class = "field";
  a.grades = {{"reference", 2.5}, {"field", 0.4}};
  a.pin = "--accuracy rope_qk.bf16=field";
  oracle.accuracy = a;
  r.checks.push_back(oracle);
  CheckResult pt;
  pt.name = "rope_qk.bf16.passthrough";
  pt.function = "pec_rope_qk_bf16";
  pt.status = CheckStatus::Pass;
  ErrorSeries zero;
  zero.points = {{1, 0}, {2, 0}, {1024, 0}};
  pt.series = {zero};
  r.checks.push_back(pt);
  const std::string html = render_html(r);
  EXPECT_NE(html.find("Not run: 346 checks of the 2 functions not exported."), std::string::npos);
  EXPECT_EQ(html.find("rope.skipped17</td>"), std::string::npos);  // no row per skipped check
  EXPECT_NE(html.find("<td><code>pec_rope_qk_bf16</code></td><td>2 of 2 pass</td><td>meets <b>field</b>"),
            std::string::npos)
      << html.substr(0, 3000);
  EXPECT_NE(html.find("--accuracy rope_qk.bf16=field"), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);  // all-zero errors: no plot
  EXPECT_LT(html.find("Functions tested"), html.find("Checks that ran"));
}

// A crash has no error-against-position story: no plot even when the check recorded a series.
TEST(ReportHtmlFirstScreen, NoPlotForNonPrecisionFailures) {
  VerifyResult r;
  CheckResult c;
  c.name = "rope_qk.oracle";
  c.function = "pec_rope_qk_f32";
  c.status = CheckStatus::Fail;
  Counterexample cx;
  cx.kind = "crash";
  cx.message = "pec_rope_qk_f32 crashed (SIGSEGV)";
  c.counterexample = cx;
  ErrorSeries s;
  s.points = {{1, 0.5}, {2, 3}, {1024, 1e6}};
  c.series = {s};
  r.checks.push_back(c);
  EXPECT_EQ(render_html(r).find("<svg"), std::string::npos);
  r.checks.back().counterexample->kind = "mismatch";
  EXPECT_NE(render_html(r).find("<svg"), std::string::npos);
  // A wrong value (the GPT-J pairing: 1e46 times the bound) is not a drifting precision.
  r.checks.back().series.front().unit = "contract";
  r.checks.back().series.front().points.push_back({4096, 1e46});
  EXPECT_EQ(render_html(r).find("<svg"), std::string::npos);
}

}  // namespace
}  // namespace pecheck::report
