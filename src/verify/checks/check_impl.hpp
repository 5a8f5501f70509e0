// Template definitions of the check framework (included by the check catalogue files).
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

#include "verify/checks/check.hpp"
#include "verify/checks/check_stateless.hpp"
#include "verify/corpus/corpus_cases.hpp"

namespace pecheck::verifier {

namespace detail {

// Failure kinds that are one class for shrinking: a NaN where a number was due and a number
// outside the budget are both "the value is wrong" (an fp16 position is off by a little from
// 2049 and overflows to NaN past 65504: one bug, and the smallest input shows the first).
// Everything else (crash, out-of-bounds write, rejection, ...) only shrinks to its own kind.
inline bool same_failure_class(const std::string& a, const std::string& b) {
  auto wrong_value = [](const std::string& k) { return k == "mismatch" || k == "nan"; };
  return a == b || (wrong_value(a) && wrong_value(b));
}

// Greedy shrinking: take the first candidate that fails the same way (same clause, same
// failure class), start over; stop when no candidate fails, after `max_evals` evaluations or
// at the run's time cap (then *cut is set: a cap never extends a run, README "What the seed
// controls"). A candidate whose call the cap stopped (kind "cut") is not taken.
//
// A hang costs one call timeout per candidate that still hangs, so hang candidates run under a
// shorter limit (kHangProbeSeconds, at most the configured one); the shrunk case is then
// confirmed under the configured limit; when it does not hang there, shrinking starts over from
// the original case under the configured limit. The reported hang is therefore always one that
// hangs under the user's limit.
inline constexpr double kHangProbeSeconds = 0.25;

// A failure that does not repeat (the same case evaluated again passes, or the failure is itself
// a difference between two runs) is shrunk with at most kNondeterministicEvals evaluations, a
// fixed count (never a time: verdicts must not depend on load), and reported as nondeterministic.
inline constexpr std::int64_t kMaxShrinkEvals = 2000;
inline constexpr std::int64_t kNondeterministicEvals = 24;

template <class Case>
std::int64_t shrink_greedy(Ctx& ctx, const CheckDef<Case>& def, Case& best, Failure& fail, bool* cut,
                           std::int64_t max_evals = kMaxShrinkEvals);

// *nondet: set when the failure is nondeterministic (its kind says so, or the case evaluated
// once more did not fail the same way).
template <class Case>
std::int64_t shrink(Ctx& ctx, const CheckDef<Case>& def, Case& best, Failure& fail, bool* cut, bool* nondet) {
  const double limit = ctx.ex.config().call_timeout_s;
  if (fail.kind != "hang") {
    *nondet = fail.kind == "nondeterministic" || fail.kind == "stateful";
    if (!*nondet && !ctx.ex.past_cap()) {
      // The same call again, first in a fresh worker process: a failure that needed the calls
      // made before it in its worker (a cache kept between calls) does not repeat there.
      ctx.ex.recycle();
      const bool was = ctx.record;
      ctx.record = false;
      auto again = def.evaluate(ctx, best);
      ctx.record = was;
      *nondet = !(again && same_failure_class(again->kind, fail.kind) && again->clause == fail.clause) &&
                !(again && again->kind == "cut");
      if (*nondet && fail.clause != "ABI-GEN-6") {
        fail.notes.insert(fail.notes.begin(),
                          "as first judged: " + fail.clause + " (" + fail.kind + "): " + fail.message);
        fail.message += "; the same call made first in a fresh worker process " +
                        std::string(again ? "fails otherwise (" + again->kind + ")" : "passes") +
                        ": its result depends on the calls made before it in the process";
        fail.notes.push_back("the kernel keeps state between calls (a cache keyed on part of its arguments) or is "
                             "nondeterministic (ABI-GEN-6); the .stateless and .determinism checks isolate each");
        fail.clause = "ABI-GEN-6";
        fail.kind = "stateful";
      }
    }
    // A stateful failure costs a fresh worker and four calls per candidate: a tenth of the budget.
    std::int64_t evals = def.max_shrink_evals > 0 ? def.max_shrink_evals : kMaxShrinkEvals;
    if (fail.kind == "stateful") evals = std::min(evals, kMaxShrinkEvals / 10);
    if (*nondet) evals = std::min(evals, kNondeterministicEvals);
    return shrink_greedy(ctx, def, best, fail, cut, evals);
  }
  if (limit <= kHangProbeSeconds) return shrink_greedy(ctx, def, best, fail, cut);
  const Case original = best;
  const Failure original_fail = fail;
  ctx.ex.set_call_timeout(kHangProbeSeconds);
  std::int64_t steps = shrink_greedy(ctx, def, best, fail, cut);
  ctx.ex.set_call_timeout(limit);
  if (steps == 0) return 0;
  const bool was = ctx.record;
  ctx.record = false;
  auto g = ctx.ex.past_cap() ? std::nullopt : def.evaluate(ctx, best);
  ctx.record = was;
  if (g && g->kind == "hang" && g->clause == original_fail.clause) {
    fail = std::move(*g);
    return steps;
  }
  // The shrunk case finished under the full limit (slow, not hung): shrink again from the
  // original case with the configured limit, as if no probe had been tried.
  best = original;
  fail = original_fail;
  return shrink_greedy(ctx, def, best, fail, cut);
}

template <class Case>
std::int64_t shrink_greedy(Ctx& ctx, const CheckDef<Case>& def, Case& best, Failure& fail, bool* cut,
                           std::int64_t max_evals) {
  std::int64_t evals = 0, steps = 0;
  const bool was = ctx.record;
  ctx.record = false;
  for (bool improved = true; improved;) {
    improved = false;
    for (auto& cand : def.candidates ? def.candidates(best) : shrink_candidates(best)) {
      if (evals >= max_evals) break;
      if (ctx.ex.past_cap()) {
        *cut = true;
        break;
      }
      ++evals;
      fit_storage(cand);  // a simpler value is still a value of the case's format
      auto g = def.evaluate(ctx, cand);
      if (g && same_failure_class(g->kind, fail.kind) && g->clause == fail.clause) {
        best = std::move(cand);
        fail = std::move(*g);
        ++steps;
        improved = true;
        break;
      }
    }
  }
  ctx.record = was;
  return steps;
}

// Cases of a check under --case-scale: its first round(cases x scale), at least one -- or, for a
// check that may scale to none, cases x scale rounded half down (2 cases: none at 0.25 or below).
inline std::int64_t scaled_cases(std::int64_t cases, double scale, bool may_scale_to_none) {
  const double x = static_cast<double>(cases) * scale;
  if (may_scale_to_none) return std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(x - 0.5 - 1e-9)));
  return std::max<std::int64_t>(1, std::llround(x));
}

inline std::string cut_reason(std::int64_t ran, std::int64_t planned) {
  return "the run's time cap was reached after " + std::to_string(ran) + " of " + std::to_string(planned) +
         " cases (raise --budget-seconds, or 0 for none)";
}

// The failure sentence of an oracle check (issue 22): the error in the class's units first; the
// console's worst line adds the absolute error and the ULPs of the storage type (none where the
// exact value is 0). A NaN output has no distance: it is said in words.
inline std::string oracle_message(const std::string& output, const std::string& what, double actual, double units,
                                  const std::string& bound) {
  if (std::isnan(actual)) return output + " holds NaN where " + what + " is a number (" + bound + ")";
  return output + " differs from " + what + " by " + report::format_real(units) + " x " + bound;
}

inline std::string reproduce_line(const VerifyOptions& o, const std::string& check) {
  std::string s = o.program + " verify " + o.kernel_flag + " " + (o.kernel_label.empty() ? std::string("LIB.so") : o.kernel_label);
  s += " --seed " + std::to_string(o.seed);
  if (o.max_position != VerifyOptions{}.max_position) s += " --max-position " + std::to_string(o.max_position);
  if (o.contract != "logits") s += " --contract " + o.contract;
  if (o.case_scale != 1.0) s += " --case-scale " + report::format_real(o.case_scale);
  if (!o.regressions) s += " --no-regressions";  // the same run: no vectors replayed first
  for (const auto& [scheme, cls] : o.accuracy) s += " --accuracy " + (scheme == kEveryScheme ? cls : scheme + "=" + cls);
  if (o.strict) s += " --strict";
  if (!o.domain.empty()) s += " --domain '" + o.domain + "'";
  s += " --only " + check;
  return s;
}

}  // namespace detail

template <class Case>
AnyCheck make_check(CheckDef<Case> def) {
  AnyCheck a{def.name, def.clause, def.description, def.fn, {}, {}, {}, false, {}, {}};
  a.planned = [cases = def.cases, none = def.may_scale_to_none](const VerifyOptions& o) {
    const std::int64_t n = detail::scaled_cases(cases, o.case_scale, none);
    const std::int64_t shards = std::max<std::int64_t>(1, o.shard_count);
    if (o.only_case >= 0) return static_cast<std::int64_t>(o.only_case < n && o.only_case % shards == o.shard_index);
    std::int64_t planned = 0;
    for (std::int64_t i = 0; i < n; ++i) planned += (i % shards == o.shard_index);
    return planned;
  };
  a.run = [def, plan = a.planned](Ctx& ctx) {
    const VerifyOptions& o = ctx.opt;
    report::CheckResult res;
    res.name = def.name;
    res.scheme = std::string(scheme(def.fn));
    res.function = std::string(symbol(def.fn));
    res.clause = def.clause;
    res.description = def.description;
    const double t0 = now_seconds();
    GenParams gp{o.max_position, storage(def.fn)};
    if (ctx.domain) gp.max_position = max_position_for(*ctx.domain, res.scheme, o.max_position);
    const std::int64_t n = detail::scaled_cases(def.cases, o.case_scale, def.may_scale_to_none);
    if (n == 0) {
      res.status = report::CheckStatus::Skipped;
      res.reason = "--case-scale " + report::format_real(o.case_scale) + " runs none of its " +
                   std::to_string(def.cases) + " production-size cases (above " +
                   report::format_real(0.5 / static_cast<double>(def.cases)) + " runs them)";
      return res;
    }
    const std::int64_t shards = std::max<std::int64_t>(1, o.shard_count);
    const std::int64_t planned = plan(o);
    res.planned = planned;
    res.status = report::CheckStatus::Pass;
    // The number of cases is a function of the seed and the options alone; the run's time cap
    // can only cut the check short, and a check cut short is incomplete, never a pass.
    for (std::int64_t i = 0; i < n; ++i) {
      if (i % shards != o.shard_index) continue;
      if (o.only_case >= 0 && i != o.only_case) continue;
      if (ctx.ex.past_cap()) {
        if (res.counterexample) {  // a failure stands; only the grading after it was cut
          res.counterexample->notes.push_back("the run's time cap stopped the grading cases after this failure");
          break;
        }
        res.status = report::CheckStatus::Incomplete;
        res.reason = detail::cut_reason(res.cases, planned);
        break;
      }
      Rng r = Rng::for_case(o.seed, def.name, static_cast<std::uint64_t>(i));
      gp.case_index = i;
      Case c = def.generate(r, gp);
      c.storage = gp.storage;  // inputs are values of the function's format (ABI-STORE-1)
      if (def.valid_cases && ctx.domain) constrain(*ctx.domain, c, r);  // may read the storage type
      c.placement |= guard_placement(def.guards, i, c.placement);
      fit_storage(c);
      ctx.case_index = i;
      auto f = def.evaluate(ctx, c);
      if (f && f->kind == "cut") {  // the cap stopped a call of this case: it did not run
        if (res.counterexample) break;  // a failure stands; the grading after it was cut
        res.status = report::CheckStatus::Incomplete;
        res.reason = detail::cut_reason(res.cases, planned);
        break;
      }
      ++res.cases;
      if (o.progress_cases) o.progress_cases->fetch_add(1, std::memory_order_relaxed);
      if (!f || res.counterexample) continue;  // after a failure: grading cases only (below)
      report::Counterexample cx;
      bool cut = false, nondet = false;
      cx.shrink_steps = detail::shrink(ctx, def, c, *f, &cut, &nondet);
      cx.clause = f->clause;
      cx.kind = f->kind;
      cx.message = f->message;
      cx.function = res.function;
      describe(c, cx.args, cx.inputs);
      cx.worst = f->worst;
      cx.return_code = f->return_code;
      cx.signal = f->signal;
      cx.notes = f->notes;
      if (const std::string pn = placement_note(c.placement); !pn.empty()) cx.notes.push_back(pn);
      cx.notes.push_back("found at case " + std::to_string(i) + " of seed " + std::to_string(o.seed) + ", shrunk in " +
                         std::to_string(cx.shrink_steps) + " steps" +
                         (cut ? " (shrinking stopped at the run's time cap: a smaller case may fail too)" : ""));
      if (cx.kind == "nonzero-return") {  // why the call was valid (issue 20)
        std::string e;
        for (const auto& s : valid_edges(c)) e += (e.empty() ? "" : "; ") + s;
        cx.notes.push_back(e.empty() ? "the call is valid and sits on no edge of its domain"
                                     : "the call is valid; a kernel that refuses it probably applies a stricter rule "
                                       "at one of the edges it sits on: " + e);
      }
      if (nondet) {
        cx.notes.push_back(std::string(cx.kind == "stateful" ? "history-dependent: the failure needs the calls made before "
                                                                 "it in its worker process"
                                                               : "nondeterministic: the failure does not repeat on every "
                                                                 "run of the same call") +
                           ", so shrinking stopped after at most " + std::to_string(detail::kNondeterministicEvals) +
                           " attempts (a smaller case may fail too)");
      }
      cx.reproduce = detail::reproduce_line(o, def.name);
      const bool wrong_value = detail::same_failure_class(f->kind, "mismatch");
      res.counterexample = std::move(cx);
      res.status = report::CheckStatus::Fail;
      // Oracle checks go on through their remaining cases after a wrong value (not after a
      // crash or hang), so that the grades and the worst case describe the whole run, not only
      // the cases before the first failure (the shrunk counterexample is the smallest, the
      // worst element the largest error).
      if (!(def.grade_all && wrong_value)) break;
    }
    res.elements = ctx.elements;
    if (ctx.acc.active() && ctx.elements > 0) {
      res.accuracy = ctx.acc.finish(check_prefix(def.fn));
      if (res.accuracy->worst) {
        res.accuracy->worst->reproduce =
            detail::reproduce_line(o, def.name) + " --case " + std::to_string(res.accuracy->worst->case_index);
        // A production-size worst case is described by its arguments and its replay line: its
        // 10^4-10^5 input values would travel from every lane and fill every report.
        if (def.may_scale_to_none) {
          for (auto& t : res.accuracy->worst->inputs) {
            t.omitted = t.count();
            t.values = {};
          }
        }
      }
    }
    if (ctx.max_ulps >= 0) res.max_ulps = ctx.max_ulps;
    if (!ctx.series.empty()) {
      report::ErrorSeries s;
      s.label = "largest error over the elements at each position";
      s.unit = "contract";
      s.budget = 1.0;
      for (const auto& [p, e] : ctx.series) s.points.push_back({static_cast<double>(p), e});
      res.series.push_back(std::move(s));
    }
    if (res.status == report::CheckStatus::Fail && !ctx.notes.empty()) {
      for (const auto& nt : ctx.notes) res.counterexample->notes.push_back(nt);
    }
    res.seconds = now_seconds() - t0;
    return res;
  };
  a.replay = [def](Ctx& ctx, const CorpusEntry& e) -> std::optional<Failure> {
    Case c;
    case_from_entry(e, c);
    c.storage = storage(def.fn);
    fit_storage(c);
    if (def.valid_cases && ctx.domain && !inside(*ctx.domain, c)) {
      ctx.note("stored case " + e.source + " lies outside the declared domain: not replayed");
      return std::nullopt;
    }
    return def.evaluate(ctx, c);
  };
  return a;
}

// A production-size check (issue 20 finding 12, docs/gate-checks.md): two valid cases of 10^4
// to 10^5 elements from `gen` (kinds alternate by case index), judged in full by `evaluate` (the
// family's oracle), shrunk only by halves while the failure persists (shrink_candidates_large).
template <class Case>
AnyCheck make_large_check(Fn fn, const std::string& clause, const std::string& description,
                          std::function<Case(Rng&, const GenParams&)> gen,
                          std::function<std::optional<Failure>(Ctx&, const Case&)> evaluate) {
  CheckDef<Case> d{check_prefix(fn) + ".large", clause, description, fn, 2, std::move(gen), std::move(evaluate)};
  d.max_shrink_evals = kLargeShrinkEvals;
  d.may_scale_to_none = true;  // the sanitizer stage's and the seed sweep's quick runs skip it
  d.candidates = [](const Case& c) { return shrink_candidates_large(c); };
  return make_check<Case>(std::move(d));
}

template <class Case>
std::string domain_violation_clause(const Case& c, const std::string& domain_clause) {
  return c.null_field.empty() ? domain_clause : "ABI-GEN-3";
}

template <class Case>
void add_generic_checks(std::vector<AnyCheck>& out, Fn fn, const std::string& domain_clause,
                        std::function<Case(Rng&, const GenParams&)> gen,
                        std::function<Case(Rng&, const GenParams&, int)> gen_invalid, bool write_only) {
  const std::string s(scheme(fn));        // rejection requirements are the scheme's
  const std::string prefix = check_prefix(fn);  // check names: "rope", "rope.bf16", ...
  const std::string sym(symbol(fn));
  // One check per rejection requirement (spec/abi.md ABI-GEN-8), each judged on its own cases
  // so that one failing requirement cannot mask another; tier B runs under --strict only.
  for (const RejectRequirement& req : reject_requirements(s)) {
    const std::string name = prefix + ".reject." + req.id;
    const std::string clause = req.id == "null" ? std::string("ABI-GEN-3") : req.clause.empty() ? domain_clause : req.clause;
    const std::string rid = req.id;
    const std::vector<int> branches = req.branches;
    CheckDef<Case> def{
        name, clause,
        std::string(req.safety ? "[tier A, harm: by default an acceptance fails when the non-empty call touches memory "
                                 "outside it; under --strict every acceptance] "
                               : "[tier B, hygiene: --strict] ") +
            "calls breaking '" + req.rule + "' are rejected with a non-zero return and leave the output untouched",
        fn, req.safety ? 80 : 40,
        [gen_invalid, branches](Rng& r, const GenParams& p) {
          const int b = branches[static_cast<std::size_t>(r.range(0, static_cast<std::int64_t>(branches.size()) - 1))];
          return gen_invalid(r, p, b);
        },
        [fn, clause, sym, rid](Ctx& ctx, const Case& c) -> std::optional<Failure> {
          const std::string why = invalid_reason(c);
          // Shrinking made it valid, or made it break another rule first: not this check's case.
          if (why.empty() || invalid_requirement(c) != rid) return std::nullopt;
          const RunResult r = run_case(ctx.ex, c);
          Failure f;
          if (!r.outcome.returned()) {
            f = *call_failure(fn, r);
            f.message = sym + " " + r.outcome.describe() + " on an invalid call (" + why + ") instead of rejecting it";
            return f;
          }
          if (r.outcome.rc == 0) {
            std::string harm;
            if (!r.guards_ok()) {
              harm = "wrote outside its output buffer (guard element " + std::to_string(r.guard_violation) + ")";
            } else if (!r.input_changed.empty()) {
              harm = "modified its input '" + r.input_changed + "'";
            }
            return accepted_invalid(ctx.opt, output_size(c) > 0, harm, sym, why,
                                    domain_violation_clause(c, clause));
          }
          if (!r.unchanged || !r.guards_ok()) {
            f.clause = "ABI-GEN-3";
            f.kind = "rejected-but-wrote";
            f.message = sym + " rejected an invalid call (" + why + ") but changed its output buffer";
            f.return_code = r.outcome.rc;
            return f;
          }
          return std::nullopt;
        }};
    def.valid_cases = false;
    def.guards = kAllGuarded;  // harm: a touch past an input is a fault at its guard page
    AnyCheck a = make_check<Case>(std::move(def));
    a.strict_only = !req.safety;
    out.push_back(std::move(a));
  }
  out.push_back(make_check<Case>(
      {prefix + ".bounds", "ABI-GEN-4",
       "valid calls write nothing before or after the output buffer (canary guard zones) and never "
       "into their inputs",
       fn, 60, gen, [fn, sym](Ctx& ctx, const Case& c) -> std::optional<Failure> {
         const RunResult r = run_case(ctx.ex, c);
         if (!r.outcome.returned()) return call_failure(fn, r);
         Failure f;
         f.clause = "ABI-GEN-4";
         if (!r.guards_ok()) {
           const std::int64_t g = r.guard_violation;
           const std::int64_t n = static_cast<std::int64_t>(r.out.size());
           f.kind = "out-of-bounds";
           const std::string unit = r.storage == Storage::F32 ? std::string(" floats")
                                                               : " " + std::string(storage_name(r.storage)) + " elements";
           f.message = sym + " wrote outside its output: " +
                       (g < 0 ? std::to_string(-g) + unit + " before the first element"
                              : std::to_string(g - n + 1) + unit + " after the last element (index " +
                                    std::to_string(g) + " of " + std::to_string(n) + ")");
           f.return_code = r.outcome.rc;
           return f;
         }
         if (!r.input_changed.empty()) {
           f.kind = "wrote-input";
           f.message = sym + " modified its input '" + r.input_changed + "'";
           f.return_code = r.outcome.rc;
           return f;
         }
         return call_failure(fn, r);
       }}));
  if (write_only) {
    out.push_back(make_check<Case>(
        {prefix + ".written", "ABI-GEN-5",
         "every element of the output is written (outputs are poisoned with a NaN payload first)", fn, 60, gen,
         [fn, sym](Ctx& ctx, const Case& c) -> std::optional<Failure> {
           const RunResult r = run_case(ctx.ex, c);
           if (auto f = call_failure(fn, r)) return f;
           if (r.unwritten == 0) return std::nullopt;
           Failure f;
           f.clause = "ABI-GEN-5";
           f.kind = "unwritten";
           f.message = sym + " left " + std::to_string(r.unwritten) + " of " + std::to_string(r.out.size()) +
                       " output elements unwritten";
           f.worst = locate(c, r.first_unwritten);
           f.worst->actual = r.out[static_cast<std::size_t>(r.first_unwritten)];
           f.worst->expected = f.worst->actual;
           char hex[16];
           std::snprintf(hex, sizeof hex, "0x%0*x", r.storage == Storage::F32 ? 8 : 4, r.poison);
           f.notes.push_back(std::string("an unwritten element still holds pecheck's poison NaN (bits ") + hex + ")");
           return f;
         }}));
  }
  out.push_back(make_check<Case>(
      {prefix + ".determinism", "ABI-GEN-6", "the same call twice gives the same bits", fn, 40, gen,
       [fn, sym](Ctx& ctx, const Case& c) -> std::optional<Failure> {
         const RunResult a = run_case(ctx.ex, c, RunMode{});
         if (auto f = call_failure(fn, a)) return f;
         RunMode m2;
         m2.alt_poison = true;
         const RunResult b = run_case(ctx.ex, c, m2);
         if (auto f = call_failure(fn, b)) return f;
         for (std::size_t i = 0; i < a.out.size(); ++i) {
           const auto ba = a.out_bits[i], bb = b.out_bits[i];
           if (ba == a.poison || bb == b.poison) continue;  // unwritten: the .written check's job
           if (ba != bb) {
             Failure f;
             f.clause = "ABI-GEN-6";
             f.kind = "nondeterministic";
             f.message = sym + " gave different bits for the same call";
             f.worst = locate(c, static_cast<std::int64_t>(i));
             f.worst->expected = a.out[i];
             f.worst->actual = b.out[i];
             return f;
           }
         }
         return std::nullopt;
       }}));
  out.push_back(make_check<Case>(make_stateless_check<Case>(fn, gen)));  // check_stateless.hpp
}

}  // namespace pecheck::verifier
