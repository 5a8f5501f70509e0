#include "classify/report.hpp"

#include <fmt/format.h>

#include <cmath>

namespace pecheck::classify {

namespace {

// JSON has no infinity: a masked score (-inf) is written as the string "-inf".
nlohmann::json number(double v) {
  if (std::isfinite(v)) return v;
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

nlohmann::json witness_json(const Witness& w) {
  return {{"property", w.property},
          {"instance_seed", w.instance_seed},
          {"config", w.config},
          {"first", {{"m", w.m1}, {"n", w.n1}, {"score", number(w.s1)}}},
          {"second", {{"m", w.m2}, {"n", w.n2}, {"score", number(w.s2)}}},
          {"offset", w.n1 - w.m1},
          {"shift", w.m2 - w.m1},
          {"tolerance", number(w.tolerance)},
          {"shrink_steps", w.shrink_steps},
          {"detail", w.detail.empty() ? nlohmann::json(nullptr) : nlohmann::json(w.detail)}};
}

}  // namespace

nlohmann::json to_json(const std::vector<Classification>& cs, std::uint64_t seed) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& c : cs) {
    nlohmann::json ev = nlohmann::json::array();
    for (const auto& p : c.evidence) {
      ev.push_back(
          {{"property", p.property},
           {"cases", p.cases},
           {"counterexample", p.witness ? witness_json(*p.witness) : nlohmann::json(nullptr)}});
    }
    arr.push_back({{"name", c.name},
                   {"family", c.family},
                   {"applied_at", c.applied_at},
                   {"depends_on", c.depends_on},
                   {"function_of", c.function_of},
                   {"softmax_row_invariant", c.softmax_row_invariant},
                   {"cases", c.cases},
                   {"witness", c.witness ? witness_json(*c.witness) : nlohmann::json(nullptr)},
                   {"evidence", ev}});
  }
  return {{"seed", seed}, {"encodings", arr}};
}

std::string to_table(const std::vector<Classification>& cs, std::uint64_t seed) {
  std::string out =
      fmt::format("{:<24} {:<11} {:<12} {:<10} {:<8} {:>6}  {}\n", "encoding", "family",
                  "applied_at", "depends_on", "softmax", "cases", "evidence / witness");
  for (const auto& c : cs) {
    std::string ev;
    for (const auto& p : c.evidence) {
      if (!ev.empty()) ev += ", ";
      ev += fmt::format("{} {}", p.property, p.witness ? "FAILS" : "holds");
    }
    out +=
        fmt::format("{:<24} {:<11} {:<12} {:<10} {:<8} {:>6}  {}\n", c.name, c.family, c.applied_at,
                    c.depends_on, c.softmax_row_invariant ? "yes" : "no", c.cases, ev);
    if (c.function_of != "n - m" && c.function_of != "|n - m|") {
      out += fmt::format("{:<24}   score is a function of: {}\n", "", c.function_of);
    }
    if (c.witness && !c.witness->detail.empty()) {
      out += fmt::format("{:<24}   witness: {} ({})\n", "", c.witness->detail, c.witness->config);
    } else if (c.witness) {
      const Witness& w = *c.witness;
      out += fmt::format(
          "{:<24}   witness: s({},{}) = {:.17g} but s({},{}) = {:.17g} (offset {}, shift {}; {})\n",
          "", w.m1, w.n1, w.s1, w.m2, w.n2, w.s2, w.n1 - w.m1, w.m2 - w.m1, w.config);
    }
  }
  out += fmt::format(
      "seed {}: 'holds' = no counterexample in the cases run (evidence, not proof); "
      "witnesses are shrunk.\n",
      seed);
  return out;
}

}  // namespace pecheck::classify
