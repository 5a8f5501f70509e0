// Checks of the M-RoPE functions pec_mrope_{f32,bf16,f16} (spec/abi.md ABI-MROPE-*), one code path
// for the three storage types: values against the exact rotation with each pair's own axis
// (ABI-MROPE-2), scores under an independent shift of the three position rows (ABI-MROPE-3), and
// the query+key form's generic checks (pass-through, in place, views, bounds, completeness,
// determinism, rejections, batch invariance: checks_impl.hpp).
//
// Exact values: the MPFR oracle's rotation (oracle::rope_block) of a contiguous copy of each
// tensor at each axis's row, rounded to double, pair i taken from the rotation at axis(i)'s row,
// then times attn_factor in double (<= 2^-52 relative, far inside every budget). Graded in the
// RoPE classes of the storage type with PREC-QK-1's factor term (scheme "mrope", rows of rope).
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "oracle/oracle.hpp"
#include "verify/rope_v2/checks_impl.hpp"
#include "verify/rope_v2/checks_shift.hpp"

namespace pecheck::verifier {

void case_from_entry(const CorpusEntry& e, MropeCase&) {
  throw UsageError("stored cases for " + e.check + " are not supported");
}

namespace {

using namespace qkcheck;

const char* kAxisName[3] = {"t", "h", "w"};

std::vector<std::int64_t> row_of(const MropeCase& c, int a, std::int64_t shift) {
  std::vector<std::int64_t> p = a == 0 ? c.positions : a == 1 ? c.pos_h : c.pos_w;
  for (auto& e : p) e += shift;
  return p;
}

// attn_factor x the exact M-RoPE rotation of a dense [T][H][D] tensor, rounded to double.
std::vector<double> exact_mrope(const MropeCase& c, const std::vector<float>& x, std::int64_t H) {
  const std::int64_t D = c.head_dim, R = c.rotary_dim, half = R / 2;
  const std::size_t n = static_cast<std::size_t>(c.n_tokens * H * D);
  std::vector<double> ex(n);
  if (n == 0) return ex;
  std::vector<double> per_axis[3];
  for (int a = 0; a < 3; ++a) {
    const std::vector<std::int64_t> pos = row_of(c, a, 0);
    // The MPFR rotation only for rows some pair reads and that differ from the t row (text).
    bool used = a == 0;
    for (std::int64_t i = 0; i < half && !used; ++i) used = mrope_axis(c, i) == a;
    if (!used || (a > 0 && pos == c.positions)) continue;
    per_axis[a].resize(n);
    const pec_rope_args args{c.n_tokens,     H,   D, R, c.layout, c.theta_base, c.position_scale,
                             pos.data(), c.has_inv_freq ? c.inv_freq.data() : nullptr};
    oracle::rope_block(args, x.data(), Format::F64, nullptr, per_axis[a].data());
  }
  ex = per_axis[0];  // pass-through lanes and the t pairs
  for (std::int64_t i = 0; i < half; ++i) {
    const int a = mrope_axis(c, i);
    if (a <= 0 || per_axis[a].empty()) continue;  // the t pairs, or a row equal to t's
    for (std::int64_t th = 0; th < c.n_tokens * H; ++th) {
      for (std::int64_t lane : {lane_a(c.layout, R, i), lane_b(c.layout, R, i)}) {
        const std::size_t k = static_cast<std::size_t>(th * D + lane);
        ex[k] = per_axis[a][k];
      }
    }
  }
  for (auto& e : ex) e *= c.attn_factor;
  return ex;
}

std::optional<Failure> eval_oracle(Ctx& ctx, Fn fn, const MropeCase& c) {
  const ViewRunResult r = run_view_case(ctx.ex, fn, c);
  if (auto f = failed_call(fn, r)) return f;
  ensure_track(ctx, Family::Mrope, c.storage);
  const AccuracyTrack& acc = ctx.acc;
  std::vector<Budget> rows;
  for (std::size_t k = 0; k < acc.size(); ++k) rows.push_back(qk_row(acc.row(k), c.attn_factor));
  const Budget& chosen = rows[acc.chosen_index()];
  const std::int64_t R = c.rotary_dim, D = c.head_dim, half = R / 2;
  const std::vector<double> f = freqs(c, R), lf = log_freqs(f);
  OracleGrader g(ctx, rows, fmt(c.storage));
  int worst_axis = 0;
  std::int64_t worst_pair = 0;
  for (int which = 0; which < 2; ++which) {
    const std::vector<float>& x = which == 0 ? c.q : c.k;
    const std::int64_t H = which == 0 ? c.n_q_heads : c.n_kv_heads;
    const OutRead& out = r.outs[static_cast<std::size_t>(which)];
    const std::vector<double> ex = exact_mrope(c, x, H);
    for (std::int64_t t = 0; t < c.n_tokens; ++t) {
      for (std::int64_t h = 0; h < H; ++h) {
        const std::int64_t base = (t * H + h) * D;
        for (std::int64_t i = 0; i < half; ++i) {
          const int ax = std::max(0, mrope_axis(c, i));
          const std::int64_t pos = mrope_position(c, ax, t);
          const std::int64_t ia = base + lane_a(c.layout, R, i), ib = base + lane_b(c.layout, R, i);
          oracle::BudgetInputs in;
          const double theta =
              static_cast<double>(pos) * c.position_scale * f[static_cast<std::size_t>(i)];
          in.magnitude = c.attn_factor * (std::fabs(x[static_cast<std::size_t>(ia)]) +
                                          std::fabs(x[static_cast<std::size_t>(ib)]));
          in.angle = std::fabs(theta);
          in.index = static_cast<double>(i);
          in.log_freq = lf[static_cast<std::size_t>(i)];
          for (std::int64_t idx : {ia, ib}) {
            bool now_worst = false;
            g.grade(out, idx, ex[static_cast<std::size_t>(idx)], in, pos,
                    [&] { return element(out.name, t, h, idx - base, H, D, pos); }, &now_worst);
            if (now_worst) worst_axis = ax, worst_pair = i;
          }
        }
      }
    }
  }
  g.record_worst(c);
  const std::optional<report::WorstElement>& worst = g.worst;
  const double worst_units = g.worst_units, worst_ulps = g.worst_ulps;
  if (!worst) return std::nullopt;
  if (!(worst_units > 1)) return std::nullopt;
  Failure fl;
  fl.clause = "ABI-MROPE-2";
  fl.kind = std::isnan(worst->actual) ? "nan" : "mismatch";
  fl.worst = worst;
  const std::int64_t t = worst->index[0];
  fl.message = worst->output + " differs from attn_factor x the exact M-RoPE rotation by " +
               report::format_real(worst_ulps) + " ulp, " + report::format_real(worst_units) +
               " times the " + std::string(storage_name(c.storage)) + " RoPE budget of class '" +
               chosen.variant + "' (" + chosen.clause + "), at frequency pair " +
               std::to_string(worst_pair) + ", which axis " + kAxisName[worst_axis] +
               " rotates (position " + std::to_string(mrope_position(c, worst_axis, t)) + ")";
  fl.notes.push_back("token " + std::to_string(t) + " has (t, h, w) = (" +
                     std::to_string(c.positions[static_cast<std::size_t>(t)]) + ", " +
                     std::to_string(c.pos_h[static_cast<std::size_t>(t)]) + ", " +
                     std::to_string(c.pos_w[static_cast<std::size_t>(t)]) + "); " +
                     (c.mrope_layout == PEC_MROPE_INTERLEAVED ? "interleaved" : "sectioned") +
                     " mrope_section {" + std::to_string(c.section[0]) + ", " +
                     std::to_string(c.section[1]) + ", " + std::to_string(c.section[2]) + "}");
  {  // hint: q_out and k_out equal the rotation with the other layout (interleaved / sectioned)
    MropeCase other = c;
    other.mrope_layout = c.mrope_layout == PEC_MROPE_INTERLEAVED ? PEC_MROPE_SECTIONED : PEC_MROPE_INTERLEAVED;
    const double u = oracle::format_info(fmt(c.storage)).unit_roundoff;
    bool all = true, informative = false;
    for (int which = 0; which < 2 && all; ++which) {
      const std::vector<float>& x = which == 0 ? c.q : c.k;
      const std::int64_t H = which == 0 ? c.n_q_heads : c.n_kv_heads;
      const std::vector<double> alt = exact_mrope(other, x, H);
      if (worst->output == (which == 0 ? "q_out" : "k_out") && worst->flat_index >= 0 &&
          static_cast<std::size_t>(worst->flat_index) < alt.size()) {  // the assumption explains the failing element
        const double a = alt[static_cast<std::size_t>(worst->flat_index)];
        informative = std::fabs(a - worst->expected) > 1e-3 * (std::fabs(a) + std::fabs(worst->expected));
      }
      const auto& out = r.outs[static_cast<std::size_t>(which)].values;
      for (std::int64_t b = 0; b < c.n_tokens * H && all; ++b) {
        double m = 0;
        for (std::int64_t l = 0; l < R; ++l) m = std::max(m, std::fabs(static_cast<double>(x[static_cast<std::size_t>(b * D + l)])));
        const double tol = 16 * u * m * std::max(1.0, std::fabs(c.attn_factor)) + 1e-30;
        for (std::int64_t l = 0; l < R && all; ++l) {
          const std::size_t i = static_cast<std::size_t>(b * D + l);
          all = i < out.size() && std::isfinite(out[i]) && std::fabs(out[i] - alt[i]) <= tol;
        }
      }
    }
    if (all && informative) {
      const bool inter = c.mrope_layout == PEC_MROPE_INTERLEAVED;
      fl.notes.push_back(std::string("hint: q_out and k_out equal the rotation with the ") +
                         (inter ? "sectioned" : "interleaved") + " layout; the call asks for " +
                         (inter ? "interleaved (mrope_layout=interleaved, Qwen3-VL)" : "sectioned (mrope_layout=sectioned)") +
                         ": the kernel's layout test is inverted or ignored");
      return fl;
    }
  }
  for (int a = 0; a < 3; ++a) {  // the value the kernel gave, against the rotation at other axes
    if (a == worst_axis || t < 0 || t >= c.n_tokens) continue;
    if (mrope_position(c, a, t) == mrope_position(c, worst_axis, t)) continue;
    MropeCase one = c;  // every pair of this case on axis a: where would this lane be?
    one.section[0] = a == 0 ? half : 0;
    one.section[1] = a == 1 ? half : 0;
    one.section[2] = a == 2 ? half : 0;
    one.mrope_layout = PEC_MROPE_SECTIONED;
    const bool q = worst->output == "q_out";
    const std::vector<double> alt = exact_mrope(one, q ? c.q : c.k, q ? c.n_q_heads : c.n_kv_heads);
    const double v = alt[static_cast<std::size_t>(worst->flat_index)];
    if (std::fabs(v - worst->actual) <= 1e-3 * (std::fabs(v) + 1e-30) + 1e-30) {
      fl.notes.push_back(std::string("hint: the kernel's value is the rotation at the ") + kAxisName[a] +
                         " position " + std::to_string(mrope_position(c, a, t)) +
                         ": this pair was rotated by the wrong axis (" + kAxisName[a] +
                         " instead of " + kAxisName[worst_axis] + ")");
      break;
    }
  }
  return fl;
}

// Scores of every GQA group, before and after shifting the three rows by (c_t, c_h, c_w).
std::optional<Failure> eval_shift(Ctx& ctx, Fn fn, const MropeCase& c) {
  const ViewRunResult r0 = run_view_case(ctx.ex, fn, c);
  if (auto f = failed_call(fn, r0)) return f;
  ViewRunMode ms;
  for (int a = 0; a < 3; ++a) ms.axis_shift[a] = c.axis_shift[a];
  const ViewRunResult r1 = run_view_case(ctx.ex, fn, c, ms);
  if (auto f = failed_call(fn, r1)) return f;
  const std::string cs = class_scheme(Family::Mrope);
  const Budget& base = class_row(cs, chosen_class(ctx.opt.accuracy, cs, c.storage), c.storage);
  const double us = oracle::format_info(fmt(c.storage)).unit_roundoff;
  const Budget b = score_row(qk_row(base, c.attn_factor), base.c_out * us);
  const double attn = c.attn_factor;
  const std::vector<double> f = freqs(c, c.rotary_dim), lf = log_freqs(f);
  Failure fl;
  const double worst_units = group_score_shift(
      ctx, c, r0, r1, b, attn, lf, base.variant,
      "when the t, h, w rows were shifted by (" + std::to_string(c.axis_shift[0]) + ", " +
          std::to_string(c.axis_shift[1]) + ", " + std::to_string(c.axis_shift[2]) + ")",
      [&](std::int64_t t, std::int64_t u, std::vector<double>& tm, std::vector<double>& tn,
          std::vector<double>& tms, std::vector<double>& tns) {
        for (std::size_t i = 0; i < tm.size(); ++i) {
          const int a = std::max(0, mrope_axis(c, static_cast<std::int64_t>(i)));
          const double w = c.position_scale * f[i];
          const double pm = static_cast<double>(mrope_position(c, a, t)),
                       pn = static_cast<double>(mrope_position(c, a, u));
          const double sh = static_cast<double>(c.axis_shift[a]);
          tm[i] = pm * w, tn[i] = pn * w, tms[i] = (pm + sh) * w, tns[i] = (pn + sh) * w;
        }
      },
      fl);
  if (!(worst_units > 1)) return std::nullopt;
  fl.clause = "ABI-MROPE-3";
  fl.kind = "property";
  fl.notes.push_back(
      "the score must depend only on the offset vector (dt, dh, dw) (spec/rope.md ROPE-MROPE-6); "
      "expected = score at the original positions, actual = after the shift, one call each");
  return fl;
}

// At most 10 tokens, values in [-1, 1), and per-axis shifts keeping every row in [0, limit]:
// three different amounts where the rows allow it (a common shift would not tell the axes apart).
MropeCase with_axis_shift(Rng& r, MropeCase c, std::int64_t limit) {
  const std::vector<std::int64_t> keep = [&] {
    std::vector<std::int64_t> k;
    for (std::int64_t t = 0; t < std::min<std::int64_t>(c.n_tokens, 10); ++t) k.push_back(t);
    return k;
  }();
  c = select_tokens(c, keep);
  if (c.n_tokens == 0) {
    c.n_tokens = 1;
    c.positions = {r.range(0, limit)};
    c.pos_h = {r.range(0, limit)};
    c.pos_w = {r.range(0, limit)};
    c.q.assign(static_cast<std::size_t>(c.n_q_heads * c.head_dim), 0.5f);
    c.k.assign(static_cast<std::size_t>(c.n_kv_heads * c.head_dim), 0.25f);
  }
  for (auto* v : {&c.q, &c.k})
    for (auto& e : *v) e = round_to_storage(r.signed_unit(), c.storage);
  for (int a = 0; a < 3; ++a) {
    const std::vector<std::int64_t>& row = a == 0 ? c.positions : a == 1 ? c.pos_h : c.pos_w;
    const auto [lo, hi] = std::minmax_element(row.begin(), row.end());
    const std::int64_t down = *lo, up = limit - *hi;
    c.axis_shift[a] = 0;
    if (down + up > 0) {
      c.axis_shift[a] = r.range(-down, up);
      if (c.axis_shift[a] == 0) c.axis_shift[a] = up > 0 ? up : -down;
    }
  }
  return c;
}

MropeCase with_passthrough(Rng& r, MropeCase c) {
  if (c.rotary_dim != c.head_dim) return c;
  c.head_dim += 1 + 2 * r.range(0, 3);
  c.q.assign(static_cast<std::size_t>(c.n_tokens * c.n_q_heads * c.head_dim), 0.0f);
  c.k.assign(static_cast<std::size_t>(c.n_tokens * c.n_kv_heads * c.head_dim), 0.0f);
  for (auto* v : {&c.q, &c.k})
    for (auto& e : *v) e = round_to_storage(r.signed_unit(), c.storage);
  return c;
}

void add_mrope_family(std::vector<AnyCheck>& out, Fn fn) {
  using Case = MropeCase;
  const std::string p = check_prefix(fn);
  const std::function<Case(Rng&, const GenParams&)> gen = gen_mrope;
  const auto bind = [fn](auto f) {
    return [fn, f](Ctx& ctx, const Case& c) { return f(ctx, fn, c); };
  };
  out.push_back(make_check<Case>(
      {p + ".oracle", "ABI-MROPE-2",
       "q_out and k_out agree with attn_factor x the exact rotation, each frequency pair at its own "
       "axis's position (MPFR oracle), within the RoPE class of the storage type, every GQA group",
       fn, 120, gen,
       [fn](Ctx& ctx, const Case& c) { return eval_oracle(ctx, fn, c); }, true}));
  out.push_back(make_large_check<Case>(
      fn, "ABI-MROPE-2",
      "production-size calls (10,240+ query token-heads, or a prefill chunk of 64- or 128-lane heads) agree with "
      "the oracle within the class",
      gen_mrope_large, [fn](Ctx& ctx, const Case& c) { return eval_oracle(ctx, fn, c); }));
  out.push_back(make_check<Case>(
      {p + ".passthrough", "ABI-MROPE-2",
       "lanes rotary_dim..head_dim-1 of q_out and k_out are copied bit-exactly", fn, 40,
       [gen](Rng& r, const GenParams& gp) { return with_passthrough(r, gen(r, gp)); },
       bind(eval_passthrough<Case>)}));
  out.push_back(make_check<Case>(
      {p + ".inplace", "ABI-QK-4",
       "q_out == q and/or k_out == k (equal strides) give the same bits as separate buffers", fn,
       30, gen, bind(eval_inplace<Case>)}));
  out.push_back(make_check<Case>(
      {p + ".shift", "ABI-MROPE-3",
       "scores of every query head with the key head of its group, from one call, move by no more "
       "than the score contract when the t, h and w rows are shifted by three amounts",
       fn, 50,
       [gen](Rng& r, const GenParams& gp) { return with_axis_shift(r, gen(r, gp), gp.max_position); },
       [fn](Ctx& ctx, const Case& c) { return eval_shift(ctx, fn, c); }}));
  add_memory_checks<Case>(out, fn, gen);  // gaps, bounds, written, determinism
  add_reject_checks<Case>(out, fn, "ABI-MROPE-1", gen_mrope_invalid);
  out.push_back(make_batch_check<Case>(fn, gen, token_hooks<Case>(fn)));
}

}  // namespace

void add_mrope_checks(std::vector<AnyCheck>& out) {
  for (Storage s : kAllStorages) add_mrope_family(out, fn_of(Family::Mrope, s));
}

}  // namespace pecheck::verifier
