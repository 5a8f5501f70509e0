// The cache builder pec_rope_cache_{f32,bf16,f16} (spec/abi.md ABI-CACHE-3), verified on its own so
// that a user learns whether the builder or the rotation is wrong: attn_factor cos/sin of the exact
// angle (MPFR oracle) within the RoPE class of the storage type, bounds, completeness,
// determinism, rejections, and batch invariance over the number of rows.
#include <algorithm>
#include <cmath>

#include "oracle/oracle.hpp"
#include "verify/rope_v2/checks_impl.hpp"

namespace pecheck::verifier::qkcheck {

namespace {

// ---- the builder (ABI-CACHE-3)
// ---------------------------------------------------------------------

// Rows judged (one MPFR angle per (row, pair): the cost of the check): all when the cache has at
// most 2048 angles; else, up to 2048 angles' worth (at least 16 rows), the rows where bugs live
// first -- 0 and the last, 1, 2 and the second-to-last, the powers of two and their neighbours
// from the largest down (fp16/bf16 positions) -- then rows spread deterministically over the cache.
std::vector<std::int64_t> builder_rows(const RopeCacheCase& c) {
  std::vector<std::int64_t> rows;
  const std::int64_t n = c.cache_positions, half = std::max<std::int64_t>(1, c.rotary_dim / 2);
  if (n * half <= 2048) {
    for (std::int64_t p = 0; p < n; ++p) rows.push_back(p);
    return rows;
  }
  std::vector<std::int64_t> want = {0, n - 1, 1, 2, n - 2};
  std::int64_t top = 2;
  while (top * 2 < n) top *= 2;
  for (std::int64_t b = top; b >= 2; b /= 2)
    for (std::int64_t d : {1, 0, -1}) want.push_back(b + d);
  for (std::int64_t k = 1; k <= 32; ++k) want.push_back((n * k) / 33 + (k % 7));
  const std::size_t limit = static_cast<std::size_t>(std::max<std::int64_t>(16, 2048 / half));
  for (std::int64_t p : want) {
    if (rows.size() >= limit) break;
    if (p >= 0 && p < n && std::find(rows.begin(), rows.end(), p) == rows.end()) rows.push_back(p);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::optional<Failure> eval_builder(Ctx& ctx, Fn fn, const RopeCacheCase& c) {
  const ViewRunResult r = run_view_case(ctx.ex, fn, c);
  if (auto f = failed_call(fn, r)) return f;
  ensure_track(ctx, Family::RopeCache, c.storage);
  const AccuracyTrack& acc = ctx.acc;
  std::vector<Budget> rows;
  for (std::size_t k = 0; k < acc.size(); ++k) rows.push_back(acc.row(k));
  const Budget& chosen = rows[acc.chosen_index()];
  const std::int64_t R = c.rotary_dim, half = R / 2;
  const auto f = freqs(c, R);
  const auto lf = log_freqs(f);
  const Format sf = fmt(c.storage);
  const OutRead& out = r.outs[0];
  double worst_units = 0, worst_ulps = 0;
  std::optional<report::WorstElement> worst;
  std::vector<double> units(rows.size());
  for (std::int64_t p : builder_rows(c)) {
    for (std::int64_t i = 0; i < half; ++i) {
      oracle::AngleQuery q;
      q.position = p;
      q.position_scale = c.position_scale;
      q.freq = c.has_inv_freq
                   ? oracle::RopeFrequency::exact(c.inv_freq[static_cast<std::size_t>(i)])
                   : oracle::RopeFrequency::power(c.theta_base, i, R);
      const oracle::RopePairResult pr = oracle::rope_pair(q, c.attn_factor, 0.0);  // (a cos, a sin)
      const double theta =
          static_cast<double>(p) * c.position_scale * f[static_cast<std::size_t>(i)];
      const oracle::BudgetInputs in{c.attn_factor, std::fabs(theta), static_cast<double>(i),
                                    lf[static_cast<std::size_t>(i)]};
      for (int part = 0; part < 2; ++part) {
        const std::int64_t l = part == 0 ? i : half + i;
        const std::size_t idx = static_cast<std::size_t>(p * R + l);
        const double e = part == 0 ? pr.ya.hi + pr.ya.lo : pr.yb.hi + pr.yb.lo;
        const double rounded = part == 0 ? pr.ya_rounded.in(sf) : pr.yb_rounded.in(sf);
        const double actual = out.values[idx];
        const double err = std::fabs(actual - e);
        for (std::size_t k = 0; k < rows.size(); ++k) units[k] = rows[k].units(err, in);
        const double ulps = oracle::ulp_error(actual, e, 0.0, sf);
        const double sulps = scale_ulps(actual, e, c.attn_factor);
        ctx.observe(p, sulps, units[acc.chosen_index()]);
        if (ctx.record) {
          ctx.acc.observe(p, sulps, units);
          const double step = c.position_scale * f[0];
          if (i == 0 && part == 1 && step > 0)
            ctx.acc.observe_position_error(p, err / c.attn_factor / step);
        }
        const double u = units[acc.chosen_index()];
        if (u > worst_units || (std::isnan(u) && !worst)) {
          worst_units = std::isnan(u) ? INFINITY : u;
          worst_ulps = ulps;
          report::WorstElement w;
          w.output = "cache";
          w.index = {p, l};
          w.index_names = {"position", "lane"};
          w.flat_index = static_cast<std::int64_t>(idx);
          w.position = p;
          w.expected = rounded;
          w.actual = actual;
          w.abs_error = err;
          w.ulps = ulps;
          w.contract_units = worst_units;
          worst = w;
        }
      }
    }
  }
  if (!worst) return std::nullopt;
  if (ctx.record && ctx.acc.is_new_worst(worst_units)) {
    report::WorstCase wc;
    wc.element = *worst;
    wc.case_index = ctx.case_index;
    describe(c, wc.args, wc.inputs);
    ctx.acc.set_worst(worst_units, std::move(wc));
  }
  if (!(worst_units > 1)) return std::nullopt;
  Failure fl;
  fl.clause = "ABI-CACHE-3";
  fl.kind = std::isnan(worst->actual) ? "nan" : "mismatch";
  fl.worst = worst;
  fl.message = std::string("cache[") + std::to_string(worst->index[0]) + "][" +
               std::to_string(worst->index[1]) + "] differs from attn_factor x " +
               (worst->index[1] < half ? "cos" : "sin") + " of the exact angle by " +
               report::format_real(worst_ulps) + " ulp, " + report::format_real(worst_units) +
               " times the " + std::string(storage_name(c.storage)) + " RoPE budget of class '" +
               chosen.variant + "' (" + chosen.clause + ")";
  return fl;
}

// The first rows of a shorter cache are the same bits (ABI-BATCH-1 for the builder: a row
// depends on its position only).
std::optional<Failure> eval_builder_batch(Ctx& ctx, Fn fn, const RopeCacheCase& c) {
  const ViewRunResult full = run_view_case(ctx.ex, fn, c);
  if (auto f = failed_call(fn, full)) return f;
  if (c.cache_positions < 2) return std::nullopt;
  RopeCacheCase s = c;
  s.cache_positions = std::max<std::int64_t>(1, (c.cache_positions * 2) / 3);
  const ViewRunResult sub = run_view_case(ctx.ex, fn, s);
  if (auto f = failed_call(fn, sub)) return f;
  const auto& a = full.outs[0];
  const auto& b = sub.outs[0];
  for (std::size_t i = 0; i < b.bits.size(); ++i) {
    if (a.bits[i] == b.bits[i]) continue;
    Failure f;
    f.clause = "ABI-BATCH-1";
    f.kind = "batch-variant";
    const std::int64_t p = static_cast<std::int64_t>(i) / c.rotary_dim;
    f.message = "cache row " + std::to_string(p) + " differs between a cache of " +
                std::to_string(c.cache_positions) + " rows and one of " +
                std::to_string(s.cache_positions);
    report::WorstElement w;
    w.output = "cache";
    w.index = {p, static_cast<std::int64_t>(i) % c.rotary_dim};
    w.index_names = {"position", "lane"};
    w.flat_index = static_cast<std::int64_t>(i);
    w.position = p;
    w.expected = a.values[i];
    w.actual = b.values[i];
    f.worst = w;
    return f;
  }
  return std::nullopt;
}

}  // namespace

void add_builder_checks(std::vector<AnyCheck>& out, Fn fn) {
  const std::string p = check_prefix(fn);
  const auto bind = [fn](auto f) {
    return [fn, f](Ctx& ctx, const RopeCacheCase& c) { return f(ctx, fn, c); };
  };
  using C = RopeCacheCase;
  out.push_back(make_check<C>(
      {p + ".oracle", "ABI-CACHE-3",
       "cache[p] holds attn_factor cos / sin of the exact angle within the RoPE class of the "
       "storage type (magnitude attn_factor)",
       fn, 80, gen_rope_cache, bind(eval_builder), true}));
  out.push_back(make_check<C>(
      {p + ".bounds", "ABI-GEN-4",
       "no write before or after the cache (canary guard zones) and none into the inputs", fn, 40,
       gen_rope_cache, [fn](Ctx& ctx, const C& c) { return eval_bounds<C>(ctx, fn, c); }}));
  out.push_back(make_check<C>(
      {p + ".written", "ABI-GEN-5", "every element of the cache is written", fn, 40, gen_rope_cache,
       [fn](Ctx& ctx, const C& c) { return eval_written<C>(ctx, fn, c); }}));
  out.push_back(make_check<C>(
      {p + ".determinism", "ABI-GEN-6", "the same call twice gives the same bits", fn, 30,
       gen_rope_cache, [fn](Ctx& ctx, const C& c) { return eval_determinism<C>(ctx, fn, c); }}));
  add_reject_checks<C>(out, fn, "ABI-CACHE-3", gen_rope_cache_invalid);
  AnyCheck b = make_check<C>(
      {p + ".batch", "ABI-BATCH-1",
       "the rows of a shorter cache are the same bits as the first rows of a longer one", fn, 30,
       gen_rope_cache, bind(eval_builder_batch)});
  mark_batch(b);
  out.push_back(std::move(b));
}

}  // namespace pecheck::verifier::qkcheck
