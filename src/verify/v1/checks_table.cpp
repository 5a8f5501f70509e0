// Sinusoidal and learned-table checks (spec/abi.md ABI-SIN-*, ABI-LEARN-*), one code path for
// the float32, bf16 and f16 functions (ABI-STORE-2: the case carries its storage type).
#include <cmath>

#include "oracle/budget.hpp"
#include "oracle/oracle.hpp"
#include "verify/checks/check_batch.hpp"
#include "verify/v1/run.hpp"

namespace pecheck::verifier {

namespace {

using oracle::Format;

std::optional<Failure> eval_sin_oracle(Ctx& ctx, const SinusoidalCase& c) {
  const RunResult r = run_case(ctx.ex, c);
  if (auto f = call_failure(fn_of(Family::Sinusoidal, c.storage), r)) return f;
  const std::size_t n = r.out.size();
  if (n == 0) return std::nullopt;
  const Format fmt = storage_format(c.storage);
  std::vector<float> rounded(n);
  std::vector<double> exact(n);
  const pec_sinusoidal_args args{c.n_tokens, c.d_model, c.base, c.positions.data()};
  oracle::sinusoidal_block(args, fmt, rounded.data(), exact.data());
  if (!ctx.acc.active()) {
    ctx.acc = AccuracyTrack("sinusoidal", chosen_class(ctx.opt.accuracy, "sinusoidal", c.storage), c.storage);
  }
  const AccuracyTrack& acc = ctx.acc;
  const oracle::Budget& b = acc.row(acc.chosen_index());
  double worst_units = 0, worst_ulps = 0;
  std::int64_t worst = -1;
  std::vector<double> units(acc.size());
  for (std::int64_t t = 0; t < c.n_tokens; ++t) {
    const double pos = static_cast<double>(c.positions[static_cast<std::size_t>(t)]);
    for (std::int64_t l = 0; l < c.d_model; ++l) {
      const std::size_t idx = static_cast<std::size_t>(t * c.d_model + l);
      const double e2i = static_cast<double>(l - l % 2) / static_cast<double>(c.d_model);
      const double theta = pos * std::pow(c.base, -e2i);
      // k = the pair index, L = |ln w_i| = ln(base) 2i/d (PREC-SIN-3).
      const oracle::BudgetInputs in{1.0, theta, static_cast<double>(l / 2), std::log(c.base) * e2i};
      const double err = std::fabs(r.out[idx] - exact[idx]);
      for (std::size_t k = 0; k < acc.size(); ++k) units[k] = acc.row(k).units(err, in);
      const double u = units[acc.chosen_index()];
      const double ulps = oracle::ulp_error(r.out[idx], exact[idx], 0.0, fmt);
      const double sulps = scale_ulps(r.out[idx], exact[idx], 1.0, c.storage);
      ctx.observe(c.positions[static_cast<std::size_t>(t)], sulps, u);
      if (ctx.record) ctx.acc.observe(c.positions[static_cast<std::size_t>(t)], sulps, units);
      if (u > worst_units || (std::isnan(u) && worst < 0)) worst_units = u, worst_ulps = ulps, worst = static_cast<std::int64_t>(idx);
    }
  }
  if (worst >= 0 && ctx.record && ctx.acc.is_new_worst(std::isnan(worst_units) ? INFINITY : worst_units)) {
    report::WorstCase wc;
    wc.element = locate(c, worst);
    wc.element.expected = rounded[worst];
    wc.element.actual = r.out[worst];
    wc.element.abs_error = std::fabs(wc.element.actual - exact[worst]);
    wc.element.ulps = worst_ulps;
    wc.element.contract_units = worst_units;
    wc.case_index = ctx.case_index;
    describe(c, wc.args, wc.inputs);
    ctx.acc.set_worst(std::isnan(worst_units) ? INFINITY : worst_units, std::move(wc));
  }
  if (!(worst_units > 1)) return std::nullopt;
  Failure f;
  f.clause = "ABI-SIN-2";
  f.kind = std::isnan(r.out[worst]) ? "nan" : "mismatch";
  f.worst = locate(c, worst);
  f.worst->expected = rounded[worst];
  f.worst->actual = r.out[worst];
  f.worst->abs_error = std::fabs(f.worst->actual - exact[worst]);
  f.worst->ulps = worst_ulps;
  f.worst->contract_units = worst_units;
  f.message = "out differs from the exact sinusoid by " + report::format_real(worst_ulps) + " ulp, " +
              report::format_real(worst_units) + " times the " + dtype_label(c.storage) + " budget of class '" + b.variant +
              "' (" + b.clause + ")";
  return f;
}

std::optional<Failure> eval_learned(Ctx& ctx, const LearnedCase& c) {
  const RunResult r = run_case(ctx.ex, c);
  if (auto f = call_failure(fn_of(Family::Learned, c.storage), r)) return f;
  for (std::int64_t t = 0; t < c.n_tokens; ++t) {
    const std::int64_t p = c.positions[static_cast<std::size_t>(t)];
    for (std::int64_t k = 0; k < c.d_model; ++k) {
      const std::size_t idx = static_cast<std::size_t>(t * c.d_model + k);
      const float want = c.table[static_cast<std::size_t>(p * c.d_model + k)];
      ctx.observe(p, 0, 0);
      if (r.out_bits[idx] == to_storage(want, c.storage)) continue;
      Failure f;
      f.clause = "ABI-LEARN-2";
      f.kind = "mismatch";
      f.worst = locate(c, static_cast<std::int64_t>(idx));
      f.worst->expected = want;
      f.worst->actual = r.out[idx];
      f.worst->abs_error = std::fabs(static_cast<double>(r.out[idx]) - want);
      f.worst->ulps = oracle::ulp_distance(r.out[idx], want, storage_format(c.storage)).ulps;
      f.worst->contract_units = INFINITY;
      f.message = "out[" + std::to_string(t) + "][" + std::to_string(k) + "] is not table[" + std::to_string(p) +
                  "*d_model + " + std::to_string(k) + "] bit for bit";
      return f;
    }
  }
  return std::nullopt;
}

// Batch invariance hooks (check_batch.hpp): the units are tokens (rows of d_model elements).
template <class Case>
BatchHooks<Case> token_rows_hooks() {
  BatchHooks<Case> h;
  h.unit = "token";
  h.units = [](const Case& c) { return c.n_tokens; };
  h.select = [](const Case& c, const std::vector<std::int64_t>& pick) {
    Case s = c;
    s.n_tokens = static_cast<std::int64_t>(pick.size());
    s.positions.clear();
    for (std::int64_t t : pick) s.positions.push_back(c.positions[static_cast<std::size_t>(t)]);
    return s;
  };
  h.unit_bits = [](const Case& c, const RunResult& r, std::int64_t t) {
    const auto b = r.out_bits.begin() + static_cast<std::ptrdiff_t>(t * c.d_model);
    return std::vector<std::uint32_t>(b, b + static_cast<std::ptrdiff_t>(c.d_model));
  };
  h.locate = [](const Case& c, std::int64_t t, std::size_t k) {
    return locate(c, t * c.d_model + static_cast<std::int64_t>(k));
  };
  h.run = [](Ctx& ctx, const Case& c) { return run_case(ctx.ex, c); };
  return h;
}

}  // namespace

void add_sinusoidal_checks(std::vector<AnyCheck>& out, Fn fn) {
  const std::string p = check_prefix(fn);
  out.push_back(make_check<SinusoidalCase>(
      {p + ".oracle", "ABI-SIN-2",
       "out agrees with the exact interleaved sin/cos encoding within the " + dtype_label(storage(fn)) + " contract",
       fn, 120, gen_sinusoidal, eval_sin_oracle, true}));
  add_generic_checks<SinusoidalCase>(out, fn, "ABI-SIN-1", gen_sinusoidal, gen_sinusoidal_invalid, true);
  out.push_back(make_batch_check<SinusoidalCase>(fn, gen_sinusoidal, token_rows_hooks<SinusoidalCase>()));
}

void add_learned_checks(std::vector<AnyCheck>& out, Fn fn) {
  const std::string p = check_prefix(fn);
  out.push_back(make_check<LearnedCase>({p + ".lookup", "ABI-LEARN-2",
                                         "out[t] is row positions[t] of the table, bit for bit", fn, 120,
                                         gen_learned, eval_learned}));
  out.push_back(make_large_check<LearnedCase>(
      fn, "ABI-LEARN-2", "production-size calls (rows of 256 to 1,024 lanes, 2^15+ elements) copy their table rows",
      gen_learned_large, eval_learned));
  add_generic_checks<LearnedCase>(out, fn, "ABI-LEARN-1", gen_learned, gen_learned_invalid, true);
  out.push_back(make_batch_check<LearnedCase>(fn, gen_learned, token_rows_hooks<LearnedCase>()));
}

}  // namespace pecheck::verifier
