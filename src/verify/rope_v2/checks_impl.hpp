// Shared parts of the version 2 RoPE checks (checks_rope_qk.cpp, checks_rope_cache.cpp): class
// rows as a case reads them (PREC-QK-1, PREC-CACHE-1), the generic checks over strided views
// (gaps ABI-VIEW-2, bounds ABI-GEN-4, completeness ABI-GEN-5, determinism ABI-GEN-6) and the
// rejection checks per requirement (ABI-GEN-8), the oracle grader, the token hooks of batch
// invariance. Included by those two files and checks_mrope.cpp only.
#pragma once

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "oracle/budget.hpp"
#include "verify/checks/check_batch.hpp"
#include "verify/checks/check_impl.hpp"
#include "verify/rope_v2/cases.hpp"
#include "verify/rope_v2/run.hpp"

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
void case_from_entry(const CorpusEntry& e, MropeCase&);
void constrain(const Domain&, MropeCase&, Rng&);
bool inside(const Domain&, const MropeCase&);

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

// ---- grading the elements of an oracle check --------------------------------------------------

// Grades output elements against exact values in every class row of the accuracy track (the
// chosen one decides), feeds the track and keeps the worst element. Shared by the oracle checks
// of the query+key, cached and M-RoPE forms.
struct OracleGrader {
  OracleGrader(Ctx& c, const std::vector<Budget>& r, Format f)
      : ctx(c), rows(r), sf(f), units(r.size()) {}
  Ctx& ctx;
  const std::vector<Budget>& rows;
  Format sf;
  std::vector<double> units;
  double worst_units = 0, worst_ulps = 0;
  std::optional<report::WorstElement> worst;
  bool nan_seen = false;

  // Element `idx` of `out` with exact value `e`, budget inputs `in` (its result set here), at
  // position `pos`; `where()` gives the element's place for a new worst. Returns the absolute
  // error; `became_worst` says whether it is the new worst.
  template <class Where>
  double grade(const OutRead& out, std::int64_t idx, double e, oracle::BudgetInputs& in,
               std::int64_t pos, Where where, bool* became_worst = nullptr) {
    const std::size_t chosen = ctx.acc.chosen_index();
    const double actual = out.values[static_cast<std::size_t>(idx)];
    const double rounded = oracle::round_to(e, sf);
    in.result = std::fabs(e);
    double err = std::fabs(actual - e);
    if (std::isinf(actual) && actual == rounded) err = 0;  // the same overflow (PREC-BAD-3)
    if (std::isnan(actual)) nan_seen = true;
    for (std::size_t k = 0; k < rows.size(); ++k) units[k] = rows[k].units(err, in);
    const double ulps = oracle::ulp_error(actual, e, 0.0, sf);
    // ULPs of the storage type at the operands' magnitude (as the version 1 checks count them), so
    // the report's max-ULP column and the console's worst line speak of the same unit.
    const double sulps = std::fabs(actual - e) / oracle::ulp_of(std::max(std::fabs(e), in.magnitude), sf);
    ctx.observe(pos, sulps, units[chosen]);
    if (ctx.record) ctx.acc.observe(pos, sulps, units);
    const double u = units[chosen];
    const bool w_new = u > worst_units || (std::isnan(u) && !worst);
    if (w_new) {
      worst_units = std::isnan(u) ? INFINITY : u;
      worst_ulps = ulps;
      report::WorstElement w = where();
      w.expected = e;  // the exact value (as a double), not rounded to the storage type
      w.actual = actual;
      w.abs_error = err;
      w.ulps = ulps;
      w.contract_units = worst_units;
      worst = w;
    }
    if (became_worst) *became_worst = w_new;
    return err;
  }

  // After the last element: the worst case into the accuracy track (with its arguments).
  template <class Case>
  void record_worst(const Case& c) {
    if (!worst || !ctx.record || !ctx.acc.is_new_worst(worst_units)) return;
    report::WorstCase wc;
    wc.element = *worst;
    wc.case_index = ctx.case_index;
    describe(c, wc.args, wc.inputs);
    ctx.acc.set_worst(worst_units, std::move(wc));
  }
};

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

// ---- statelessness (ABI-GEN-6; the version 1 form is check_stateless.hpp)
// ------------------------------------------------------

namespace qkstate {

// A case a kept state can change (check_stateless.hpp's prepare): a token at least, a pair whose
// frequency depends on theta_base, in three cases of four no inv_freq table.
template <class Case>
void prepare(Case& c, Rng& r) {
  if (c.n_tokens == 0) {
    c.n_tokens = 1;
    c.positions.assign(1, 0);
    if constexpr (std::is_same_v<Case, MropeCase>) c.pos_h = c.pos_w = c.positions;
    c.q.resize(static_cast<std::size_t>(c.n_q_heads * c.head_dim));
    c.k.resize(static_cast<std::size_t>(c.n_kv_heads * c.head_dim));
    for (auto* v : {&c.q, &c.k})
      for (auto& e : *v) e = round_to_storage(r.signed_unit(), c.storage);
  }
  if (c.has_inv_freq && !r.chance(25)) {
    c.has_inv_freq = false;
    c.inv_freq.clear();
  }
  if constexpr (!std::is_same_v<Case, MropeCase>) {  // M-RoPE's sections are fixed by rotary_dim
    if (c.rotary_dim < 4 && c.head_dim >= 4 && !c.has_inv_freq) c.rotary_dim = 4;
  }
}

template <class Case>
void for_rows(Case& c, const std::function<void(std::vector<std::int64_t>&)>& f) {
  f(c.positions);
  if constexpr (std::is_same_v<Case, MropeCase>) f(c.pos_h), f(c.pos_w);
}

// The largest position a cached case's later calls use: its cache is laid out whole on every
// call (16,384 rows of 128 lanes is 8 MiB).
inline std::int64_t cache_cap(std::int64_t max_position) { return std::min<std::int64_t>(max_position, 16383); }

}  // namespace qkstate

// The check's sequence in one fresh worker (check_stateless.hpp): (1) the case, (2) another valid
// case, (3) the same shape at positions near the top with theta_base x 8, another position_scale
// and inv_freq halved (for a cached rotation, a cache built from those), (4) the case again.
template <class Case>
std::optional<Failure> eval_stateless(Ctx& ctx, Fn fn, const Case& c,
                                      const std::function<Case(Rng&, const GenParams&)>& gen) {
  constexpr bool cached = std::is_same_v<Case, RopeCachedCase>;
  ctx.ex.recycle();
  const ViewRunResult a = run_view_case(ctx.ex, fn, c);
  if (auto f = failed_call(fn, a)) return f;
  std::int64_t maxp = ctx.domain ? max_position_for(*ctx.domain, std::string(scheme(fn)), ctx.opt.max_position) : ctx.opt.max_position;
  if constexpr (cached) maxp = qkstate::cache_cap(maxp);
  Rng r = Rng::for_case(ctx.opt.seed, "stateless-other", static_cast<std::uint64_t>(ctx.case_index));
  Case other = gen(r, GenParams{maxp, c.storage});
  if (ctx.domain) constrain(*ctx.domain, other, r);
  other.storage = c.storage;
  fit_storage(other);
  Case big = c;
  qkstate::for_rows(big, [maxp](std::vector<std::int64_t>& p) { stateless::spread(p, maxp); });
  big.theta_base *= 8;
  big.position_scale = big.position_scale == 1.0 ? 0.5 : 1.0;
  for (auto& f : big.inv_freq) f *= 0.5f;
  if constexpr (cached) {
    std::int64_t top = 0;
    for (auto p : big.positions) top = std::max(top, p);
    big.cache_positions = top + 1;
    fill_cache_rows(big);
  }
  run_view_case(ctx.ex, fn, other);
  run_view_case(ctx.ex, fn, big);
  const ViewRunResult b = run_view_case(ctx.ex, fn, c);
  if (auto f = failed_call(fn, b)) return f;
  for (std::size_t o = 0; o < a.outs.size() && o < b.outs.size(); ++o) {
    for (std::size_t i = 0; i < a.outs[o].bits.size() && i < b.outs[o].bits.size(); ++i) {
      if (a.outs[o].bits[i] == b.outs[o].bits[i]) continue;
      Failure f;
      f.clause = "ABI-GEN-6";
      f.kind = "stateful";
      f.message = std::string(symbol(fn)) + " gave other bits for the same call repeated after other calls in the "
                  "same process (" + a.outs[o].name + " element " + std::to_string(i) + ")";
      report::WorstElement w;
      w.output = a.outs[o].name;
      w.flat_index = static_cast<std::int64_t>(i);
      w.expected = a.outs[o].values[i];
      w.actual = b.outs[o].values[i];
      f.worst = w;
      f.notes.push_back("call sequence in one worker process: (1) this call -> expected; (2) " + stateless::brief(other) +
                        "; (3) " + stateless::brief(big) + "; (4) this call again -> actual");
      f.notes.push_back("each call alone is judged by the other checks; a kernel that keeps state (a cache keyed "
                        "on part of its arguments, or on the address of its cos/sin cache) gives a later call the "
                        "earlier call's values");
      return f;
    }
  }
  return std::nullopt;
}

template <class Case>
constexpr Family family_of() {
  return std::is_same_v<Case, RopeQkCase>   ? Family::RopeQk
         : std::is_same_v<Case, MropeCase> ? Family::Mrope
                                           : Family::RopeCached;
}

// The clause of a family's values (oracle, pass-through).
template <class Case>
const char* values_clause() {
  constexpr Family f = family_of<Case>();
  return f == Family::RopeCached ? "ABI-CACHE-2" : f == Family::Mrope ? "ABI-MROPE-2" : "ABI-QK-2";
}

// ---- pass-through, in place
// ------------------------------------------------------------------------

template <class Case>
std::optional<Failure> eval_passthrough(Ctx& ctx, Fn fn, const Case& c) {
  const ViewRunResult r = run_view_case(ctx.ex, fn, c);
  if (auto f = failed_call(fn, r)) return f;
  for (int which = 0; which < 2; ++which) {
    const std::vector<float>& x = which == 0 ? c.q : c.k;
    const std::int64_t H = which == 0 ? c.n_q_heads : c.n_kv_heads;
    const OutRead& out = r.outs[static_cast<std::size_t>(which)];
    for (std::int64_t t = 0; t < c.n_tokens; ++t)
      for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t l = c.rotary_dim; l < c.head_dim; ++l) {
          const std::size_t k = static_cast<std::size_t>((t * H + h) * c.head_dim + l);
          if (out.bits[k] != to_storage(x[k], c.storage)) {
            Failure f;
            f.clause = values_clause<Case>();
            f.kind = "mismatch";
            f.message = out.name + " lane " + std::to_string(l) + " >= rotary_dim of head " +
                        std::to_string(h) + " of token " + std::to_string(t) +
                        " was not copied bit-exactly";
            f.worst =
                element(out.name, t, h, l, H, c.head_dim, c.positions[static_cast<std::size_t>(t)]);
            f.worst->expected = x[k];
            f.worst->actual = out.values[k];
            f.worst->abs_error = std::fabs(f.worst->actual - f.worst->expected);
            return f;
          }
          ctx.observe(c.positions[static_cast<std::size_t>(t)], 0, 0);
        }
  }
  return std::nullopt;
}

// Separate buffers against q in place, k in place and both (ABI-QK-4: either may be alone).
template <class Case>
std::optional<Failure> eval_inplace(Ctx& ctx, Fn fn, const Case& c) {
  ViewRunMode sep;
  sep.in_place = 0;
  const ViewRunResult a = run_view_case(ctx.ex, fn, c, sep);
  if (auto f = failed_call(fn, a)) return f;
  for (int mode : {3, 1, 2}) {
    ViewRunMode m;
    m.in_place = mode;
    const ViewRunResult b = run_view_case(ctx.ex, fn, c, m);
    if (auto f = failed_call(fn, b)) return f;
    for (int which = 0; which < 2; ++which) {
      const OutRead& x = a.outs[static_cast<std::size_t>(which)];
      const OutRead& y = b.outs[static_cast<std::size_t>(which)];
      for (std::size_t i = 0; i < x.bits.size(); ++i) {
        if (x.bits[i] == y.bits[i]) continue;
        const std::int64_t H = which == 0 ? c.n_q_heads : c.n_kv_heads, D = c.head_dim;
        const std::int64_t t = static_cast<std::int64_t>(i) / (H * D),
                           h = (static_cast<std::int64_t>(i) / D) % H,
                           l = static_cast<std::int64_t>(i) % D;
        Failure f;
        f.clause = "ABI-QK-4";
        f.kind = "inplace-differs";
        f.message = std::string("with ") +
                    (mode == 3   ? "q_out == q and k_out == k"
                     : mode == 1 ? "q_out == q"
                                 : "k_out == k") +
                    " " + x.name + " differs from the call with separate buffers";
        f.worst = element(x.name, t, h, l, H, D, c.positions[static_cast<std::size_t>(t)]);
        f.worst->expected = x.values[i];
        f.worst->actual = y.values[i];
        f.worst->abs_error = std::fabs(f.worst->actual - f.worst->expected);
        return f;
      }
    }
  }
  if (ctx.record)
    ctx.elements += static_cast<std::int64_t>(a.outs[0].bits.size() + a.outs[1].bits.size());
  return std::nullopt;
}

// ---- batch invariance (ABI-BATCH-1), through the shared template of check_batch.hpp ----------

// The case holding tokens pick[0], pick[1], ... of c (a pick may repeat a token).
template <class Case>
Case select_tokens(const Case& c, const std::vector<std::int64_t>& pick) {
  Case s = c;
  const std::int64_t D = c.head_dim;
  s.n_tokens = static_cast<std::int64_t>(pick.size());
  s.positions.clear();
  s.q.clear();
  s.k.clear();
  for (auto t : pick) {
    s.positions.push_back(c.positions[static_cast<std::size_t>(t)]);
    s.q.insert(s.q.end(), c.q.begin() + t * c.n_q_heads * D,
               c.q.begin() + (t + 1) * c.n_q_heads * D);
    s.k.insert(s.k.end(), c.k.begin() + t * c.n_kv_heads * D,
               c.k.begin() + (t + 1) * c.n_kv_heads * D);
  }
  if constexpr (std::is_same_v<Case, MropeCase>) {
    s.pos_h.clear();
    s.pos_w.clear();
    for (auto t : pick) {
      s.pos_h.push_back(c.pos_h[static_cast<std::size_t>(t)]);
      s.pos_w.push_back(c.pos_w[static_cast<std::size_t>(t)]);
    }
  }
  if constexpr (std::is_same_v<Case, RopeCachedCase>) fill_cache_rows(s);
  return s;
}

// A token's output bits: its q_out heads, then its k_out heads (RunResult::out_bits holds the
// whole q_out, then the whole k_out).
template <class Case>
BatchHooks<Case> token_hooks(Fn fn) {
  BatchHooks<Case> h;
  h.unit = "token";
  h.units = [](const Case& c) { return c.n_tokens; };
  h.select = select_tokens<Case>;
  h.unit_bits = [](const Case& c, const RunResult& r, std::int64_t u) {
    const std::size_t nq = static_cast<std::size_t>(c.n_q_heads * c.head_dim);
    const std::size_t nk = static_cast<std::size_t>(c.n_kv_heads * c.head_dim);
    const std::size_t kbase = static_cast<std::size_t>(c.n_tokens) * nq,
                      uu = static_cast<std::size_t>(u);
    std::vector<std::uint32_t> bits(r.out_bits.begin() + uu * nq,
                                    r.out_bits.begin() + (uu + 1) * nq);
    bits.insert(bits.end(), r.out_bits.begin() + kbase + uu * nk,
                r.out_bits.begin() + kbase + (uu + 1) * nk);
    return bits;
  };
  h.locate = [](const Case& c, std::int64_t u, std::size_t k) {
    const std::int64_t D = c.head_dim, nq = c.n_q_heads * D, kk = static_cast<std::int64_t>(k);
    const std::int64_t pos = c.positions[static_cast<std::size_t>(u)];
    if (kk < nq) return element("q_out", u, kk / D, kk % D, c.n_q_heads, D, pos);
    return element("k_out", u, (kk - nq) / D, (kk - nq) % D, c.n_kv_heads, D, pos);
  };
  h.run = [fn](Ctx& ctx, const Case& c) {
    const ViewRunResult v = run_view_case(ctx.ex, fn, c);
    RunResult r;
    r.outcome = v.outcome;
    r.storage = c.storage;
    r.poison = patterns(c.storage).poison;
    for (const OutRead& o : v.outs)
      r.out_bits.insert(r.out_bits.end(), o.bits.begin(), o.bits.end());
    return r;
  };
  return h;
}

// The generic checks of the query+key forms: no write into a view's gaps (ABI-VIEW-2), none
// outside the buffers or into the inputs (ABI-GEN-4), every output element written (ABI-GEN-5),
// the same bits twice (ABI-GEN-6).
template <class Case>
void add_memory_checks(std::vector<AnyCheck>& out, Fn fn,
                       const std::function<Case(Rng&, const GenParams&)>& gen) {
  const std::string p = check_prefix(fn);
  const auto bind = [fn](auto f) {
    return [fn, f](Ctx& ctx, const Case& c) { return f(ctx, fn, c); };
  };
  out.push_back(make_check<Case>(
      {p + ".gaps", "ABI-VIEW-2",
       "no write into the gaps between the heads and rows of any view (inputs and outputs)", fn, 60,
       gen, bind(eval_gaps<Case>)}));
  out.push_back(make_check<Case>(
      {p + ".bounds", "ABI-GEN-4",
       "no write before or after any buffer (canary guard zones) and none into the inputs", fn, 60,
       gen, bind(eval_bounds<Case>)}));
  out.push_back(make_check<Case>(
      {p + ".written", "ABI-GEN-5",
       "every element of q_out and k_out is written (poisoned with a NaN payload first)", fn, 50,
       [gen](Rng& r, const GenParams& gp) {
         Case c = gen(r, gp);
         c.q_in_place = c.k_in_place = false;
         return c;
       },
       bind(eval_written<Case>)}));
  out.push_back(make_check<Case>({p + ".determinism", "ABI-GEN-6",
                                  "the same call twice gives the same bits", fn, 30, gen,
                                  bind(eval_determinism<Case>)}));
  out.push_back(make_check<Case>(
      {p + ".stateless", "ABI-GEN-6",
       "the same call gives the same bits after other calls in the same process (other shapes, larger "
       "positions, another base, scale and cache between)",
       fn, 3,
       [gen](Rng& r, const GenParams& gp) {
         Case c = gen(r, gp);
         qkstate::prepare(c, r);
         std::int64_t top = gp.max_position;
         if constexpr (std::is_same_v<Case, RopeCachedCase>) top = qkstate::cache_cap(top);
         qkstate::for_rows(c, [top](std::vector<std::int64_t>& p) { stateless::shorten(p, top); });
         if constexpr (std::is_same_v<Case, RopeCachedCase>) {
           std::int64_t m = 0;
           for (auto q : c.positions) m = std::max(m, q);
           c.cache_positions = std::max(c.cache_positions, m + 1);
           fill_cache_rows(c);
         }
         return c;
       },
       [fn, gen](Ctx& ctx, const Case& c) { return eval_stateless<Case>(ctx, fn, c, gen); }}));
}

// A call with elements to read or write (an empty one touches nothing whatever it trusts).
inline bool nonempty_call(const QkShape& c) {
  return c.n_tokens > 0 && c.n_q_heads > 0 && c.n_kv_heads > 0 && c.head_dim > 0;
}
inline bool nonempty_call(const RopeCacheCase& c) { return output_size(c) > 0; }

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
        req.id == "null" ? std::string("ABI-GEN-3") : req.clause.empty() ? domain_clause : req.clause,
        std::string(req.safety ? "[tier A, harm: by default an acceptance fails when the non-empty call touches memory "
                                 "outside it; under --strict every acceptance] "
                               : "[tier B, hygiene: --strict] ") +
            "calls breaking '" + req.rule +
            "' are rejected with a non-zero return and leave the outputs untouched",
        fn,
        req.safety ? 80 : 40,
        [gen_invalid, branches](Rng& r, const GenParams& p) {
          const int b = branches[static_cast<std::size_t>(
              r.range(0, static_cast<std::int64_t>(branches.size()) - 1))];
          return gen_invalid(r, p, b);
        },
        [fn, clause = req.clause.empty() ? domain_clause : req.clause, sym,
         rid](Ctx& ctx, const Case& c) -> std::optional<Failure> {
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
            std::string harm;
            if (!r.guard_violation.empty()) harm = "wrote outside a buffer: " + r.guard_violation;
            else if (!r.gap_violation.empty()) harm = "wrote into a gap: " + r.gap_violation;
            else if (!r.input_changed.empty()) harm = "modified its input '" + r.input_changed + "'";
            return accepted_invalid(ctx.opt, nonempty_call(c), harm, sym, why,
                                    c.null_field.empty() ? clause : "ABI-GEN-3");
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
    def.guards = kAllGuarded;  // harm: a touch past an input is a fault at its guard page
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
