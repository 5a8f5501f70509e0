// report.json: shape (issue 4's contract), valid JSON for any value, and a lossless reader.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "fixtures.hpp"
#include "report/json.hpp"
#include "report/write.hpp"

namespace pecheck::report {
namespace {

using nlohmann::json;

// A production-size witness (the .large checks) is described by its shape in the report files:
// listing 10^5 values twice (counterexample and worst case) made report.json tens of MB.
TEST(ReportFiles, ListAtMostTheCapOfValuesPerTensor) {
  auto r = testing::nasty_result();
  auto& cx = *r.checks.at(1).counterexample;
  Tensor big{"q", {1000, 100}, std::vector<float>(100000, 0.25f)};
  ASSERT_FALSE(big.listed());
  cx.inputs.push_back(big);
  const std::string json = render_json(r), md = render_markdown(r), html = render_html(r);
  EXPECT_NE(json.find("\"values_omitted\": 100000"), std::string::npos);
  EXPECT_LT(json.size(), 100000u);  // not one entry per value
  for (const std::string* s : {&md, &html}) {
    EXPECT_NE(s->find("q: 100000 values, not listed (over 16384 per tensor)"), std::string::npos);
    EXPECT_LT(s->size(), 200000u);
  }
  // Read back, the tensor keeps its name and shape and has no values.
  const auto back = verify_result_from_json(nlohmann::ordered_json::parse(json));
  const auto& t = back.checks.at(1).counterexample->inputs.back();
  EXPECT_EQ(t.name, "q");
  EXPECT_EQ(t.shape, (std::vector<std::int64_t>{1000, 100}));
  EXPECT_TRUE(t.values.empty());
  EXPECT_EQ(t.omitted, 100000u);  // and writes as it was read (parallel lanes pass results as JSON)
  EXPECT_EQ(render_json(back), json);
  // At the cap, every value is listed.
  Tensor edge{"k", {Tensor::kMaxListed}, std::vector<float>(Tensor::kMaxListed, 0.5f)};
  EXPECT_TRUE(edge.listed());
}

TEST(ReportStatus, UndecidedAndErrorAreNeverPass) {
  VerifyResult r = testing::passing_result();
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(r.verdict(), "pass");
  EXPECT_EQ(r.exit_status(), exit_code::ok);
  for (CheckStatus s : {CheckStatus::Fail, CheckStatus::Unknown, CheckStatus::Timeout, CheckStatus::Error}) {
    VerifyResult q = r;
    q.checks.front().status = s;
    EXPECT_FALSE(q.passed()) << to_string(s);
    EXPECT_EQ(q.verdict(), "fail");
    EXPECT_EQ(q.exit_status(), exit_code::counterexample);
  }
}

TEST(ReportStatus, SpellingsRoundTripAndMapToCoreVerdicts) {
  for (CheckStatus s : {CheckStatus::Pass, CheckStatus::Fail, CheckStatus::Skipped, CheckStatus::Unknown,
                        CheckStatus::Timeout, CheckStatus::Error}) {
    EXPECT_EQ(check_status_from_string(to_string(s)), s);
    if (auto v = to_verdict(s)) {
      EXPECT_EQ(from_verdict(*v), s);
    }
  }
  EXPECT_EQ(to_verdict(CheckStatus::Skipped), std::nullopt);
  EXPECT_EQ(to_verdict(CheckStatus::Fail), Verdict::Counterexample);
  EXPECT_EQ(check_status_from_string("passed"), std::nullopt);
}

TEST(ReportJson, HasTheFieldsIssue4Promises) {
  // Parse the written text (not the in-memory object): that is what other tools read.
  const auto j = nlohmann::ordered_json::parse(render_json(testing::nasty_result()));
  EXPECT_EQ(j.at("verdict"), "fail");
  ASSERT_TRUE(j.at("checks").is_array());
  ASSERT_EQ(j.at("checks").size(), 4u);
  for (const auto& c : j.at("checks")) {
    for (const char* key : {"name", "scheme", "clause", "status", "cases"}) {
      EXPECT_TRUE(c.contains(key)) << key;
    }
    const std::string status = c.at("status");
    EXPECT_TRUE(status == "pass" || status == "fail" || status == "skipped" || status == "unknown" ||
                status == "timeout" || status == "error");
  }
  const auto& f = j.at("checks").at(1);
  EXPECT_EQ(f.at("status"), "fail");
  EXPECT_EQ(f.at("clause"), "ABI-ROPE-4");
  ASSERT_TRUE(f.contains("counterexample"));
  ASSERT_TRUE(f.contains("reproduce"));
  EXPECT_EQ(f.at("reproduce"), f.at("counterexample").at("reproduce"));
  const auto& args = f.at("counterexample").at("args");
  ASSERT_TRUE(args.is_object());
  EXPECT_EQ(args.at("rotary_dim"), 2);
  EXPECT_EQ(args.at("positions").at(0), 4097);
  EXPECT_TRUE(args.at("table").is_null());
  // ABI order is kept: n_tokens first, as in struct pec_rope_args.
  EXPECT_EQ(args.begin().key(), "n_tokens");
  EXPECT_FALSE(j.at("checks").at(0).contains("counterexample"));
  EXPECT_EQ(j.at("seed").get<std::uint64_t>(), 18446744073709551615ull);
  EXPECT_EQ(j.at("summary").at("fail"), 1);
  EXPECT_EQ(j.at("summary").at("timeout"), 1);
}

TEST(ReportJson, NonFiniteValuesAreStringsSoTheDocumentStaysValid) {
  const std::string text = render_json(testing::nasty_result());
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  EXPECT_EQ(text.find("Infinity"), std::string::npos);
  json j = json::parse(text);  // throws on invalid JSON
  const auto& cx = j.at("checks").at(1).at("counterexample");
  EXPECT_EQ(cx.at("worst").at("actual"), "nan");
  EXPECT_EQ(cx.at("worst").at("ulps"), "inf");
  EXPECT_EQ(cx.at("worst").at("contract_units"), "-inf");
  EXPECT_EQ(cx.at("args").at("inv_freq").at(0), "nan");
  EXPECT_EQ(cx.at("args").at("inv_freq").at(2), "-inf");
  EXPECT_EQ(cx.at("inputs").at(1).at("hex").at(3), "0x1p-149");
  EXPECT_EQ(j.at("checks").at(1).at("seconds"), "inf");
}

TEST(ReportJson, InvalidUtf8IsReplacedNotFatal) {
  const std::string text = render_json(testing::nasty_result());
  json j = json::parse(text);
  const std::string msg = j.at("checks").at(1).at("counterexample").at("message");
  EXPECT_NE(msg.find("\xEF\xBF\xBD"), std::string::npos);
}

TEST(ReportJson, ReaderRestoresEveryValueBitExact) {
  const VerifyResult in = testing::nasty_result();
  const VerifyResult out = verify_result_from_text(render_json(in));
  EXPECT_EQ(out.kernel, in.kernel);
  EXPECT_EQ(out.options.seed, in.options.seed);
  EXPECT_EQ(out.options.only, in.options.only);
  EXPECT_EQ(out.options.extra, in.options.extra);
  EXPECT_EQ(out.missing, in.missing);
  ASSERT_EQ(out.checks.size(), in.checks.size());
  for (std::size_t i = 0; i < in.checks.size(); ++i) {
    EXPECT_EQ(out.checks[i].status, in.checks[i].status);
    EXPECT_EQ(out.checks[i].reason, in.checks[i].reason);
  }
  const auto& a = *in.checks[1].counterexample;
  const auto& b = *out.checks[1].counterexample;
  ASSERT_EQ(a.args.size(), b.args.size());
  for (std::size_t i = 0; i < a.args.size(); ++i) {
    EXPECT_EQ(a.args[i].name, b.args[i].name);
    EXPECT_EQ(a.args[i].value.index(), b.args[i].value.index()) << a.args[i].name;
    EXPECT_EQ(format_arg(a.args[i].value), format_arg(b.args[i].value)) << a.args[i].name;
  }
  // -0.0 keeps its sign; floats come back bit-exact through the hex spelling.
  EXPECT_TRUE(std::signbit(std::get<double>(b.args[6].value)));
  ASSERT_EQ(a.inputs.size(), b.inputs.size());
  for (std::size_t t = 0; t < a.inputs.size(); ++t) {
    ASSERT_EQ(a.inputs[t].values.size(), b.inputs[t].values.size());
    for (std::size_t i = 0; i < a.inputs[t].values.size(); ++i) {
      EXPECT_EQ(format_hex(a.inputs[t].values[i]), format_hex(b.inputs[t].values[i]));
      EXPECT_EQ(std::signbit(a.inputs[t].values[i]), std::signbit(b.inputs[t].values[i]));
    }
  }
  ASSERT_TRUE(b.worst);
  EXPECT_TRUE(std::isnan(b.worst->actual));
  EXPECT_EQ(b.worst->contract_units, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(b.worst->position, a.worst->position);
  EXPECT_EQ(b.notes, a.notes);
  EXPECT_EQ(b.shrink_steps, a.shrink_steps);
  ASSERT_EQ(out.checks[1].series.size(), 1u);
  EXPECT_EQ(out.checks[1].series[0].points.size(), in.checks[1].series[0].points.size());
  // Reading and writing again gives the same bytes (deterministic, lossless).
  EXPECT_EQ(render_json(out), render_json(in));
}

TEST(ReportJson, MalformedInputIsAOneLineUsageError) {
  EXPECT_THROW(verify_result_from_json(json::parse(R"({"verdict":"pass"})")), UsageError);
  json j = json::parse(render_json(testing::nasty_result()));
  j["checks"][0]["status"] = "passed";
  EXPECT_THROW(verify_result_from_json(j), UsageError);
  EXPECT_THROW(real_from_json(json("NaN")), UsageError);
  try {
    verify_result_from_json(json::array());
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace pecheck::report

namespace pecheck::report {
namespace {

// Issue #13: a check the time cap cut short is "incomplete" in every writer, never "pass", the
// verdict names it with its cases run of planned, and the exit status is its own, 5 (issue 20,
// finding 9: not 1, the status of a counterexample).
TEST(ReportStatus, IncompleteIsItsOwnStatusInEveryWriterAndNeverPass) {
  VerifyResult r = testing::passing_result();
  CheckResult& c = r.checks.front();
  c.status = CheckStatus::Incomplete;
  c.cases = 41;
  c.planned = 150;
  c.reason = "the run's time cap was reached after 41 of 150 cases";
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.verdict(), "incomplete");
  EXPECT_EQ(r.exit_status(), exit_code::incomplete);
  EXPECT_EQ(exit_code::incomplete, 5);
  const std::string named = c.name + " (41 of 150 cases)";
  EXPECT_NE(r.verdict_sentence().find("incomplete: " + named), std::string::npos) << r.verdict_sentence();
  EXPECT_EQ(to_verdict(CheckStatus::Incomplete), Verdict::Timeout);
  EXPECT_EQ(check_status_from_string("incomplete"), CheckStatus::Incomplete);

  const json j = json::parse(render_json(r));
  EXPECT_EQ(j.at("verdict"), "incomplete");
  EXPECT_EQ(j.at("summary").at("incomplete"), 1);
  EXPECT_EQ(j.at("checks").at(0).at("status"), "incomplete");
  EXPECT_EQ(j.at("checks").at(0).at("planned_cases"), 150);
  const VerifyResult back = verify_result_from_json(j);
  EXPECT_EQ(back.checks.front().status, CheckStatus::Incomplete);
  EXPECT_EQ(back.checks.front().planned, 150);

  const std::string text = render_text(r), md = render_markdown(r), html = render_html(r), junit = render_junit(r);
  EXPECT_NE(text.find("  incomplete " + c.name), std::string::npos) << text;
  EXPECT_NE(text.find("verdict: incomplete"), std::string::npos) << text;
  EXPECT_NE(text.find(named), std::string::npos) << text;
  EXPECT_TRUE(md.starts_with("# pecheck verify: INCOMPLETE")) << md.substr(0, 80);
  EXPECT_NE(md.find("**incomplete**"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"incomplete\">incomplete</span>"), std::string::npos);
  EXPECT_NE(junit.find("type=\"incomplete\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("errors=\"1\""), std::string::npos) << junit;

  // A failure elsewhere makes the run a failure that still names the incomplete check.
  r.checks.back().status = CheckStatus::Fail;
  EXPECT_EQ(r.verdict(), "fail");
  EXPECT_EQ(r.exit_status(), exit_code::counterexample);
  EXPECT_NE(r.verdict_sentence().find("incomplete: " + named), std::string::npos);
}

// Issues #13 and 22: in the HTML the verdict sentence comes first, then the functions tested
// (grades, failures) and one line for what did not run, then the failing checks; the checks
// that ran follow, and the run's details are folded at the end.
TEST(ReportHtmlOrder, VerdictThenFunctionsThenFailuresThenChecksDetailsFolded) {
  const VerifyResult r = testing::nasty_result();
  const std::string html = render_html(r);
  const auto verdict = html.find("<p class=\"verdict\">");
  const auto functions = html.find("<h2>Functions tested</h2>");
  const auto not_run = html.find("<p class=\"skipped\">Not run: ");
  const auto fail = html.find("<section id=");
  const auto ran = html.find("<h2>Checks that ran</h2>");
  const auto details = html.find("<details><summary>run details");
  ASSERT_NE(verdict, std::string::npos);
  ASSERT_NE(functions, std::string::npos);
  ASSERT_NE(not_run, std::string::npos);
  ASSERT_NE(fail, std::string::npos);
  ASSERT_NE(ran, std::string::npos);
  ASSERT_NE(details, std::string::npos);
  EXPECT_LT(verdict, functions);
  EXPECT_LT(functions, not_run);
  EXPECT_LT(not_run, fail);
  EXPECT_LT(fail, ran);
  EXPECT_LT(ran, details);
  EXPECT_NE(html.substr(fail, ran - fail).find("class=\"fail\""), std::string::npos);
}

}  // namespace
}  // namespace pecheck::report
