// RoPE checks (spec/abi.md ABI-ROPE-*): oracle agreement within the accuracy class of the
// storage type, bit-exact pass-through lanes, in-place operation, and shift-invariant scores
// formed from the kernel's own outputs; plus the generic rejection, bounds, completeness and
// determinism checks. One code path for pec_rope_f32/_bf16/_f16 (ABI-STORE-2): the case carries
// its storage type (inputs are values of it), run_case encodes and decodes, and the oracle
// compares with the exact value and the class's row of that dtype.
#include <cmath>

#include "oracle/budget.hpp"
#include "oracle/oracle.hpp"
#include "verify/checks/check_batch.hpp"
#include "verify/v1/run.hpp"
#include "verify/v1/hints_rope.hpp"

namespace pecheck::verifier {

namespace {

using oracle::Format;

Fn rope_fn(const RopeCase& c) { return fn_of(Family::Rope, c.storage); }

pec_rope_args oracle_args(const RopeCase& c, const std::vector<std::int64_t>& positions) {
  return pec_rope_args{c.n_tokens, c.n_heads, c.head_dim, c.rotary_dim, c.layout, c.theta_base, c.position_scale,
                       positions.data(), c.has_inv_freq ? c.inv_freq.data() : nullptr};
}

// f_i in double: the budget's angle input (an upper-bound formula; double accuracy is ample).
std::vector<double> freqs(const RopeCase& c) {
  std::vector<double> f(static_cast<std::size_t>(c.rotary_dim / 2));
  for (std::size_t i = 0; i < f.size(); ++i) {
    f[i] = c.has_inv_freq ? static_cast<double>(c.inv_freq[i])
                          : std::pow(c.theta_base, -2.0 * static_cast<double>(i) / static_cast<double>(c.rotary_dim));
  }
  return f;
}

std::int64_t lane_a(const RopeCase& c, std::int64_t i) { return c.layout == 0 ? i : 2 * i; }
std::int64_t lane_b(const RopeCase& c, std::int64_t i) { return c.layout == 0 ? i + c.rotary_dim / 2 : 2 * i + 1; }

// |ln f_i| per pair: the L input of the classes with c_logb (spec/budgets.tsv).
std::vector<double> log_freqs(const std::vector<double>& f) {
  std::vector<double> l(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) l[i] = f[i] > 0 ? std::fabs(std::log(f[i])) : 0.0;
  return l;
}

std::optional<Failure> eval_oracle(Ctx& ctx, const RopeCase& c) {
  const RunResult r = run_case(ctx.ex, c);
  if (auto f = call_failure(rope_fn(c), r)) return f;
  const std::size_t n = r.out.size();
  if (n == 0) return std::nullopt;
  const Format fmt = storage_format(c.storage);
  std::vector<float> rounded(n);
  std::vector<double> exact(n);
  const auto args = oracle_args(c, c.positions);
  oracle::rope_block(args, c.x.data(), fmt, rounded.data(), exact.data());
  if (!ctx.acc.active()) {
    ctx.acc = AccuracyTrack("rope", chosen_class(ctx.opt.accuracy, "rope", c.storage), c.storage);
  }
  const AccuracyTrack& acc = ctx.acc;
  const oracle::Budget& b = acc.row(acc.chosen_index());
  const auto f = freqs(c);
  const auto lf = log_freqs(f);
  double worst_units = 0;
  std::int64_t worst = -1;
  double worst_ulps = 0;
  std::vector<double> units(acc.size());
  for (std::int64_t t = 0; t < c.n_tokens; ++t) {
    const double pos = static_cast<double>(c.positions[static_cast<std::size_t>(t)]);
    for (std::int64_t h = 0; h < c.n_heads; ++h) {
      const std::int64_t base = (t * c.n_heads + h) * c.head_dim;
      for (std::int64_t i = 0; i < c.rotary_dim / 2; ++i) {
        const std::int64_t ia = base + lane_a(c, i), ib = base + lane_b(c, i);
        const double theta = pos * c.position_scale * f[static_cast<std::size_t>(i)];
        const double m = std::fabs(c.x[ia]) + std::fabs(c.x[ib]);
        const oracle::BudgetInputs in{m, std::fabs(theta), static_cast<double>(i), lf[static_cast<std::size_t>(i)]};
        for (std::int64_t idx : {ia, ib}) {
          const double actual = r.out[static_cast<std::size_t>(idx)];
          const double ex = exact[static_cast<std::size_t>(idx)];
          const double err = std::fabs(actual - ex);
          for (std::size_t k = 0; k < acc.size(); ++k) units[k] = acc.row(k).units(err, in);
          const double ulps = oracle::ulp_error(actual, ex, 0.0, fmt);
          const double sulps = scale_ulps(actual, ex, in.magnitude, c.storage);  // the inputs' scale
          ctx.observe(static_cast<std::int64_t>(pos), sulps, units[acc.chosen_index()]);
          if (ctx.record) {
            ctx.acc.observe(static_cast<std::int64_t>(pos), sulps, units);
            // The fastest pair's error as a position error: |dy| / M radians over the angular
            // step s f_0 (rad per position); >= 0.5 means p and p + 1 blur.
            const double step = c.position_scale * f[0];
            if (i == 0 && m > 0 && step > 0) ctx.acc.observe_position_error(static_cast<std::int64_t>(pos), err / m / step);
          }
          const double u = units[acc.chosen_index()];
          if (u > worst_units || (std::isnan(u) && worst < 0)) {
            worst_units = u;
            worst = idx;
            worst_ulps = ulps;
          }
        }
      }
    }
  }
  if (worst < 0) return std::nullopt;
  report::WorstElement we = locate(c, worst);
  we.expected = exact[static_cast<std::size_t>(worst)];  // exact, not rounded to the storage type
  we.actual = r.out[static_cast<std::size_t>(worst)];
  we.abs_error = std::fabs(we.actual - exact[static_cast<std::size_t>(worst)]);
  we.ulps = worst_ulps;
  we.contract_units = worst_units;
  if (ctx.record && ctx.acc.is_new_worst(std::isnan(worst_units) ? INFINITY : worst_units)) {
    report::WorstCase wc;
    wc.element = we;
    wc.case_index = ctx.case_index;
    describe(c, wc.args, wc.inputs);
    ctx.acc.set_worst(std::isnan(worst_units) ? INFINITY : worst_units, std::move(wc));
  }
  if (!(worst_units > 1)) return std::nullopt;
  Failure fl;
  fl.clause = "ABI-ROPE-2";
  fl.kind = std::isnan(r.out[static_cast<std::size_t>(worst)]) ? "nan" : "mismatch";
  fl.worst = we;
  fl.message = detail::oracle_message("y", "the exact rotation", we.actual, worst_units,
                                      "the " + dtype_label(c.storage) + " RoPE bound of class '" + b.variant + "' (" +
                                          b.clause + ")");
  if (we.expected == 0 && worst_units > 1e20 && std::isfinite(we.actual)) {  // exact 0 from zero operands: a bound of ~0 (issue 22)
    fl.message = "y" + std::string(" is ") + report::format_real(we.actual) + " where " + std::string("the exact rotation") +
                 " is exactly 0: any nonzero value is wrong";
  }
  for (auto& h : hints::rope_oracle_hints(c, r, worst / (c.n_heads * c.head_dim))) fl.notes.push_back(std::move(h));
  return fl;
}

std::optional<Failure> eval_passthrough(Ctx& ctx, const RopeCase& c) {
  const RunResult r = run_case(ctx.ex, c);
  if (auto f = call_failure(rope_fn(c), r)) return f;
  for (std::int64_t t = 0; t < c.n_tokens; ++t) {
    for (std::int64_t h = 0; h < c.n_heads; ++h) {
      for (std::int64_t l = c.rotary_dim; l < c.head_dim; ++l) {
        const std::size_t idx = static_cast<std::size_t>((t * c.n_heads + h) * c.head_dim + l);
        if (r.out_bits[idx] != to_storage(c.x[idx], c.storage)) {
          Failure f;
          f.clause = "ABI-ROPE-3";
          f.kind = "mismatch";
          f.message = "lane " + std::to_string(l) + " >= rotary_dim was not copied bit-exactly";
          f.worst = locate(c, static_cast<std::int64_t>(idx));
          f.worst->expected = c.x[idx];
          f.worst->actual = r.out[idx];
          f.worst->abs_error = std::fabs(f.worst->actual - f.worst->expected);
          f.notes = hints::rope_passthrough_hints(c, r, t);
          return f;
        }
        ctx.observe(c.positions[static_cast<std::size_t>(t)], 0, 0);
      }
    }
  }
  return std::nullopt;
}

std::optional<Failure> eval_inplace(Ctx& ctx, const RopeCase& c) {
  const RunResult sep = run_case(ctx.ex, c);
  if (auto f = call_failure(rope_fn(c), sep)) return f;
  RunMode m;
  m.in_place = true;
  const RunResult inp = run_case(ctx.ex, c, m);
  if (auto f = call_failure(rope_fn(c), inp)) return f;
  for (std::size_t i = 0; i < sep.out.size(); ++i) {
    if (sep.out_bits[i] != inp.out_bits[i]) {
      Failure f;
      f.clause = "ABI-ROPE-4";
      f.kind = "inplace-differs";
      f.message = "with y == x the result differs from the call with separate buffers";
      f.worst = locate(c, static_cast<std::int64_t>(i));
      f.worst->expected = sep.out[i];
      f.worst->actual = inp.out[i];
      f.worst->abs_error = std::fabs(f.worst->actual - f.worst->expected);
      return f;
    }
  }
  ctx.elements += ctx.record ? static_cast<std::int64_t>(sep.out.size()) : 0;
  return std::nullopt;
}

RopeCase gen_partial(Rng& r, const GenParams& p) {
  RopeCase c = gen_rope(r, p);
  if (c.head_dim == 2) c.head_dim = 4;
  if (c.rotary_dim == c.head_dim) {
    c.rotary_dim = 2 * r.range(1, c.head_dim / 2 - 1);
    if (c.has_inv_freq) c.inv_freq.resize(static_cast<std::size_t>(c.rotary_dim / 2));
  }
  c.x.resize(static_cast<std::size_t>(output_size(c)), 0.25f);
  return c;
}

// Queries x, keys k, and a common shift that keeps every position in [0, max_position].
RopeCase gen_shift(Rng& r, const GenParams& p) {
  RopeCase c = gen_rope(r, p);
  while (c.n_tokens > 12) {
    c.n_tokens /= 2;
    c.positions.resize(static_cast<std::size_t>(c.n_tokens));
  }
  if (c.n_tokens == 0) {
    c.n_tokens = 1;
    c.positions = {r.range(0, p.max_position)};
  }
  c.x.resize(static_cast<std::size_t>(output_size(c)));
  for (auto& v : c.x) v = r.signed_unit();
  c.k.resize(c.x.size());
  for (auto& v : c.k) v = r.signed_unit();
  std::int64_t lo = c.positions[0], hi = lo;
  for (auto q : c.positions) lo = std::min(lo, q), hi = std::max(hi, q);
  const std::int64_t down = lo, up = p.max_position - hi;
  if (down + up > 0) {
    c.shift = r.range(-down, up);
    if (c.shift == 0) c.shift = up > 0 ? up : -down;
  }
  return c;
}

// The score contract's row for a storage type (PREC-SCORE-3): the per-element error of a 16-bit
// RoPE output carries the rounding into the format, c_out u(dtype) M, besides the f32 terms; it
// enters rope_score_bound's eps as c_const u(arith) + c_out u(dtype) = (c_const + c_out
// u(dtype)/u(arith)) u(arith). The identity for float32 rows (c_out = 0).
oracle::Budget score_row(const oracle::Budget& b) {
  oracle::Budget r = b;
  if (b.c_out != 0) {
    r.c_const = b.c_const + b.c_out * oracle::format_info(b.storage).unit_roundoff / oracle::format_info(b.arith).unit_roundoff;
    r.c_out = 0;
  }
  return r;
}

std::optional<Failure> eval_shift(Ctx& ctx, const RopeCase& c) {
  RunMode mq, mk, mqs, mks;
  mk.keys = mks.keys = true;
  mqs.shift = mks.shift = c.shift;
  const Fn fn = rope_fn(c);
  const RunResult q0 = run_case(ctx.ex, c, mq);
  if (auto f = call_failure(fn, q0)) return f;
  const RunResult k0 = run_case(ctx.ex, c, mk);
  if (auto f = call_failure(fn, k0)) return f;
  const RunResult q1 = run_case(ctx.ex, c, mqs);
  if (auto f = call_failure(fn, q1)) return f;
  const RunResult k1 = run_case(ctx.ex, c, mks);
  if (auto f = call_failure(fn, k1)) return f;
  const oracle::Budget& b = score_row(class_row("rope", chosen_class(ctx.opt.accuracy, "rope", c.storage), c.storage));
  const auto f = freqs(c);
  const auto lf = log_freqs(f);
  const std::int64_t half = c.rotary_dim / 2, D = c.head_dim;
  std::vector<double> qv(static_cast<std::size_t>(c.rotary_dim)), kv(qv.size());
  std::vector<double> tm(static_cast<std::size_t>(half)), tn(tm.size()), tms(tm.size()), tns(tm.size());
  double worst_units = 0;
  Failure fl;
  for (std::int64_t h = 0; h < c.n_heads; ++h) {
    for (std::int64_t t = 0; t < c.n_tokens; ++t) {
      for (std::int64_t u = 0; u < c.n_tokens; ++u) {
        const std::int64_t bq = (t * c.n_heads + h) * D, bk = (u * c.n_heads + h) * D;
        double s0 = 0, s1 = 0;
        for (std::int64_t l = 0; l < D; ++l) {
          s0 += static_cast<double>(q0.out[bq + l]) * k0.out[bk + l];
          s1 += static_cast<double>(q1.out[bq + l]) * k1.out[bk + l];
        }
        const double pm = static_cast<double>(c.positions[t]), pn = static_cast<double>(c.positions[u]);
        for (std::int64_t i = 0; i < half; ++i) {  // NEOX order for the bound: (i, i + half)
          qv[i] = c.x[bq + lane_a(c, i)], qv[i + half] = c.x[bq + lane_b(c, i)];
          kv[i] = c.k[bk + lane_a(c, i)], kv[i + half] = c.k[bk + lane_b(c, i)];
          const double w = c.position_scale * f[i];
          tm[i] = pm * w, tn[i] = pn * w;
          tms[i] = (pm + c.shift) * w, tns[i] = (pn + c.shift) * w;
        }
        const double bound =
            oracle::rope_score_bound(b, qv, kv, tm, tn, lf) + oracle::rope_score_bound(b, qv, kv, tms, tns, lf);
        const double diff = std::fabs(s1 - s0);
        const double units = diff == 0 ? 0 : bound > 0 ? diff / bound : INFINITY;
        ctx.observe(c.positions[t], 0, units);
        if (units > worst_units || (std::isnan(diff) && worst_units == 0)) {
          worst_units = std::isnan(diff) ? INFINITY : units;
          report::WorstElement w;
          w.output = "score";
          w.index = {h, t, u};
          w.index_names = {"head", "q_token", "k_token"};
          w.flat_index = (h * c.n_tokens + t) * c.n_tokens + u;
          w.position = c.positions[t];
          w.expected = s0;
          w.actual = s1;
          w.abs_error = diff;
          w.ulps = diff / oracle::ulp_of(s0, storage_format(c.storage));
          w.contract_units = worst_units;
          fl.worst = w;
          fl.message = "the score <y_q[" + std::to_string(t) + "], y_k[" + std::to_string(u) + "]> of head " +
                       std::to_string(h) +
                       (std::isnan(diff)  // no distance to speak of: say what is NaN (issue 22)
                            ? " is NaN under a shift of " + std::to_string(c.shift) +
                                  " positions (an output element is NaN: the oracle and written checks say which)"
                            : " moved by " + report::format_real(diff) + " under a shift of " +
                                  std::to_string(c.shift) + " positions, " + report::format_real(worst_units) +
                                  " times the " + dtype_label(c.storage) + " score contract of class '" + b.variant +
                                  "' (PREC-SCORE-1" + (c.storage == Storage::F32 ? ")" : ", PREC-SCORE-3)"));
        }
      }
    }
  }
  if (!(worst_units > 1)) return std::nullopt;
  fl.clause = "ABI-ROPE-5";
  fl.kind = "property";
  fl.notes.push_back("expected = score at the original positions, actual = score after the shift");
  return fl;
}

// Batch invariance hooks (check_batch.hpp): the units are tokens.
RopeCase select_tokens(const RopeCase& c, const std::vector<std::int64_t>& pick) {
  RopeCase s = c;
  const std::size_t row = static_cast<std::size_t>(c.n_heads * c.head_dim);
  s.n_tokens = static_cast<std::int64_t>(pick.size());
  s.positions.clear();
  s.x.clear();
  s.k.clear();
  for (std::int64_t t : pick) {
    const std::size_t u = static_cast<std::size_t>(t);
    s.positions.push_back(c.positions[u]);
    s.x.insert(s.x.end(), c.x.begin() + u * row, c.x.begin() + (u + 1) * row);
    if (!c.k.empty()) s.k.insert(s.k.end(), c.k.begin() + u * row, c.k.begin() + (u + 1) * row);
  }
  return s;
}

BatchHooks<RopeCase> rope_batch_hooks() {
  BatchHooks<RopeCase> h;
  h.unit = "token";
  h.units = [](const RopeCase& c) { return c.n_tokens; };
  h.select = select_tokens;
  h.unit_bits = [](const RopeCase& c, const RunResult& r, std::int64_t t) {
    const std::size_t row = static_cast<std::size_t>(c.n_heads * c.head_dim);
    const auto b = r.out_bits.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(t) * row);
    return std::vector<std::uint32_t>(b, b + static_cast<std::ptrdiff_t>(row));
  };
  h.locate = [](const RopeCase& c, std::int64_t t, std::size_t k) {
    return locate(c, t * c.n_heads * c.head_dim + static_cast<std::int64_t>(k));
  };
  h.run = [](Ctx& ctx, const RopeCase& c) { return run_case(ctx.ex, c); };
  return h;
}

}  // namespace

void add_rope_checks(std::vector<AnyCheck>& out, Fn fn) {
  const std::string p = check_prefix(fn);
  const std::string dt = dtype_label(storage(fn));
  out.push_back(make_check<RopeCase>(
      {p + ".oracle", "ABI-ROPE-2",
       "y agrees with the exact rotation (MPFR oracle) within the " + dt + " RoPE contract of spec/contracts.md",
       fn, 160, gen_rope, eval_oracle, true}));
  out.push_back(make_check<RopeCase>({p + ".passthrough", "ABI-ROPE-3",
                                      "lanes rotary_dim..head_dim-1 are copied bit-exactly", fn, 40,
                                      gen_partial, eval_passthrough}));
  out.push_back(make_check<RopeCase>({p + ".inplace", "ABI-ROPE-4",
                                      "y == x gives the same bits as separate buffers", fn, 40, gen_rope,
                                      eval_inplace}));
  out.push_back(make_check<RopeCase>(
      {p + ".shift", "ABI-ROPE-5",
       "scores formed from the kernel's own outputs move under a common position shift by no more than the " + dt +
           " score contract",
       fn, 60, gen_shift, eval_shift}));
  out.push_back(make_large_check<RopeCase>(
      fn, "ABI-ROPE-2",
      "production-size calls (10,240+ token-heads, or a prefill chunk of 64- or 128-lane heads) agree with the "
      "exact rotation within the " + dt + " RoPE contract: kernels switch code paths by size (vllm#51049)",
      gen_rope_large, eval_oracle));
  add_generic_checks<RopeCase>(out, fn, "ABI-ROPE-1", gen_rope, gen_rope_invalid, true);
  out.push_back(make_batch_check<RopeCase>(fn, gen_rope, rope_batch_hooks()));
}

}  // namespace pecheck::verifier
