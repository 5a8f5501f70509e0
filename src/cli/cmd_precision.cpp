// pecheck precision: error of float variants against the oracle as the position grows.
//   pecheck precision --scheme rope|alibi|t5|sinusoidal [--dtype f32|bf16|f16|f64]
//                     [--variant NAME|all] [--max-position N] [--out DIR] [--samples K] [--seed S]
//                     [--rotary-dim D] [--base B]
// Writes DIR/precision_<scheme>_<dtype>.csv and .svg (atomically) and prints, per variant, the
// first position from which it exceeds its budget. Exit status: 0 when every honest variant
// stays within its budget (degraded variants are expected to exceed), 1 when an honest one
// does not, 2 for bad usage, 3 when the outputs cannot be written (spec/contracts.md PREC-CLI-1).
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/verdict.hpp"
#include "oracle/format.hpp"
#include "precision/precision.hpp"

namespace pecheck::cli {
namespace {

struct Options {
  std::string scheme;
  std::string dtype = "f32";
  std::string variant = "all";
  std::int64_t max_position = (std::int64_t{1} << 31) - 1;
  std::string out = "precision-report";
  int samples = 4;
  std::uint64_t seed = 1;
  std::int64_t rotary_dim = 128;
  double base = 10000.0;
};

int run_precision(const Options& o) {
  const auto dtype = oracle::format_from_string(o.dtype);
  if (!dtype) throw UsageError("unknown --dtype '" + o.dtype + "' (f32, bf16, f16, f64)");
  if (o.max_position < 0 || o.max_position >= (std::int64_t{1} << 31)) {
    throw UsageError("--max-position must be in [0, 2147483647]");
  }
  if (o.samples < 1 || o.samples > 64) throw UsageError("--samples must be in [1, 64]");
  if (o.rotary_dim < 2 || o.rotary_dim > 4096 || o.rotary_dim % 2 != 0) {
    throw UsageError("--rotary-dim must be even and in [2, 4096]");
  }
  if (!(o.base > 1) || !std::isfinite(o.base)) throw UsageError("--base must be finite and > 1");
  std::vector<precision::Variant> vs;
  if (o.variant == "all") {
    vs = precision::variants(o.scheme);
  } else {
    vs.push_back(precision::variant(o.scheme, o.variant));
  }
  precision::SweepOptions so;
  so.scheme = o.scheme;
  so.dtype = *dtype;
  so.max_position = o.max_position;
  so.samples = o.samples;
  so.seed = o.seed;
  so.rotary_dim = o.rotary_dim;
  so.base = o.base;
  std::vector<precision::SweepResult> results;
  bool honest_exceeds = false;
  fmt::print("{} {} up to position {} (error vs the MPFR oracle; budget: spec/budgets.tsv)\n",
             o.scheme, o.dtype, o.max_position);
  fmt::print("{:<16} {:<9} {:<26} {:>12} {:>12}  {}\n", "variant", "kind", "budget row",
             "max ULPs", "max units", "exceeds its budget from position");
  for (const auto& v : vs) {
    results.push_back(precision::sweep(v, so));
    const auto& r = results.back();
    double max_ulps = 0;
    for (const auto& p : r.points) max_ulps = std::max(max_ulps, p.max_ulps);
    std::string from = "never (within budget)";
    if (r.first_exceeding) {
      from = r.exact_first ? std::to_string(*r.first_exceeding)
                           : fmt::format("{} (first sample above budget; {} was within)",
                                         *r.first_exceeding, r.within_at);
    }
    fmt::print("{:<16} {:<9} {:<26} {:>12.4g} {:>12.4g}  {}\n", v.name, v.degraded ? "degraded" : "honest",
               r.budget_row, max_ulps, r.worst_units, from);
    if (!v.degraded && r.first_exceeding) honest_exceeds = true;
  }
  const auto paths = precision::write_outputs(o.out, results);
  for (const auto& p : paths) fmt::print("wrote {}\n", p.string());
  std::fflush(stdout);
  return honest_exceeds ? exit_code::counterexample : exit_code::ok;
}

}  // namespace

void register_precision(CLI::App& app, Runner& run) {
  auto opts = std::make_shared<Options>();
  auto* sub = app.add_subcommand(
      "precision",
      "How far from the exact value does each standard float formula of an encoding drift as the position "
      "grows, and from which position does it break its budget? Sweeps pecheck's own honest and degraded "
      "variants (not your kernel: `pecheck verify` checks a kernel) against the multiprecision oracle and "
      "writes a CSV and an SVG plot.");
  sub->add_option("--scheme", opts->scheme, "rope | alibi | t5 | sinusoidal")
      ->required()
      ->check(CLI::IsMember({"rope", "alibi", "t5", "sinusoidal"}));
  sub->add_option("--dtype", opts->dtype, "storage format: f32 (default), bf16, f16, f64");
  sub->add_option("--variant", opts->variant, "one variant, or all (default)");
  sub->add_option("--max-position", opts->max_position, "largest position (default 2^31-1)");
  sub->add_option("--out", opts->out, "output folder for the CSV and SVG (default precision-report)");
  sub->add_option("--samples", opts->samples, "random vectors per position (RoPE, default 4)");
  sub->add_option("--seed", opts->seed, "seed of the random vectors (default 1)")->check(seed_check());
  sub->add_option("--rotary-dim", opts->rotary_dim, "RoPE rotary_dim / sinusoidal d_model (default 128)");
  sub->add_option("--base", opts->base, "frequency base (default 10000)");
  sub->callback([opts, &run] { run = [opts] { return run_precision(*opts); }; });
}

}  // namespace pecheck::cli
