// Arena layout of one attention call (run.hpp). Every tensor gets its own buffer
// [guard][span][guard]: inside the span the view's elements hold the values (inputs) or the poison
// (out), every other element a NaN gap pattern (the K and V parts of a fused buffer: a call that
// reads one gets NaN, one that writes one is caught), the guards a canary.
#include "verify/attention/run.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "verify/isolation/run.hpp"
#include "verify/rope_v2/run.hpp"

namespace pecheck::verifier {

namespace {

constexpr std::int64_t kGuard = 64;  // elements each side

struct Tensor {
  std::string name;
  unsigned char* data = nullptr;  // element 0
  std::size_t es = 4;
  std::int64_t span = 0;          // elements of the view's extent
  pec_strides s{0, 0};
  std::int64_t T = 0, H = 0, D = 0;
  std::vector<std::uint32_t> before;  // [-kGuard, span + kGuard)
  std::vector<char> member;

  std::uint32_t get(std::int64_t i) const {
    if (es == 2) {
      std::uint16_t v;
      std::memcpy(&v, data + i * 2, 2);
      return v;
    }
    std::uint32_t v;
    std::memcpy(&v, data + i * 4, 4);
    return v;
  }
  void set(std::int64_t i, std::uint32_t b) {
    if (es == 2) {
      const auto v = static_cast<std::uint16_t>(b);
      std::memcpy(data + i * 2, &v, 2);
    } else {
      std::memcpy(data + i * 4, &b, 4);
    }
  }
  std::int64_t index(std::int64_t t, std::int64_t h, std::int64_t l) const { return t * s.token + h * s.head + l; }
  void snapshot() {
    before.clear();
    for (std::int64_t i = -kGuard; i < span + kGuard; ++i) before.push_back(get(i));
  }
};

Tensor make(Arena& a, const std::string& name, std::size_t es, std::int64_t T, std::int64_t H, std::int64_t D,
            pec_strides s, std::uint32_t canary, std::uint32_t gap) {
  Tensor t;
  t.name = name, t.es = es, t.s = s;
  t.T = std::max<std::int64_t>(T, 0), t.H = std::max<std::int64_t>(H, 0), t.D = std::max<std::int64_t>(D, 0);
  if (t.T > 0 && t.H > 0 && t.D > 0) t.span = (t.T - 1) * s.token + (t.H - 1) * s.head + t.D;
  auto* p = static_cast<unsigned char*>(a.allocate(static_cast<std::size_t>(t.span + 2 * kGuard) * es, 64));
  t.data = p + kGuard * static_cast<std::int64_t>(es);
  for (std::int64_t i = -kGuard; i < t.span + kGuard; ++i) t.set(i, i < 0 || i >= t.span ? canary : gap);
  t.member.assign(static_cast<std::size_t>(t.span), 0);
  for (std::int64_t x = 0; x < t.T; ++x)
    for (std::int64_t h = 0; h < t.H; ++h)
      for (std::int64_t l = 0; l < t.D; ++l) t.member[static_cast<std::size_t>(t.index(x, h, l))] = 1;
  return t;
}

void fill(Tensor& t, const std::vector<float>& dense, Storage st) {
  for (std::int64_t x = 0; x < t.T; ++x)
    for (std::int64_t h = 0; h < t.H; ++h)
      for (std::int64_t l = 0; l < t.D; ++l) {
        const std::size_t k = static_cast<std::size_t>((x * t.H + h) * t.D + l);
        t.set(t.index(x, h, l), to_storage(k < dense.size() ? dense[k] : 0.0f, st));
      }
}

void fill_bits(Tensor& t, std::uint32_t b) {
  for (std::int64_t x = 0; x < t.T; ++x)
    for (std::int64_t h = 0; h < t.H; ++h)
      for (std::int64_t l = 0; l < t.D; ++l) t.set(t.index(x, h, l), b);
}

// Guards and gaps of a tensor after the call: "" when intact, else where.
void check_tensor(const Tensor& t, std::string& guard, std::string& gap, bool input, std::string& changed) {
  for (std::int64_t i = -kGuard; i < t.span + kGuard; ++i) {
    const std::uint32_t now = t.get(i), was = t.before[static_cast<std::size_t>(i + kGuard)];
    if (now == was) continue;
    if (i < 0 || i >= t.span) {
      if (guard.empty())
        guard = t.name + ": " + (i < 0 ? std::to_string(-i) + " elements before its first element"
                                       : "index " + std::to_string(i) + " past its last element (" +
                                             std::to_string(i - t.span + 1) + " elements after)");
    } else if (!t.member[static_cast<std::size_t>(i)]) {
      if (gap.empty()) gap = t.name + ": the gap element at index " + std::to_string(i) + " (between heads or tokens of its view)";
    } else if (input && changed.empty()) {
      changed = t.name;
    }
  }
}

}  // namespace

AttnRunResult run_attention(Executor& ex, Fn fn, const AttnCase& c, const AttnRunMode& m) {
  Arena& a = ex.arena();
  a.reset();
  AttnRunResult r;
  const Storage st = c.storage;
  const std::size_t es = storage_bytes(st);
  const FormatPatterns& pat = patterns(st);
  const FormatPatterns& p32 = patterns(Storage::F32);
  const std::uint32_t poison = m.alt_poison ? pat.poison_alt : pat.poison;
  const std::uint32_t poison32 = m.alt_poison ? p32.poison_alt : p32.poison;
  r.poison = poison;
  CallInputs in;
  const bool neg_seqs = c.explicit_offsets && c.q_start_given.empty();
  std::vector<std::int64_t> qs = neg_seqs ? std::vector<std::int64_t>{0} : c.q_start();
  std::vector<std::int64_t> ks = neg_seqs ? std::vector<std::int64_t>{0} : c.k_start();
  auto shifted = [&](const std::vector<std::int64_t>& p) {
    std::vector<std::int64_t> o = p;
    for (auto& x : o) x += m.shift;
    return o;
  };
  pec_attention_args args{};
  args.n_seqs = neg_seqs ? -1 : c.n_seqs();
  args.q_start = in.ints(a, "q_start", qs, c.null_field == "q_start" ? "q_start" : "");
  args.k_start = in.ints(a, "k_start", ks, c.null_field == "k_start" ? "k_start" : "");
  args.q_pos = in.ints(a, "q_pos", shifted(c.q_pos), c.null_field);
  args.k_pos = in.ints(a, "k_pos", shifted(c.k_pos), c.null_field);
  args.n_q_heads = c.n_q_heads, args.n_kv_heads = c.n_kv_heads, args.head_dim = c.head_dim, args.head_dim_v = c.head_dim_v;
  args.q = attn_strides(c, 0), args.k = attn_strides(c, 1), args.v = attn_strides(c, 2), args.out = attn_strides(c, 3);
  args.scale = c.scale, args.softcap = c.softcap, args.causal = c.causal;
  args.window_left = c.window_left, args.window_right = c.window_right;
  args.encoding = c.encoding;
  args.rotary_dim = c.rotary_dim, args.rope_layout = c.rope_layout;
  args.theta_base = c.theta_base, args.position_scale = c.position_scale, args.attn_factor = c.attn_factor;
  args.inv_freq = c.has_inv_freq ? static_cast<const float*>(in.bytes(a, "inv_freq", c.inv_freq.data(), c.inv_freq.size() * 4)) : nullptr;
  args.alibi_form = c.alibi_form;
  args.alibi_slopes = c.null_field == "alibi_slopes" ? nullptr
                                                      : static_cast<const float*>(in.bytes(a, "alibi_slopes", c.slopes.data(), c.slopes.size() * 4));
  args.t5_num_buckets = c.t5_num_buckets, args.t5_max_distance = c.t5_max_distance, args.t5_bidirectional = c.t5_bidirectional;
  args.t5_table = static_cast<const float*>(in.bytes(a, "t5_table", c.t5_table.data(), c.t5_table.size() * 4));
  const pec_attention_args* ap = in.args(a, args);

  // Invalid cases may carry shapes the views cannot describe; the buffers then follow the dense
  // counts and strides as given (a kernel that trusts them is caught by the guards).
  const std::int64_t Tq = c.total_q(), Tk = c.total_k();
  const std::int64_t Hkv = std::max<std::int64_t>(c.n_kv_heads, 0);
  Tensor tq = make(a, "q", es, Tq, c.n_q_heads, c.head_dim, args.q, pat.canary, pat.gap);
  Tensor tk = make(a, "k", es, Tk, Hkv, c.head_dim, args.k, pat.canary, pat.gap);
  Tensor tv = make(a, "v", es, Tk, Hkv, c.head_dim_v, args.v, pat.canary, pat.gap);
  Tensor to = make(a, "out", es, Tq, c.n_q_heads, c.head_dim_v, args.out, pat.canary, pat.gap);
  fill(tq, c.q, st), fill(tk, c.k, st), fill(tv, c.v, st), fill_bits(to, poison);
  Tensor tl = make(a, "lse", 4, Tq, c.n_q_heads, 1, pec_strides{c.n_q_heads, 1}, p32.canary, p32.gap);
  fill_bits(tl, poison32);
  for (Tensor* t : {&tq, &tk, &tv, &to, &tl}) t->snapshot();
  const auto ptr = [&](Tensor& t) -> void* { return c.null_field == t.name ? nullptr : t.data; };
  const void* lse = c.want_lse ? ptr(tl) : nullptr;
  r.outcome = ex.call(fn, ap, ptr(tq), ptr(to), ptr(tk), const_cast<void*>(lse), ptr(tv));
  std::string changed;
  for (Tensor* t : {&tq, &tk, &tv}) check_tensor(*t, r.guard_violation, r.gap_violation, true, changed);
  std::string unused;
  check_tensor(to, r.guard_violation, r.gap_violation, false, unused);
  if (c.want_lse) check_tensor(tl, r.guard_violation, r.gap_violation, false, unused);
  else check_tensor(tl, r.guard_violation, r.gap_violation, true, changed);  // not passed: untouched
  r.input_changed = changed.empty() ? in.changed() : changed;
  bool same = true;
  for (std::int64_t x = 0; x < to.T; ++x)
    for (std::int64_t h = 0; h < to.H; ++h)
      for (std::int64_t l = 0; l < to.D; ++l) {
        const std::uint32_t b = to.get(to.index(x, h, l));
        same = same && b == poison;
        r.out_bits.push_back(b);
        r.out.push_back(from_storage(b, st));
        if (b == poison && r.unwritten++ == 0)
          r.first_unwritten = "out (token " + std::to_string(x) + ", head " + std::to_string(h) + ", lane " + std::to_string(l) + ")";
      }
  if (c.want_lse) {
    for (std::int64_t x = 0; x < tl.T; ++x)
      for (std::int64_t h = 0; h < tl.H; ++h) {
        const std::uint32_t b = tl.get(tl.index(x, h, 0));
        same = same && b == poison32;
        r.lse_bits.push_back(b);
        r.lse.push_back(from_storage(b, Storage::F32));
        if (b == poison32 && r.unwritten++ == 0)
          r.first_unwritten = "lse (token " + std::to_string(x) + ", head " + std::to_string(h) + ")";
      }
  }
  r.unchanged = same;
  return r;
}

}  // namespace pecheck::verifier
