#include "report/result.hpp"

#include <cmath>
#include <cstdio>

namespace pecheck::report {

namespace {
constexpr CheckStatus kAll[] = {CheckStatus::Pass,    CheckStatus::Fail,    CheckStatus::Skipped,
                                CheckStatus::Unknown, CheckStatus::Timeout, CheckStatus::Error,
                                CheckStatus::Incomplete};

std::string special(double v) {
  if (std::isnan(v)) return "nan";
  return v < 0 ? "-inf" : "inf";
}
}  // namespace

std::string_view to_string(CheckStatus s) {
  switch (s) {
    case CheckStatus::Pass: return "pass";
    case CheckStatus::Fail: return "fail";
    case CheckStatus::Skipped: return "skipped";
    case CheckStatus::Unknown: return "unknown";
    case CheckStatus::Timeout: return "timeout";
    case CheckStatus::Error: return "error";
    case CheckStatus::Incomplete: return "incomplete";
  }
  return "error";
}

std::optional<CheckStatus> check_status_from_string(std::string_view s) {
  for (CheckStatus c : kAll) {
    if (to_string(c) == s) return c;
  }
  return std::nullopt;
}

std::optional<Verdict> to_verdict(CheckStatus s) {
  switch (s) {
    case CheckStatus::Pass: return Verdict::Pass;
    case CheckStatus::Fail: return Verdict::Counterexample;
    case CheckStatus::Skipped: return std::nullopt;
    case CheckStatus::Unknown: return Verdict::Unknown;
    case CheckStatus::Timeout: return Verdict::Timeout;
    case CheckStatus::Error: return Verdict::Error;
    case CheckStatus::Incomplete: return Verdict::Timeout;
  }
  return Verdict::Error;
}

CheckStatus from_verdict(Verdict v) {
  switch (v) {
    case Verdict::Pass: return CheckStatus::Pass;
    case Verdict::Counterexample: return CheckStatus::Fail;
    case Verdict::Unknown: return CheckStatus::Unknown;
    case Verdict::Timeout: return CheckStatus::Timeout;
    case Verdict::Error: return CheckStatus::Error;
  }
  return CheckStatus::Error;
}

bool VerifyResult::passed() const {
  for (const auto& c : checks) {
    if (c.status != CheckStatus::Pass && c.status != CheckStatus::Skipped) return false;
  }
  return true;
}

std::string_view VerifyResult::verdict() const {
  if (passed()) return "pass";
  for (const auto& c : checks) {
    if (c.status != CheckStatus::Pass && c.status != CheckStatus::Skipped && c.status != CheckStatus::Incomplete) {
      return "fail";
    }
  }
  return "incomplete";
}

std::string VerifyResult::verdict_sentence() const {
  std::string s;
  const std::int64_t failed = static_cast<std::int64_t>(checks.size()) - count(CheckStatus::Pass) -
                              count(CheckStatus::Skipped) - count(CheckStatus::Incomplete);
  if (passed()) {
    s = "pass: all " + std::to_string(ran()) + " checks that ran passed";
  } else if (failed > 0) {
    std::string names;
    std::int64_t listed = 0;
    for (const auto& c : checks) {
      if (c.status == CheckStatus::Pass || c.status == CheckStatus::Skipped || c.status == CheckStatus::Incomplete) {
        continue;
      }
      if (++listed > 6) continue;  // one sentence: the first six, then a count
      names += (names.empty() ? "" : ", ") + c.name + " (" + std::string(to_string(c.status)) + ")";
    }
    if (listed > 6) names += " and " + std::to_string(listed - 6) + " more";
    s = "fail: " + std::to_string(failed) + " of " + std::to_string(ran()) + " checks did not pass: " + names;
  } else {
    s = "incomplete: no check failed, but the time cap cut checks short";
  }
  std::string cut;
  for (const auto& c : checks) {
    if (c.status != CheckStatus::Incomplete) continue;
    cut += (cut.empty() ? "" : ", ") + c.name + " (" + std::to_string(c.cases) + " of " + std::to_string(c.planned) +
           " cases)";
  }
  if (!cut.empty()) s += "; incomplete: " + cut;
  return s;
}

std::int64_t VerifyResult::ran() const {
  return static_cast<std::int64_t>(checks.size()) - count(CheckStatus::Skipped);
}

std::int64_t VerifyResult::count(CheckStatus s) const {
  std::int64_t n = 0;
  for (const auto& c : checks) n += c.status == s ? 1 : 0;
  return n;
}

const CheckResult* VerifyResult::find(std::string_view check_name) const {
  for (const auto& c : checks) {
    if (c.name == check_name) return &c;
  }
  return nullptr;
}

int VerifyResult::exit_status() const {
  if (passed()) return exit_code::ok;
  return verdict() == "incomplete" ? exit_code::incomplete : exit_code::counterexample;
}

std::string format_real(double v) {
  if (!std::isfinite(v)) return special(v);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string format_hex(double v) {
  if (!std::isfinite(v)) return special(v);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

std::string format_hex(float v) { return format_hex(static_cast<double>(v)); }

std::string Tensor::omitted_note() const {
  return name + ": " + std::to_string(count()) + " values, not listed (over " + std::to_string(kMaxListed) +
         " per tensor); the reproduce line regenerates them (same seed, same case)";
}

std::string format_arg(const ArgValue& v) {
  struct Visit {
    std::string operator()(std::monostate) const { return "null"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return format_real(d); }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const std::vector<std::int64_t>& xs) const {
      std::string out = "[";
      for (std::size_t i = 0; i < xs.size(); ++i) out += (i ? ", " : "") + std::to_string(xs[i]);
      return out + "]";
    }
    std::string operator()(const std::vector<double>& xs) const {
      std::string out = "[";
      for (std::size_t i = 0; i < xs.size(); ++i) out += (i ? ", " : "") + format_real(xs[i]);
      return out + "]";
    }
  };
  return std::visit(Visit{}, v);
}

}  // namespace pecheck::report
