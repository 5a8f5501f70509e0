// The verification run: the check catalogue in order, the time cap, one fresh worker per
// check (forked from the fork server, worker.hpp), hangs and crashes found once and reused,
// and the result structure shared by the CLI, the C++ API and the reports.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.hpp"
#include "verify/attention/register.hpp"
#include "verify/checks/check.hpp"
#include "verify/corpus/corpus.hpp"
#include "verify/corpus/corpus_replay.hpp"
#include "verify/isolation/exports.hpp"
#include "verify/selection.hpp"
#include "verify/verify.hpp"
#include "report/json.hpp"

namespace pecheck {

namespace {

using namespace verifier;

// The version 1 families in float32 (the version 1 order), then their bf16 and f16 variants
// (ABI-STORE-2), each through the same check code with the function as a parameter.
std::vector<AnyCheck> catalogue() {
  std::vector<AnyCheck> all;
  for (Storage st : kAllStorages) {
    add_rope_checks(all, fn_of(Family::Rope, st));
    add_alibi_checks(all, fn_of(Family::Alibi, st));
    add_t5_checks(all, fn_of(Family::T5, st));
    add_sinusoidal_checks(all, fn_of(Family::Sinusoidal, st));
    add_learned_checks(all, fn_of(Family::Learned, st));
  }
  add_rope_qk_checks(all);
  add_mrope_checks(all);  // M-RoPE query+key: all storage types  // query+key, cached rotation, cache builder: all storage types
  add_attention_checks(all);  // attention with the encoding inside: all storage types (verify/attention/)
  return all;
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
  if (o.jobs < 1 || o.jobs > 64) throw UsageError("--jobs must be in [1, 64]");
  if (!o.domain.empty()) (void)parse_domain(o.domain);
  if (o.require_resolved < 0 || o.require_resolved > o.max_position) {
    throw UsageError("--require-resolved " + std::to_string(o.require_resolved) + " needs --max-position >= it (now " +
                     std::to_string(o.max_position) + "): positions above --max-position are not tested");
  }
  for (const auto& [scheme, cls] : o.accuracy) {
    if (!accuracy_entry_valid(scheme, cls)) {
      throw UsageError("--accuracy: " + scheme + " has no accuracy class '" + cls + "'");
    }
  }
  validate_only_names(o.only, catalogue());
}

report::CheckResult blank(const AnyCheck& c) {
  report::CheckResult r;
  r.name = c.name, r.scheme = scheme(c.fn), r.function = symbol(c.fn), r.clause = c.clause;
  r.description = c.description;
  return r;
}

// A hang or crash that a check found on a valid call, kept for the later checks of the same
// function: a hang is not searched for again through call timeouts (those checks are not run
// and say why), a crash is replayed first in each later check's form.
struct KnownBad {
  std::string check;
  report::Counterexample cx;
  CorpusEntry entry;
  bool hang = false;
};

bool is_call_failure(const std::string& kind) {
  return kind == "hang" || kind == "crash" || kind == "exit" || kind == "exception";
}

std::optional<report::CheckResult> reuse_known(const AnyCheck& c, Ctx& ctx, const KnownBad& k) {
  report::CheckResult r = blank(c);
  if (c.planned) r.planned = c.planned(ctx.opt);
  const std::string sym(symbol(c.fn));
  if (k.hang) {
    r.status = report::CheckStatus::Unknown;
    r.reason = "not run: " + sym + " hangs on the valid call that " + k.check + " found and reports; its other " +
               "checks would only meet the hang again, one call timeout each";
    return r;
  }
  // A .shift check's case carries more than another check's (RoPE keys, the shift): replaying
  // a case stored by another check there would feed the kernel inputs the case does not have.
  if (!c.replay || (c.name.ends_with(".shift") && !k.check.ends_with(".shift"))) return std::nullopt;
  const bool was = ctx.record;
  ctx.record = false;
  std::optional<Failure> f;
  try {
    f = c.replay(ctx, k.entry);
  } catch (const std::exception&) {  // the case does not fit this check: search as usual
    f.reset();
  }
  ctx.record = was;
  if (!f || !is_call_failure(f->kind)) return std::nullopt;  // not in this check's form: search as usual
  r.status = report::CheckStatus::Fail;
  r.cases = 1;
  r.reason = "the " + k.cx.kind + " that " + k.check + " found recurs in this check; random search skipped";
  report::Counterexample cx = k.cx;
  cx.clause = f->clause;
  cx.kind = f->kind;
  cx.message = f->message;
  cx.signal = f->signal;
  cx.notes.push_back("the case " + k.check + " found and shrank, replayed in this check's form");
  // The run in which this check replays that case: both checks, before any trailing comment.
  const auto comment = cx.reproduce.find("  #");
  cx.reproduce.insert(comment == std::string::npos ? cx.reproduce.size() : comment, " --only " + c.name);
  r.counterexample = std::move(cx);
  return r;
}

bool is_rejection(const AnyCheck& c) { return c.name.find(".reject.") != std::string::npos; }

struct Group {
  Fn fn;
  bool rejection;
  bool operator==(const Group&) const = default;
};

// The result of one check in a run: skipped with its reason, or run (replay first, then the
// generated cases) with hangs and crashes of earlier checks of its function reused.
report::CheckResult run_check(const AnyCheck& c, Executor& ex, const VerifyOptions& o, const LibraryInfo& info,
                              const Domain& domain, std::map<Fn, KnownBad>& known, CorpusReplay& corpus,
                              std::vector<std::string>& notes) {
  report::CheckResult r = blank(c);
  if (!(info.mask & (1u << static_cast<int>(c.fn)))) {
    r.status = report::CheckStatus::Skipped;
    r.reason = std::string(symbol(c.fn)) + " is not exported";
    return r;
  }
  if (!selected(o, c)) {
    r.status = report::CheckStatus::Skipped;
    r.reason = "not selected by --only";
    return r;
  }
  if (domain.rope_full_rotary && family(c.fn) == Family::Rope && c.name.ends_with(".passthrough")) {
    r.status = report::CheckStatus::Skipped;
    r.reason = "the declared domain (rope.rotary_dim=full) has no pass-through lanes";
    return r;
  }
  if (const std::string why = attention_skip_reason(domain, c.name); !why.empty()) {
    r.status = report::CheckStatus::Skipped;
    r.reason = why;
    return r;
  }
  if (!strict_allows(o, c)) {
    r.status = report::CheckStatus::Skipped;
    r.reason = c.opt_in_part.empty() ? "argument hygiene (tier B, spec/abi.md ABI-GEN-8): run with --strict"
                                     : c.skip_reason;
    return r;
  }
  Ctx ctx{ex, o, true, 0, -1, {}, {}, {}, 0, domain.declared ? &domain : nullptr};
  try {
    std::optional<report::CheckResult> reused;
    // .reject calls are invalid ones: a hang or crash on a valid call says nothing about them.
    const bool rejection = is_rejection(c);
    if (auto k = known.find(c.fn); k != known.end() && !rejection) {
      reused = reuse_known(c, ctx, k->second);
    }
    r = reused ? std::move(*reused) : corpus.run(c, ctx);
    if (r.status == report::CheckStatus::Fail && r.counterexample && is_call_failure(r.counterexample->kind) &&
        !rejection && !known.count(c.fn)) {
      report::RunOptions ro;
      ro.seed = o.seed, ro.contract = o.contract, ro.max_position = o.max_position;
      KnownBad k{c.name, *r.counterexample, corpus_entry_from(r, ro, o.kernel_label, ""),
                 r.counterexample->kind == "hang"};
      std::erase_if(k.entry.args, [](const report::Arg& a) { return a.name == "corpus_file"; });
      known.emplace(c.fn, std::move(k));
      notes.push_back(std::string(symbol(c.fn)) + ": the " + r.counterexample->kind + " found by " + c.name +
                      " is reused by its later checks");
    }
  } catch (const IoError&) {
    throw;  // the corpus could not be written: exit 3, like a report
  } catch (const std::exception& e) {
    r = blank(c);
    r.status = report::CheckStatus::Error;
    r.reason = e.what();
  }
  for (const auto& n : ctx.notes) notes.push_back(c.name + ": " + n);
  ex.recycle();  // a fresh worker per check: no kernel state leaks between checks
  return r;
}

report::CheckResult lane_error(const AnyCheck& c, const std::string& why) {
  report::CheckResult r = blank(c);
  r.status = report::CheckStatus::Error;
  r.reason = why;
  return r;
}

// Parallel lanes: each function group runs in a forked copy of this process (a lane) that talks to
// the same fork server over its own channel and uses its own slice of the call arena, so the
// library is loaded once and a hang in one function does not hold up the others (README
// "Verifying a kernel", --jobs). A lane writes its results as JSON to a temporary file; the
// parent collects them and calls `done` per group in completion order (the report is assembled
// in catalogue order afterwards). A lane that dies or writes nothing readable makes its checks
// `error` (`failed`), never a pass.
template <class Done, class Work, class Failed>
void run_lanes(Executor& ex, const std::vector<AnyCheck>& checks, const std::vector<Group>& groups, std::size_t lanes,
               Done done, Work work, Failed failed) {
  (void)checks;
  struct Running {
    pid_t pid;
    std::size_t group, slot;
    std::string file;
  };
  std::vector<Running> running;
  std::vector<bool> slot_busy(lanes, false);
  std::size_t next = 0;
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = tmp && *tmp ? tmp : "/tmp";
  auto launch = [&](std::size_t g, std::size_t slot) {
    std::string file = dir + "/pecheck-lane-XXXXXX";
    const int tfd = mkstemp(file.data());
    if (tfd < 0) {
      failed(g, "internal error: cannot create a temporary file for a check lane in " + dir);
      return;
    }
    close(tfd);
    const int ch = ex.open_channel();
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
      if (ch >= 0) close(ch);
      std::remove(file.c_str());
      failed(g, "internal error: cannot fork a check lane");
      return;
    }
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // an interrupted pecheck takes its lanes with it
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      std::string text;
      try {
        ex.become_lane(ch, slot, lanes);
        CorpusReplay::Tally t;
        int loads = 0;
        auto [rs, notes] = work(g, ex, &t, &loads);
        report::VerifyResult part;
        part.checks = std::move(rs);
        part.notes = std::move(notes);
        nlohmann::ordered_json j;
        j["result"] = report::to_json(part);
        j["corpus"] = {{"replayed", t.replayed}, {"failed", t.failed}, {"fixed", t.fixed}, {"stored", t.stored},
                       {"notes", t.notes}};
        j["loads"] = loads;
        text = j.dump();
      } catch (const std::exception& e) {
        nlohmann::ordered_json j;
        j["error"] = e.what();
        text = j.dump();
      }
      std::FILE* f = std::fopen(file.c_str(), "w");
      const bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
      if (f) std::fclose(f);
      _exit(ok ? 0 : 3);
    }
    if (ch >= 0) close(ch);  // the lane has its copy; the server drops the channel when it exits
    slot_busy[slot] = true;
    running.push_back({pid, g, slot, file});
  };
  auto collect = [&](const Running& r, int st) {
    std::string why;
    nlohmann::ordered_json j;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      why = WIFSIGNALED(st) ? "internal error: the check lane was killed by signal " + std::to_string(WTERMSIG(st))
                            : "internal error: the check lane exited with status " + std::to_string(WEXITSTATUS(st));
    } else {
      try {
        std::ifstream in(r.file);
        std::stringstream ss;
        ss << in.rdbuf();
        j = nlohmann::ordered_json::parse(ss.str());
        if (j.contains("error")) why = j["error"].get<std::string>();
      } catch (const std::exception& e) {
        why = std::string("internal error: unreadable check lane result: ") + e.what();
      }
    }
    std::remove(r.file.c_str());
    if (!why.empty()) {
      failed(r.group, why);
      return;
    }
    const report::VerifyResult part = report::verify_result_from_json(j["result"]);
    CorpusReplay::Tally t;
    const auto& c = j["corpus"];
    t.replayed = c["replayed"], t.failed = c["failed"], t.fixed = c["fixed"], t.stored = c["stored"];
    t.notes = c["notes"].get<std::vector<std::string>>();
    done(r.group, part.checks, part.notes, t, j["loads"].get<int>());
  };
  while (next < groups.size() || !running.empty()) {
    for (std::size_t s = 0; s < lanes && next < groups.size(); ++s) {
      if (!slot_busy[s]) launch(next++, s);
    }
    bool reaped = false;
    for (std::size_t i = 0; i < running.size(); ++i) {
      int st = 0;
      const pid_t w = waitpid(running[i].pid, &st, WNOHANG);
      if (w == 0 || (w < 0 && errno == EINTR)) continue;
      const Running r = running[i];
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      slot_busy[r.slot] = false;
      collect(r, w < 0 ? (1 << 8) : st);
      reaped = true;
      break;
    }
    if (!reaped && !running.empty()) {
      const timespec ts{0, 2'000'000};  // 2 ms: lanes run for tens of milliseconds at least
      nanosleep(&ts, nullptr);
    }
  }
}

VerifyResult run(Executor& ex, const LibraryInfo& info, const VerifyOptions& o, double t0) {
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
  for (const auto& [key, cls] : o.accuracy) {  // a 16-bit function's own class (--accuracy rope.bf16=...)
    if (key == kEveryScheme) res.options.extra.emplace_back("accuracy", cls);
    // and the version 2 schemes' (rope_qk, rope_cached, rope_cache, mrope, attention)
    if (key.find('.') != std::string::npos || key.rfind("rope_", 0) == 0 || key == "mrope" || key == "attention") res.options.extra.emplace_back("accuracy." + key, cls);
  }
  if (o.strict) res.options.extra.emplace_back("strict", "true");
  if (o.only_case >= 0) res.options.extra.emplace_back("case", std::to_string(o.only_case));
  if (o.case_scale != 1.0) res.options.extra.emplace_back("case_scale", report::format_real(o.case_scale));
  if (o.shard_count > 1) res.options.shard = std::to_string(o.shard_index) + "/" + std::to_string(o.shard_count);
  // A library that exports only version 1 functions is reported as under version 1 (spec/abi.md
  // ABI-GEN-1: it verifies unchanged): the version 2 functions it does not export are neither
  // listed as missing nor given skipped checks. Once it exports one, every gap is listed.
  const bool v2 = (info.mask & ~kV1Mask) != 0;
  // The attention functions are listed (and their checks given) only when one is exported.
  const bool attention = (info.mask & kAttentionMask) != 0;
  const auto listed = [v2, attention](Fn f) { return is_attention(f) ? attention : v2 || is_v1(f); };
  for (int i = 0; i < kFnCount; ++i) {
    if (!listed(kAllFns[i])) continue;
    (info.mask & (1u << i) ? res.exported : res.missing).push_back(std::string(symbol(kAllFns[i])));
  }
  if (!v2) {
    res.notes.push_back("the library exports only version 1 functions: the checks of the version 2 functions "
                        "(16-bit variants, query+key, cos/sin cache) are not listed");
  }
  if (info.domain_truncated) throw UsageError("pec_domain(): the declaration is longer than 4 KiB");
  const Domain lib = info.domain.empty() ? Domain{} : parse_domain(info.domain, "pec_domain()");
  const Domain domain = merge_domains(lib, o.domain.empty() ? Domain{} : parse_domain(o.domain));
  if (lib.declared) res.notes.push_back("declared domain: from the library's pec_domain(): " + lib.text);
  if (domain.declared) {
    res.options.extra.emplace_back("domain", domain.text);
    for (const auto& u : untested(domain)) res.notes.push_back("declared domain: " + u);
  }
  const auto checks = catalogue();
  for (auto& n : validate_for_library(o, info.mask, checks)) res.notes.push_back(std::move(n));
  const auto runnable = [&](const AnyCheck& c) {
    return (info.mask & (1u << static_cast<int>(c.fn))) && selected(o, c) &&
           !(domain.rope_full_rotary && family(c.fn) == Family::Rope && c.name.ends_with(".passthrough")) && strict_allows(o, c) &&
           attention_skip_reason(domain, c.name).empty();
  };
  if (std::none_of(checks.begin(), checks.end(), runnable)) throw UsageError(nothing_runs(o, info, checks, domain));
  if (o.require_resolved > 0 && std::none_of(checks.begin(), checks.end(), [&](const AnyCheck& c) {
        return runnable(c) && c.name.ends_with(".oracle") && is_rope_like(c.fn);
      })) {
    throw UsageError("--require-resolved applies to the RoPE oracle checks (rope, rope_qk, rope_cached, rope_cache), "
                     "and none runs in this run");
  }
  add_stray_exports(res, info, o);
  // The cap counts the whole run from verify_library's entry, the library's start-up included.
  ex.set_cap(o.budget_seconds > 0 ? t0 + o.budget_seconds : 0);
  CorpusReplay corpus(o);
  std::size_t total = 0, done = 0;
  for (const auto& c : checks) total += selected(o, c) && strict_allows(o, c) && (info.mask & fn_bit(c.fn));
  const auto progress = [&](const AnyCheck& c, const report::CheckResult& r) {
    if (selected(o, c) && (info.mask & (1u << static_cast<int>(c.fn))) && strict_allows(o, c)) {
      ++done;
      if (o.on_check) o.on_check(r, done, total);
    }
  };
  // A lane's unit of work, in catalogue order: the valid-call checks of one function (they share
  // its known hangs and crashes, so they stay together), or its rejection checks (which never
  // reuse them).
  std::vector<Group> groups;
  for (const auto& c : checks) {
    const Group g{c.fn, is_rejection(c)};
    if (runnable(c) && std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  }
  const std::size_t lanes = std::min<std::size_t>(static_cast<std::size_t>(std::max(1, o.jobs)), groups.size());
  int loads = 0;
  if (lanes <= 1 || !ex.config().fork) {
    std::map<Fn, KnownBad> known;
    for (const auto& c : checks) {
      if (!listed(c.fn)) continue;
      res.checks.push_back(run_check(c, ex, o, info, domain, known, corpus, res.notes));
      progress(c, res.checks.back());
    }
  } else {
    std::vector<std::optional<report::CheckResult>> results(checks.size());
    std::vector<std::vector<std::string>> group_notes(groups.size());
    run_lanes(ex, checks, groups, lanes, [&](std::size_t g, std::vector<report::CheckResult> rs,
                                             std::vector<std::string> notes, const CorpusReplay::Tally& t, int l) {
      std::size_t k = 0;
      for (std::size_t i = 0; i < checks.size(); ++i) {
        if (!(runnable(checks[i]) && Group{checks[i].fn, is_rejection(checks[i])} == groups[g])) continue;
        results[i] = k < rs.size() ? std::move(rs[k]) : lane_error(checks[i], "the check lane returned no result");
        progress(checks[i], *results[i]);
        ++k;
      }
      group_notes[g] = std::move(notes);
      corpus.absorb(t);
      loads += l;
    }, [&](std::size_t g, Executor& lane_ex, CorpusReplay::Tally* t, int* l) {
      // In the lane process: the group's checks, in catalogue order, as the sequential loop runs
      // them (the same cases: a case is a function of the seed, the check and its index).
      std::map<Fn, KnownBad> known;
      CorpusReplay mine = corpus;  // a copy (with what earlier lanes added): its tally is this lane's
      mine.clear_tally();
      std::vector<report::CheckResult> rs;
      std::vector<std::string> notes;
      for (const auto& c : checks) {
        if (runnable(c) && Group{c.fn, is_rejection(c)} == groups[g]) rs.push_back(run_check(c, lane_ex, o, info, domain, known, mine, notes));
      }
      *t = mine.tally();
      *l = lane_ex.loads();
      return std::make_pair(std::move(rs), std::move(notes));
    }, [&](std::size_t g, const std::string& why) {
      for (std::size_t i = 0; i < checks.size(); ++i) {
        if (runnable(checks[i]) && Group{checks[i].fn, is_rejection(checks[i])} == groups[g] && !results[i]) {
          results[i] = lane_error(checks[i], why);
          progress(checks[i], *results[i]);
        }
      }
    });
    std::map<Fn, KnownBad> none;
    for (std::size_t i = 0; i < checks.size(); ++i) {
      if (!listed(checks[i].fn)) continue;
      if (!results[i]) {  // not runnable: the reason it was skipped (no kernel call)
        results[i] = run_check(checks[i], ex, o, info, domain, none, corpus, res.notes);
        progress(checks[i], *results[i]);
      }
      res.checks.push_back(std::move(*results[i]));
    }
    for (auto& n : group_notes) res.notes.insert(res.notes.end(), n.begin(), n.end());
    res.notes.push_back("checks ran in " + std::to_string(lanes) + " parallel lanes, one function's valid-call or rejection "
                        "checks at a time per lane (--jobs; the cases and verdicts are those of --jobs 1)");
  }
  require_resolved(res, o);
  corpus.finish(res);
  res.seconds = now_seconds() - t0;
  loads += ex.loads();
  if (loads > 0) res.notes.push_back("kernel library loaded " + std::to_string(loads) + " time(s) in this run");
  return res;
}

ExecutorConfig config(const VerifyOptions& o) {
  ExecutorConfig cfg;
  cfg.fork = o.isolate;
  cfg.call_timeout_s = o.call_timeout_seconds;
  // One slice of the shared arena per parallel lane (MAP_NORESERVE: untouched pages cost nothing).
  cfg.arena_bytes *= static_cast<std::size_t>(std::max(1, o.jobs));
  // Loading counts against the cap too: a library that cannot start within cap + one call
  // timeout cannot be verified within it (README "Verifying a kernel", time cap).
  if (o.budget_seconds > 0) cfg.load_timeout_s = std::min(cfg.load_timeout_s, o.budget_seconds + o.call_timeout_seconds);
  return cfg;
}

}  // namespace

std::vector<std::string> check_names() {
  std::vector<std::string> out;
  for (const auto& c : catalogue()) out.push_back(c.name);
  return out;
}

std::vector<std::string> list_library_checks(const std::string& path) {
  check_library_file(path);
  Executor ex(path, config(VerifyOptions{}));
  const LibraryInfo info = ex.probe();
  auto lines = list_checks(info.mask, catalogue());
  for (const auto& s : stray_exports(dynamic_symbols(path))) lines.push_back("not verified: " + s.describe());
  if (info.mask == 0 && lines.empty()) {
    throw UsageError("kernel library " + path + " exports no pec_* function (ABI-GEN-1; see spec/pecheck_kernel.h)");
  }
  return lines;
}

VerifyResult verify(const KernelTable& table, const VerifyOptions& options) {
  const double t0 = now_seconds();
  validate(options);
  Executor ex(table, config(options));
  LibraryInfo info;
  info.mask = table.mask();
  if (table.abi_version) {
    info.has_abi_version = true;
    info.abi_version = options.isolate ? ex.probe().abi_version : table.abi_version();
  }
  return run(ex, info, options, t0);
}

namespace {

VerifyResult verify_loaded(Executor& ex, const std::string& what, const VerifyOptions& options, double t0,
                           const std::string& library_path = "") {
  LibraryInfo info = ex.probe();
  if (!library_path.empty()) {
    for (const auto& s : stray_exports(dynamic_symbols(library_path))) info.stray_exports.push_back(s.describe());
  }
  if (info.mask == 0) {
    if (!info.stray_exports.empty()) {
      std::string list;
      for (const auto& s : info.stray_exports) list += (list.empty() ? "" : "; ") + s;
      throw UsageError(what + " exports no ABI function (ABI-GEN-1), only names that look like one: " + list);
    }
    throw UsageError(what + " exports no pec_* function (ABI-GEN-1; see spec/pecheck_kernel.h)");
  }
  // Version 2 is a superset of version 1 (spec/abi.md ABI-GEN-1): both are accepted.
  if (info.has_abi_version && (info.abi_version < 1 || info.abi_version > PEC_ABI_VERSION)) {
    throw UsageError(what + " reports ABI version " + std::to_string(info.abi_version) +
                     "; this pecheck speaks versions 1 to " + std::to_string(PEC_ABI_VERSION));
  }
  return run(ex, info, options, t0);
}

}  // namespace

VerifyResult verify_library(const std::string& path, const VerifyOptions& options) {
  const double t0 = now_seconds();
  validate(options);
  check_library_file(path);
  Executor ex(path, config(options));
  VerifyOptions o = options;
  if (o.kernel_label.empty()) o.kernel_label = path;
  return verify_loaded(ex, "kernel library " + path, o, t0, path);
}

VerifyResult verify_provider(const std::string& provider_library, const std::string& spec, const VerifyOptions& options) {
  const double t0 = now_seconds();
  validate(options);
  check_library_file(provider_library);
  ExecutorConfig cfg = config(options);
  cfg.provider_spec = spec;
  // An interpreter and its imports (torch: seconds on a loaded machine) start once, in the fork
  // server: up to 60 s, still within the run's cap.
  cfg.load_timeout_s = 60.0;
  if (options.budget_seconds > 0) cfg.load_timeout_s = std::min(60.0, options.budget_seconds + options.call_timeout_seconds);
  Executor ex(provider_library, cfg);
  VerifyOptions o = options;
  if (o.kernel_label.empty()) o.kernel_label = spec;
  return verify_loaded(ex, spec, o, t0);
}

}  // namespace pecheck
