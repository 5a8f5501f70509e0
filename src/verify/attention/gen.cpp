// Attention cases (cases.hpp): the shape and mask helpers, the valid generator (lengths off every
// block multiple, q longer than k, 1..64 heads with non-powers of two, positions up to 2^31 - 1,
// decode with hundreds of keys), storage fitting and the report description.
#include <algorithm>
#include <cmath>

#include "verify/attention/cases.hpp"

namespace pecheck::verifier {

namespace {

std::int64_t sum(const std::vector<std::int64_t>& v) {
  std::int64_t s = 0;
  for (auto x : v) s += std::max<std::int64_t>(x, 0);
  return s;
}

std::vector<std::int64_t> prefix(const std::vector<std::int64_t>& len) {
  std::vector<std::int64_t> s{0};
  for (auto x : len) s.push_back(s.back() + x);
  return s;
}

void fill(std::vector<float>& v, std::size_t n, Rng& r, double mag) {
  v.resize(n);
  for (auto& x : v) x = static_cast<float>(r.signed_unit() * mag);
}

}  // namespace

std::int64_t AttnCase::total_q() const { return explicit_offsets && !q_start_given.empty() ? std::max<std::int64_t>(q_start_given.back(), 0) : sum(q_len); }
std::int64_t AttnCase::total_k() const { return explicit_offsets && !k_start_given.empty() ? std::max<std::int64_t>(k_start_given.back(), 0) : sum(k_len); }
std::vector<std::int64_t> AttnCase::q_start() const { return explicit_offsets ? q_start_given : prefix(q_len); }
std::vector<std::int64_t> AttnCase::k_start() const { return explicit_offsets ? k_start_given : prefix(k_len); }

std::int64_t attn_heads(const AttnCase& c, int t) { return t == 0 || t == 3 ? c.n_q_heads : c.n_kv_heads; }
std::int64_t attn_dim(const AttnCase& c, int t) { return t < 2 ? c.head_dim : c.head_dim_v; }
std::int64_t attn_tokens(const AttnCase& c, int t) { return t == 0 || t == 3 ? c.total_q() : c.total_k(); }

pec_strides attn_strides(const AttnCase& c, int t) {
  const std::int64_t D = std::max<std::int64_t>(attn_dim(c, t), 0), H = std::max<std::int64_t>(attn_heads(c, t), 0);
  pec_strides s;
  s.head = D + c.head_gap[t];
  s.token = H * s.head + c.token_gap[t];
  return s;
}

bool attn_visible(const AttnCase& c, std::int64_t qp, std::int64_t kp) {
  if (c.causal && kp > qp) return false;
  if (c.window_left >= 0 && qp - kp > c.window_left) return false;
  if (c.window_right >= 0 && kp - qp > c.window_right) return false;
  return true;
}

double attn_alibi_bias(const AttnCase& c, std::int64_t h, std::int64_t qp, std::int64_t kp) {
  const double s = c.slopes[static_cast<std::size_t>(h)];
  switch (c.alibi_form) {
    case PEC_ATTN_ALIBI_SYMMETRIC: return -s * static_cast<double>(qp > kp ? qp - kp : kp - qp);
    case PEC_ATTN_ALIBI_KEY_ONLY: return s * static_cast<double>(kp);
    default: return -s * static_cast<double>(qp - kp);
  }
}

void fit_storage(AttnCase& c) {
  for (auto* t : {&c.q, &c.k, &c.v}) {
    for (auto& x : *t) x = round_to_storage(static_cast<double>(x), c.storage);
  }
}

void refill_attention(AttnCase& c, Rng& r) {
  const double qmag = r.chance(25) ? 4.0 : 1.0;  // peaked rows: one key dominates
  fill(c.q, static_cast<std::size_t>(c.total_q() * c.n_q_heads * c.head_dim), r, qmag);
  fill(c.k, static_cast<std::size_t>(c.total_k() * c.n_kv_heads * c.head_dim), r, 1.0);
  fill(c.v, static_cast<std::size_t>(c.total_k() * c.n_kv_heads * c.head_dim_v), r, r.chance(20) ? 16.0 : 1.0);
  c.slopes.resize(static_cast<std::size_t>(c.n_q_heads));
  // ALiBi slopes: the geometric ones of the paper (spec/alibi.md) or arbitrary positive ones.
  std::int64_t p2 = 1;
  while (p2 * 2 <= c.n_q_heads) p2 *= 2;
  const bool geometric = r.chance(60);
  for (std::int64_t h = 0; h < c.n_q_heads; ++h) {
    const double e = h < p2 ? -8.0 * (h + 1) / p2 : -4.0 * (2 * (h - p2) + 1) / p2;
    c.slopes[static_cast<std::size_t>(h)] =
        geometric ? static_cast<float>(std::exp2(e)) : static_cast<float>(0.01 + 0.99 * r.unit());
  }
  fill(c.t5_table, static_cast<std::size_t>(std::max<std::int64_t>(c.t5_num_buckets, 0) * c.n_q_heads), r, 2.0);
  if (c.has_inv_freq) {
    c.inv_freq.resize(static_cast<std::size_t>(c.rotary_dim / 2));
    for (std::size_t i = 0; i < c.inv_freq.size(); ++i)
      c.inv_freq[i] = static_cast<float>(std::pow(c.theta_base, -2.0 * static_cast<double>(i) / static_cast<double>(c.rotary_dim)) / (1 + 7 * r.unit()));
  }
}

// Positions of one sequence: contiguous (a KV cache with queries at its end, bottom-right),
// top-left, from a base up to the largest position, or distinct with gaps.
static void seq_positions(Rng& r, std::int64_t lq, std::int64_t lk, std::int64_t maxp, std::vector<std::int64_t>& qp,
                          std::vector<std::int64_t>& kp) {
  const int mode = static_cast<int>(r.range(0, 4));
  std::int64_t base = 0;
  if (mode == 2) base = std::max<std::int64_t>(0, maxp - std::max(lq, lk) - r.range(0, 2));
  if (mode == 3) base = r.range(0, std::max<std::int64_t>(0, maxp - std::max(lq, lk)));
  if (mode == 4) {  // distinct, increasing, with gaps (a sparse or pruned cache)
    std::int64_t p = r.range(0, std::max<std::int64_t>(0, std::min<std::int64_t>(maxp / 2, 1000)));
    for (std::int64_t j = 0; j < lk; ++j) kp.push_back(std::min(maxp, p)), p += r.range(1, 3);
    for (std::int64_t i = 0; i < lq; ++i) qp.push_back(std::min(maxp, r.range(std::max<std::int64_t>(0, p - lk - 3), p)));
    std::sort(qp.begin(), qp.end());
    return;
  }
  for (std::int64_t j = 0; j < lk; ++j) kp.push_back(std::min(maxp, base + j));
  for (std::int64_t i = 0; i < lq; ++i) {
    const std::int64_t pos = mode == 1 ? base + i : base + lk - lq + i;  // top-left / bottom-right
    qp.push_back(std::clamp<std::int64_t>(pos, 0, maxp));
  }
}

AttnCase gen_attention(Rng& r, const GenParams& p) {
  AttnCase c;
  static const std::int64_t kHeads[] = {1, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 64};
  c.n_q_heads = r.pick(kHeads);
  std::vector<std::int64_t> divs;
  for (std::int64_t d = 1; d <= c.n_q_heads; ++d)
    if (c.n_q_heads % d == 0) divs.push_back(d);
  c.n_kv_heads = divs[static_cast<std::size_t>(r.range(0, static_cast<std::int64_t>(divs.size()) - 1))];
  static const std::int64_t kDims[] = {1, 2, 3, 4, 6, 8, 16, 32, 64};
  c.head_dim = r.pick(kDims);
  c.head_dim_v = r.chance(70) ? c.head_dim : r.pick(kDims);
  c.encoding = static_cast<std::int32_t>(r.range(0, 3));
  if (c.encoding == PEC_ATTN_ROPE && c.head_dim < 2) c.head_dim = 2 * r.range(1, 8);
  const bool decode = r.chance(15);
  const std::int64_t seqs = decode ? r.range(1, 3) : r.chance(50) ? 1 : r.range(2, 3);
  // Work bound: keys x queries x heads x dim stays small enough for the oracle (and the runs).
  const std::int64_t width = c.n_q_heads * std::max(c.head_dim, c.head_dim_v);
  const std::int64_t kmax = decode ? std::max<std::int64_t>(8, std::min<std::int64_t>(700, 60000 / width)) : 40;
  for (std::int64_t s = 0; s < seqs; ++s) {
    std::int64_t lq = decode ? 1 : r.range(1, 9);
    std::int64_t lk = decode ? r.range(kmax / 2, kmax) : r.range(1, kmax);
    if (!decode && r.chance(20)) lq = lk + r.range(1, 5);  // q longer than k
    if (!decode && r.chance(10)) lk = 0;                    // an empty cache: every row empty
    while (lq * lk * width > 40000 && lk > 1) lk /= 2;
    c.q_len.push_back(lq);
    c.k_len.push_back(lk);
    seq_positions(r, lq, lk, p.max_position, c.q_pos, c.k_pos);
  }
  c.causal = r.chance(50) ? 1 : 0;
  if (r.chance(25)) {
    c.window_left = r.range(0, 8);
    c.window_right = c.causal ? -1 : (r.chance(50) ? -1 : r.range(0, 4));
  } else if (!c.causal && r.chance(10)) {
    c.window_right = r.range(0, 3);
  }
  c.scale = r.chance(60) ? 1.0 / std::sqrt(static_cast<double>(c.head_dim)) : 0.05 + r.unit();
  if (r.chance(15)) c.softcap = static_cast<double>(r.range(2, 50));
  c.rotary_dim = 2 * r.range(1, std::max<std::int64_t>(1, c.head_dim / 2));
  if (r.chance(60)) c.rotary_dim = c.head_dim - (c.head_dim % 2);
  c.rope_layout = r.chance(50) ? PEC_ROPE_NEOX : PEC_ROPE_GPTJ;
  c.theta_base = r.chance(70) ? 10000.0 : 500000.0;
  c.position_scale = r.chance(80) ? 1.0 : 0.25;
  c.attn_factor = r.chance(80) ? 1.0 : 1.25;
  c.has_inv_freq = r.chance(15);
  c.alibi_form = static_cast<std::int32_t>(r.range(0, 2));
  static const std::int64_t kBuckets[] = {32, 32, 8, 16};
  c.t5_num_buckets = r.pick(kBuckets);
  c.t5_bidirectional = r.chance(50) ? 1 : 0;
  c.t5_max_distance = c.t5_num_buckets * (r.chance(50) ? 4 : 2);
  for (int t = 0; t < 4; ++t) {
    if (r.chance(25)) c.head_gap[t] = r.range(1, 3);
    if (r.chance(25)) c.token_gap[t] = r.range(1, 5);
  }
  c.want_lse = r.chance(80);
  c.note = decode ? "decode: one query per sequence" : "";
  refill_attention(c, r);
  return c;
}

void describe(const AttnCase& c, std::vector<report::Arg>& args, std::vector<report::Tensor>& in) {
  static const char* kEnc[] = {"none", "rope", "alibi", "t5"};
  static const char* kForm[] = {"symmetric", "key-only", "signed"};
  args.push_back({"n_seqs", c.n_seqs()});
  args.push_back({"q_start", c.q_start()});
  args.push_back({"k_start", c.k_start()});
  args.push_back({"q_pos", c.q_pos});
  args.push_back({"k_pos", c.k_pos});
  args.push_back({"n_q_heads", c.n_q_heads});
  args.push_back({"n_kv_heads", c.n_kv_heads});
  args.push_back({"head_dim", c.head_dim});
  args.push_back({"head_dim_v", c.head_dim_v});
  args.push_back({"scale", c.scale});
  if (c.softcap != 0) args.push_back({"softcap", c.softcap});
  args.push_back({"causal", static_cast<std::int64_t>(c.causal)});
  args.push_back({"window_left", c.window_left});
  args.push_back({"window_right", c.window_right});
  const bool known = c.encoding >= 0 && c.encoding <= 3;
  args.push_back({"encoding", known ? std::string(kEnc[c.encoding]) : "invalid (" + std::to_string(c.encoding) + ")"});
  if (c.encoding == PEC_ATTN_ROPE) {
    args.push_back({"rotary_dim", c.rotary_dim});
    args.push_back({"rope_layout", std::string(c.rope_layout == PEC_ROPE_NEOX ? "neox" : "gptj")});
    args.push_back({"theta_base", c.theta_base});
    args.push_back({"position_scale", c.position_scale});
    args.push_back({"attn_factor", c.attn_factor});
    if (c.has_inv_freq) in.push_back({"inv_freq", {static_cast<std::int64_t>(c.inv_freq.size())}, c.inv_freq});
  } else if (c.encoding == PEC_ATTN_ALIBI) {
    const bool ok = c.alibi_form >= 0 && c.alibi_form <= 2;
    args.push_back({"alibi_form", ok ? std::string(kForm[c.alibi_form]) : "invalid (" + std::to_string(c.alibi_form) + ")"});
    in.push_back({"alibi_slopes", {static_cast<std::int64_t>(c.slopes.size())}, c.slopes});
  } else if (c.encoding == PEC_ATTN_T5) {
    args.push_back({"t5_num_buckets", c.t5_num_buckets});
    args.push_back({"t5_max_distance", c.t5_max_distance});
    args.push_back({"t5_bidirectional", static_cast<std::int64_t>(c.t5_bidirectional)});
    in.push_back({"t5_table", {c.t5_num_buckets, c.n_q_heads}, c.t5_table});
  }
  static const char* kView[] = {"q", "k", "v", "out"};
  for (int t = 0; t < 4; ++t) {
    const pec_strides s = attn_strides(c, t);
    args.push_back({std::string(kView[t]) + " strides [token, head]", std::vector<std::int64_t>{s.token, s.head}});
  }
  args.push_back({"lse", std::string(c.want_lse ? "requested" : "NULL")});
  if (!c.null_field.empty()) args.push_back({"NULL argument", c.null_field});
  in.push_back({"q", {c.total_q(), c.n_q_heads, c.head_dim}, c.q});
  in.push_back({"k", {c.total_k(), c.n_kv_heads, c.head_dim}, c.k});
  in.push_back({"v", {c.total_k(), c.n_kv_heads, c.head_dim_v}, c.v});
}

std::vector<std::string> valid_edges(const AttnCase& c) {
  std::vector<std::string> out;
  const auto n = [](std::int64_t v) { return std::to_string(v); };
  if (c.n_seqs() == 0 || c.total_q() == 0) out.push_back("no query tokens: an empty call (ABI-ATTN-1) returns 0");
  for (std::int64_t s = 0; s < c.n_seqs(); ++s) {
    if (c.k_len[static_cast<std::size_t>(s)] == 0) {
      out.push_back("sequence " + n(s) + " has no keys (ABI-ATTN-1: lengths >= 0; its queries attend to nothing)");
      break;
    }
  }
  for (std::int64_t s = 0; s < c.n_seqs(); ++s) {
    if (c.q_len[static_cast<std::size_t>(s)] > c.k_len[static_cast<std::size_t>(s)]) {
      out.push_back("sequence " + n(s) + " has more queries than keys (ABI-ATTN-1: lengths independent)");
      break;
    }
  }
  if (c.n_q_heads != c.n_kv_heads) {
    out.push_back("GQA: n_q_heads " + n(c.n_q_heads) + ", n_kv_heads " + n(c.n_kv_heads) +
                  " (ABI-ATTN-8: any n_kv_heads dividing n_q_heads)");
  }
  if (c.head_dim_v != c.head_dim) {
    out.push_back("head_dim_v " + n(c.head_dim_v) + " != head_dim " + n(c.head_dim) + " (ABI-ATTN-1)");
  }
  for (int t = 0; t < 4; ++t) {
    if (c.head_gap[t] != 0 || c.token_gap[t] != 0) {
      out.push_back("strided views with gaps (ABI-VIEW-1)");
      break;
    }
  }
  std::int64_t top = -1;
  for (auto p : c.q_pos) top = std::max(top, p);
  for (auto p : c.k_pos) top = std::max(top, p);
  if (top >= (std::int64_t{1} << 24)) out.push_back("positions up to " + n(top) + " (ABI-ATTN-1: any position in [0, 2^31))");
  if (c.window_left >= 0 || c.window_right >= 0) out.push_back("a sliding window (ABI-ATTN-3)");
  if (c.softcap > 0) out.push_back("a soft cap (ABI-ATTN-3)");
  if (!c.want_lse) out.push_back("no lse output requested (ABI-ATTN-1: lse may be NULL)");
  return out;
}

}  // namespace pecheck::verifier
