// ALiBi and T5 checks (spec/abi.md ABI-ALIBI-*, ABI-T5-*): oracle agreement, and biases that
// depend only on the offset, checked through the kernel itself under a common position shift.
// One code path for the float32, bf16 and f16 functions (ABI-STORE-2): the case carries its
// storage type; ALiBi's sum is rounded once into it, T5 copies table entries bit for bit.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "oracle/budget.hpp"
#include "oracle/oracle.hpp"
#include "verify/checks/check_batch.hpp"
#include "verify/v1/run.hpp"
#include "verify/v1/hints_bias.hpp"

namespace pecheck::verifier {

namespace {

using oracle::Format;

double half_ulp(double v, Storage st = Storage::F32) { return 0.5 * oracle::ulp_of(v, storage_format(st)); }

// The kernel's output as doubles for the comparisons. An fp16 result past the format's range is
// +-inf (ABI-STORE-1: the rounding overflows past 65504 + ulp/2 = 65520): an infinity of the
// exact value's sign counts as the overflow threshold itself, so its error is how far the exact
// value lies below the threshold (0 when it lies beyond: the correctly rounded result is then
// that infinity too). float32 and bf16 never overflow here (ALiBi biases are < 2^31).
std::vector<double> effective(const std::vector<float>& out, const std::vector<double>& ref, Storage st) {
  std::vector<double> a(out.begin(), out.end());
  if (st != Storage::F16) return a;
  const double thr = storage_max_finite(st) + half_ulp(storage_max_finite(st), st);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isinf(a[i]) && std::isfinite(ref[i]) && std::signbit(a[i]) == std::signbit(ref[i])) {
      a[i] = std::copysign(std::max(std::fabs(ref[i]), thr), ref[i]);
    }
  }
  return a;
}

// Compares `actual` with `ref` over [n_heads][n_q][n_k] rows. `bound(idx)` is the allowed
// absolute error of an element. Masked elements (ref == -inf) must be -inf exactly. With
// `softmax`, each row may carry a constant offset (removed as the midpoint of the row's
// differences before comparing). Returns the worst element and its error in units of its bound.
struct RowWorst {
  std::int64_t index = -1;
  double units = 0;
  double offset = 0;  // the row constant removed at the worst element (softmax)
};

template <class Bound>
RowWorst compare_rows(const std::vector<double>& ref, const std::vector<double>& actual, std::int64_t rows,
                      std::int64_t n_k, bool softmax, Bound bound) {
  RowWorst w;
  for (std::int64_t r = 0; r < rows; ++r) {
    double lo = INFINITY, hi = -INFINITY;
    for (std::int64_t j = 0; j < n_k; ++j) {
      const std::size_t i = static_cast<std::size_t>(r * n_k + j);
      if (std::isinf(ref[i]) || !std::isfinite(actual[i])) continue;
      const double d = static_cast<double>(actual[i]) - ref[i];
      lo = std::min(lo, d), hi = std::max(hi, d);
    }
    const double c = softmax && lo <= hi ? 0.5 * (lo + hi) : 0.0;
    // The row constant is estimated from the row itself: with every element within B_i of the
    // true constant, the midpoint is within max_i B_i of it, so element j may be off by
    // B_j + max_i B_i from the midpoint.
    double row_bound = 0;
    if (softmax) {
      for (std::int64_t j = 0; j < n_k; ++j) {
        const std::size_t i = static_cast<std::size_t>(r * n_k + j);
        if (!std::isinf(ref[i]) && std::isfinite(actual[i])) row_bound = std::max(row_bound, bound(i));
      }
    }
    for (std::int64_t j = 0; j < n_k; ++j) {
      const std::size_t i = static_cast<std::size_t>(r * n_k + j);
      double units;
      if (std::isinf(ref[i]) && ref[i] < 0) {
        units = (std::isinf(actual[i]) && actual[i] < 0) ? 0 : INFINITY;
      } else {
        const double e = std::fabs(static_cast<double>(actual[i]) - ref[i] - c);
        const double b = bound(i) + row_bound;
        units = e == 0 ? 0 : (b > 0 && !std::isnan(e)) ? e / b : INFINITY;
      }
      if (units > w.units || (w.index < 0 && units > 1)) w = {static_cast<std::int64_t>(i), units, c};
    }
  }
  return w;
}

// PREC-SOFTMAX-1 (spec/contracts.md): what a softmax row sees are the differences of its
// logits. Within each row (h, q) the reference element j0 is the largest exact logit (the one
// that dominates the softmax); every unmasked element j must satisfy
//   |(A_j - A_j0) - (L_j - L_j0)| <= beta_j + beta_j0 + tau,
// with L the exact logits (`exact`), A what is compared (`actual`: the kernel's output, or for
// the shift check its shifted output against `base`, its unshifted one), and beta the float32
// budget of one element computed from the EXACT bias magnitude |slope (q - k)| — never from
// the kernel's own output, so a kernel that writes huge row constants (BLOOM's slope k_pos)
// gets no larger tolerance for the offsets those constants drown.
// PREC-SOFTMAX-2: tau is the class's: an absolute error E in a difference scales the weight
// ratio p_j / p_j0 by exp(E), so tau bounds the weights (reference 2^-10: 0.1 %, powf 2^-8:
// 0.4 %, field 2^-5: 3.2 %). `field` admits BLOOM's key-only form, whose differences carry two
// roundings of |slope k| <= 2^17 per element (2u slope k <= slope 2^-6 < tau / 2) at the default
// maximum position; at 2^31 - 1 its error is ~2^7 slope, far outside every class.
double softmax_tau(const std::string& cls) {
  if (cls == "reference") return 0x1p-10;
  if (cls == "powf") return 0x1p-8;
  return 0x1p-5;  // field
}

// The anchor j0 of every row (its largest exact logit; -1 for a row with every element masked).
std::vector<std::int64_t> row_anchors(const std::vector<double>& exact, std::int64_t rows, std::int64_t n_k) {
  std::vector<std::int64_t> a(static_cast<std::size_t>(rows), -1);
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t& j0 = a[static_cast<std::size_t>(r)];
    for (std::int64_t j = 0; j < n_k; ++j) {
      const std::size_t i = static_cast<std::size_t>(r * n_k + j);
      if (!std::isinf(exact[i]) && (j0 < 0 || exact[i] > exact[static_cast<std::size_t>(r * n_k + j0)])) j0 = j;
    }
  }
  return a;
}

// The error of every element's difference to its row's anchor, and the anchor's index.
struct RowDifferences {
  std::vector<double> error;      // |(A_j - B_j) - (A_j0 - B_j0)|; +inf where a masked element is not -inf
  std::vector<std::size_t> anchor;
  std::vector<double> constant;   // per element: the row constant A_j0 - B_j0
};

RowDifferences row_differences(const std::vector<double>& exact, const std::vector<double>& base,
                               const std::vector<double>& actual, std::int64_t rows, std::int64_t n_k) {
  const auto anchors = row_anchors(exact, rows, n_k);
  RowDifferences d;
  d.error.resize(exact.size()), d.anchor.resize(exact.size()), d.constant.resize(exact.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t j0 = anchors[static_cast<std::size_t>(r)];
    const std::size_t i0 = static_cast<std::size_t>(r * n_k + std::max<std::int64_t>(j0, 0));
    const double c = j0 < 0 ? 0.0 : actual[i0] - base[i0];  // the row constant seen at j0
    for (std::int64_t j = 0; j < n_k; ++j) {
      const std::size_t i = static_cast<std::size_t>(r * n_k + j);
      d.anchor[i] = i0, d.constant[i] = c;
      if (std::isinf(exact[i]) && exact[i] < 0) {
        d.error[i] = (std::isinf(actual[i]) && actual[i] < 0) ? 0 : INFINITY;
      } else {
        const double e = std::fabs(actual[i] - base[i] - c);
        d.error[i] = std::isnan(e) ? INFINITY : e;
      }
    }
  }
  return d;
}

double difference_units(const RowDifferences& d, std::size_t i, double bound) {
  const double e = d.error[i];
  return e == 0 ? 0 : std::isinf(e) ? INFINITY : e / bound;
}

template <class Beta>
RowWorst compare_row_differences(const std::vector<double>& exact, const std::vector<double>& base,
                                 const std::vector<double>& actual, std::int64_t rows, std::int64_t n_k, Beta beta,
                                 double tau) {
  const RowDifferences d = row_differences(exact, base, actual, rows, n_k);
  RowWorst w;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    const double units = difference_units(d, i, beta(i) + beta(d.anchor[i]) + tau);
    if (units > w.units || (w.index < 0 && units > 1)) w = {static_cast<std::int64_t>(i), units, d.constant[i]};
  }
  return w;
}

pec_alibi_args alibi_args(const AlibiCase& c, const std::vector<std::int64_t>& q, const std::vector<std::int64_t>& k) {
  return pec_alibi_args{c.n_heads, c.n_q, c.n_k, c.mode, q.data(), k.data()};
}

std::optional<Failure> eval_alibi_oracle(Ctx& ctx, const AlibiCase& c) {
  const RunResult r = run_case(ctx.ex, c);
  if (auto f = call_failure(fn_of(Family::Alibi, c.storage), r)) return f;
  const std::size_t n = r.out.size();
  if (n == 0) return std::nullopt;
  const Storage st = c.storage;
  const Format fmt = storage_format(st);
  std::vector<double> bias(n), ref(n);
  oracle::alibi_block(alibi_args(c, c.q_pos, c.k_pos), Format::F32, nullptr, bias.data());
  for (std::size_t i = 0; i < n; ++i) ref[i] = std::isinf(bias[i]) ? bias[i] : c.scores[i] + bias[i];
  const std::vector<double> out = effective(r.out, ref, st);
  if (!ctx.acc.active()) ctx.acc = AccuracyTrack("alibi", chosen_class(ctx.opt.accuracy, "alibi", st), st);
  const AccuracyTrack& acc = ctx.acc;
  const oracle::Budget& b = acc.row(acc.chosen_index());
  // The bias within the class's budget (k = the head's slope power, PREC-ALIBI-3), then one
  // rounding of the sum into the score's format (float32, bf16, f16: ABI-STORE-2).
  const std::int64_t per_head = c.n_q * c.n_k;
  const auto bound_of = [&](const oracle::Budget& row, std::size_t i) {
    const double m = std::max(std::fabs(bias[i]), std::fabs(out[i] - c.scores[i]));
    const double k = alibi_slope_power(static_cast<std::int64_t>(i) / per_head, c.n_heads);
    return row.bound({m, 0.0, k}) + half_ulp(std::max(std::fabs(ref[i]), std::fabs(out[i])), st);
  };
  const auto bound = [&](std::size_t i) { return bound_of(b, i); };
  // The softmax contract's element budget: the exact bias and logit magnitudes only (the
  // class's row, k = the head's slope power), and the class's tau (PREC-SOFTMAX-2).
  const auto beta_of = [&](const oracle::Budget& row, std::size_t i) {
    const double k = alibi_slope_power(static_cast<std::int64_t>(i) / per_head, c.n_heads);
    return row.bound({std::fabs(bias[i]), 0.0, k}) + half_ulp(std::fabs(ref[i]), st);
  };
  const std::int64_t rows = c.n_heads * c.n_q;
  RowDifferences diff;
  RowWorst w;
  if (ctx.softmax()) {
    diff = row_differences(ref, ref, out, rows, c.n_k);
    const double tau = softmax_tau(b.variant);
    for (std::size_t i = 0; i < n; ++i) {
      const double u = difference_units(diff, i, beta_of(b, i) + beta_of(b, diff.anchor[i]) + tau);
      if (u > w.units || (w.index < 0 && u > 1)) w = {static_cast<std::int64_t>(i), u, diff.constant[i]};
    }
  } else {
    w = compare_rows(ref, out, rows, c.n_k, false, bound);
  }
  std::vector<double> units(acc.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (ctx.record && !std::isinf(ref[i])) {
      const double e = std::fabs(out[i] - ref[i]);
      for (std::size_t k = 0; k < acc.size(); ++k) {
        if (ctx.softmax()) {  // grades in units of each class of the softmax contract
          const oracle::Budget& row = acc.row(k);
          units[k] = difference_units(diff, i, beta_of(row, i) + beta_of(row, diff.anchor[i]) + softmax_tau(row.variant));
          continue;
        }
        const double bk = bound_of(acc.row(k), i);
        units[k] = std::isnan(e) ? INFINITY : e == 0 ? 0 : bk > 0 ? e / bk : INFINITY;
      }
      const std::int64_t qp = c.q_pos[(i / c.n_k) % c.n_q];
      const double scale = std::max(std::fabs(bias[i]), std::fabs(static_cast<double>(c.scores[i])));
      const double ulps = scale_ulps(out[i], ref[i], scale, st);
      ctx.observe(qp, ulps, units[acc.chosen_index()]);
      ctx.acc.observe(qp, ulps, units);
    }
  }
  if (ctx.record && w.index >= 0 && ctx.acc.is_new_worst(w.units)) {
    report::WorstCase wc;
    wc.element = locate(c, w.index);
    wc.element.expected = static_cast<float>(ref[w.index] + w.offset);
    wc.element.actual = r.out[w.index];
    wc.element.abs_error = std::fabs(wc.element.actual - ref[w.index] - w.offset);
    wc.element.ulps = std::isinf(ref[w.index]) ? INFINITY : wc.element.abs_error / oracle::ulp_of(ref[w.index], fmt);
    wc.element.contract_units = w.units;
    wc.case_index = ctx.case_index;
    describe(c, wc.args, wc.inputs);
    ctx.acc.set_worst(w.units, std::move(wc));
  }
  if (!(w.units > 1)) return std::nullopt;
  Failure f;
  f.clause = "ABI-ALIBI-2";
  f.kind = std::isnan(r.out[w.index]) ? "nan" : "mismatch";
  f.worst = locate(c, w.index);
  auto& we = *f.worst;
  we.expected = static_cast<float>(ref[w.index] + w.offset);
  we.actual = r.out[w.index];
  we.abs_error = std::fabs(we.actual - ref[w.index] - w.offset);
  we.ulps = std::isinf(ref[w.index]) ? INFINITY : we.abs_error / oracle::ulp_of(ref[w.index], fmt);
  we.contract_units = w.units;
  f.message = std::string("scores + bias differ from the exact ALiBi result by ") + report::format_real(w.units) +
              " times the " + dtype_label(st) + " budget of class '" + b.variant + "' (" + b.clause + ")" +
              (std::isinf(ref[w.index]) ? "; the element should be masked to -inf" : "");
  if (ctx.softmax() && !std::isinf(ref[w.index])) {
    f.message = "the logit differences within row (head " + std::to_string(w.index / (c.n_q * c.n_k)) + ", q_pos " +
                std::to_string(c.q_pos[(static_cast<std::size_t>(w.index) / c.n_k) % c.n_q]) + ") differ from the exact ones by " +
                report::format_real(w.units) + " times the softmax contract's class '" + b.variant +
                "' (PREC-SOFTMAX-1, -2) at k_pos " +
                std::to_string(c.k_pos[static_cast<std::size_t>(w.index) % c.n_k]);
  }
  if (ctx.softmax()) {
    f.notes.push_back("--contract softmax (PREC-SOFTMAX-1): the differences within a (head, query) row are compared; "
                      "expected includes the row constant the kernel wrote at the row's largest logit (" +
                      report::format_real(w.offset) + ")");
  }
  f.notes.push_back("expected includes the initial score; the bias alone is " + report::format_real(
                                                                                   ref[w.index] - c.scores[w.index]));
  if (!ctx.softmax()) {
    for (auto& h : hints::alibi_hints(c, r, ref, w.index)) f.notes.push_back(std::move(h));
  }
  return f;
}

template <class C>
void choose_shift(Rng& r, const GenParams& p, C& c) {
  std::int64_t lo = p.max_position, hi = 0;
  for (auto v : c.q_pos) lo = std::min(lo, v), hi = std::max(hi, v);
  for (auto v : c.k_pos) lo = std::min(lo, v), hi = std::max(hi, v);
  if (hi < lo) return;
  const std::int64_t down = lo, up = p.max_position - hi;
  if (down + up == 0) return;
  c.shift = r.range(-down, up);
  if (c.shift == 0) c.shift = up > 0 ? up : -down;
}

AlibiCase gen_alibi_shift(Rng& r, const GenParams& p) {
  AlibiCase c = gen_alibi(r, p);
  choose_shift(r, p, c);
  return c;
}

std::optional<Failure> eval_alibi_shift(Ctx& ctx, const AlibiCase& c) {
  RunMode m0, m1;
  m0.zero_scores = m1.zero_scores = true;
  m1.shift = c.shift;
  const Fn fn = fn_of(Family::Alibi, c.storage);
  const Storage st = c.storage;
  const RunResult a = run_case(ctx.ex, c, m0);
  if (auto f = call_failure(fn, a)) return f;
  const RunResult s = run_case(ctx.ex, c, m1);
  if (auto f = call_failure(fn, s)) return f;
  const std::size_t n = a.out.size();
  if (n == 0) return std::nullopt;
  std::vector<double> bias(n), ref(a.out.begin(), a.out.end());
  oracle::alibi_block(alibi_args(c, c.q_pos, c.k_pos), Format::F32, nullptr, bias.data());
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isinf(bias[i])) ref[i] = bias[i];  // masked stays masked under the shift
  }
  const std::vector<double> sout(s.out.begin(), s.out.end());
  const oracle::Budget& b = class_row("alibi", chosen_class(ctx.opt.accuracy, "alibi", st), st);
  // Both calls are within budget of the same exact bias (it depends on the offset only).
  const std::int64_t per_head = c.n_q * c.n_k;
  const auto bound = [&](std::size_t i) {
    const double m = std::max({std::fabs(bias[i]), std::fabs(static_cast<double>(a.out[i])),
                               std::fabs(static_cast<double>(s.out[i]))});
    const double k = alibi_slope_power(static_cast<std::int64_t>(i) / per_head, c.n_heads);
    // A 16-bit result is the bias rounded into the format (no score to add): half an ulp each.
    return 2 * b.bound({m, 0.0, k}) + (ctx.softmax() || st != Storage::F32 ? 2 * half_ulp(m, st) : 0.0);
  };
  RowWorst w;
  if (ctx.softmax()) {  // PREC-SOFTMAX-1 for both calls: twice the element budget and tau
    const std::vector<double> base(a.out.begin(), a.out.end());
    // The element budget of PREC-SOFTMAX-1 with the head's slope-power term (k, PREC-ALIBI-3), as
    // for the oracle check: the shift budget spec/contracts.md states.
    const auto beta = [&](std::size_t i) {
      const double k = alibi_slope_power(static_cast<std::int64_t>(i) / per_head, c.n_heads);
      return 2 * (b.bound({std::fabs(bias[i]), 0.0, k}) + half_ulp(std::fabs(bias[i]), st));
    };
    w = compare_row_differences(bias, base, sout, c.n_heads * c.n_q, c.n_k, beta, 2 * softmax_tau(b.variant));
  } else {
    w = compare_rows(ref, sout, c.n_heads * c.n_q, c.n_k, false, bound);
  }
  if (ctx.record) ctx.elements += static_cast<std::int64_t>(n);
  if (!(w.units > 1)) return std::nullopt;
  Failure f;
  f.clause = "ABI-ALIBI-3";
  f.kind = "property";
  f.worst = locate(c, w.index);
  // With the softmax contract, expected carries the row constant the shifted call wrote at the
  // row's largest logit, so expected and actual differ by exactly what is wrong.
  // In double: the row constant may be below the float spacing of the value, and a rounded
  // expected would then print equal to the actual value (issue 20).
  f.worst->expected = static_cast<double>(a.out[w.index]) + w.offset;
  f.worst->actual = s.out[w.index];
  f.worst->abs_error = std::fabs(static_cast<double>(s.out[w.index]) - a.out[w.index] - w.offset);
  if (std::isinf(bias[w.index])) {  // a masked element: what is due is -inf, whatever the first call wrote
    f.worst->expected = -INFINITY;
    f.worst->abs_error = INFINITY;
    f.notes.push_back("the element is masked (k_pos > q_pos, causal): it must be -inf in both calls, not " +
                      report::format_real(f.worst->actual));
  }
  f.worst->ulps = std::isinf(f.worst->expected) ? INFINITY : f.worst->abs_error / oracle::ulp_of(f.worst->expected, storage_format(st));
  f.worst->contract_units = w.units;
  f.message = "the bias changed under a common shift of " + std::to_string(c.shift) + " positions by " +
              report::format_real(w.units) +
              (ctx.softmax() ? " times the softmax contract's class '" + b.variant + "' (PREC-SOFTMAX-1, -2: differences within a row)"
                             : " times the " + dtype_label(st) + " ALiBi budget");
  f.notes.push_back("expected = bias at the original positions, actual = bias after the shift (zero input scores)");
  if (!ctx.softmax()) f.notes.push_back("BLOOM-style key-only biases pass with --contract softmax");
  return f;
}

// T5 ------------------------------------------------------------------------------------------

std::int64_t find_bucket(const T5Case& c, std::int64_t h, float v) {
  for (std::int64_t b = 0; b < c.num_buckets; ++b) {
    if (to_storage(c.table[static_cast<std::size_t>(b * c.n_heads + h)], c.storage) == to_storage(v, c.storage)) return b;
  }
  return -1;
}

std::optional<Failure> eval_t5_oracle(Ctx& ctx, const T5Case& c) {
  const RunResult r = run_case(ctx.ex, c);
  if (auto f = call_failure(fn_of(Family::T5, c.storage), r)) return f;
  for (std::int64_t i = 0; i < c.n_q; ++i) {
    for (std::int64_t j = 0; j < c.n_k; ++j) {
      const std::int64_t rel = c.k_pos[j] - c.q_pos[i];
      const oracle::T5Bucket tb = oracle::t5_bucket(rel, c.num_buckets, c.max_distance, c.bidirectional != 0);
      for (std::int64_t h = 0; h < c.n_heads; ++h) {
        const std::size_t idx = static_cast<std::size_t>((h * c.n_q + i) * c.n_k + j);
        const float want = c.table[static_cast<std::size_t>(tb.bucket * c.n_heads + h)];
        const float alt = c.table[static_cast<std::size_t>(tb.alternative * c.n_heads + h)];
        const float got = r.out[idx];
        const std::uint32_t got_bits = r.out_bits[idx];
        ctx.observe(c.q_pos[i], 0, 0);
        if (got_bits == to_storage(want, c.storage)) continue;
        if (tb.ambiguous && got_bits == to_storage(alt, c.storage)) {
          ctx.note("t5: relative position " + std::to_string(rel) + " lies on an ambiguous bucket boundary; bucket " +
                   std::to_string(tb.alternative) + " accepted besides " + std::to_string(tb.bucket) + " (ABI-T5-2)");
          continue;
        }
        Failure f;
        f.clause = "ABI-T5-2";
        f.kind = "wrong-bucket";
        f.worst = locate(c, static_cast<std::int64_t>(idx));
        f.worst->expected = want;
        f.worst->actual = got;
        f.worst->abs_error = std::fabs(static_cast<double>(got) - want);
        f.worst->contract_units = INFINITY;
        const std::int64_t gb = find_bucket(c, h, got);
        f.message = "relative position " + std::to_string(rel) + " (k - q) maps to bucket " + std::to_string(tb.bucket) +
                    (tb.ambiguous ? " (or " + std::to_string(tb.alternative) + ", ambiguous)" : "") + ", but the kernel wrote " +
                    (gb >= 0 ? "the value of bucket " + std::to_string(gb) : "a value that is not in the table column");
        if (tb.ambiguous) f.notes.push_back("this offset is on an ambiguous boundary: both neighbouring buckets are accepted");
        for (auto& hint : hints::t5_hints(c, r)) f.notes.push_back(std::move(hint));
        return f;
      }
    }
  }
  return std::nullopt;
}

T5Case gen_t5_shift(Rng& r, const GenParams& p) {
  T5Case c = gen_t5(r, p);
  choose_shift(r, p, c);
  return c;
}

std::optional<Failure> eval_t5_shift(Ctx& ctx, const T5Case& c) {
  const Fn fn = fn_of(Family::T5, c.storage);
  const RunResult a = run_case(ctx.ex, c);
  if (auto f = call_failure(fn, a)) return f;
  RunMode m;
  m.shift = c.shift;
  const RunResult s = run_case(ctx.ex, c, m);
  if (auto f = call_failure(fn, s)) return f;
  for (std::size_t i = 0; i < a.out.size(); ++i) {
    if (a.out_bits[i] != s.out_bits[i]) {
      Failure f;
      f.clause = "ABI-T5-3";
      f.kind = "property";
      f.worst = locate(c, static_cast<std::int64_t>(i));
      f.worst->expected = a.out[i];
      f.worst->actual = s.out[i];
      f.worst->abs_error = std::fabs(static_cast<double>(s.out[i]) - a.out[i]);
      f.worst->ulps = f.worst->abs_error / oracle::ulp_of(a.out[i], storage_format(c.storage));
      f.message = "the bias changed under a common shift of " + std::to_string(c.shift) + " positions";
      f.notes.push_back("expected = bias at the original positions, actual = bias after the shift");
      return f;
    }
  }
  if (ctx.record) ctx.elements += static_cast<std::int64_t>(a.out.size());
  return std::nullopt;
}

// Batch invariance hooks (check_batch.hpp): the units are query rows (q_pos entries, with their
// rows of the [n_heads][n_q][n_k] scores for ALiBi).
template <class Case>
BatchHooks<Case> query_rows_hooks() {
  BatchHooks<Case> h;
  h.unit = "query row";
  h.units = [](const Case& c) { return c.n_q; };
  h.select = [](const Case& c, const std::vector<std::int64_t>& pick) {
    Case s = c;
    s.n_q = static_cast<std::int64_t>(pick.size());
    s.q_pos.clear();
    for (std::int64_t i : pick) s.q_pos.push_back(c.q_pos[static_cast<std::size_t>(i)]);
    if constexpr (std::is_same_v<Case, AlibiCase>) {
      s.scores.clear();
      for (std::int64_t hd = 0; hd < c.n_heads; ++hd) {
        for (std::int64_t i : pick) {
          const auto b = c.scores.begin() + static_cast<std::ptrdiff_t>((hd * c.n_q + i) * c.n_k);
          s.scores.insert(s.scores.end(), b, b + static_cast<std::ptrdiff_t>(c.n_k));
        }
      }
    }
    return s;
  };
  h.unit_bits = [](const Case& c, const RunResult& r, std::int64_t i) {
    std::vector<std::uint32_t> v;
    for (std::int64_t hd = 0; hd < c.n_heads; ++hd) {
      const auto b = r.out_bits.begin() + static_cast<std::ptrdiff_t>((hd * c.n_q + i) * c.n_k);
      v.insert(v.end(), b, b + static_cast<std::ptrdiff_t>(c.n_k));
    }
    return v;
  };
  h.locate = [](const Case& c, std::int64_t i, std::size_t k) {
    const std::int64_t hd = static_cast<std::int64_t>(k) / std::max<std::int64_t>(c.n_k, 1);
    const std::int64_t j = static_cast<std::int64_t>(k) % std::max<std::int64_t>(c.n_k, 1);
    return locate(c, (hd * c.n_q + i) * c.n_k + j);
  };
  h.run = [](Ctx& ctx, const Case& c) { return run_case(ctx.ex, c); };
  return h;
}

}  // namespace

void add_alibi_checks(std::vector<AnyCheck>& out, Fn fn) {
  const std::string p = check_prefix(fn);
  out.push_back(make_check<AlibiCase>(
      {p + ".oracle", "ABI-ALIBI-2",
       "scores + bias agree with the exact ALiBi bias (slopes for any head count, both modes, -inf masking) "
       "within the " + dtype_label(storage(fn)) + " contract",
       fn, 150, gen_alibi, eval_alibi_oracle, true}));
  out.push_back(make_large_check<AlibiCase>(
      fn, "ABI-ALIBI-2",
      "production-size calls (12 to 64 heads of a prefill chunk, or a few queries against thousands of keys; "
      "2^15+ elements) agree with the exact ALiBi bias",
      gen_alibi_large, eval_alibi_oracle));
  out.push_back(make_check<AlibiCase>(
      {p + ".shift", "ABI-ALIBI-3",
       "the bias written for positions shifted by a common amount equals the unshifted one (per row up to a "
       "constant with --contract softmax)",
       fn, 100, gen_alibi_shift, eval_alibi_shift}));
  add_generic_checks<AlibiCase>(out, fn, "ABI-ALIBI-1", gen_alibi, gen_alibi_invalid, false);
  out.push_back(make_batch_check<AlibiCase>(fn, gen_alibi, query_rows_hooks<AlibiCase>()));
}

void add_t5_checks(std::vector<AnyCheck>& out, Fn fn) {
  const std::string p = check_prefix(fn);
  out.push_back(make_check<T5Case>(
      {p + ".oracle", "ABI-T5-2",
       "bias[h][i][j] is the table entry of T5's bucket of k_pos - q_pos (either neighbour on ambiguous "
       "boundaries)",
       fn, 150, gen_t5, eval_t5_oracle}));
  out.push_back(make_large_check<T5Case>(
      fn, "ABI-T5-2",
      "production-size calls (12 to 64 heads of a prefill chunk, or a few queries against thousands of keys; "
      "2^15+ elements) use T5's bucket of every offset",
      gen_t5_large, eval_t5_oracle));
  out.push_back(make_check<T5Case>({p + ".shift", "ABI-T5-3",
                                    "the bias for positions shifted by a common amount is bit-identical", fn, 100,
                                    gen_t5_shift, eval_t5_shift}));
  add_generic_checks<T5Case>(out, fn, "ABI-T5-1", gen_t5, gen_t5_invalid, true);
  out.push_back(make_batch_check<T5Case>(fn, gen_t5, query_rows_hooks<T5Case>()));
}

}  // namespace pecheck::verifier
