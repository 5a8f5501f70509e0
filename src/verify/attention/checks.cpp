// Checks of pec_attention_{f32,bf16,f16} (spec/abi.md ABI-ATTN-*), one code path for the three
// storage types: the oracle (graded against the exact softmax attention), GQA mapping, the
// relative shift of every position, masked keys and other sequences replaced (bit for bit),
// decode against prefill, ALiBi decay; the memory contract and rejections in checks_memory.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "verify/attention/checks_impl.hpp"

namespace pecheck::verifier {

namespace attn {

std::optional<Failure> failed_call(Fn fn, const AttnRunResult& r, bool check_memory) {
  RunResult rr;
  rr.outcome = r.outcome;
  if (auto f = call_failure(fn, rr)) return f;
  if (!check_memory) return std::nullopt;
  Failure f;
  f.return_code = r.outcome.rc;
  const std::string sym(symbol(fn));
  if (!r.guard_violation.empty()) {
    f.clause = "ABI-GEN-4", f.kind = "out-of-bounds", f.message = sym + " wrote outside a buffer: " + r.guard_violation;
    return f;
  }
  if (!r.gap_violation.empty()) {
    f.clause = "ABI-VIEW-2", f.kind = "gap-write", f.message = sym + " wrote into a gap of a view: " + r.gap_violation;
    return f;
  }
  if (!r.input_changed.empty()) {
    f.clause = "ABI-GEN-4", f.kind = "wrote-input", f.message = sym + " modified its input '" + r.input_changed + "'";
    return f;
  }
  return std::nullopt;
}

report::WorstElement locate_out(const AttnCase& c, std::int64_t k, std::int64_t shift) {
  report::WorstElement w;
  w.output = "out";
  const std::int64_t Dv = c.head_dim_v, Hq = c.n_q_heads;
  const std::int64_t t = k / (Hq * Dv), h = (k / Dv) % Hq, l = k % Dv;
  w.index = {t, h, l};
  w.index_names = {"token", "head", "lane"};
  w.flat_index = k;
  if (t < static_cast<std::int64_t>(c.q_pos.size())) w.position = c.q_pos[static_cast<std::size_t>(t)] + shift;
  return w;
}

AttnClass chosen_attn_class(const Ctx& ctx, Storage s) {
  return attn_class_named(chosen_class(ctx.opt.accuracy, "attention", s), s);
}

std::optional<Failure> compare_oracle(Ctx& ctx, Fn fn, const AttnCase& c, const AttnRunResult& r, const AttnExact& e,
                                      const std::string& clause, std::int64_t shift) {
  const std::string sym(symbol(fn));
  const std::string chosen = chosen_class(ctx.opt.accuracy, "attention", c.storage);
  const char* cls = attn_class_name(attn_class_named(chosen, c.storage));
  // Every class's units per element (the grades, spec/contracts.md PREC-ATTN-2..4); the verdict
  // uses the chosen class, whose budget is e.out_bound.
  if (!ctx.acc.active()) ctx.acc = AccuracyTrack("attention", chosen, c.storage);
  std::vector<std::size_t> cls_of(ctx.acc.size());
  for (std::size_t i = 0; i < cls_of.size(); ++i)
    cls_of[i] = static_cast<std::size_t>(attn_class_named(ctx.acc.name(i), c.storage));
  const auto units_of = [](double a, double err, double bound) {
    return std::isfinite(a) ? (bound > 0 ? err / bound : (err == 0 ? 0.0 : INFINITY)) : INFINITY;
  };
  std::vector<double> units(ctx.acc.size());
  double worst = 0, worst_ulps = 0;
  std::int64_t wk = -1;
  bool nan = false;
  for (std::size_t k = 0; k < e.out.size() && k < r.out.size(); ++k) {
    const double a = r.out[k], x = e.out[k];
    const double err = std::fabs(a - x);
    const double u = units_of(a, err, e.out_bound[k]);
    const std::int64_t t = static_cast<std::int64_t>(k) / (c.n_q_heads * c.head_dim_v);
    const std::int64_t pos = c.q_pos[static_cast<std::size_t>(t)] + shift;
    const double ulps = scale_ulps(a, x, e.weight_sum[k], c.storage);
    ctx.observe(pos, ulps, u);
    if (ctx.record) {
      for (std::size_t i = 0; i < units.size(); ++i) units[i] = units_of(a, err, e.class_bound[cls_of[i]][k]);
      ctx.acc.observe(pos, ulps, units);
    }
    if (u > worst || (wk < 0 && u > 1)) worst = u, wk = static_cast<std::int64_t>(k), nan = !std::isfinite(a), worst_ulps = ulps;
  }
  if (wk >= 0 && ctx.record && ctx.acc.is_new_worst(worst)) {
    report::WorstCase wc;
    wc.element = locate_out(c, wk, shift);
    const std::size_t k = static_cast<std::size_t>(wk);
    wc.element.expected = e.out[k];
    wc.element.actual = r.out[k];
    wc.element.abs_error = std::fabs(r.out[k] - e.out[k]);
    wc.element.ulps = worst_ulps;
    wc.element.contract_units = worst;
    wc.case_index = ctx.case_index;
    describe(c, wc.args, wc.inputs);
    ctx.acc.set_worst(worst, std::move(wc));
  }
  if (wk >= 0 && worst > 1) {
    Failure f;
    f.clause = clause;
    f.kind = nan ? "nan" : "mismatch";
    f.worst = locate_out(c, wk, shift);
    const std::size_t k = static_cast<std::size_t>(wk);
    f.worst->expected = e.out[k];
    f.worst->actual = r.out[k];
    f.worst->abs_error = std::fabs(r.out[k] - e.out[k]);
    f.worst->contract_units = worst;
    char buf[320];
    std::snprintf(buf, sizeof buf, "%s: out(token %lld, head %lld, lane %lld) = %.9g, exact %.9g (error %.3g, budget %.3g of class %s)",
                  sym.c_str(), static_cast<long long>(f.worst->index[0]), static_cast<long long>(f.worst->index[1]),
                  static_cast<long long>(f.worst->index[2]), r.out[k], e.out[k], f.worst->abs_error, e.out_bound[k], cls);
    f.message = buf;
    if (e.empty[k / static_cast<std::size_t>(c.head_dim_v)]) f.notes.push_back("this query sees no key: its output is 0 (ABI-ATTN-2)");
    return f;
  }
  if (!c.want_lse) return std::nullopt;
  for (std::size_t row = 0; row < e.lse.size() && row < r.lse.size(); ++row) {
    const double a = r.lse[row], x = e.lse[row];
    const bool ok = e.empty[row] ? (std::isinf(a) && a < 0) : std::fabs(a - x) <= e.lse_bound[row];
    if (ok) continue;
    Failure f;
    f.clause = clause;
    f.kind = std::isnan(a) ? "nan" : "mismatch";
    char buf[320];
    const std::int64_t t = static_cast<std::int64_t>(row) / c.n_q_heads, h = static_cast<std::int64_t>(row) % c.n_q_heads;
    std::snprintf(buf, sizeof buf, "%s: lse(token %lld, head %lld) = %.9g, exact %.9g (budget %.3g)%s", sym.c_str(),
                  static_cast<long long>(t), static_cast<long long>(h), a, x, e.lse_bound[row],
                  e.empty[row] ? ": the query sees no key, lse must be -inf" : "");
    f.message = buf;
    return f;
  }
  return std::nullopt;
}

}  // namespace attn

namespace {

using namespace attn;

std::string hex(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

// Replaces the k and v rows of the given key tokens (all heads) with other finite values of the
// storage type, drawn like the originals.
void replace_keys(AttnCase& c, const std::vector<std::int64_t>& keys, std::uint64_t salt) {
  const std::size_t kw = static_cast<std::size_t>(c.n_kv_heads * c.head_dim), vw = static_cast<std::size_t>(c.n_kv_heads * c.head_dim_v);
  for (std::int64_t j : keys) {
    Rng r(0x9e3779b97f4a7c15ull ^ (salt * 1315423911ull) ^ static_cast<std::uint64_t>(j));
    for (std::size_t l = 0; l < kw; ++l) c.k[static_cast<std::size_t>(j) * kw + l] = round_to_storage(r.signed_unit() * 2.0, c.storage);
    for (std::size_t l = 0; l < vw; ++l) c.v[static_cast<std::size_t>(j) * vw + l] = round_to_storage(r.signed_unit() * 8.0, c.storage);
  }
}

// The first output element of query token t whose bits differ, or -1.
std::int64_t differing(const AttnCase& c, const AttnRunResult& a, const AttnRunResult& b, std::int64_t t) {
  const std::int64_t w = c.n_q_heads * c.head_dim_v;
  for (std::int64_t k = t * w; k < (t + 1) * w; ++k)
    if (a.out_bits[static_cast<std::size_t>(k)] != b.out_bits[static_cast<std::size_t>(k)]) return k;
  return -1;
}

std::int64_t seq_of(const AttnCase& c, std::int64_t t) {
  const auto qs = c.q_start();
  for (std::size_t s = 0; s + 1 < qs.size(); ++s)
    if (t >= qs[s] && t < qs[s + 1]) return static_cast<std::int64_t>(s);
  return 0;
}

// The case of one query token t alone with every key of its sequence (decode form).
AttnCase single_query(const AttnCase& c, std::int64_t t) {
  AttnCase d = c;
  const std::int64_t s = seq_of(c, t);
  const auto ks = c.k_start();
  const std::int64_t k0 = ks[static_cast<std::size_t>(s)], k1 = ks[static_cast<std::size_t>(s) + 1];
  d.q_len = {1}, d.k_len = {k1 - k0};
  d.q_pos = {c.q_pos[static_cast<std::size_t>(t)]};
  d.k_pos.assign(c.k_pos.begin() + k0, c.k_pos.begin() + k1);
  const std::size_t qw = static_cast<std::size_t>(c.n_q_heads * c.head_dim), kw = static_cast<std::size_t>(c.n_kv_heads * c.head_dim),
                    vw = static_cast<std::size_t>(c.n_kv_heads * c.head_dim_v);
  d.q.assign(c.q.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(t) * qw), c.q.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(t + 1) * qw));
  d.k.assign(c.k.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(k0) * kw), c.k.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(k1) * kw));
  d.v.assign(c.v.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(k0) * vw), c.v.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(k1) * vw));
  return d;
}

std::optional<Failure> eval_oracle(Ctx& ctx, Fn fn, const AttnCase& c, const std::string& clause) {
  const AttnRunResult r = run_attention(ctx.ex, fn, c);
  if (auto f = failed_call(fn, r)) return f;
  const AttnExact e = attention_exact(c, 0, chosen_attn_class(ctx, c.storage));
  if (e.ambiguous_t5 > 0) ctx.note("T5 buckets within float rounding of a boundary met: both neighbours accepted (ABI-T5-2)");
  return compare_oracle(ctx, fn, c, r, e, clause);
}

std::optional<Failure> eval_shift(Ctx& ctx, Fn fn, const AttnCase& c) {
  std::int64_t mx = 0, mn = (std::int64_t{1} << 31) - 1;
  for (auto* v : {&c.q_pos, &c.k_pos})
    for (auto p : *v) mx = std::max(mx, p), mn = std::min(mn, p);
  std::int64_t shift = c.shift;
  if (mx + shift > (std::int64_t{1} << 31) - 1) shift = (std::int64_t{1} << 31) - 1 - mx;
  if (mn + shift < 0) shift = -mn;
  if (shift == 0) return std::nullopt;
  const AttnRunResult a = run_attention(ctx.ex, fn, c);
  if (auto f = failed_call(fn, a)) return f;
  AttnRunMode m;
  m.shift = shift;
  const AttnRunResult b = run_attention(ctx.ex, fn, c, m);
  if (auto f = failed_call(fn, b)) return f;
  const AttnClass cls = chosen_attn_class(ctx, c.storage);
  const AttnExact e0 = attention_exact(c, 0, cls), e1 = attention_exact(c, shift, cls);
  for (std::size_t k = 0; k < a.out.size(); ++k) {
    const double d = std::fabs(static_cast<double>(a.out[k]) - b.out[k]);
    const double bound = e0.out_bound[k] + e1.out_bound[k];
    if (d <= bound) continue;
    Failure f;
    f.clause = "ABI-ATTN-4";
    f.kind = "property";
    f.worst = locate_out(c, static_cast<std::int64_t>(k));
    f.worst->expected = a.out[k];
    f.worst->actual = b.out[k];
    f.worst->abs_error = d;
    f.worst->contract_units = bound > 0 ? d / bound : INFINITY;
    f.message = std::string(symbol(fn)) + ": moving every position by " + std::to_string(shift) + " changed out(token " +
                std::to_string(f.worst->index[0]) + ", head " + std::to_string(f.worst->index[1]) + ", lane " +
                std::to_string(f.worst->index[2]) + ") from " + hex(a.out[k]) + " to " + hex(b.out[k]) +
                " (allowed " + hex(bound) + "): the output depends on absolute positions";
    return f;
  }
  return std::nullopt;
}

std::optional<Failure> eval_mask(Ctx& ctx, Fn fn, const AttnCase& c) {
  const AttnRunResult a = run_attention(ctx.ex, fn, c);
  if (auto f = failed_call(fn, a)) return f;
  const auto ks = c.k_start();
  const std::int64_t Tq = c.total_q();
  for (std::int64_t pick = 0; pick < std::min<std::int64_t>(Tq, 3); ++pick) {
    const std::int64_t t = Tq <= 3 ? pick : (pick * (Tq - 1)) / 2;
    const std::int64_t s = seq_of(c, t);
    std::vector<std::int64_t> masked;
    for (std::int64_t j = ks[static_cast<std::size_t>(s)]; j < ks[static_cast<std::size_t>(s) + 1]; ++j)
      if (!attn_visible(c, c.q_pos[static_cast<std::size_t>(t)], c.k_pos[static_cast<std::size_t>(j)])) masked.push_back(j);
    if (masked.empty()) continue;
    AttnCase d = c;
    replace_keys(d, masked, static_cast<std::uint64_t>(t) + 1);
    const AttnRunResult b = run_attention(ctx.ex, fn, d);
    if (auto f = failed_call(fn, b)) return f;
    const std::int64_t k = differing(c, a, b, t);
    if (k < 0) continue;
    Failure f;
    f.clause = "ABI-ATTN-5";
    f.kind = "property";
    f.worst = locate_out(c, k);
    f.worst->expected = a.out[static_cast<std::size_t>(k)];
    f.worst->actual = b.out[static_cast<std::size_t>(k)];
    std::string ps;
    for (std::size_t i = 0; i < masked.size() && i < 6; ++i) ps += (i ? ", " : "") + std::to_string(c.k_pos[static_cast<std::size_t>(masked[i])]);
    f.message = std::string(symbol(fn)) + ": replacing the keys and values its mask excludes for the query at q_pos " +
                std::to_string(c.q_pos[static_cast<std::size_t>(t)]) + " (k_pos " + ps + (masked.size() > 6 ? ", ..." : "") +
                ") changed its output from " + hex(f.worst->expected) + " to " + hex(f.worst->actual) +
                ": the kernel reads keys outside the causal mask or window";
    return f;
  }
  return std::nullopt;
}

std::optional<Failure> eval_isolation(Ctx& ctx, Fn fn, const AttnCase& c) {
  if (c.n_seqs() < 2) return std::nullopt;
  const AttnRunResult a = run_attention(ctx.ex, fn, c);
  if (auto f = failed_call(fn, a)) return f;
  const auto qs = c.q_start(), ks = c.k_start();
  const std::size_t s = static_cast<std::size_t>(c.shift % c.n_seqs());
  AttnCase d = c;
  std::vector<std::int64_t> others;
  for (std::int64_t j = 0; j < c.total_k(); ++j)
    if (j < ks[s] || j >= ks[s + 1]) others.push_back(j);
  replace_keys(d, others, 77);
  const std::size_t qw = static_cast<std::size_t>(c.n_q_heads * c.head_dim);
  Rng r(0xabcdefull + s);
  for (std::int64_t t = 0; t < c.total_q(); ++t)
    if (t < qs[s] || t >= qs[s + 1])
      for (std::size_t l = 0; l < qw; ++l) d.q[static_cast<std::size_t>(t) * qw + l] = round_to_storage(r.signed_unit(), c.storage);
  const AttnRunResult b = run_attention(ctx.ex, fn, d);
  if (auto f = failed_call(fn, b)) return f;
  for (std::int64_t t = qs[s]; t < qs[s + 1]; ++t) {
    const std::int64_t k = differing(c, a, b, t);
    if (k < 0) continue;
    Failure f;
    f.clause = "ABI-ATTN-5";
    f.kind = "property";
    f.worst = locate_out(c, k);
    f.worst->expected = a.out[static_cast<std::size_t>(k)];
    f.worst->actual = b.out[static_cast<std::size_t>(k)];
    f.message = std::string(symbol(fn)) + ": replacing the other sequences' queries, keys and values changed out(token " +
                std::to_string(t) + ") of sequence " + std::to_string(s) + " from " + hex(f.worst->expected) + " to " +
                hex(f.worst->actual) + ": sequences of a batch are not isolated";
    return f;
  }
  return std::nullopt;
}

std::optional<Failure> eval_decode(Ctx& ctx, Fn fn, const AttnCase& c) {
  if (c.total_q() == 0) return std::nullopt;
  const AttnRunResult a = run_attention(ctx.ex, fn, c);
  if (auto f = failed_call(fn, a)) return f;
  const std::int64_t t = c.shift % c.total_q();
  const AttnCase d = single_query(c, t);
  const AttnRunResult b = run_attention(ctx.ex, fn, d);
  if (auto f = failed_call(fn, b)) return f;
  const AttnClass cls = chosen_attn_class(ctx, c.storage);
  const AttnExact ea = attention_exact(c, 0, cls), eb = attention_exact(d, 0, cls);
  const std::int64_t w = c.n_q_heads * c.head_dim_v;
  for (std::int64_t k = 0; k < w; ++k) {
    const std::size_t ka = static_cast<std::size_t>(t * w + k), kb = static_cast<std::size_t>(k);
    const double diff = std::fabs(static_cast<double>(a.out[ka]) - b.out[kb]);
    const bool bitwise = a.out_bits[ka] == b.out_bits[kb];
    const double bound = ea.out_bound[ka] + eb.out_bound[kb];
    if (bitwise || (!ctx.opt.strict && diff <= bound)) continue;
    Failure f;
    f.clause = "ABI-ATTN-6";
    f.kind = "property";
    f.worst = locate_out(c, static_cast<std::int64_t>(ka));
    f.worst->expected = a.out[ka];
    f.worst->actual = b.out[kb];
    f.worst->abs_error = diff;
    f.message = std::string(symbol(fn)) + ": the query at q_pos " + std::to_string(c.q_pos[static_cast<std::size_t>(t)]) +
                " computed alone (decode) gives " + hex(b.out[kb]) + ", in the full call (prefill) " + hex(a.out[ka]) +
                (ctx.opt.strict ? " (--strict: bit for bit)" : " (allowed " + hex(bound) + ")");
    return f;
  }
  return std::nullopt;
}

// ALiBi decay: equal keys, one-hot values (lane j of the output is key j's weight).
AttnCase gen_decay(Rng& r, const GenParams& p) {
  AttnCase c;
  c.encoding = PEC_ATTN_ALIBI;
  c.alibi_form = static_cast<std::int32_t>(r.range(0, 2));
  c.causal = c.alibi_form == PEC_ATTN_ALIBI_SYMMETRIC ? static_cast<std::int32_t>(r.range(0, 1)) : 1;
  static const std::int64_t kHeads[] = {1, 2, 3, 4, 8};
  c.n_q_heads = r.pick(kHeads);
  c.n_kv_heads = r.chance(50) ? 1 : c.n_q_heads;
  c.head_dim = r.range(1, 8);
  const std::int64_t lk = r.range(2, 24);
  c.head_dim_v = lk;
  c.q_len = {1}, c.k_len = {lk};
  std::int64_t pos = r.range(0, std::max<std::int64_t>(0, std::min<std::int64_t>(p.max_position - 3 * lk, 5000)));
  for (std::int64_t j = 0; j < lk; ++j) c.k_pos.push_back(pos), pos += r.range(1, 3);
  const std::int64_t last = c.k_pos.back();
  c.q_pos = {c.causal ? last + r.range(0, 2) : r.range(c.k_pos.front(), last)};
  c.scale = 1.0 / std::sqrt(static_cast<double>(c.head_dim));
  refill_attention(c, r);
  for (std::int64_t j = 1; j < lk; ++j)  // every key equal
    std::copy_n(c.k.begin(), c.n_kv_heads * c.head_dim, c.k.begin() + j * c.n_kv_heads * c.head_dim);
  for (std::int64_t j = 0; j < lk; ++j)
    for (std::int64_t g = 0; g < c.n_kv_heads; ++g)
      for (std::int64_t l = 0; l < lk; ++l) c.v[static_cast<std::size_t>((j * c.n_kv_heads + g) * lk + l)] = l == j ? 1.0f : 0.0f;
  c.note = "ALiBi decay: equal keys, one-hot values";
  return c;
}

std::optional<Failure> eval_decay(Ctx& ctx, Fn fn, const AttnCase& c) {
  if (c.encoding != PEC_ATTN_ALIBI || c.n_seqs() != 1 || c.q_len[0] != 1 || c.k_len[0] < 2) return std::nullopt;
  if (c.alibi_form != PEC_ATTN_ALIBI_SYMMETRIC && !c.causal) return std::nullopt;  // signed, unmasked: rewards keys ahead
  const std::int64_t lk = c.k_len[0], Dv = c.head_dim_v, Hkv = c.n_kv_heads, D = c.head_dim;
  std::vector<std::int64_t> lane(static_cast<std::size_t>(lk), -1);
  for (std::int64_t j = 0; j < lk; ++j) {  // the one-hot lane of each key (shrinking may drop keys)
    for (std::int64_t g = 0; g < Hkv; ++g) {
      for (std::int64_t l = 0; l < D; ++l)
        if (c.k[static_cast<std::size_t>((j * Hkv + g) * D + l)] != c.k[static_cast<std::size_t>(g * D + l)]) return std::nullopt;
      std::int64_t hot = -1, ones = 0;
      for (std::int64_t l = 0; l < Dv; ++l) {
        const float x = c.v[static_cast<std::size_t>((j * Hkv + g) * Dv + l)];
        if (x == 1.0f) hot = l, ++ones;
        else if (x != 0.0f) return std::nullopt;
      }
      if (ones != 1 || (g > 0 && hot != lane[static_cast<std::size_t>(j)])) return std::nullopt;
      lane[static_cast<std::size_t>(j)] = hot;
    }
  }
  const AttnRunResult r = run_attention(ctx.ex, fn, c);
  if (auto f = failed_call(fn, r)) return f;
  const AttnExact e = attention_exact(c, 0, chosen_attn_class(ctx, c.storage));
  const std::int64_t qp = c.q_pos[0];
  for (std::int64_t h = 0; h < c.n_q_heads; ++h) {
    for (std::int64_t a = 0; a < lk; ++a) {
      for (std::int64_t b = 0; b < lk; ++b) {
        const std::int64_t pa = c.k_pos[static_cast<std::size_t>(a)], pb = c.k_pos[static_cast<std::size_t>(b)];
        if (!attn_visible(c, qp, pa) || !attn_visible(c, qp, pb) || std::llabs(qp - pa) >= std::llabs(qp - pb)) continue;
        const std::size_t ka = static_cast<std::size_t>(h * Dv + lane[static_cast<std::size_t>(a)]);
        const std::size_t kb = static_cast<std::size_t>(h * Dv + lane[static_cast<std::size_t>(b)]);
        const double wa = r.out[ka], wb = r.out[kb];
        if (!(wa < wb - (e.out_bound[ka] + e.out_bound[kb]))) continue;
        Failure f;
        f.clause = "ABI-ATTN-7";
        f.kind = "property";
        f.worst = locate_out(c, static_cast<std::int64_t>(ka));
        f.worst->expected = e.out[ka];
        f.worst->actual = wa;
        f.message = std::string(symbol(fn)) + ": with equal keys, head " + std::to_string(h) + " weighs the key at k_pos " +
                    std::to_string(pa) + " (distance " + std::to_string(std::llabs(qp - pa)) + ") " + hex(wa) +
                    ", less than the farther key at k_pos " + std::to_string(pb) + " (distance " +
                    std::to_string(std::llabs(qp - pb)) + ") " + hex(wb) + ": ALiBi must decay with distance";
        return f;
      }
    }
  }
  return std::nullopt;
}

AttnCase gen_gqa(Rng& r, const GenParams& p) {
  AttnCase c = gen_attention(r, p);
  static const std::int64_t kPairs[][2] = {{4, 2}, {6, 2}, {6, 3}, {8, 2}, {12, 4}, {9, 3}, {2, 2}};
  const auto& pr = r.pick(kPairs);
  c.n_q_heads = pr[0], c.n_kv_heads = pr[1];
  refill_attention(c, r);
  return c;
}

}  // namespace

std::string attention_skip_reason(const Domain& d, const std::string& name) {
  if (!name.starts_with("attention")) return "";
  const bool aligned = d.attn_alignment != 0;
  if (aligned && name.ends_with(".shift"))
    return "the declared domain (attention.positions " + std::string(d.attn_alignment == 1 ? "bottom-right" : "top-left") +
           ") derives positions from lengths: a common shift is not representable";
  if (d.attn_decode && name.ends_with(".decode")) return "the declared domain (attention.decode) has one query per sequence";
  if (aligned && name.ends_with(".decode"))
    return "the declared domain derives positions from lengths: a query alone would get another position";
  bool alibi = d.attn_encodings.empty();
  for (auto e : d.attn_encodings) alibi = alibi || e == PEC_ATTN_ALIBI;
  if (name.ends_with(".alibi_decay") && (!alibi || d.attn_alignment != 0))
    return "the declared domain has no ALiBi case with free positions";
  return "";
}

// A valid-call evaluator that declines cases outside the declared domain (shrinking drops
// tokens, which may leave positions the declared alignment cannot give).
template <class F>
auto in_domain(F f) {
  return [f](Ctx& ctx, const AttnCase& c) -> std::optional<Failure> {
    if (ctx.domain && !inside(*ctx.domain, c)) return std::nullopt;
    return f(ctx, c);
  };
}

void add_attention_checks(std::vector<AnyCheck>& out) {
  for (Storage st : kAllStorages) {
    const Fn fn = fn_of(Family::Attention, st);
    const std::string p = check_prefix(fn);
    CheckDef<AttnCase> def{p + ".oracle", "ABI-ATTN-2",
                              "out and lse against the exact softmax attention (PREC-ATTN-*), graded in every class (eager, online, p16), judged in the chosen one (default field)",
                              fn, 40, gen_attention,
                              in_domain([fn](Ctx& ctx, const AttnCase& c) { return eval_oracle(ctx, fn, c, "ABI-ATTN-2"); })};
    def.grade_all = true;
    out.push_back(make_check<AttnCase>(std::move(def)));
    out.push_back(make_check<AttnCase>({p + ".gqa", "ABI-ATTN-8",
                                        "query head h reads key and value head h / (n_q_heads / n_kv_heads): every key head differs",
                                        fn, 20, gen_gqa,
                                        in_domain([fn](Ctx& ctx, const AttnCase& c) { return eval_oracle(ctx, fn, c, "ABI-ATTN-8"); })}));
    out.push_back(make_check<AttnCase>(
        {p + ".shift", "ABI-ATTN-4", "every query and key position moved by one c leaves the output within the contract",
         fn, 25,
         [](Rng& r, const GenParams& gp) {
           AttnCase c = gen_attention(r, gp);
           c.shift = r.chance(40) ? (std::int64_t{1} << 31) : r.range(1, 1 << 20);  // clipped to the room left
           return c;
         },
         in_domain([fn](Ctx& ctx, const AttnCase& c) { return eval_shift(ctx, fn, c); })}));
    out.push_back(make_check<AttnCase>(
        {p + ".mask", "ABI-ATTN-5", "keys and values the causal mask or window excludes replaced: the output is unchanged, bit for bit",
         fn, 25,
         [](Rng& r, const GenParams& gp) {
           AttnCase c = gen_attention(r, gp);
           if (!c.causal && c.window_left < 0 && c.window_right < 0) c.causal = 1;
           return c;
         },
         in_domain([fn](Ctx& ctx, const AttnCase& c) { return eval_mask(ctx, fn, c); })}));
    out.push_back(make_check<AttnCase>(
        {p + ".isolation", "ABI-ATTN-5", "the other sequences of the batch replaced: a sequence's output is unchanged, bit for bit",
         fn, 20,
         [](Rng& r, const GenParams& gp) {
           AttnCase c = gen_attention(r, gp);
           for (int i = 0; i < 8 && c.n_seqs() < 2; ++i) c = gen_attention(r, gp);
           c.shift = r.range(0, 2);
           return c;
         },
         in_domain([fn](Ctx& ctx, const AttnCase& c) { return eval_isolation(ctx, fn, c); })}));
    out.push_back(make_check<AttnCase>(
        {p + ".decode", "ABI-ATTN-6", "a query computed alone against its keys agrees with its row in the full call",
         fn, 20,
         [](Rng& r, const GenParams& gp) {
           AttnCase c = gen_attention(r, gp);
           c.shift = r.range(0, 1 << 20);
           return c;
         },
         in_domain([fn](Ctx& ctx, const AttnCase& c) { return eval_decode(ctx, fn, c); })}));
    out.push_back(make_check<AttnCase>({p + ".alibi_decay", "ABI-ATTN-7",
                                        "ALiBi with equal keys never weighs a nearer key less than a farther one", fn, 20,
                                        gen_decay, in_domain([fn](Ctx& ctx, const AttnCase& c) { return eval_decay(ctx, fn, c); })}));
    add_attention_memory_checks(out, fn);
  }
}

}  // namespace pecheck::verifier
