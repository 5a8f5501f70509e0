// Error of each variant against the oracle as the position grows (PREC-VAR-*).
#include <cmath>
#include <limits>
#include <random>

#include "core/error.hpp"
#include "oracle/budget.hpp"
#include "oracle/oracle.hpp"
#include "precision/precision.hpp"
#include "precision/variants.hpp"

namespace pecheck::precision {
namespace {

// |ln f_i| for f_i = base^(-2i/d): the L input of budget rows with c_logb (spec/budgets.tsv).
double log_freq(double base, std::int64_t i, std::int64_t d) {
  return std::log(base) * 2.0 * static_cast<double>(i) / static_cast<double>(d);
}

using oracle::DoubleDouble;
using oracle::Format;

const oracle::Budget& row_for(const Variant& v, Format dtype) {
  for (const auto& b : oracle::budgets()) {
    if (b.scheme == v.scheme && b.storage == dtype && b.variant == v.budget) return b;
  }
  // A double evaluation is one variant: the f64 reference row; otherwise a missing row is an
  // error (every honest variant has its stated budget in spec/budgets.tsv).
  return oracle::budget(v.scheme, dtype, dtype == Format::F64 ? "reference" : v.budget);
}

double abs_err(double y, DoubleDouble e) {
  if (std::isnan(y) != std::isnan(e.hi)) return std::numeric_limits<double>::infinity();
  if (std::isinf(y) || std::isinf(e.hi)) return y == e.hi ? 0 : std::numeric_limits<double>::infinity();
  return std::fabs((y - e.hi) - e.lo);
}

void account(SweepPoint& pt, double y, DoubleDouble exact, Format dtype, const oracle::Budget& b,
             const oracle::BudgetInputs& in) {
  // PREC-BAD-3: where the exact value overflows the storage format, the correctly rounded
  // result is +-inf; a variant that gives that infinity is exact.
  if (std::isinf(y) && oracle::round_to(exact.hi, dtype) == y) return;
  // ULPs of the magnitude M (RoPE |xa|+|xb|, sinusoidal 1, ALiBi |bias|): log2 of it is the
  // number of bits lost relative to the inputs' scale (an element near a zero crossing would
  // otherwise show a meaningless relative error).
  const double err = abs_err(y, exact);
  const double ulps = std::isfinite(err) ? err / oracle::ulp_of(in.magnitude, dtype) : err;
  const double units = b.units(err, in);
  if (!(ulps <= pt.max_ulps)) pt.max_ulps = ulps;
  if (!(units <= pt.max_units)) pt.max_units = units;
}

SweepPoint measure_rope(const Variant& v, const SweepOptions& o, std::int64_t position) {
  const std::int64_t d = o.rotary_dim, half = d / 2, heads = o.samples;
  std::mt19937_64 g(o.seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(position));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<float> x(static_cast<std::size_t>(heads * d));
  for (auto& xi : x) xi = static_cast<float>(oracle::round_to(static_cast<float>(u(g)), o.dtype));
  const std::int64_t pos[] = {position};
  const pec_rope_args a{1, heads, d, d, PEC_ROPE_NEOX, o.base, 1.0, pos, nullptr};
  std::vector<DoubleDouble> y(x.size()), theta(static_cast<std::size_t>(half));
  oracle::rope_block_exact(a, x.data(), y.data(), theta.data());
  const oracle::Budget& b = row_for(v, o.dtype);
  SweepPoint pt{position, 0, 0};
  for (std::int64_t h = 0; h < heads; ++h) {
    for (std::int64_t i = 0; i < half; ++i) {
      const std::size_t ia = static_cast<std::size_t>(h * d + i), ib = ia + static_cast<std::size_t>(half);
      double ya, yb;
      rope_variant_pair(v, o.dtype, {position, 1.0, o.base, i, d}, x[ia], x[ib], ya, yb);
      const oracle::BudgetInputs in{std::fabs(x[ia]) + std::fabs(x[ib]), std::fabs(theta[static_cast<std::size_t>(i)].hi),
                                    static_cast<double>(i), log_freq(o.base, i, d)};
      account(pt, ya, y[ia], o.dtype, b, in);
      account(pt, yb, y[ib], o.dtype, b, in);
    }
  }
  return pt;
}

SweepPoint measure_sinusoidal(const Variant& v, const SweepOptions& o, std::int64_t position) {
  const std::int64_t d = o.rotary_dim, half = d / 2;
  std::vector<float> x(static_cast<std::size_t>(d), 0.0f);
  for (std::int64_t i = 0; i < half; ++i) x[static_cast<std::size_t>(i)] = 1.0f;  // ya = cos, yb = sin
  const std::int64_t pos[] = {position};
  const pec_rope_args a{1, 1, d, d, PEC_ROPE_NEOX, o.base, 1.0, pos, nullptr};
  std::vector<DoubleDouble> y(x.size()), theta(static_cast<std::size_t>(half));
  oracle::rope_block_exact(a, x.data(), y.data(), theta.data());
  const oracle::Budget& b = row_for(v, o.dtype);
  SweepPoint pt{position, 0, 0};
  for (std::int64_t i = 0; i < half; ++i) {
    double s, c;
    sinusoidal_variant(v, o.dtype, {position, 1.0, o.base, i, d}, s, c);
    const oracle::BudgetInputs in{1.0, std::fabs(theta[static_cast<std::size_t>(i)].hi), static_cast<double>(i),
                                  log_freq(o.base, i, d)};
    account(pt, c, y[static_cast<std::size_t>(i)], o.dtype, b, in);
    account(pt, s, y[static_cast<std::size_t>(i + half)], o.dtype, b, in);
  }
  return pt;
}

SweepPoint measure_alibi(const Variant& v, const SweepOptions& o, std::int64_t distance) {
  const oracle::Budget& b = row_for(v, o.dtype);
  SweepPoint pt{distance, 0, 0};
  for (std::int64_t n : {8, 12}) {
    for (std::int64_t h = 0; h < n; ++h) {
      const auto ex = oracle::alibi_bias(n, h, distance, 0, PEC_ALIBI_SYMMETRIC);
      const double y = alibi_variant(v, o.dtype, n, h, distance);
      account(pt, y, ex.exact, o.dtype, b, {std::fabs(ex.exact.hi), 0.0});
    }
  }
  return pt;
}

// T5: ulps = buckets off; units = 0 when the bucket is the exact one or the accepted
// neighbour at an ambiguous offset, else 2 |difference| (any wrong bucket exceeds).
SweepPoint measure_t5(const Variant& v, const SweepOptions& o, std::int64_t distance) {
  SweepPoint pt{distance, 0, 0};
  struct Cfg { std::int64_t nb, md; bool bidir; };
  for (const Cfg c : {Cfg{32, 128, true}, Cfg{32, 128, false}, Cfg{128, 1024, true}}) {
    for (std::int64_t rel : {-distance, distance}) {
      const auto ex = oracle::t5_bucket(rel, c.nb, c.md, c.bidir);
      const std::int64_t got = t5_variant(v, o.dtype, rel, c.nb, c.md, c.bidir);
      const double diff = std::fabs(static_cast<double>(got - ex.bucket));
      const bool ok = got == ex.bucket || (ex.ambiguous && got == ex.alternative);
      pt.max_ulps = std::max(pt.max_ulps, diff);
      pt.max_units = std::max(pt.max_units, ok ? 0.0 : 2 * diff);
    }
  }
  return pt;
}

}  // namespace

std::vector<std::int64_t> sweep_positions(const SweepOptions& o) {
  if (o.max_position < 0 || o.max_position >= (std::int64_t{1} << 31)) {
    throw UsageError("--max-position must be in [0, 2^31 - 1]");
  }
  std::vector<std::int64_t> out;
  for (std::int64_t p = 0; p <= o.max_position && p < o.dense_until; ++p) out.push_back(p);
  for (std::int64_t lo = std::max<std::int64_t>(o.dense_until, 1); lo <= o.max_position; lo *= 2) {
    // Geometric steps land on odd and even positions alike (powers of two alone would hide
    // positions that a narrow format cannot represent).
    std::int64_t last = -1;
    for (int k = 0; k < o.per_octave; ++k) {
      const auto p = static_cast<std::int64_t>(
          std::llround(static_cast<double>(lo) * std::exp2(static_cast<double>(k) / o.per_octave)));
      if (p > o.max_position) break;
      if (p != last && (out.empty() || p > out.back())) out.push_back(p);
      last = p;
    }
  }
  if (out.empty() || out.back() != o.max_position) out.push_back(o.max_position);
  return out;
}

SweepPoint measure(const Variant& v, const SweepOptions& o, std::int64_t position) {
  if (v.scheme == "rope") return measure_rope(v, o, position);
  if (v.scheme == "sinusoidal") return measure_sinusoidal(v, o, position);
  if (v.scheme == "alibi") return measure_alibi(v, o, position);
  return measure_t5(v, o, position);
}

constexpr std::int64_t kRefineGap = 4096;

SweepResult sweep(const Variant& v, const SweepOptions& o) {
  SweepResult r;
  r.variant = v;
  r.dtype = o.dtype;
  const oracle::Budget* b = nullptr;
  if (v.scheme != "t5") b = &row_for(v, o.dtype);
  r.budget_row = b ? b->scheme + "/" + b->dtype + "/" + b->variant : "t5/exact bucket";
  std::int64_t prev = -1;
  for (std::int64_t p : sweep_positions(o)) {
    const SweepPoint pt = measure(v, o, p);
    if (!r.first_exceeding && pt.max_units > 1) {
      // Refine to the exact first position when the gap since the last sample is small;
      // otherwise report the first sampled one and the sample before it.
      r.first_exceeding = p;
      r.exact_first = true;
      if (p - prev > 1 && p - prev <= kRefineGap) {
        r.first_exceeding = first_exceeding_dense(v, o, prev + 1, p);
      } else if (p - prev > 1) {
        r.exact_first = false;
        r.within_at = prev;
      }
    }
    prev = p;
    if (!(pt.max_units <= r.worst_units)) r.worst_units = pt.max_units;
    r.points.push_back(pt);
  }
  return r;
}

std::optional<std::int64_t> first_exceeding_dense(const Variant& v, const SweepOptions& o,
                                                  std::int64_t from, std::int64_t to) {
  for (std::int64_t p = from; p <= to; ++p) {
    if (measure(v, o, p).max_units > 1) return p;
  }
  return std::nullopt;
}

}  // namespace pecheck::precision
