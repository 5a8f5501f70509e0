// Shared parts of the version 2 RoPE checks (checks_rope_qk.cpp, checks_rope_cache.cpp): class
// rows as a case reads them (PREC-QK-1, PREC-CACHE-1), the generic checks over strided views
// (gaps ABI-VIEW-2, bounds ABI-GEN-4, completeness ABI-GEN-5, determinism ABI-GEN-6) and the
// rejection checks per requirement (ABI-GEN-8). Included by those two files only.
#pragma once

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "oracle/budget.hpp"
#include "verify/checks/check_impl.hpp"
#include "verify/gen/cases_qk.hpp"
#include "verify/isolation/run_qk.hpp"

namespace pecheck::verifier {

// Stored corpus cases and declared domains of the version 2 cases (checks_rope_qk.cpp).
void case_from_entry(const CorpusEntry& e, RopeQkCase&);
void case_from_entry(const CorpusEntry& e, RopeCachedCase&);
void case_from_entry(const CorpusEntry& e, RopeCacheCase&);
void constrain(const Domain&, RopeQkCase&, Rng&);
void constrain(const Domain&, RopeCachedCase&, Rng&);
void constrain(const Domain&, RopeCacheCase&, Rng&);
bool inside(const Domain&, const RopeQkCase&);
bool inside(const Domain&, const RopeCachedCase&);
bool inside(const Domain&, const RopeCacheCase&);

namespace qkcheck {

using oracle::Budget;
using oracle::Format;

inline Format fmt(Storage s) {
  return s == Storage::BF16 ? Format::BF16 : s == Storage::F16 ? Format::F16 : Format::F32;
}

inline std::optional<Failure> failed_call(Fn fn, const ViewRunResult& r) {
  RunResult rr;
  rr.outcome = r.outcome;
  return call_failure(fn, rr);
}

inline std::int64_t lane_a(std::int32_t layout, std::int64_t, std::int64_t i) {
  return layout == 0 ? i : 2 * i;
}
inline std::int64_t lane_b(std::int32_t layout, std::int64_t R, std::int64_t i) {
  return layout == 0 ? i + R / 2 : 2 * i + 1;
}

// f_i in double (the budget's angle input; double accuracy is ample for a bound).
template <class C>
std::vector<double> freqs(const C& c, std::int64_t R) {
  std::vector<double> f(static_cast<std::size_t>(R / 2));
  for (std::size_t i = 0; i < f.size(); ++i) {
    f[i] = c.has_inv_freq
               ? static_cast<double>(c.inv_freq[i])
               : std::pow(c.theta_base, -2.0 * static_cast<double>(i) / static_cast<double>(R));
  }
  return f;
}
inline std::vector<double> log_freqs(const std::vector<double>& f) {
  std::vector<double> l(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) l[i] = f[i] > 0 ? std::fabs(std::log(f[i])) : 0.0;
  return l;
}

// The class scheme a family is graded in: the query+key form and the builder use the RoPE
// classes of their storage type (ABI-QK-2, ABI-CACHE-3); the cached form its own (PREC-CACHE-1).
inline std::string class_scheme(Family f) { return std::string(scheme(f)); }

// A class row as a case reads it (spec/contracts.md): PREC-QK-1 adds 2 to c_const for an
// attention factor other than 1; PREC-CACHE-1 admits the per-operation term (c_out) only for a
// 16-bit cache.
inline Budget qk_row(const Budget& row, double attn) {
  Budget b = row;
  if (attn != 1.0) b.c_const += 2;
  return b;
}
inline Budget cached_row(const Budget& row, std::int32_t cache_dtype) {
  Budget b = row;
  if (cache_dtype == PEC_DTYPE_F32) b.c_out = 0;
  return b;
}

// The score contract's per-element relative error as a row of PREC-SCORE-1's form: the storage
// rounding (c_out u_s, or for the cached form (c_out + c_result) u_s since |y| <= M) and, for
// the cached form, the cache's own rounding of attn_factor cos/sin (2 u(cache)) folded into
// c_const (units of u(arith)).
inline Budget score_row(const Budget& row, double extra_rel) {
  Budget b = row;
  const double u = oracle::format_info(row.arith).unit_roundoff;
  b.c_const += extra_rel / u;
  return b;
}

inline void ensure_track(Ctx& ctx, Family fam, Storage s) {
  if (ctx.acc.active()) return;
  const std::string cs = class_scheme(fam);
  const std::string chosen = chosen_class(ctx.opt.accuracy, cs, s);
  // The class judged must have its row for this storage type: never a silent stand-in.
  (void)class_row(cs, chosen, s);  // throws PREC-BUDGET-1 naming the missing row
  ctx.acc = AccuracyTrack(cs, chosen, s);
}

inline report::WorstElement element(const std::string& out, std::int64_t t, std::int64_t h,
                                    std::int64_t l, std::int64_t H, std::int64_t D,
                                    std::int64_t pos) {
  report::WorstElement w;
  w.output = out;
  w.index = {t, h, l};
  w.index_names = {"token", "head", "lane"};
  w.flat_index = (t * H + h) * D + l;
  w.position = pos;
  return w;
}

// ---- views, bounds, completeness, determinism
// ------------------------------------------------------

template <class Case>
std::optional<Failure> eval_gaps(Ctx& ctx, Fn fn, const Case& c) {
  const ViewRunResult r = run_view_case(ctx.ex, fn, c);
  if (!r.outcome.returned()) return failed_call(fn, r);
  if (!r.gap_violation.empty()) {
    Failure f;
    f.clause = "ABI-VIEW-2";
    f.kind = "wrote-gap";
    f.message = std::string(symbol(fn)) + " " + r.gap_violation;
    f.return_code = r.outcome.rc;
    f.notes.push_back(
        "the gaps between a view's heads and rows belong to someone else (the K and V of a fused "
        "buffer); pecheck fills them with a guard pattern");
    return f;
  }
  return failed_call(fn, r);
}

template <class Case>
std::optional<Failure> eval_bounds(Ctx& ctx, Fn fn, const Case& c) {
  const ViewRunResult r = run_view_case(ctx.ex, fn, c);
  if (!r.outcome.returned()) return failed_call(fn, r);
  Failure f;
  f.clause = "ABI-GEN-4";
  f.return_code = r.outcome.rc;
  if (!r.guard_violation.empty()) {
    f.kind = "out-of-bounds";
    f.message = std::string(symbol(fn)) + " " + r.guard_violation;
    return f;
  }
  if (!r.input_changed.empty()) {
    f.kind = "wrote-input";
    f.message = std::string(symbol(fn)) + " modified its input '" + r.input_changed + "'";
    return f;
  }
  return failed_call(fn, r);
}

template <class Case>
std::optional<Failure> eval_written(Ctx& ctx, Fn fn, const Case& c) {
  const ViewRunResult r = run_view_case(ctx.ex, fn, c);
  if (auto f = failed_call(fn, r)) return f;
  for (const OutRead& o : r.outs) {
    if (o.unwritten == 0) continue;
    Failure f;
    f.clause = "ABI-GEN-5";
    f.kind = "unwritten";
    f.message = std::string(symbol(fn)) + " left " + std::to_string(o.unwritten) + " of " +
                std::to_string(o.bits.size()) + " elements of " + o.name + " unwritten";
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%0*x", c.storage == Storage::F32 ? 8 : 4,
                  patterns(c.storage).poison);
    f.notes.push_back(std::string("an unwritten element still holds pecheck's poison NaN (bits ") +
                      hex + "), first at flat index " + std::to_string(o.first_unwritten));
    return f;
  }
  return std::nullopt;
}

template <class Case>
std::optional<Failure> eval_determinism(Ctx& ctx, Fn fn, const Case& c) {
  const ViewRunResult a = run_view_case(ctx.ex, fn, c);
  if (auto f = failed_call(fn, a)) return f;
  ViewRunMode m;
  m.alt_poison = true;
  const ViewRunResult b = run_view_case(ctx.ex, fn, c, m);
  if (auto f = failed_call(fn, b)) return f;
  const FormatPatterns& p = patterns(c.storage);
  for (std::size_t o = 0; o < a.outs.size(); ++o) {
    for (std::size_t i = 0; i < a.outs[o].bits.size(); ++i) {
      const auto x = a.outs[o].bits[i], y = b.outs[o].bits[i];
      if (x == p.poison || y == p.poison_alt || x == y)
        continue;  // unwritten: the .written check's job
      Failure f;
      f.clause = "ABI-GEN-6";
      f.kind = "nondeterministic";
      f.message = std::string(symbol(fn)) + " gave different bits for the same call (" +
                  a.outs[o].name + " element " + std::to_string(i) + ")";
      report::WorstElement w;
      w.output = a.outs[o].name;
      w.flat_index = static_cast<std::int64_t>(i);
      w.expected = a.outs[o].values[i];
      w.actual = b.outs[o].values[i];
      f.worst = w;
      return f;
    }
  }
  return std::nullopt;
}

// Rejections (ABI-GEN-8): one check per requirement of the scheme.
template <class Case>
void add_reject_checks(std::vector<AnyCheck>& out, Fn fn, const std::string& domain_clause,
                       std::function<Case(Rng&, const GenParams&, int)> gen_invalid) {
  const std::string s(scheme(fn)), prefix = check_prefix(fn), sym(symbol(fn));
  for (const RejectRequirement& req : reject_requirements_qk(s)) {
    const std::string rid = req.id;
    const std::vector<int> branches = req.branches;
    CheckDef<Case> def{
        prefix + ".reject." + req.id,
        req.id == "null" ? std::string("ABI-GEN-3") : domain_clause,
        std::string(req.safety ? "[tier A, safety] " : "[tier B, hygiene: --strict] ") +
            "calls breaking '" + req.rule +
            "' are rejected with a non-zero return and leave the outputs untouched",
        fn,
        req.safety ? 80 : 40,
        [gen_invalid, branches](Rng& r, const GenParams& p) {
          const int b = branches[static_cast<std::size_t>(
              r.range(0, static_cast<std::int64_t>(branches.size()) - 1))];
          return gen_invalid(r, p, b);
        },
        [fn, domain_clause, sym, rid](Ctx& ctx, const Case& c) -> std::optional<Failure> {
          const std::string why = invalid_reason(c);
          if (why.empty() || invalid_requirement(c) != rid) return std::nullopt;
          const ViewRunResult r = run_view_case(ctx.ex, fn, c);
          Failure f;
          if (!r.outcome.returned()) {
            f = *failed_call(fn, r);
            f.message = sym + " " + r.outcome.describe() + " on an invalid call (" + why +
                        ") instead of rejecting it";
            return f;
          }
          if (r.outcome.rc == 0) {
            f.clause = c.null_field.empty() ? domain_clause : "ABI-GEN-3";
            f.kind = "accepted-invalid";
            f.message = sym + " returned 0 for an invalid call: " + why;
            f.return_code = 0;
            return f;
          }
          if (!r.unchanged || !r.guards_ok()) {
            f.clause = "ABI-GEN-3";
            f.kind = "rejected-but-wrote";
            f.message =
                sym + " rejected an invalid call (" + why + ") but changed its output buffer";
            f.return_code = r.outcome.rc;
            return f;
          }
          return std::nullopt;
        }};
    def.valid_cases = false;
    AnyCheck a = make_check<Case>(std::move(def));
    a.strict_only = !req.safety;
    out.push_back(std::move(a));
  }
}

// ---- registration
// ------------------------------------------------------------------------------------

inline void mark_batch(AnyCheck& a) {  // as make_batch_check (check_batch.hpp) marks its checks
  a.strict_only = true;
  a.opt_in_part = ".batch";
  a.skip_reason =
      "batch invariance (spec/abi.md ABI-BATCH-1): run with --strict, or --only " + a.name;
}

// The builder's checks of one storage type (checks_rope_cache.cpp).
void add_builder_checks(std::vector<AnyCheck>& out, Fn fn);

}  // namespace qkcheck
}  // namespace pecheck::verifier
