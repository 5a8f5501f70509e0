#include "verify/selection.hpp"

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "verify/checks/accuracy.hpp"

namespace pecheck::verifier {

namespace {

bool exported(std::uint32_t mask, Fn f) { return (mask & fn_bit(f)) != 0; }

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::vector<std::string> exported_symbols(std::uint32_t mask) {
  std::vector<std::string> v;
  for (Fn f : kAllFns) {
    if (exported(mask, f)) v.emplace_back(symbol(f));
  }
  return v;
}

// The check-name prefixes of the exported functions ("rope_qk.bf16.*"), for messages.
std::string prefixes(std::uint32_t mask) {
  std::vector<std::string> v;
  for (Fn f : kAllFns) {
    if (exported(mask, f)) v.push_back(check_prefix(f) + ".*");
  }
  return join(v);
}

}  // namespace

namespace {
// The second dotted part of a name ("bf16" of "rope.bf16.oracle"), "" when there is none.
std::string second_part(const std::string& s) {
  const auto a = s.find('.');
  if (a == std::string::npos) return "";
  const auto b = s.find('.', a + 1);
  return s.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
}
}  // namespace

bool only_matches(const std::string& s, const std::string& name) {
  if (s.size() > 1 && s[0] == '.') return name.ends_with(s) || name.find(s + ".") != std::string::npos;
  if (second_part(s) == "f32") {  // "rope.f32[.check]": the float32 function, whose names carry no dtype
    const std::string sn = second_part(name);
    if (sn == "bf16" || sn == "f16") return false;
    const auto a = s.find('.');
    const auto b = s.find('.', a + 1);
    return only_matches(s.substr(0, a) + (b == std::string::npos ? "" : s.substr(b)), name);
  }
  return s == name || name.starts_with(s + ".");
}

void validate_only_names(const std::vector<std::string>& only, const std::vector<AnyCheck>& catalogue) {
  std::vector<std::string> names, selectors;
  for (const auto& c : catalogue) {
    names.push_back(c.name);
    // every selector form: the name and each dotted prefix
    for (auto p = c.name.find('.'); p != std::string::npos; p = c.name.find('.', p + 1)) {
      const std::string pre = c.name.substr(0, p);
      if (std::find(selectors.begin(), selectors.end(), pre) == selectors.end()) selectors.push_back(pre);
    }
  }
  selectors.insert(selectors.end(), names.begin(), names.end());
  for (const auto& s : only) {
    const bool known = std::any_of(names.begin(), names.end(), [&](const std::string& n) { return only_matches(s, n); });
    if (!known) {
      throw UsageError("--only: unknown check '" + s + "'" + did_you_mean(s, selectors) +
                       " (names are scheme[.dtype][.check], e.g. rope.oracle, rope_qk.bf16.oracle, .reject; "
                       "pecheck verify --kernel LIB --list-checks lists a library's)");
    }
  }
}

std::string accuracy_keys_of(Fn f) {
  const std::string sch(scheme(f));
  const auto& cls = accuracy_classes(sch, storage(f));
  if (cls.empty()) return "";
  return sch + " or " + sch + "." + std::string(storage_name(storage(f))) + " (" + join(cls) + ")";
}

std::vector<std::string> validate_for_library(const VerifyOptions& o, std::uint32_t mask,
                                              const std::vector<AnyCheck>& catalogue) {
  std::vector<std::string> notes;
  const std::string functions = join(exported_symbols(mask));
  for (const auto& s : o.only) {
    std::vector<std::string> mine;
    bool any = false;
    for (const auto& c : catalogue) {
      if (!exported(mask, c.fn)) continue;
      mine.push_back(c.name);
      any = any || only_matches(s, c.name);
    }
    if (!any) {
      throw UsageError("--only " + s + " selects no check of this library" + did_you_mean(s, mine) + " (it exports " +
                       functions + "; their checks: " + prefixes(mask) + "; --list-checks lists them)");
    }
  }
  std::vector<std::string> keys;  // every key that applies to an exported function, for messages
  for (Fn f : kAllFns) {
    if (!exported(mask, f) || accuracy_classes(std::string(scheme(f)), storage(f)).empty()) continue;
    for (const std::string& k : {std::string(scheme(f)), std::string(scheme(f)) + "." + std::string(storage_name(storage(f)))}) {
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
  }
  for (const auto& [key, cls] : o.accuracy) {
    const bool every = key == kEveryScheme;
    const auto dot = key.find('.');
    const std::string sch = every ? "" : key.substr(0, dot);
    const auto st = every || dot == std::string::npos ? std::nullopt : storage_of_name(key.substr(dot + 1));
    std::vector<std::string> covered, lacking;
    for (Fn f : kAllFns) {
      if (!exported(mask, f) || accuracy_classes(std::string(scheme(f)), storage(f)).empty()) continue;
      if (!every && (scheme(f) != sch || (st && storage(f) != *st))) continue;
      covered.emplace_back(symbol(f));
      if (!has_accuracy_class(std::string(scheme(f)), cls, storage(f))) lacking.emplace_back(symbol(f));
    }
    const std::string opt = "--accuracy " + (every ? cls : key + "=" + cls);
    if (covered.empty()) {
      throw UsageError(opt + " applies to no function of this library" + (every ? "" : did_you_mean(key, keys)) +
                       " (it exports " + functions + "; accuracy keys: " + (keys.empty() ? "none" : join(keys)) + ")");
    }
    if (lacking.size() == covered.size()) {
      std::string classes;
      for (Fn f : kAllFns) {
        if (std::find(covered.begin(), covered.end(), symbol(f)) != covered.end()) {
          classes += (classes.empty() ? "" : "; ") + accuracy_keys_of(f);
        }
      }
      throw UsageError(opt + ": " + join(covered) + " has no class '" + cls + "' (" + classes + ")");
    }
    if (!lacking.empty() && !every) {
      notes.push_back(opt + " does not apply to " + join(lacking) + " (no such class for its storage type): judged by '" +
                      kDefaultClass + "'");
    }
  }
  return notes;
}

std::vector<std::string> list_checks(std::uint32_t mask, const std::vector<AnyCheck>& catalogue) {
  std::vector<std::string> out;
  for (const auto& c : catalogue) {
    if (!exported(mask, c.fn)) continue;
    std::string when;
    if (c.strict_only) when = c.opt_in_part.empty() ? "  [--strict]" : "  [--strict, or --only naming " + c.opt_in_part + "]";
    out.push_back(c.name + "  " + std::string(symbol(c.fn)) + "  " + c.clause + when);
  }
  return out;
}

bool selected(const VerifyOptions& o, const AnyCheck& c) {
  if (o.only.empty()) return true;
  for (const auto& s : o.only) {
    if (only_matches(s, c.name)) return true;
  }
  return false;
}

// A strict-only check runs under --strict, or when --only names it through its opt-in part
// (`--only rope.batch` runs rope.batch without --strict; `--only rope` does not).
bool strict_allows(const VerifyOptions& o, const AnyCheck& c) {
  if (o.strict || !c.strict_only) return true;
  if (c.opt_in_part.empty()) return false;
  for (const auto& s : o.only) {
    if (only_matches(s, c.name) && s.find(c.opt_in_part) != std::string::npos) return true;
  }
  return false;
}

bool is_rope_like(Fn f) {
  const Family fam = family(f);
  return fam == Family::Rope || fam == Family::RopeQk || fam == Family::RopeCached || fam == Family::RopeCache;
}

// Why a run with this selection would run no check (a usage error: a run that checks nothing
// must never pass, issue 20 finding 1), naming what would make checks run.
std::string nothing_runs(const VerifyOptions& o, const LibraryInfo& info, const std::vector<AnyCheck>& checks,
                         const Domain& domain) {
  std::size_t strict = 0, passthrough = 0;
  for (const auto& c : checks) {
    if (!(info.mask & fn_bit(c.fn)) || !selected(o, c)) continue;
    if (domain.rope_full_rotary && family(c.fn) == Family::Rope && c.name.ends_with(".passthrough")) ++passthrough;
    else if (!strict_allows(o, c)) ++strict;
  }
  std::string only;
  for (const auto& s : o.only) only += (only.empty() ? "" : " ") + s;
  std::string why = "no check would run: --only " + only + " selects ";
  if (strict > 0) why += std::to_string(strict) + " argument-hygiene or batch check(s) that run only with --strict";
  if (passthrough > 0) {
    why += std::string(strict > 0 ? " and " : "") + std::to_string(passthrough) +
           " pass-through check(s) that the declared domain (rope.rotary_dim=full) rules out";
  }
  if (strict == 0 && passthrough == 0) why += "nothing";
  return why + " (--list-checks lists this library's checks)";
}

// Exports that look like ABI functions but are not (issue 20, finding 2): a warning by default
// (the functions that are ABI names are still verified), a failing check under --strict.
void add_stray_exports(VerifyResult& res, const LibraryInfo& info, const VerifyOptions& o) {
  if (info.stray_exports.empty()) return;
  std::string list;
  for (const auto& s : info.stray_exports) list += (list.empty() ? "" : "; ") + s;
  const std::string what = std::to_string(info.stray_exports.size()) +
                           " export(s) look like ABI functions but are not in spec/pecheck_kernel.h, so they are not "
                           "verified: " + list;
  res.notes.push_back("warning: " + what + (o.strict ? "" : " (--strict fails the run on them)"));
  if (!o.strict) return;
  report::CheckResult r;
  r.name = "abi.exports", r.scheme = "abi", r.function = "(library)", r.clause = "ABI-GEN-1";
  r.description = "every exported pec_* function is an ABI function (a misspelt or C++-mangled name is never verified)";
  r.status = report::CheckStatus::Fail;
  r.cases = 1;
  report::Counterexample cx;
  cx.kind = "stray-export";
  cx.clause = "ABI-GEN-1";
  cx.message = what;
  cx.reproduce = "pecheck verify --kernel " + o.kernel_label + " --strict";
  r.counterexample = std::move(cx);
  res.checks.push_back(std::move(r));
}

// --require-resolved P (issue 20, finding 7; spec/contracts.md PREC-CLASS-4): a RoPE oracle check
// that passed its class fails when a tested position <= P is not resolved (the fastest pair's
// angle error >= 1/2 of its step: p and p + 1 blur), which the default class allows where
// float32 carries no angle.
void require_resolved(VerifyResult& res, const VerifyOptions& o) {
  if (o.require_resolved <= 0) return;
  for (auto& c : res.checks) {
    if (c.status != report::CheckStatus::Pass || !c.accuracy) continue;
    const auto& a = *c.accuracy;
    std::optional<report::OctaveRow> lost;
    for (const auto& row : a.profile) {
      const std::int64_t low = row.octave < 0 ? 0 : std::int64_t{1} << row.octave;
      if (row.position_error && !(*row.position_error < 0.5) && low <= o.require_resolved) {
        lost = row;
        break;
      }
    }
    if (!lost) continue;
    const std::int64_t low = lost->octave < 0 ? 0 : std::int64_t{1} << lost->octave;
    report::Counterexample cx;
    cx.kind = "unresolved-position";
    cx.clause = "PREC-CLASS-4";
    cx.message = "positions are not resolved up to --require-resolved " + std::to_string(o.require_resolved) +
                 ": resolved up to " + (a.resolved_up_to ? std::to_string(*a.resolved_up_to) : std::string("no tested position")) +
                 ", then the fastest pair's angle error reaches " + report::format_real(*lost->position_error) +
                 " position steps at positions in [" + std::to_string(low) + ", " + std::to_string(2 * std::max<std::int64_t>(low, 1)) +
                 ") (p and p + 1 are no longer told apart; must stay below 1/2)";
    if (a.worst) {
      cx.args = a.worst->args;
      cx.inputs = a.worst->inputs;
    }
    cx.function = c.function;
    cx.reproduce = "pecheck verify --kernel " + o.kernel_label + " --seed " + std::to_string(o.seed) + " --max-position " +
                   std::to_string(o.max_position) +
                   (o.case_scale != 1.0 ? " --case-scale " + report::format_real(o.case_scale) : std::string()) +
                   (o.regressions ? "" : " --no-regressions") +
                   " --require-resolved " + std::to_string(o.require_resolved) + " --only " + c.name;
    c.status = report::CheckStatus::Fail;
    c.reason = "met its accuracy class, but --require-resolved " + std::to_string(o.require_resolved) + " is not met";
    c.counterexample = std::move(cx);
  }
}

}  // namespace pecheck::verifier
