// Checks of the query+key RoPE functions of ABI version 2, one code path per check for the three
// storage types: pec_rope_qk_* (ABI-QK-*) and pec_rope_cached_* (ABI-CACHE-1, -2), with strided
// views (ABI-VIEW-*), relative scores of every GQA group (ABI-QK-3), in place (ABI-QK-4), batch
// invariance (ABI-BATCH-1) and the generic clauses of checks_impl.hpp; the builder
// pec_rope_cache_* is checked in checks_rope_cache.cpp.
//
// Exact values: for the query+key form attn_factor times the exact rotation of the MPFR oracle
// (oracle::rope_block on a contiguous copy of each tensor, rounded to double, then times
// attn_factor in double: <= 2^-52 relative, far inside every budget); for the cached form
// x_a C - x_b S with the cache's own values C, S taken as exact (one fma in double: the exact
// value correctly rounded to double).
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "oracle/oracle.hpp"
#include "verify/checks/check_batch.hpp"
#include "verify/rope_v2/checks_impl.hpp"
#include "verify/rope_v2/checks_shift.hpp"
#include "verify/rope_v2/hints_cached.hpp"
#include "verify/rope_v2/hints_qk.hpp"
#include "verify/corpus/corpus.hpp"

namespace pecheck::verifier {

// Stored corpus cases are not defined for the version 2 functions yet: a stored entry for these
// checks is a usage error. (Declared domains: domain.cpp.)
void case_from_entry(const CorpusEntry& e, RopeQkCase&) {
  throw UsageError("stored cases for " + e.check + " are not supported");
}
void case_from_entry(const CorpusEntry& e, RopeCachedCase&) {
  throw UsageError("stored cases for " + e.check + " are not supported");
}
void case_from_entry(const CorpusEntry& e, RopeCacheCase&) {
  throw UsageError("stored cases for " + e.check + " are not supported");
}

namespace {

using namespace qkcheck;

// ---- exact values -------------------------------------------------------------------------------

// attn_factor x the exact rotation of a dense [T][H][D] tensor, rounded to double.
std::vector<double> exact_rotation(const RopeQkCase& c, const std::vector<float>& x, std::int64_t H,
                                   const std::vector<std::int64_t>& positions) {
  const std::size_t n = static_cast<std::size_t>(c.n_tokens * H * c.head_dim);
  std::vector<double> ex(n);
  if (n == 0) return ex;
  const pec_rope_args a{c.n_tokens,
                        H,
                        c.head_dim,
                        c.rotary_dim,
                        c.layout,
                        c.theta_base,
                        c.position_scale,
                        positions.data(),
                        c.has_inv_freq ? c.inv_freq.data() : nullptr};
  oracle::rope_block(a, x.data(), Format::F64, nullptr, ex.data());
  for (auto& e : ex) e *= c.attn_factor;
  return ex;
}

// x_a C - x_b S from the cache row of each token's position (NaN where the case has no row).
std::vector<double> exact_cached(const RopeCachedCase& c, const std::vector<float>& x,
                                 std::int64_t H, const std::vector<std::int64_t>& positions,
                                 std::vector<double>* magnitude) {
  const std::int64_t D = c.head_dim, R = c.rotary_dim, half = R / 2;
  std::vector<double> ex(static_cast<std::size_t>(c.n_tokens * H * D), 0.0);
  if (magnitude) magnitude->assign(ex.size(), 0.0);
  for (std::int64_t t = 0; t < c.n_tokens; ++t) {
    const auto it =
        std::find(c.row_pos.begin(), c.row_pos.end(), positions[static_cast<std::size_t>(t)]);
    const float* row =
        it == c.row_pos.end() ? nullptr : c.row_vals.data() + (it - c.row_pos.begin()) * R;
    for (std::int64_t h = 0; h < H; ++h) {
      const std::int64_t base = (t * H + h) * D;
      for (std::int64_t i = 0; i < half; ++i) {
        const std::size_t ia = static_cast<std::size_t>(base + lane_a(c.layout, R, i));
        const std::size_t ib = static_cast<std::size_t>(base + lane_b(c.layout, R, i));
        const double xa = x[ia], xb = x[ib];
        const double C = row ? row[i] : NAN, S = row ? row[half + i] : NAN;
        ex[ia] = std::fma(xa, C, -(xb * S));  // xb*S is exact in double: one rounding
        ex[ib] = std::fma(xb, C, xa * S);
        if (magnitude) {  // the magnitudes of each result's two products
          (*magnitude)[ia] = std::fabs(xa * C) + std::fabs(xb * S);
          (*magnitude)[ib] = std::fabs(xb * C) + std::fabs(xa * S);
        }
      }
    }
  }
  return ex;
}

// ---- the oracle check of both query+key forms --------------------------------------------------

template <class Case>
std::optional<Failure> eval_oracle(Ctx& ctx, Fn fn, const Case& c) {
  const ViewRunResult r = run_view_case(ctx.ex, fn, c);
  if (auto f = failed_call(fn, r)) return f;
  constexpr Family fam = family_of<Case>();
  constexpr bool cached = fam == Family::RopeCached;
  ensure_track(ctx, fam, c.storage);
  const AccuracyTrack& acc = ctx.acc;
  std::vector<Budget> rows;
  for (std::size_t k = 0; k < acc.size(); ++k) {
    if constexpr (cached)
      rows.push_back(cached_row(acc.row(k), c.cache_dtype));
    else
      rows.push_back(qk_row(acc.row(k), c.attn_factor));
  }
  const Budget& chosen = rows[acc.chosen_index()];
  const std::int64_t R = c.rotary_dim, D = c.head_dim, half = R / 2;
  std::vector<double> f, lf;
  if constexpr (!cached) f = freqs(c, R), lf = log_freqs(f);
  OracleGrader g(ctx, rows, fmt(c.storage));
  for (int which = 0; which < 2; ++which) {
    const std::vector<float>& x = which == 0 ? c.q : c.k;
    const std::int64_t H = which == 0 ? c.n_q_heads : c.n_kv_heads;
    const OutRead& out = r.outs[static_cast<std::size_t>(which)];
    std::vector<double> mag;
    std::vector<double> ex;
    if constexpr (cached)
      ex = exact_cached(c, x, H, c.positions, &mag);
    else
      ex = exact_rotation(c, x, H, c.positions);
    for (std::int64_t t = 0; t < c.n_tokens; ++t) {
      const std::int64_t pos = c.positions[static_cast<std::size_t>(t)];
      for (std::int64_t h = 0; h < H; ++h) {
        const std::int64_t base = (t * H + h) * D;
        for (std::int64_t i = 0; i < half; ++i) {
          const std::int64_t ia = base + lane_a(c.layout, R, i), ib = base + lane_b(c.layout, R, i);
          oracle::BudgetInputs in;
          if constexpr (!cached) {
            const double theta =
                static_cast<double>(pos) * c.position_scale * f[static_cast<std::size_t>(i)];
            in.magnitude = c.attn_factor * (std::fabs(x[static_cast<std::size_t>(ia)]) +
                                            std::fabs(x[static_cast<std::size_t>(ib)]));
            in.angle = std::fabs(theta);
            in.index = static_cast<double>(i);
            in.log_freq = lf[static_cast<std::size_t>(i)];
          }
          for (std::int64_t idx : {ia, ib}) {
            if constexpr (cached) in.magnitude = mag[static_cast<std::size_t>(idx)];
            const double err =
                g.grade(out, idx, ex[static_cast<std::size_t>(idx)], in, pos,
                        [&] { return element(out.name, t, h, idx - base, H, D, pos); });
            if constexpr (!cached) {  // the position-error profile, from the first pair
              const double step = c.position_scale * f[0];
              if (ctx.record && i == 0 && in.magnitude > 0 && step > 0)
                ctx.acc.observe_position_error(pos, err / in.magnitude / step);
            }
          }
        }
      }
    }
  }
  g.record_worst(c);
  const std::optional<report::WorstElement>& worst = g.worst;
  const double worst_units = g.worst_units;
  const bool nan_seen = g.nan_seen;
  if (!worst) return std::nullopt;
  if (!(worst_units > 1)) return std::nullopt;
  Failure fl;
  fl.clause = cached ? "ABI-CACHE-2" : "ABI-QK-2";
  fl.kind = std::isnan(worst->actual) ? "nan" : "mismatch";
  fl.worst = worst;
  const std::string what = cached ? "x_a C - x_b S of the cache row at the token's position"
                                  : "attn_factor x the exact rotation";
  fl.message = detail::oracle_message(worst->output, what, worst->actual, worst_units,
                                      "the " + std::string(storage_name(c.storage)) + " " +
                                          (cached ? "cached-rotation" : "RoPE") + " bound of class '" +
                                          chosen.variant + "' (" + chosen.clause + ")");
  if (worst->expected == 0 && worst_units > 1e20 && std::isfinite(worst->actual)) {  // exact 0 from zero operands: a bound of ~0 (issue 22)
    fl.message = worst->output + std::string(" is ") + report::format_real(worst->actual) + " where " + what +
                 " is exactly 0: any nonzero value is wrong";
  }
  if constexpr (!cached) {
    const std::int64_t token = worst->index.empty() ? -1 : worst->index[0];
    for (auto& h : qk_hints(c, r, token, exact_rotation)) fl.notes.push_back(std::move(h));
  } else {
    const std::int64_t token = worst->index.empty() ? -1 : worst->index[0];
    const auto ex = [](const RopeCachedCase& v, const std::vector<float>& x, std::int64_t H,
                       const std::vector<std::int64_t>& pos) { return exact_cached(v, x, H, pos, nullptr); };
    for (auto& h : cached_hints(c, r, token, ex)) fl.notes.push_back(std::move(h));
  }
  if (cached && nan_seen) {
    fl.notes.push_back(
        "the cache rows the call may read (positions) hold attn_factor cos/sin; every other row "
        "holds "
        "NaN: a NaN output means the kernel read another row (the token index instead of the "
        "position?)");
  }
  return fl;
}

// ---- relative scores of every GQA group, from one call
// ---------------------------------------------

template <class Case>
std::optional<Failure> eval_shift(Ctx& ctx, Fn fn, const Case& c) {
  constexpr Family fam = family_of<Case>();
  constexpr bool cached = fam == Family::RopeCached;
  const ViewRunResult r0 = run_view_case(ctx.ex, fn, c);
  if (auto f = failed_call(fn, r0)) return f;
  ViewRunMode ms;
  ms.shift = c.shift;
  const ViewRunResult r1 = run_view_case(ctx.ex, fn, c, ms);
  if (auto f = failed_call(fn, r1)) return f;
  const std::string cs = class_scheme(fam);
  const Budget& base = class_row(cs, chosen_class(ctx.opt.accuracy, cs, c.storage), c.storage);
  const double us = oracle::format_info(fmt(c.storage)).unit_roundoff;
  double attn = 1.0;
  Budget b = base;
  if constexpr (cached) {
    const Budget row = cached_row(base, c.cache_dtype);
    const double uc = oracle::format_info(fmt(dtype_storage(c.cache_dtype))).unit_roundoff;
    b = score_row(row, (row.c_out + row.c_result) * us + 2 * uc);
    b.c_out = 0;
    attn = c.attn_factor;
  } else {
    b = score_row(qk_row(base, c.attn_factor), base.c_out * us);
    attn = c.attn_factor;
  }
  std::vector<double> f, lf;
  if constexpr (!cached) f = freqs(c, c.rotary_dim), lf = log_freqs(f);
  Failure fl;
  const double worst_units = group_score_shift(
      ctx, c, r0, r1, b, attn, lf, base.variant,
      "under a shift of " + std::to_string(c.shift) + " positions",
      [&](std::int64_t t, std::int64_t u, std::vector<double>& tm, std::vector<double>& tn,
          std::vector<double>& tms, std::vector<double>& tns) {
        if constexpr (!cached) {
          const double pm = static_cast<double>(c.positions[t]),
                       pn = static_cast<double>(c.positions[u]);
          for (std::size_t i = 0; i < tm.size(); ++i) {
            const double w = c.position_scale * f[i];
            tm[i] = pm * w, tn[i] = pn * w;
            tms[i] = (pm + c.shift) * w, tns[i] = (pn + c.shift) * w;
          }
        }
      },
      fl);
  if (!(worst_units > 1)) return std::nullopt;
  fl.clause = "ABI-QK-3";
  fl.kind = "property";
  fl.notes.push_back(
      "expected = score at the original positions, actual = score after the shift, both from one "
      "call each");
  return fl;
}

// Queries, keys and a shift that keeps every position (and every cache row) in range.
template <class Case>
Case with_shift(Rng& r, Case c, std::int64_t limit) {
  while (c.n_tokens > 10) {
    c.n_tokens /= 2;
    c.positions.resize(static_cast<std::size_t>(c.n_tokens));
    c.q.resize(static_cast<std::size_t>(c.n_tokens * c.n_q_heads * c.head_dim));
    c.k.resize(static_cast<std::size_t>(c.n_tokens * c.n_kv_heads * c.head_dim));
  }
  if (c.n_tokens == 0) {
    c.n_tokens = 1;
    c.positions = {r.range(0, limit)};
    c.q.assign(static_cast<std::size_t>(c.n_q_heads * c.head_dim), 0.5f);
    c.k.assign(static_cast<std::size_t>(c.n_kv_heads * c.head_dim), 0.25f);
  }
  for (auto* v : {&c.q, &c.k})
    for (auto& e : *v)
      e = round_to_storage(r.signed_unit(), c.storage);  // no scaled values: scores stay O(1)
  std::int64_t lo = c.positions[0], hi = lo;
  for (auto q : c.positions) lo = std::min(lo, q), hi = std::max(hi, q);
  const std::int64_t down = lo, up = limit - hi;
  if (down + up > 0) {
    c.shift = r.range(-down, up);
    if (c.shift == 0) c.shift = up > 0 ? up : -down;
  }
  return c;
}

// The production-size generator of a view family.
template <class Case>
std::function<Case(Rng&, const GenParams&)> large_gen() {
  if constexpr (std::is_same_v<Case, RopeCachedCase>) return gen_rope_cached_large;
  else return gen_rope_qk_large;
}

template <class Case>
void add_view_family(std::vector<AnyCheck>& out, Fn fn,
                     std::function<Case(Rng&, const GenParams&)> gen,
                     std::function<Case(Rng&, const GenParams&, int)> gen_invalid) {
  constexpr bool cached = std::is_same_v<Case, RopeCachedCase>;
  const std::string p = check_prefix(fn);
  const std::string values = cached ? "ABI-CACHE-2" : "ABI-QK-2";
  const auto bind = [fn](auto f) {
    return [fn, f](Ctx& ctx, const Case& c) { return f(ctx, fn, c); };
  };
  out.push_back(make_check<Case>({p + ".oracle", values,
                                  cached ? "q_out and k_out agree with x_a C - x_b S of the cache "
                                           "row at each position (the cache's values exact) "
                                           "within the cached-rotation class (PREC-CACHE-1)"
                                         : "q_out and k_out agree with attn_factor x the exact "
                                           "rotation (MPFR oracle) within the RoPE class of "
                                           "the storage type, every GQA group",
                                  fn, 120, gen, bind(eval_oracle<Case>), true}));
  out.push_back(make_check<Case>(
      {p + ".passthrough", values,
       "lanes rotary_dim..head_dim-1 of q_out and k_out are copied bit-exactly", fn, 40,
       [gen](Rng& r, const GenParams& gp) {
         Case c = gen(r, gp);
         if (c.rotary_dim == c.head_dim) {  // partial rotary: lanes to pass through
           c.head_dim += 1 + 2 * r.range(0, 3);
           c.q.assign(static_cast<std::size_t>(c.n_tokens * c.n_q_heads * c.head_dim), 0.0f);
           c.k.assign(static_cast<std::size_t>(c.n_tokens * c.n_kv_heads * c.head_dim), 0.0f);
           for (auto* v : {&c.q, &c.k})
             for (auto& e : *v) e = round_to_storage(r.signed_unit(), c.storage);
         }
         return c;
       },
       bind(eval_passthrough<Case>)}));
  out.push_back(make_large_check<Case>(
      fn, values,
      "production-size calls (10,240+ query token-heads, or long prefill chunks of 64- or 128-lane heads" +
          std::string(cached ? " with a long cache" : "") +
          ") agree with the oracle within the class: kernels switch code paths by size (vllm#51049)",
      large_gen<Case>(), bind(eval_oracle<Case>)));
  out.push_back(make_check<Case>(
      {p + ".inplace", "ABI-QK-4",
       "q_out == q and/or k_out == k (equal strides) give the same bits as separate buffers", fn,
       30, gen, bind(eval_inplace<Case>)}));
  out.push_back(make_check<Case>({p + ".shift", "ABI-QK-3",
                                  "scores of every query head with the key head of its group, from "
                                  "one call, move under a common position "
                                  "shift by no more than the score contract",
                                  fn, 50,
                                  [gen](Rng& r, const GenParams& gp) {
                                    Case c = gen(r, gp);
                                    std::int64_t limit = gp.max_position;
                                    if constexpr (cached) limit = c.cache_positions - 1;
                                    c = with_shift(r, std::move(c), limit);
                                    if constexpr (cached) fill_cache_rows(c);
                                    return c;
                                  },
                                  bind(eval_shift<Case>)}));
  add_memory_checks<Case>(out, fn, gen);  // gaps, bounds, written, determinism
  add_reject_checks<Case>(out, fn, cached ? "ABI-CACHE-1" : "ABI-QK-1", gen_invalid);
  out.push_back(make_batch_check<Case>(fn, gen, token_hooks<Case>(fn)));
}

}  // namespace

void add_rope_qk_checks(std::vector<AnyCheck>& out) {
  for (Storage s : kAllStorages) {
    add_view_family<RopeQkCase>(out, fn_of(Family::RopeQk, s), gen_rope_qk, gen_rope_qk_invalid);
    add_view_family<RopeCachedCase>(out, fn_of(Family::RopeCached, s), gen_rope_cached,
                                    gen_rope_cached_invalid);
    qkcheck::add_builder_checks(out, fn_of(Family::RopeCache, s));
  }
}

}  // namespace pecheck::verifier
