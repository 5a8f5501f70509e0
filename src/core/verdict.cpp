#include "core/verdict.hpp"

namespace pecheck {

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Counterexample: return "counterexample";
    case Verdict::Unknown: return "unknown";
    case Verdict::Timeout: return "timeout";
    case Verdict::Error: return "error";
  }
  return "error";
}

std::optional<Verdict> verdict_from_string(std::string_view s) {
  for (Verdict v : {Verdict::Pass, Verdict::Counterexample, Verdict::Unknown, Verdict::Timeout,
                    Verdict::Error}) {
    if (to_string(v) == s) return v;
  }
  return std::nullopt;
}

}  // namespace pecheck
