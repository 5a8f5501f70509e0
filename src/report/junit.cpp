// JUnit XML (the schema Jenkins, GitLab and GitHub test reporters read): one <testsuite>
// per run, one <testcase> per check. A counterexample is a <failure>; a check that could not
// decide or could not run (unknown, timeout, error) is an <error> — never a pass; a skipped
// check is <skipped/>.
#include <fmt/format.h>

#include <cmath>

#include "report/write.hpp"

namespace pecheck::report {

std::string render_junit(const VerifyResult& r) {
  const auto failures = r.count(CheckStatus::Fail);
  const auto errors = r.count(CheckStatus::Unknown) + r.count(CheckStatus::Timeout) + r.count(CheckStatus::Error) +
                      r.count(CheckStatus::Incomplete);
  const auto skipped = r.count(CheckStatus::Skipped);
  const auto tests = static_cast<std::int64_t>(r.checks.size());
  std::string time = fmt::format("{:.3f}", std::isfinite(r.seconds) ? r.seconds : 0.0);
  std::string suite = xml_escape("pecheck verify " + r.kernel);

  std::string o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += fmt::format(R"(<testsuites name="pecheck" tests="{}" failures="{}" errors="{}" skipped="{}" time="{}">)",
                   tests, failures, errors, skipped, time);
  o += "\n";
  o += fmt::format(R"(  <testsuite name="{}" tests="{}" failures="{}" errors="{}" skipped="{}" time="{}">)", suite,
                   tests, failures, errors, skipped, time);
  o += "\n    <properties>\n";
  auto prop = [&](std::string_view k, std::string_view v) {
    o += fmt::format(R"(      <property name="{}" value="{}"/>)", xml_escape(k), xml_escape(v));
    o += "\n";
  };
  prop("kernel", r.kernel);
  prop("seed", std::to_string(r.options.seed));
  prop("max_position", std::to_string(r.options.max_position));
  prop("contract", r.options.contract);
  prop("verdict", r.verdict());
  prop("verdict_sentence", r.verdict_sentence());
  o += "    </properties>\n";
  for (const auto& c : r.checks) {
    std::string t = fmt::format("{:.3f}", std::isfinite(c.seconds) ? c.seconds : 0.0);
    o += fmt::format(R"(    <testcase classname="pecheck.{}" name="{}" time="{}">)", xml_escape(c.scheme),
                     xml_escape(c.name), t);
    switch (c.status) {
      case CheckStatus::Pass: break;
      case CheckStatus::Skipped:
        o += fmt::format(R"(<skipped message="{}"/>)", xml_escape(c.reason));
        break;
      case CheckStatus::Fail: {
        std::string msg = c.counterexample ? c.counterexample->message : c.reason;
        std::string body = c.clause + "\n";
        if (c.counterexample) {
          const auto& cx = *c.counterexample;
          for (const auto& a : cx.args) body += a.name + " = " + format_arg(a.value) + "\n";
          if (cx.worst) {
            body += "expected " + format_real(cx.worst->expected) + " (" + format_hex(cx.worst->expected) +
                    "), actual " + format_real(cx.worst->actual) + " (" + format_hex(cx.worst->actual) +
                    "), " + format_real(cx.worst->ulps) + " ULP\n";
          }
          for (const auto& n : cx.notes) body += "note: " + n + "\n";
          body += "reproduce: " + cx.reproduce + "\n";
        }
        o += fmt::format(R"(<failure message="{}" type="{}">{}</failure>)", xml_escape(msg), xml_escape(c.clause),
                         xml_escape(body));
        break;
      }
      case CheckStatus::Unknown:
      case CheckStatus::Timeout:
      case CheckStatus::Error:
      case CheckStatus::Incomplete:  // an error, not a pass: the time cap left it undecided
        o += fmt::format(R"(<error message="{}" type="{}"/>)", xml_escape(c.reason), to_string(c.status));
        break;
    }
    o += "</testcase>\n";
  }
  o += "  </testsuite>\n</testsuites>\n";
  return o;
}

}  // namespace pecheck::report
