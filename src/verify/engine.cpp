// The verification run: the check catalogue in order, the time budget, one fresh worker per
// check, and the result structure shared by the CLI, the C++ API and the reports.
#include <algorithm>

#include "core/error.hpp"
#include "verify/check.hpp"
#include "verify/corpus_replay.hpp"
#include "verify/verify.hpp"

namespace pecheck {

namespace {

using namespace verifier;

std::vector<AnyCheck> catalogue() {
  std::vector<AnyCheck> all;
  add_rope_checks(all);
  add_alibi_checks(all);
  add_t5_checks(all);
  add_sinusoidal_checks(all);
  add_learned_checks(all);
  return all;
}

// --only accepts a check name ("rope.oracle"), a prefix of dotted parts ("rope",
// "rope.reject") or a family (".reject", ".bounds": every check with that part).
bool matches(const std::string& s, const std::string& name) {
  if (s == name || name.starts_with(s + ".")) return true;
  if (s.size() > 1 && s[0] == '.') return name.ends_with(s) || name.find(s + ".") != std::string::npos;
  return false;
}

bool selected(const VerifyOptions& o, const AnyCheck& c) {
  if (o.only.empty()) return true;
  for (const auto& s : o.only) {
    if (matches(s, c.name)) return true;
  }
  return false;
}

void validate(const VerifyOptions& o) {
  if (o.contract != "logits" && o.contract != "softmax") {
    throw UsageError("--contract must be 'logits' or 'softmax', not '" + o.contract + "'");
  }
  if (o.max_position < 1 || o.max_position >= (std::int64_t{1} << 31)) {
    throw UsageError("--max-position must be in [1, 2^31 - 1]");
  }
  if (o.shard_count < 1 || o.shard_index < 0 || o.shard_index >= o.shard_count) {
    throw UsageError("shard index must be in [0, shard count)");
  }
  if (!(o.budget_seconds >= 0)) throw UsageError("--budget-seconds must be >= 0");
  if (!(o.call_timeout_seconds > 0)) throw UsageError("the per-call timeout must be > 0");
  if (!o.domain.empty()) (void)parse_domain(o.domain);
  for (const auto& [scheme, cls] : o.accuracy) {
    const auto& cs = accuracy_classes(scheme);
    if (std::find(cs.begin(), cs.end(), cls) == cs.end()) {
      throw UsageError("--accuracy: " + scheme + " has no accuracy class '" + cls + "'");
    }
  }
  const auto names = check_names();
  for (const auto& s : o.only) {
    const bool known = std::any_of(names.begin(), names.end(), [&](const std::string& n) { return matches(s, n); });
    if (!known) throw UsageError("--only: unknown check '" + s + "' (checks: rope.oracle, alibi.shift, ...; see --help)");
  }
}

VerifyResult run(Executor& ex, const LibraryInfo& info, const VerifyOptions& o) {
  VerifyResult res;
  res.tool_version = PECHECK_VERSION;
  res.kernel = o.kernel_label.empty() ? "<in-process>" : o.kernel_label;
  if (info.has_abi_version) res.abi_version = info.abi_version;
  res.options.seed = o.seed;
  res.options.budget_seconds = o.budget_seconds;
  res.options.max_position = o.max_position;
  res.options.contract = o.contract;
  res.options.only = o.only;
  for (const auto& sch : {"rope", "alibi", "sinusoidal"}) {
    res.options.extra.emplace_back(std::string("accuracy.") + sch, chosen_class(o.accuracy, sch));
  }
  if (o.strict) res.options.extra.emplace_back("strict", "true");
  if (o.only_case >= 0) res.options.extra.emplace_back("case", std::to_string(o.only_case));
  if (o.shard_count > 1) res.options.shard = std::to_string(o.shard_index) + "/" + std::to_string(o.shard_count);
  for (int i = 0; i < kFnCount; ++i) {
    (info.mask & (1u << i) ? res.exported : res.missing).push_back(std::string(symbol(kAllFns[i])));
  }
  const Domain domain = o.domain.empty() ? Domain{} : parse_domain(o.domain);
  if (domain.declared) {
    res.options.extra.emplace_back("domain", domain.text);
    for (const auto& u : untested(domain)) res.notes.push_back("declared domain: " + u);
  }
  const double t0 = now_seconds();
  const double deadline = o.budget_seconds > 0 ? t0 + o.budget_seconds : 0;
  const auto checks = catalogue();
  CorpusReplay corpus(o);
  std::size_t total = 0, done = 0;
  for (const auto& c : checks) total += selected(o, c) && (o.strict || !c.strict_only);
  for (const auto& c : checks) {
    report::CheckResult r;
    if (!(info.mask & (1u << static_cast<int>(c.fn)))) {
      r.name = c.name, r.scheme = scheme(c.fn), r.function = symbol(c.fn), r.clause = c.clause;
      r.description = c.description;
      r.status = report::CheckStatus::Skipped;
      r.reason = std::string(symbol(c.fn)) + " is not exported";
    } else if (!selected(o, c)) {
      r.name = c.name, r.scheme = scheme(c.fn), r.function = symbol(c.fn), r.clause = c.clause;
      r.description = c.description;
      r.status = report::CheckStatus::Skipped;
      r.reason = "not selected by --only";
    } else if (domain.rope_full_rotary && c.name == "rope.passthrough") {
      r.name = c.name, r.scheme = scheme(c.fn), r.function = symbol(c.fn), r.clause = c.clause;
      r.description = c.description;
      r.status = report::CheckStatus::Skipped;
      r.reason = "the declared domain (rope.rotary_dim=full) has no pass-through lanes";
    } else if (c.strict_only && !o.strict) {
      r.name = c.name, r.scheme = scheme(c.fn), r.function = symbol(c.fn), r.clause = c.clause;
      r.description = c.description;
      r.status = report::CheckStatus::Skipped;
      r.reason = "argument hygiene (tier B, spec/abi.md ABI-GEN-8): run with --strict";
    } else {
      Ctx ctx{ex, o, true, 0, -1, {}, {}, {}, 0, domain.declared ? &domain : nullptr};
      try {
        r = corpus.run(c, ctx, deadline);
      } catch (const IoError&) {
        throw;  // the corpus could not be written: exit 3, like a report
      } catch (const std::exception& e) {
        r.name = c.name, r.scheme = scheme(c.fn), r.function = symbol(c.fn), r.clause = c.clause;
        r.description = c.description;
        r.status = report::CheckStatus::Error;
        r.reason = e.what();
      }
      for (const auto& n : ctx.notes) res.notes.push_back(c.name + ": " + n);
      ex.recycle();  // a fresh worker per check: no kernel state leaks between checks
    }
    res.checks.push_back(std::move(r));
    if (selected(o, c) && (info.mask & (1u << static_cast<int>(c.fn))) && (o.strict || !c.strict_only)) {
      ++done;
      if (o.on_check) o.on_check(res.checks.back(), done, total);
    }
  }
  corpus.finish(res);
  res.seconds = now_seconds() - t0;
  return res;
}

ExecutorConfig config(const VerifyOptions& o) {
  ExecutorConfig cfg;
  cfg.fork = o.isolate;
  cfg.call_timeout_s = o.call_timeout_seconds;
  return cfg;
}

}  // namespace

std::vector<std::string> check_names() {
  std::vector<std::string> out;
  for (const auto& c : catalogue()) out.push_back(c.name);
  return out;
}

VerifyResult verify(const KernelTable& table, const VerifyOptions& options) {
  validate(options);
  Executor ex(table, config(options));
  LibraryInfo info;
  info.mask = table.mask();
  if (table.abi_version) {
    info.has_abi_version = true;
    info.abi_version = options.isolate ? ex.probe().abi_version : table.abi_version();
  }
  return run(ex, info, options);
}

VerifyResult verify_library(const std::string& path, const VerifyOptions& options) {
  validate(options);
  check_library_file(path);
  Executor ex(path, config(options));
  const LibraryInfo info = ex.probe();
  if (info.mask == 0) {
    throw UsageError("kernel library " + path + " exports no pec_* function (ABI-GEN-1; see spec/pecheck_kernel.h)");
  }
  if (info.has_abi_version && info.abi_version != PEC_ABI_VERSION) {
    throw UsageError("kernel library " + path + " reports ABI version " + std::to_string(info.abi_version) +
                     "; this pecheck speaks version " + std::to_string(PEC_ABI_VERSION));
  }
  VerifyOptions o = options;
  if (o.kernel_label.empty()) o.kernel_label = path;
  return run(ex, info, o);
}

}  // namespace pecheck
