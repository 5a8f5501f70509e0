#include "proofs/render.hpp"

#include <fmt/format.h>

#include "report/json.hpp"

namespace pecheck::proofs {
namespace {

std::string solver_cell(const ClaimResult& c, Backend b) {
  // The slowest query's answer for this solver, and the solver's total time on the claim.
  double total = 0;
  std::string worst;
  bool any = false, skipped = false;
  for (auto& q : c.queries) {
    for (auto& r : q.runs) {
      if (r.backend != b) continue;
      any = true;
      total += r.seconds;
      if (!r.ran) { skipped = true; continue; }
      const std::string a(to_string(r.answer));
      if (worst.empty() || (worst == "proved" && a != "proved")) worst = a;
    }
  }
  if (!any) return "-";
  if (worst.empty()) return skipped ? "skipped" : "-";
  return fmt::format("{} {:.1f}s", worst, total);
}

}  // namespace

bool all_as_expected(const std::vector<ClaimResult>& results) {
  for (auto& r : results) if (!r.as_expected()) return false;
  return true;
}

std::string render_table(const std::vector<ClaimResult>& results, double seconds) {
  std::string out = fmt::format("{:<36} {:<34} {:<15} {:<15} {:<20} {:<20} {:>7}\n", "claim",
                                "clause", "expected", "verdict", "z3", "cvc5", "time");
  std::size_t ok = 0;
  for (auto& c : results) {
    if (c.as_expected()) ++ok;
    std::string clause = c.clause.size() > 34 ? c.clause.substr(0, 31) + "..." : c.clause;
    out += fmt::format("{:<36} {:<34} {:<15} {:<15} {:<20} {:<20} {:>6.1f}s{}\n", c.name, clause,
                       to_string(c.expected), to_string(c.verdict), solver_cell(c, Backend::Z3),
                       solver_cell(c, Backend::Cvc5), c.seconds, c.as_expected() ? "" : "  <-- NOT AS EXPECTED");
    if (!c.reason.empty() && (c.verdict == Answer::Counterexample || !c.as_expected())) {
      out += "    " + c.reason + "\n";
    }
  }
  out += fmt::format("{} of {} claims gave what they should ({:.1f}s)\n", ok, results.size(), seconds);
  return out;
}

nlohmann::ordered_json to_json(const std::vector<ClaimResult>& results, double seconds) {
  nlohmann::ordered_json j;
  j["tool"] = std::string("pecheck ") + PECHECK_VERSION;
  j["solvers"] = {solver_version(Backend::Z3), solver_version(Backend::Cvc5)};
  j["seconds"] = seconds;
  j["all_as_expected"] = all_as_expected(results);
  auto& arr = j["proofs"] = nlohmann::ordered_json::array();
  for (auto& c : results) {
    nlohmann::ordered_json p;
    p["name"] = c.name;
    p["clause"] = c.clause;
    p["scheme"] = c.scheme;
    p["description"] = c.description;
    p["verdict"] = std::string(to_string(c.verdict));
    p["expected"] = std::string(to_string(c.expected));
    p["as_expected"] = c.as_expected();
    p["seconds"] = c.seconds;
    p["reason"] = c.reason;
    auto& s = p["solvers"] = nlohmann::ordered_json::array();
    for (auto& q : c.queries) {
      for (auto& r : q.runs) {
        s.push_back({{"query", q.name},
                     {"solver", std::string(to_string(r.backend))},
                     {"verdict", r.ran ? std::string(to_string(r.answer)) : std::string("skipped")},
                     {"seconds", r.seconds},
                     {"reason", r.reason}});
      }
    }
    p["queries"] = nlohmann::ordered_json::array();
    for (auto& q : c.queries) {
      p["queries"].push_back({{"name", q.name}, {"verdict", std::string(to_string(q.answer))},
                              {"reason", q.reason}});
    }
    p["notes"] = c.notes;
    p["counterexample"] = c.counterexample ? report::to_json(*c.counterexample)
                                           : nlohmann::ordered_json(nullptr);
    arr.push_back(std::move(p));
  }
  return j;
}

report::VerifyResult to_verify_result(const std::vector<ClaimResult>& results, double seconds) {
  report::VerifyResult v;
  v.tool_version = PECHECK_VERSION;
  v.kernel = "<pecheck prove>";
  v.seconds = seconds;
  v.options.extra.push_back({"command", "prove"});
  v.notes.push_back("SMT proofs: " + solver_version(Backend::Z3) + ", " +
                    solver_version(Backend::Cvc5) +
                    ". A claim meant to fail (expected: counterexample) reports status fail "
                    "with its replayed counterexample.");
  for (auto& c : results) {
    report::CheckResult ck;
    ck.name = c.name;
    ck.scheme = c.scheme;
    ck.clause = c.clause;
    ck.description = c.description + " (expected: " + std::string(to_string(c.expected)) +
                     (c.as_expected() ? ", as expected" : ", NOT as expected") + ")";
    ck.status = c.verdict == Answer::Proved ? report::CheckStatus::Pass
                : c.verdict == Answer::Counterexample
                    ? (c.counterexample ? report::CheckStatus::Fail : report::CheckStatus::Error)
                : report::from_verdict(to_verdict(c.verdict));
    ck.reason = c.verdict == Answer::Proved ? "" : c.reason;
    ck.cases = static_cast<std::int64_t>(c.queries.size());
    ck.seconds = c.seconds;
    if (ck.status == report::CheckStatus::Fail) ck.counterexample = c.counterexample;
    v.checks.push_back(std::move(ck));
  }
  return v;
}

}  // namespace pecheck::proofs
