// Declared domains of attention kernels (spec/abi.md ABI-DOM-4) and shrinking of attention cases
// to the fewest sequences, tokens, heads and lanes.
#include <algorithm>
#include <cstdlib>

#include "core/error.hpp"
#include "verify/attention/cases.hpp"

namespace pecheck::verifier {

bool parse_attention_rule(Domain& d, const std::string& key, const std::vector<std::string>& vs, const std::string& rule,
                          const std::string& origin) {
  if (!key.starts_with("attention.")) return false;
  const std::string k = key.substr(10);
  auto bad = [&](const std::string& what) { throw UsageError(origin + ": rule '" + rule + "': " + what); };
  if (k == "positions") {
    if (vs.size() != 1) bad("one of explicit, bottom-right, top-left");
    if (vs[0] == "explicit") d.attn_alignment = 0;
    else if (vs[0] == "bottom-right") d.attn_alignment = 1;
    else if (vs[0] == "top-left") d.attn_alignment = 2;
    else bad("one of explicit, bottom-right, top-left");
  } else if (k == "encoding") {
    for (const auto& v : vs) {
      if (v == "none") d.attn_encodings.push_back(PEC_ATTN_NONE);
      else if (v == "rope") d.attn_encodings.push_back(PEC_ATTN_ROPE);
      else if (v == "alibi") d.attn_encodings.push_back(PEC_ATTN_ALIBI);
      else if (v == "t5") d.attn_encodings.push_back(PEC_ATTN_T5);
      else bad("encodings are none, rope, alibi, t5");
    }
  } else if (k == "alibi_form") {
    for (const auto& v : vs) {
      if (v == "symmetric") d.attn_alibi_forms.push_back(PEC_ATTN_ALIBI_SYMMETRIC);
      else if (v == "key-only") d.attn_alibi_forms.push_back(PEC_ATTN_ALIBI_KEY_ONLY);
      else if (v == "signed") d.attn_alibi_forms.push_back(PEC_ATTN_ALIBI_SIGNED);
      else bad("ALiBi forms are symmetric, key-only, signed");
    }
  } else if (k == "decode") {
    if (vs.size() != 1 || (vs[0] != "yes" && vs[0] != "no")) bad("yes or no");
    d.attn_decode = vs[0] == "yes";
  } else if (k == "max_position") {
    char* end = nullptr;
    const long long m = vs.size() == 1 ? std::strtoll(vs[0].c_str(), &end, 10) : 0;
    if (vs.size() != 1 || *end != '\0' || m < 1 || m > (std::int64_t{1} << 31) - 1) bad("an integer in [1, 2^31 - 1]");
    d.attn_max_position = m;
  } else {
    throw UsageError(origin + ": unknown rule '" + key +
                     "' (attention.positions, attention.encoding, attention.alibi_form, attention.decode, attention.max_position)");
  }
  return true;
}

void merge_attention_rules(Domain& d, const Domain& cli) {
  if (cli.attn_alignment != 0) d.attn_alignment = cli.attn_alignment;
  if (!cli.attn_encodings.empty()) d.attn_encodings = cli.attn_encodings;
  if (!cli.attn_alibi_forms.empty()) d.attn_alibi_forms = cli.attn_alibi_forms;
  d.attn_decode = d.attn_decode || cli.attn_decode;
  if (cli.attn_max_position) d.attn_max_position = cli.attn_max_position;
}

void untested_attention(const Domain& d, std::vector<std::string>& out) {
  if (d.attn_alignment == 1) out.push_back("attention: positions bottom-right only (relative shift, gaps, top-left untested)");
  if (d.attn_alignment == 2) out.push_back("attention: positions top-left only (relative shift, gaps, KV-cache offsets untested)");
  if (!d.attn_encodings.empty() && d.attn_encodings.size() < 4) out.push_back("attention: encodings outside the declared list untested");
  if (!d.attn_alibi_forms.empty() && d.attn_alibi_forms.size() < 3) out.push_back("attention: ALiBi forms outside the declared list untested");
  if (d.attn_decode) out.push_back("attention: more than one query per sequence (prefill) untested");
  if (d.attn_max_position) out.push_back("attention: positions above " + std::to_string(*d.attn_max_position) + " untested");
}

void align_positions(AttnCase& c, int alignment) {
  c.q_pos.clear(), c.k_pos.clear();
  for (std::size_t s = 0; s < c.q_len.size(); ++s) {
    const std::int64_t lq = c.q_len[s], lk = c.k_len[s];
    for (std::int64_t j = 0; j < lk; ++j) c.k_pos.push_back(j);
    for (std::int64_t i = 0; i < lq; ++i) c.q_pos.push_back(alignment == 1 ? lk - lq + i : i);
  }
}

void constrain(const Domain& d, AttnCase& c, Rng& r) {
  if (!d.declared) return;
  auto contains = [](const std::vector<std::int32_t>& v, std::int32_t x) { return v.empty() || std::find(v.begin(), v.end(), x) != v.end(); };
  if (!contains(d.attn_encodings, c.encoding)) c.encoding = d.attn_encodings[static_cast<std::size_t>(r.range(0, static_cast<std::int64_t>(d.attn_encodings.size()) - 1))];
  if (c.encoding == PEC_ATTN_ROPE && (c.rotary_dim < 2 || c.rotary_dim > c.head_dim)) {
    c.head_dim = std::max<std::int64_t>(c.head_dim, 2), c.rotary_dim = 2;
  }
  if (!contains(d.attn_alibi_forms, c.alibi_form)) c.alibi_form = d.attn_alibi_forms[0];
  bool resized = false;
  if (d.attn_decode) {
    for (auto& l : c.q_len) resized |= l != 1, l = 1;
    if (resized) {  // one query per sequence, at the end of its keys
      c.q_pos.clear();
      std::size_t k0 = 0;
      for (std::size_t s = 0; s < c.q_len.size(); ++s) {
        const std::int64_t lk = c.k_len[s];
        c.q_pos.push_back(lk > 0 ? c.k_pos[k0 + static_cast<std::size_t>(lk) - 1] : 0);
        k0 += static_cast<std::size_t>(lk);
      }
    }
  }
  if (d.attn_alignment != 0) {
    if (d.attn_alignment == 1) {  // bottom-right: Lq <= Lk (a query never precedes position 0)
      for (std::size_t s = 0; s < c.q_len.size(); ++s) {
        if (c.q_len[s] > c.k_len[s]) c.k_len[s] = c.q_len[s], resized = true;
      }
    }
    align_positions(c, d.attn_alignment);
  }
  if (d.attn_max_position) {
    for (auto* v : {&c.q_pos, &c.k_pos})
      for (auto& p : *v) p = std::min(p, *d.attn_max_position);
  }
  if (resized || c.encoding == PEC_ATTN_ROPE) refill_attention(c, r);
}

bool inside(const Domain& d, const AttnCase& c) {
  if (!d.declared) return true;
  AttnCase x = c;
  Rng r(0);
  constrain(d, x, r);
  return x.q_pos == c.q_pos && x.k_pos == c.k_pos && x.encoding == c.encoding && x.alibi_form == c.alibi_form &&
         x.q_len == c.q_len;
}

void case_from_entry(const CorpusEntry&, AttnCase&) {
  throw UsageError("stored cases for the attention checks are not supported");
}

namespace {

// Keeps only sequence s (its tokens, positions and values).
AttnCase only_sequence(const AttnCase& c, std::size_t s) {
  AttnCase d = c;
  const auto qs = c.q_start(), ks = c.k_start();
  const std::int64_t q0 = qs[s], q1 = qs[s + 1], k0 = ks[s], k1 = ks[s + 1];
  d.q_len = {c.q_len[s]}, d.k_len = {c.k_len[s]};
  d.q_pos.assign(c.q_pos.begin() + q0, c.q_pos.begin() + q1);
  d.k_pos.assign(c.k_pos.begin() + k0, c.k_pos.begin() + k1);
  const std::size_t qw = static_cast<std::size_t>(c.n_q_heads * c.head_dim);
  const std::size_t kw = static_cast<std::size_t>(c.n_kv_heads * c.head_dim);
  const std::size_t vw = static_cast<std::size_t>(c.n_kv_heads * c.head_dim_v);
  d.q.assign(c.q.begin() + static_cast<std::ptrdiff_t>(q0 * qw), c.q.begin() + static_cast<std::ptrdiff_t>(q1 * qw));
  d.k.assign(c.k.begin() + static_cast<std::ptrdiff_t>(k0 * kw), c.k.begin() + static_cast<std::ptrdiff_t>(k1 * kw));
  d.v.assign(c.v.begin() + static_cast<std::ptrdiff_t>(k0 * vw), c.v.begin() + static_cast<std::ptrdiff_t>(k1 * vw));
  return d;
}

// Drops token t of a one-sequence case (query or key side).
AttnCase drop_token(const AttnCase& c, bool key, std::int64_t t) {
  AttnCase d = c;
  const std::size_t w = static_cast<std::size_t>(key ? c.n_kv_heads * c.head_dim : c.n_q_heads * c.head_dim);
  auto& pos = key ? d.k_pos : d.q_pos;
  auto& x = key ? d.k : d.q;
  pos.erase(pos.begin() + t);
  x.erase(x.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(t) * w),
          x.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(t + 1) * w));
  if (key) {
    const std::size_t vw = static_cast<std::size_t>(c.n_kv_heads * c.head_dim_v);
    d.v.erase(d.v.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(t) * vw),
              d.v.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(t + 1) * vw));
    d.k_len[0] -= 1;
  } else {
    d.q_len[0] -= 1;
  }
  return d;
}

// Keeps the first n heads of a [T][H][D] tensor.
std::vector<float> first_heads(const std::vector<float>& x, std::int64_t T, std::int64_t H, std::int64_t D, std::int64_t n) {
  std::vector<float> out;
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t h = 0; h < n; ++h)
      for (std::int64_t l = 0; l < D; ++l) out.push_back(x[static_cast<std::size_t>((t * H + h) * D + l)]);
  return out;
}

std::vector<float> first_lanes(const std::vector<float>& x, std::int64_t TH, std::int64_t D, std::int64_t n) {
  std::vector<float> out;
  for (std::int64_t th = 0; th < TH; ++th)
    for (std::int64_t l = 0; l < n; ++l) out.push_back(x[static_cast<std::size_t>(th * D + l)]);
  return out;
}

}  // namespace

std::vector<AttnCase> shrink_candidates(const AttnCase& c) {
  std::vector<AttnCase> out;
  if (c.explicit_offsets || !c.null_field.empty() || !invalid_reason(c).empty()) {
    // Invalid cases shrink by their values only (the broken rule stays as built).
    return out;
  }
  if (c.n_seqs() > 1) {
    for (std::size_t s = 0; s < c.q_len.size(); ++s) out.push_back(only_sequence(c, s));
    return out;
  }
  if (c.n_seqs() == 1) {
    // Halves first (a decode row of hundreds of keys shrinks in a few steps), then single tokens.
    for (bool key : {false, true}) {
      const std::int64_t n = key ? c.k_len[0] : c.q_len[0];
      if (n < 8 || (!key && n < 2)) continue;
      for (int half = 0; half < 2; ++half) {
        AttnCase d = c;
        const std::int64_t lo = half == 0 ? 0 : n / 2, hi = half == 0 ? n / 2 : n;  // drop [lo, hi)
        for (std::int64_t t = hi - 1; t >= lo; --t) d = drop_token(d, key, t);
        out.push_back(std::move(d));
      }
    }
    for (std::int64_t t = 0; t < c.q_len[0] && c.q_len[0] > 1; ++t) out.push_back(drop_token(c, false, t));
    if (c.k_len[0] <= 64)
      for (std::int64_t t = 0; t < c.k_len[0]; ++t) out.push_back(drop_token(c, true, t));
  }
  const std::int64_t G = c.group();
  if (c.n_q_heads > 1) {  // fewer heads: keep the group shape when possible
    for (std::int64_t nq : {std::int64_t{1}, c.n_q_heads / 2}) {
      if (nq < 1 || nq >= c.n_q_heads) continue;
      AttnCase d = c;
      d.n_q_heads = nq;
      d.n_kv_heads = std::max<std::int64_t>(1, nq / G);
      if (nq % d.n_kv_heads) d.n_kv_heads = 1;
      d.q = first_heads(c.q, c.total_q(), c.n_q_heads, c.head_dim, nq);
      d.k = first_heads(c.k, c.total_k(), c.n_kv_heads, c.head_dim, d.n_kv_heads);
      d.v = first_heads(c.v, c.total_k(), c.n_kv_heads, c.head_dim_v, d.n_kv_heads);
      d.slopes.resize(static_cast<std::size_t>(nq));
      d.t5_table.clear();
      for (std::int64_t b = 0; b < c.t5_num_buckets; ++b)
        for (std::int64_t h = 0; h < nq; ++h) d.t5_table.push_back(c.t5_table[static_cast<std::size_t>(b * c.n_q_heads + h)]);
      out.push_back(std::move(d));
    }
  }
  for (std::int64_t nd : {std::int64_t{1}, std::int64_t{2}, c.head_dim / 2}) {  // fewer lanes
    if (nd < 1 || nd >= c.head_dim) continue;
    if (c.encoding == PEC_ATTN_ROPE && (nd < 2 || nd % 2)) continue;
    AttnCase d = c;
    d.head_dim = nd;
    if (d.encoding == PEC_ATTN_ROPE) d.rotary_dim = std::min(d.rotary_dim, nd), d.inv_freq.resize(static_cast<std::size_t>(d.rotary_dim / 2));
    d.q = first_lanes(c.q, c.total_q() * c.n_q_heads, c.head_dim, nd);
    d.k = first_lanes(c.k, c.total_k() * c.n_kv_heads, c.head_dim, nd);
    out.push_back(std::move(d));
  }
  for (std::int64_t nd : {std::int64_t{1}, c.head_dim_v / 2}) {
    if (nd < 1 || nd >= c.head_dim_v) continue;
    AttnCase d = c;
    d.head_dim_v = nd;
    d.v = first_lanes(c.v, c.total_k() * c.n_kv_heads, c.head_dim_v, nd);
    out.push_back(std::move(d));
  }
  for (int t = 0; t < 4; ++t) {
    if (c.head_gap[t] || c.token_gap[t]) {
      AttnCase d = c;
      d.head_gap[t] = d.token_gap[t] = 0;
      out.push_back(std::move(d));
    }
  }
  if (c.softcap != 0) {
    AttnCase d = c;
    d.softcap = 0;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace pecheck::verifier
