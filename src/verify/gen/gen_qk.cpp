// Generators, domains, shrinking and descriptions of the version 2 RoPE cases (cases_qk.hpp).
//
// Where the bugs of query+key and cached kernels live, and what the valid generators give:
//   GQA ratios: MQA (n_kv 1), n_kv == n_q, odd ratios (6/2, 9/3, 10/5), one group of 8; a kernel
//     that indexes the key by the query's head count runs past the key (bounds, gaps).
//   views: dense token-major, token-major with gaps after heads and rows, a fused QKV row
//     (token stride (n_q + 2 n_kv) head_dim), head-major (HF [heads][seq][dim]) with gaps; each
//     tensor drawn independently, so q and q_out differ in layout; in place for q and/or k.
//   both layouts, partial rotary, odd head_dim (pass-through lanes not in pairs).
//   attn_factor 1 (40%) and the YaRN / LongRoPE factors 0.1 ln(s) + 1, sqrt(1 + ln s / ln orig)
//     for s in {2, 4, 8, 16, 32, 40}, orig in {2048, 4096, 8192}.
//   cached: positions below cache_positions (the last row in 20% of the cases), cache_dtype
//     equal to the storage type half of the time; cache_positions <= 8192 in 90% of the cases,
//     else up to --max-position + 1 with rotary_dim <= 16 (the cache stays <= 8 MiB).
//   builder: cache_positions 1 (10%), up to 4096 (70%), up to --max-position + 1 with
//     rotary_dim <= 4 (20%).
#include <algorithm>
#include <cmath>
#include <limits>

#include "oracle/format.hpp"
#include "oracle/oracle.hpp"
#include "verify/gen/cases_qk.hpp"

namespace pecheck::verifier {

namespace {

using Idx = std::vector<std::int64_t>;

constexpr std::int64_t kMaxElements = 16384;  // q + k elements of one valid case
constexpr std::int64_t kPosLimit = std::int64_t{1} << 31;

oracle::Format fmt(std::int32_t dtype) {
  return dtype == PEC_DTYPE_BF16 ? oracle::Format::BF16 : dtype == PEC_DTYPE_F16 ? oracle::Format::F16 : oracle::Format::F32;
}

// A float rounded to the storage type; a value an fp16 cannot hold finitely is scaled down by
// 2^-20 first (as fit_storage of cases.hpp).
float fit(float v, Storage s) {
  if (s == Storage::F16 && std::fabs(v) > storage_max_finite(s)) v = std::ldexp(v, -20);
  return round_to_storage(v, s);
}

// A value of the storage type: mostly in [-1, 1), sometimes scaled over binades (fp16: within
// its range, so that no result overflows), sometimes a signed zero.
float gen_value(Rng& r, Storage storage) {
  const int k = static_cast<int>(r.range(0, 19));
  if (k == 0) return r.chance(50) ? 0.0f : -0.0f;
  float v = r.signed_unit();
  if (k <= 3) {
    v = storage == Storage::F16 ? std::ldexp(v, static_cast<int>(r.range(-12, 8)))
                                 : std::ldexp(v, static_cast<int>(r.range(-30, 30)));
  }
  return fit(v, storage);
}

std::vector<float> gen_values(Rng& r, std::int64_t n, Storage storage) {
  std::vector<float> v(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  for (auto& e : v) e = gen_value(r, storage);
  return v;
}

std::int64_t gen_count(Rng& r) {
  const int k = static_cast<int>(r.range(0, 19));
  if (k == 0) return 0;
  if (k == 1) return 1;
  if (k <= 8) return r.range(2, 7);
  if (k <= 16) return r.range(8, 33);
  return r.range(34, 70);
}

// n positions in [0, max_pos]: contiguous, packed, anywhere, at the top, repeated, powers of two
// and their neighbours, decode-style.
std::vector<std::int64_t> gen_positions(Rng& r, std::int64_t n, std::int64_t max_pos) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  if (p.empty()) return p;
  switch (r.range(0, 6)) {
    case 0: {
      const std::int64_t s = r.range(0, std::max<std::int64_t>(0, max_pos - n + 1));
      for (std::size_t t = 0; t < p.size(); ++t) p[t] = std::min(s + static_cast<std::int64_t>(t), max_pos);
      break;
    }
    case 1: {
      std::int64_t pos = 0;
      for (auto& e : p) {
        if (r.chance(20)) pos = 0;
        e = std::min(pos++, max_pos);
      }
      break;
    }
    case 2:
      for (auto& e : p) e = r.range(0, max_pos);
      break;
    case 3:
      for (auto& e : p) e = max_pos - r.range(0, std::min<std::int64_t>(64, max_pos));
      break;
    case 4: std::fill(p.begin(), p.end(), r.range(0, max_pos)); break;
    case 5:
      for (auto& e : p) {
        const int b = static_cast<int>(r.range(0, 63 - __builtin_clzll(static_cast<unsigned long long>(max_pos) | 1)));
        e = std::clamp<std::int64_t>((std::int64_t{1} << b) + r.range(-1, 1), 0, max_pos);
      }
      break;
    default: {
      const std::int64_t s = r.range(0, max_pos);
      for (auto& e : p) e = std::clamp<std::int64_t>(s - r.range(0, 3 * n), 0, max_pos);
      break;
    }
  }
  return p;
}

// (n_q_heads, n_kv_heads): MHA, MQA, GQA with even and odd ratios.
void gen_gqa(Rng& r, QkShape& c) {
  static constexpr std::int64_t kPairs[][2] = {{1, 1}, {2, 1}, {4, 1}, {8, 1}, {3, 1}, {4, 2}, {6, 2}, {6, 3},
                                               {8, 2}, {8, 8}, {5, 5}, {12, 4}, {9, 3}, {10, 5}, {32, 8}, {7, 7},
                                               {16, 2}, {2, 2}, {6, 1}, {14, 2}};
  const auto& pr = kPairs[r.range(0, static_cast<std::int64_t>(std::size(kPairs)) - 1)];
  c.n_q_heads = pr[0];
  c.n_kv_heads = pr[1];
}

ViewSpec gen_view(Rng& r) {
  ViewSpec v;
  const int k = static_cast<int>(r.range(0, 19));
  if (k < 6) return v;  // dense token-major
  if (k < 11) {
    v.head_gap = r.chance(50) ? 0 : r.range(1, 5);
    v.token_gap = r.range(0, 9);
  } else if (k < 15) {
    v.kind = ViewSpec::FusedQkv;
    v.token_gap = r.chance(70) ? 0 : r.range(1, 4);
  } else {
    v.kind = ViewSpec::HeadMajor;
    v.token_gap = r.chance(50) ? 0 : r.range(1, 3);
    v.head_gap = r.chance(50) ? 0 : r.range(1, 9);
  }
  return v;
}

void gen_shape(Rng& r, const GenParams& p, QkShape& c, std::int64_t max_pos) {
  static constexpr std::int64_t kDims[] = {2, 4, 6, 8, 16, 18, 32, 48, 64, 64, 80, 96, 128, 128, 256};
  c.layout = r.chance(50) ? 0 : 1;
  c.head_dim = r.pick(kDims);
  const int rk = static_cast<int>(r.range(0, 9));
  if (rk < 5 || c.head_dim == 2) {
    c.rotary_dim = c.head_dim;
  } else if (rk < 7) {
    c.rotary_dim = std::max<std::int64_t>(2, (c.head_dim / 2) & ~std::int64_t{1});
  } else {
    c.rotary_dim = 2 * r.range(1, c.head_dim / 2);
  }
  if (r.chance(20)) c.head_dim = c.rotary_dim + 2 * r.range(0, 4) + 1;  // odd head_dim
  gen_gqa(r, c);
  c.n_tokens = gen_count(r);
  while (c.n_tokens * (c.n_q_heads + c.n_kv_heads) * c.head_dim > kMaxElements) {
    if (c.n_tokens > 1) {
      c.n_tokens = (c.n_tokens + 1) / 2;
    } else {
      c.head_dim = std::max(c.rotary_dim, c.head_dim / 2);
      if (c.rotary_dim > 8) c.rotary_dim /= 2, c.rotary_dim &= ~std::int64_t{1}, c.head_dim = c.rotary_dim;
    }
  }
  (void)p;
  c.positions = gen_positions(r, c.n_tokens, max_pos);
  if (!c.positions.empty() && r.chance(10)) {
    c.positions.front() = 0;
    c.positions.back() = max_pos;
  }
  c.q_view = gen_view(r);
  c.k_view = gen_view(r);
  c.q_in_place = r.chance(30);
  c.k_in_place = r.chance(30);
  c.q_out_view = c.q_in_place ? c.q_view : gen_view(r);
  c.k_out_view = c.k_in_place ? c.k_view : gen_view(r);
  c.q = gen_values(r, c.n_tokens * c.n_q_heads * c.head_dim, c.storage);
  c.k = gen_values(r, c.n_tokens * c.n_kv_heads * c.head_dim, c.storage);
  c.placement = static_cast<std::int32_t>(r.range(0, 1));
}

double gen_attn_factor(Rng& r) {
  static constexpr double kS[] = {2, 4, 8, 16, 32, 40};
  static constexpr double kOrig[] = {2048, 4096, 8192};
  const int k = static_cast<int>(r.range(0, 9));
  if (k < 4) return 1.0;
  const double s = r.pick(kS);
  if (k < 7) return 0.1 * std::log(s) + 1.0;                     // YaRN mscale
  return std::sqrt(1.0 + std::log(s) / std::log(r.pick(kOrig)));  // LongRoPE
}

// theta_base, position_scale and an optional inv_freq table (plain, linear-scaled, or with
// non-monotone entries as LongRoPE's rescale factors give), as the ABI passes them.
template <class C>
void gen_freq(Rng& r, C& c, std::int64_t rotary_dim) {
  static constexpr double kBases[] = {10000.0, 10000.0, 500000.0, 1000000.0, 100.0, 1.0e8};
  static constexpr double kScales[] = {0.5, 0.25, 2.0, 4.0, 1.0 / 3.0, 0.1};
  c.theta_base = r.chance(85) ? r.pick(kBases) : 1.0 + r.unit() * 1.0e6;
  c.position_scale = r.chance(60) ? 1.0 : r.pick(kScales);
  c.has_inv_freq = r.chance(35);
  c.inv_freq.clear();
  if (c.has_inv_freq) {
    const double lin = r.chance(50) ? 1.0 : r.pick(kScales);
    for (std::int64_t i = 0; i < rotary_dim / 2; ++i) {
      double f = std::pow(c.theta_base, -2.0 * static_cast<double>(i) / static_cast<double>(rotary_dim)) * lin;
      if (r.chance(20)) f /= 1.0 + r.unit() * 40.0;  // LongRoPE-style per-pair rescale
      c.inv_freq.push_back(static_cast<float>(f));
    }
    c.note = "inv_freq table" + std::string(lin != 1.0 ? " (linearly scaled)" : "");
  }
}

Idx iota(std::int64_t n) {
  Idx v(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(i);
  return v;
}

std::vector<float> select3(const std::vector<float>& v, std::int64_t B, std::int64_t C, const Idx& a, const Idx& b,
                           const Idx& c) {
  std::vector<float> out;
  for (auto i : a)
    for (auto j : b)
      for (auto k : c) {
        const std::int64_t idx = (i * B + j) * C + k;
        if (idx >= static_cast<std::int64_t>(v.size())) return v;
        out.push_back(v[static_cast<std::size_t>(idx)]);
      }
  return out;
}

std::vector<Idx> subsets(std::int64_t n, bool allow_empty) {
  std::vector<Idx> out;
  if (n <= 0) return out;
  if (allow_empty) out.push_back({});
  if (n == 1) return out;
  for (std::int64_t i = 0; i < n; ++i) out.push_back({i});
  if (n > 3) {
    Idx lo = iota(n / 2), hi;
    for (std::int64_t i = n / 2; i < n; ++i) hi.push_back(i);
    out.push_back(lo);
    out.push_back(hi);
  }
  if (n > 2) {
    for (std::int64_t i = 0; i < n; ++i) {
      Idx all_but;
      for (std::int64_t j = 0; j < n; ++j)
        if (j != i) all_but.push_back(j);
      out.push_back(all_but);
    }
  }
  return out;
}

std::vector<std::int64_t> smaller(std::int64_t p, std::int64_t floor = 0) {
  std::vector<std::int64_t> out;
  if (p <= floor) return out;
  out.push_back(floor);
  for (int k = 1; k < 63 && ((p - floor) >> k) > 0; ++k) out.push_back(p - ((p - floor) >> k));
  out.push_back(p - 1);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool same_float(float a, float b) { return a == b && std::signbit(a) == std::signbit(b); }

// Shape shrinking common to both query+key cases: tokens, GQA groups and ratio, dimensions,
// views (toward dense, out of place), positions, values. `fix` re-derives dependent fields.
template <class C, class Fix>
void shrink_shape(const C& c, std::vector<C>& out, Fix fix) {
  const std::int64_t ratio = c.n_kv_heads > 0 ? c.n_q_heads / c.n_kv_heads : 1;
  const bool shaped = c.n_tokens >= 0 && c.n_kv_heads >= 1 && ratio >= 1 && c.n_q_heads == ratio * c.n_kv_heads &&
                      c.head_dim >= 2 && c.rotary_dim >= 2 && c.rotary_dim <= c.head_dim;
  const auto keep = [&](const Idx& toks, const Idx& kv, std::int64_t new_ratio, std::int64_t hd, std::int64_t rd) {
    C d = c;
    Idx qh;
    for (auto g : kv)
      for (std::int64_t j = 0; j < new_ratio; ++j) qh.push_back(g * ratio + j);
    const Idx lanes = iota(hd);
    d.q = select3(c.q, c.n_q_heads, c.head_dim, toks, qh, lanes);
    d.k = select3(c.k, c.n_kv_heads, c.head_dim, toks, kv, lanes);
    d.positions.clear();
    for (auto t : toks) d.positions.push_back(c.positions[static_cast<std::size_t>(t)]);
    d.n_tokens = static_cast<std::int64_t>(toks.size());
    d.n_kv_heads = static_cast<std::int64_t>(kv.size());
    d.n_q_heads = static_cast<std::int64_t>(qh.size());
    d.head_dim = hd;
    d.rotary_dim = rd;
    if (d.has_inv_freq) d.inv_freq.resize(static_cast<std::size_t>(rd / 2));
    fix(d);
    out.push_back(std::move(d));
  };
  if (shaped && static_cast<std::int64_t>(c.positions.size()) == c.n_tokens) {
    const Idx all_t = iota(c.n_tokens), all_kv = iota(c.n_kv_heads);
    for (const auto& t : subsets(c.n_tokens, true)) keep(t, all_kv, ratio, c.head_dim, c.rotary_dim);
    for (const auto& g : subsets(c.n_kv_heads, false)) keep(all_t, g, ratio, c.head_dim, c.rotary_dim);
    for (std::int64_t r2 : {std::int64_t{1}, ratio / 2})
      if (r2 >= 1 && r2 < ratio) keep(all_t, all_kv, r2, c.head_dim, c.rotary_dim);
    if (c.head_dim > c.rotary_dim) keep(all_t, all_kv, ratio, c.rotary_dim, c.rotary_dim);
    for (std::int64_t rd : {std::int64_t{2}, (c.rotary_dim / 2) & ~std::int64_t{1}, c.rotary_dim - 2}) {
      if (rd >= 2 && rd < c.rotary_dim) {
        keep(all_t, all_kv, ratio, rd, rd);
        if (c.head_dim > c.rotary_dim) keep(all_t, all_kv, ratio, rd + (c.head_dim - c.rotary_dim), rd);
      }
    }
  }
  // Views: dense and out of place first (the simplest layout that still fails).
  const auto dense = [](const ViewSpec& v) { return !v.explicit_strides && v.kind == ViewSpec::TokenMajor && v.head_gap == 0 && v.token_gap == 0; };
  for (int which = 0; which < 4; ++which) {
    C d = c;
    ViewSpec& v = which == 0 ? d.q_view : which == 1 ? d.k_view : which == 2 ? d.q_out_view : d.k_out_view;
    if (v.explicit_strides || dense(v)) continue;
    v = ViewSpec{};
    if (which == 0 && d.q_in_place) d.q_out_view = v;
    if (which == 1 && d.k_in_place) d.k_out_view = v;
    if (which == 2 && d.q_in_place) continue;
    if (which == 3 && d.k_in_place) continue;
    fix(d);
    out.push_back(std::move(d));
  }
  if (c.q_in_place) {
    C d = c;
    d.q_in_place = false;
    fix(d);
    out.push_back(std::move(d));
  }
  if (c.k_in_place) {
    C d = c;
    d.k_in_place = false;
    fix(d);
    out.push_back(std::move(d));
  }
  if (c.layout == 1) {
    C d = c;
    d.layout = 0;
    fix(d);
    out.push_back(std::move(d));
  }
  // Positions: all at zero, halved, each smaller.
  const auto& p = c.positions;
  if (std::any_of(p.begin(), p.end(), [](std::int64_t v) { return v > 0; })) {
    C zero = c, half = c;
    for (auto& e : zero.positions) e = e > 0 ? 0 : e;
    for (auto& e : half.positions) e = e > 0 ? e / 2 : e;
    fix(zero);
    fix(half);
    out.push_back(std::move(zero));
    out.push_back(std::move(half));
  }
  if (p.size() <= 16) {
    for (std::size_t t = 0; t < p.size(); ++t) {
      for (auto v : smaller(p[t])) {
        C d = c;
        d.positions[t] = v;
        fix(d);
        out.push_back(std::move(d));
      }
    }
  }
  // Values: every value 0 or 1 at once, then each (small tensors only) to 0, 1, -1, 1/2.
  for (std::vector<float> C::*field : {&C::q, &C::k}) {
    const auto& v = c.*field;
    for (float fill : {0.0f, 1.0f}) {
      if (std::any_of(v.begin(), v.end(), [&](float x) { return !same_float(x, fill) && !same_float(x, 0.0f); })) {
        C d = c;
        std::fill((d.*field).begin(), (d.*field).end(), fill);
        fix(d);
        out.push_back(std::move(d));
      }
    }
    if (v.size() > 64) continue;
    for (std::size_t i = 0; i < v.size(); ++i) {
      for (float s : {0.0f, 1.0f, 0.5f}) {
        const bool simpler = same_float(s, 0.0f) ? !same_float(v[i], 0.0f)
                                                 : !same_float(v[i], 0.0f) && !same_float(v[i], 1.0f) && !same_float(v[i], s);
        if (!simpler) continue;
        C d = c;
        (d.*field)[i] = s;
        fix(d);
        out.push_back(std::move(d));
      }
    }
  }
}

template <class C>
void shrink_shift(const C& c, std::vector<C>& out) {
  const std::int64_t s = c.shift < 0 ? -c.shift : c.shift;
  for (auto v : smaller(s, 1)) {
    C d = c;
    d.shift = c.shift < 0 ? -v : v;
    out.push_back(d);
  }
}

std::string bad_positions(const std::vector<std::int64_t>& p, std::int64_t limit) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] < 0 || p[i] >= limit) {
      return "positions[" + std::to_string(i) + "] = " + std::to_string(p[i]) + " is outside [0, " +
             std::to_string(limit) + ")";
    }
  }
  return "";
}

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::string shape_reason(const QkShape& c) {
  if (c.n_tokens < 0) return "n_tokens < 0";
  if (c.n_q_heads < 1 || c.n_kv_heads < 1) return "n_q_heads or n_kv_heads < 1";
  if (c.head_dim < 2 || c.rotary_dim > c.head_dim) return "rotary_dim > head_dim or head_dim < 2";
  if (c.rotary_dim < 2 || c.rotary_dim % 2 != 0) return "rotary_dim is not even and >= 2";
  if (c.n_q_heads % c.n_kv_heads != 0) {
    return "n_q_heads = " + std::to_string(c.n_q_heads) + " is not a multiple of n_kv_heads = " +
           std::to_string(c.n_kv_heads);
  }
  if (c.layout != 0 && c.layout != 1) return "layout is neither PEC_ROPE_NEOX nor PEC_ROPE_GPTJ";
  return "";
}

std::string shape_requirement(const QkShape& c) {
  if (c.n_tokens < 0 || c.n_q_heads < 1 || c.n_kv_heads < 1) return "sizes";
  if (c.head_dim < 2 || c.rotary_dim > c.head_dim) return "rotary-range";
  if (c.rotary_dim < 2 || c.rotary_dim % 2 != 0) return "rotary-parity";
  if (c.n_q_heads % c.n_kv_heads != 0) return "gqa";
  if (c.layout != 0 && c.layout != 1) return "layout";
  return "";
}

std::string views_reason(const QkShape& c) {
  const std::int64_t hq = c.n_q_heads, hk = c.n_kv_heads;
  if (auto s = view_violation(c, view_strides(c, c.q_view, hq), hq, "q"); !s.empty()) return s;
  if (auto s = view_violation(c, view_strides(c, c.k_view, hk), hk, "k"); !s.empty()) return s;
  if (auto s = view_violation(c, view_strides(c, c.q_out_view, hq), hq, "q_out"); !s.empty()) return s;
  if (auto s = view_violation(c, view_strides(c, c.k_out_view, hk), hk, "k_out"); !s.empty()) return s;
  return "";
}

std::string null_reason(const QkShape& c, bool cached) {
  if (c.null_field.empty()) return "";
  if (c.null_field == "cos_sin_cache" && cached) return "cos_sin_cache is NULL";
  if (c.n_tokens > 0) return c.null_field + " is NULL";
  return "";
}

std::string scalars_reason(double base, double scale, double attn) {
  if (!std::isfinite(base) || !(base > 1)) return "theta_base is not finite and > 1";
  if (!std::isfinite(scale) || !(scale > 0)) return "position_scale is not finite and > 0";
  if (!std::isfinite(attn) || !(attn > 0)) return "attn_factor is not finite and > 0";
  return "";
}

template <class C>
C small_valid(Rng& r, const GenParams& p, C (*gen)(Rng&, const GenParams&)) {
  GenParams q = p;
  q.max_position = std::min<std::int64_t>(p.max_position, 4096);
  C c;
  do {
    c = gen(r, q);
  } while (c.n_tokens * (c.n_q_heads + c.n_kv_heads) * c.head_dim > 2048 || c.n_tokens == 0);
  return c;
}

// Branches shared by both query+key generators (numbers as in the requirement tables).
template <class C>
bool break_shape(Rng& r, C& c, int branch) {
  switch (branch) {
    case 0: c.n_tokens = -r.range(1, 3); c.positions.clear(); c.q.clear(); c.k.clear(); return true;
    case 1:
      if (r.chance(50)) c.n_q_heads = r.range(-2, 0); else c.n_kv_heads = r.range(-2, 0);
      c.q.clear(); c.k.clear();
      return true;
    case 2:  // rotary-range: wider than the head, or a head below 2 lanes
      if (r.chance(75)) {
        c.rotary_dim = c.head_dim + 2 * r.range(1, 2);
      } else {
        c.head_dim = r.range(0, 1), c.rotary_dim = 2;
        c.q.clear(); c.k.clear();
      }
      c.inv_freq.clear();
      c.has_inv_freq = false;
      return true;
    case 3: {
      static constexpr std::int64_t kRot[] = {0, -2, 1, 3};
      c.rotary_dim = r.pick(kRot);
      if (c.rotary_dim > c.head_dim) c.rotary_dim = 1;
      c.inv_freq.clear();
      c.has_inv_freq = false;
      return true;
    }
    case 4: c.layout = r.chance(50) ? 2 : -1; return true;
    case 8: {  // gqa: n_q_heads not a multiple of n_kv_heads (5/2, 7/3, 3/2, 1/2, ...)
      static constexpr std::int64_t kBad[][2] = {{5, 2}, {7, 3}, {3, 2}, {1, 2}, {6, 4}, {9, 2}, {2, 3}};
      const auto& b = kBad[r.range(0, static_cast<std::int64_t>(std::size(kBad)) - 1)];
      c.n_q_heads = b[0];
      c.n_kv_heads = b[1];
      c.q = std::vector<float>(static_cast<std::size_t>(c.n_tokens * c.n_q_heads * c.head_dim), 0.5f);
      c.k = std::vector<float>(static_cast<std::size_t>(c.n_tokens * c.n_kv_heads * c.head_dim), 0.25f);
      c.q_view = c.k_view = c.q_out_view = c.k_out_view = ViewSpec{};
      c.q_in_place = c.k_in_place = false;
      return true;
    }
    case 9: {  // strides: negative, overlapping heads or rows (n_tokens, heads >= 2 make them matter)
      c.n_tokens = std::max<std::int64_t>(c.n_tokens, 2);
      c.positions.resize(static_cast<std::size_t>(c.n_tokens), 0);
      c.q.resize(static_cast<std::size_t>(c.n_tokens * c.n_q_heads * c.head_dim), 0.5f);
      c.k.resize(static_cast<std::size_t>(c.n_tokens * c.n_kv_heads * c.head_dim), 0.25f);
      const int which = static_cast<int>(r.range(0, 3));
      ViewSpec& v = which == 0 ? c.q_view : which == 1 ? c.k_view : which == 2 ? c.q_out_view : c.k_out_view;
      if (which == 0) c.q_in_place = false;
      if (which == 1) c.k_in_place = false;
      if (which == 2) c.q_in_place = false;
      if (which == 3) c.k_in_place = false;
      const std::int64_t heads = (which % 2 == 0) ? c.n_q_heads : c.n_kv_heads;
      const pec_strides good = view_strides(c, ViewSpec{}, heads);
      v.explicit_strides = true;
      switch (r.range(0, 3)) {
        case 0: v.strides = {good.token, -c.head_dim}; break;                  // negative head stride
        case 1: v.strides = {-good.token, c.head_dim}; break;                  // negative token stride
        case 2: v.strides = {good.token, c.head_dim - r.range(1, c.head_dim)}; break;  // heads overlap
        default: v.strides = {heads * c.head_dim - r.range(1, c.head_dim), c.head_dim}; break;  // rows overlap
      }
      if (heads == 1 && (v.strides.head < 0 || v.strides.head < c.head_dim)) v.strides = {-good.token, c.head_dim};
      return true;
    }
    default: return false;
  }
}

void null_field(Rng& r, QkShape& c, bool cached) {
  static constexpr const char* kFields[] = {"q", "k", "q_out", "k_out", "positions"};
  static constexpr const char* kCached[] = {"q", "k", "q_out", "k_out", "positions", "cos_sin_cache"};
  c.null_field = cached ? r.pick(kCached) : r.pick(kFields);
  c.q_in_place = c.k_in_place = false;
  c.q_out_view = c.q_view;
  c.k_out_view = c.k_view;
}

void add_view(std::vector<report::Arg>& args, const char* name, const pec_strides& s) {
  args.push_back({name, std::vector<std::int64_t>{s.token, s.head}});
}

std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }

void describe_shape(const QkShape& c, std::vector<report::Arg>& args) {
  args.push_back({"storage", std::string(storage_name(c.storage))});
  args.push_back({"n_tokens", c.n_tokens});
  args.push_back({"n_q_heads", c.n_q_heads});
  args.push_back({"n_kv_heads", c.n_kv_heads});
  args.push_back({"head_dim", c.head_dim});
  args.push_back({"rotary_dim", c.rotary_dim});
  args.push_back({"layout", std::int64_t{c.layout}});
}

void describe_views(const QkShape& c, std::vector<report::Arg>& args) {
  if (c.null_field == "positions") args.push_back({"positions", std::monostate{}});
  else args.push_back({"positions", c.positions});
  add_view(args, "q_strides [token, head]", view_strides(c, c.q_view, c.n_q_heads));
  add_view(args, "k_strides [token, head]", view_strides(c, c.k_view, c.n_kv_heads));
  add_view(args, "q_out_strides [token, head]", view_strides(c, c.q_out_view, c.n_q_heads));
  add_view(args, "k_out_strides [token, head]", view_strides(c, c.k_out_view, c.n_kv_heads));
  if (c.q_in_place || c.k_in_place) {
    args.push_back({"in_place", std::string(c.q_in_place && c.k_in_place ? "q_out == q, k_out == k"
                                            : c.q_in_place                ? "q_out == q"
                                                                          : "k_out == k")});
  }
  if (c.shift != 0) args.push_back({"shift", c.shift});
  if (!c.null_field.empty()) args.push_back({"null_argument", c.null_field});
  if (!c.note.empty()) args.push_back({"generator", c.note});
}

void describe_inputs(const QkShape& c, std::vector<report::Tensor>& in) {
  if (c.null_field != "q") in.push_back({"q", {c.n_tokens, c.n_q_heads, c.head_dim}, c.q});
  if (c.null_field != "k") in.push_back({"k", {c.n_tokens, c.n_kv_heads, c.head_dim}, c.k});
}

}  // namespace

// ---- views -------------------------------------------------------------------------------------

pec_strides view_strides(const QkShape& c, const ViewSpec& v, std::int64_t n_heads) {
  if (v.explicit_strides) return v.strides;
  const std::int64_t d = std::max<std::int64_t>(c.head_dim, 0), t = std::max<std::int64_t>(c.n_tokens, 0);
  const std::int64_t h = std::max<std::int64_t>(n_heads, 0);
  switch (v.kind) {
    case ViewSpec::HeadMajor: {
      const std::int64_t st = d + v.token_gap;
      return {st, t * st + v.head_gap};
    }
    case ViewSpec::FusedQkv:
      return {(std::max<std::int64_t>(c.n_q_heads, 0) + 2 * std::max<std::int64_t>(c.n_kv_heads, 0)) * d + v.token_gap, d};
    default: {
      const std::int64_t sh = d + v.head_gap;
      return {h * sh + v.token_gap, sh};
    }
  }
}

std::int64_t view_span(const QkShape& c, const pec_strides& s, std::int64_t n_heads) {
  if (c.n_tokens <= 0 || n_heads <= 0 || c.head_dim <= 0) return 0;
  return (c.n_tokens - 1) * s.token + (n_heads - 1) * s.head + c.head_dim;
}

std::string view_violation(const QkShape& c, const pec_strides& s, std::int64_t n_heads, const char* name) {
  const std::int64_t T = c.n_tokens, H = n_heads, D = c.head_dim;
  const std::string n(name);
  if (T <= 0 || H <= 0 || D <= 0) return "";
  const bool need_token = T > 1, need_head = H > 1;
  if (s.token < 0 || s.head < 0) {
    return n + " strides {" + std::to_string(s.token) + ", " + std::to_string(s.head) + "} are negative";
  }
  if (!need_head && !need_token) return "";
  if (!need_head) {
    if (s.token >= D) return "";
  } else if (!need_token) {
    if (s.head >= D) return "";
  } else {
    const bool token_major = s.head >= D && s.token >= H * s.head;
    const bool head_major = s.token >= D && s.head >= T * s.token;
    if (token_major || head_major) return "";
  }
  return n + " strides {token " + std::to_string(s.token) + ", head " + std::to_string(s.head) +
         "} overlap for " + std::to_string(T) + " tokens x " + std::to_string(H) + " heads x " + std::to_string(D) +
         " lanes";
}

Storage dtype_storage(std::int32_t d) {
  return d == PEC_DTYPE_BF16 ? Storage::BF16 : d == PEC_DTYPE_F16 ? Storage::F16 : Storage::F32;
}

void fit_storage(RopeQkCase& c) {
  for (auto* v : {&c.q, &c.k})
    for (auto& e : *v) e = fit(e, c.storage);
}
void fit_storage(RopeCachedCase& c) {
  for (auto* v : {&c.q, &c.k})
    for (auto& e : *v) e = fit(e, c.storage);
}
void fit_storage(RopeCacheCase&) {}  // no tensor input

const char* dtype_name(std::int32_t d) {
  return d == PEC_DTYPE_F32 ? "f32" : d == PEC_DTYPE_BF16 ? "bf16" : d == PEC_DTYPE_F16 ? "f16" : "invalid";
}

void fill_cache_rows(RopeCachedCase& c) {
  c.row_pos.clear();
  c.row_vals.clear();
  if (c.rotary_dim < 2 || c.rotary_dim % 2 != 0 || c.rotary_dim > 4096) return;
  if (c.cache_dtype < 0 || c.cache_dtype > 2 || !std::isfinite(c.attn_factor) || !(c.attn_factor > 0)) return;
  if (!std::isfinite(c.theta_base) || !(c.theta_base > 1) || !std::isfinite(c.position_scale) || !(c.position_scale > 0)) return;
  std::vector<std::int64_t> want;
  for (auto p : c.positions) {
    for (std::int64_t q : {p, p + c.shift}) {
      if (q >= 0 && q < c.cache_positions) want.push_back(q);
    }
  }
  std::sort(want.begin(), want.end());
  want.erase(std::unique(want.begin(), want.end()), want.end());
  const std::int64_t half = c.rotary_dim / 2;
  const oracle::Format f = fmt(c.cache_dtype);
  for (auto p : want) {
    c.row_pos.push_back(p);
    const std::size_t base = c.row_vals.size();
    c.row_vals.resize(base + static_cast<std::size_t>(c.rotary_dim));
    for (std::int64_t i = 0; i < half; ++i) {
      oracle::AngleQuery q;
      q.position = p;
      q.position_scale = c.position_scale;
      q.freq = c.has_inv_freq && static_cast<std::int64_t>(c.inv_freq.size()) > i
                   ? oracle::RopeFrequency::exact(c.inv_freq[static_cast<std::size_t>(i)])
                   : oracle::RopeFrequency::power(c.theta_base, i, c.rotary_dim);
      // attn_factor * (cos, sin): the rotation of (attn_factor, 0), correctly rounded.
      const oracle::RopePairResult pr = oracle::rope_pair(q, c.attn_factor, 0.0);
      c.row_vals[base + static_cast<std::size_t>(i)] = static_cast<float>(pr.ya_rounded.in(f));
      c.row_vals[base + static_cast<std::size_t>(half + i)] = static_cast<float>(pr.yb_rounded.in(f));
    }
  }
}

// ---- valid generators ----------------------------------------------------------------------------

RopeQkCase gen_rope_qk(Rng& r, const GenParams& p) {
  RopeQkCase c;
  c.storage = p.storage;
  gen_shape(r, p, c, p.max_position);
  gen_freq(r, c, c.rotary_dim);
  c.attn_factor = gen_attn_factor(r);
  return c;
}

RopeCachedCase gen_rope_cached(Rng& r, const GenParams& p) {
  RopeCachedCase c;
  c.storage = p.storage;
  const std::int32_t storage = static_cast<std::int32_t>(p.storage);  // pec_dtype order
  const bool big = r.chance(10) && p.max_position > 8191;
  std::int64_t max_pos = big ? p.max_position : std::min<std::int64_t>(p.max_position, r.chance(50) ? 8191 : 2047);
  gen_shape(r, p, c, max_pos);
  if (big) {  // long context with a small rotary part: the cache stays small
    c.rotary_dim = std::min<std::int64_t>(c.rotary_dim, 2 * r.range(1, 8));
    c.head_dim = std::max(c.head_dim, c.rotary_dim);
  }
  std::int64_t top = 0;
  for (auto q : c.positions) top = std::max(top, q);
  c.cache_positions = r.chance(20) ? top + 1 : top + 1 + r.range(0, 64);
  if (!big && r.chance(30)) c.cache_positions = std::max(c.cache_positions, max_pos + 1);
  c.cache_dtype = r.chance(50) ? storage : static_cast<std::int32_t>(r.range(0, 2));
  gen_freq(r, c, c.rotary_dim);
  c.attn_factor = gen_attn_factor(r);
  fill_cache_rows(c);
  return c;
}

RopeCacheCase gen_rope_cache(Rng& r, const GenParams& p) {
  static constexpr std::int64_t kRot[] = {2, 4, 6, 8, 16, 32, 64, 64, 80, 96, 128, 128, 256};
  RopeCacheCase c;
  c.storage = p.storage;
  const int k = static_cast<int>(r.range(0, 9));
  c.rotary_dim = r.pick(kRot);
  if (k == 0) {
    c.cache_positions = 1;
  } else if (k <= 7) {
    c.cache_positions = r.chance(50) ? r.range(2, 64) : r.range(65, 4096);
    while (c.cache_positions * c.rotary_dim > (1 << 19)) c.rotary_dim /= 2;
    c.rotary_dim = std::max<std::int64_t>(2, c.rotary_dim & ~std::int64_t{1});
  } else {
    c.cache_positions = std::min<std::int64_t>(p.max_position + 1, r.range(8192, std::max<std::int64_t>(8192, p.max_position + 1)));
    c.rotary_dim = 2 * r.range(1, 2);  // <= 2^19 elements: the builder writes them all
  }
  gen_freq(r, c, c.rotary_dim);
  c.attn_factor = gen_attn_factor(r);
  c.placement = static_cast<std::int32_t>(r.range(0, 3));
  return c;
}

// ---- domains ---------------------------------------------------------------------------------------

std::string invalid_reason(const RopeQkCase& c) {
  if (auto s = shape_reason(c); !s.empty()) return s;
  if (auto s = scalars_reason(c.theta_base, c.position_scale, c.attn_factor); !s.empty()) return s;
  if (auto s = bad_positions(c.positions, kPosLimit); !s.empty()) return s;
  if (auto s = views_reason(c); !s.empty()) return s;
  return null_reason(c, false);
}

std::string invalid_requirement(const RopeQkCase& c) {
  if (invalid_reason(c).empty()) return "";
  if (auto s = shape_requirement(c); !s.empty()) return s;
  if (!scalars_reason(c.theta_base, c.position_scale, c.attn_factor).empty()) return "scalars";
  if (!bad_positions(c.positions, kPosLimit).empty()) return "positions";
  if (!views_reason(c).empty()) return "strides";
  return "null";
}

std::string invalid_reason(const RopeCachedCase& c) {
  if (auto s = shape_reason(c); !s.empty()) return s;
  if (c.cache_dtype < 0 || c.cache_dtype > 2) return "cache_dtype " + std::to_string(c.cache_dtype) + " is not a pec_dtype";
  if (c.cache_positions < 1) return "cache_positions < 1";
  if (auto s = bad_positions(c.positions, c.cache_positions); !s.empty()) return s + " (cache_positions)";
  if (auto s = views_reason(c); !s.empty()) return s;
  return null_reason(c, true);
}

std::string invalid_requirement(const RopeCachedCase& c) {
  if (invalid_reason(c).empty()) return "";
  if (auto s = shape_requirement(c); !s.empty()) return s;
  if (c.cache_dtype < 0 || c.cache_dtype > 2) return "cache-dtype";
  if (c.cache_positions < 1 || !bad_positions(c.positions, c.cache_positions).empty()) return "cache-range";
  if (!views_reason(c).empty()) return "strides";
  return "null";
}

std::string invalid_reason(const RopeCacheCase& c) {
  if (c.cache_positions < 1 || c.cache_positions > kPosLimit) return "cache_positions is not in [1, 2^31]";
  if (c.rotary_dim < 2 || c.rotary_dim % 2 != 0) return "rotary_dim is not even and >= 2";
  if (auto s = scalars_reason(c.theta_base, c.position_scale, c.attn_factor); !s.empty()) return s;
  if (c.null_field == "cache") return "cache is NULL";
  return "";
}

std::string invalid_requirement(const RopeCacheCase& c) {
  if (invalid_reason(c).empty()) return "";
  if (c.cache_positions < 1 || c.cache_positions > kPosLimit) return "sizes";
  if (c.rotary_dim < 2 || c.rotary_dim % 2 != 0) return "rotary-parity";
  if (!scalars_reason(c.theta_base, c.position_scale, c.attn_factor).empty()) return "scalars";
  return "null";
}

std::int64_t output_size(const RopeCacheCase& c) {
  if (c.cache_positions <= 0 || c.rotary_dim <= 0) return 0;
  return c.cache_positions * c.rotary_dim;
}

const std::vector<RejectRequirement>& reject_requirements_qk(std::string_view scheme) {
  static const std::vector<RejectRequirement> qk = {
      {"rotary-range", {2}, true, "rotary_dim <= head_dim and head_dim >= 2: a kernel that trusts it reads and writes lanes past the head"},
      {"gqa", {8}, true, "n_q_heads a multiple of n_kv_heads: a kernel that pairs query head h with key head h / (n_q_heads / n_kv_heads) indexes past the last key head"},
      {"strides", {9}, true, "strides of every view non-negative and non-overlapping (ABI-VIEW-1): a negative stride addresses memory before the buffer"},
      {"rotary-parity", {3}, false, "rotary_dim even and >= 2"},
      {"sizes", {0, 1}, false, "n_tokens >= 0, n_q_heads >= 1, n_kv_heads >= 1"},
      {"layout", {4}, false, "layout is PEC_ROPE_NEOX or PEC_ROPE_GPTJ"},
      {"scalars", {5}, false, "theta_base finite and > 1, position_scale and attn_factor finite and > 0"},
      {"positions", {6}, false, "positions in [0, 2^31)"},
      {"null", {7}, false, "no NULL array where elements are due (ABI-GEN-3)"},
  };
  static const std::vector<RejectRequirement> cached = {
      {"rotary-range", {2}, true, "rotary_dim <= head_dim and head_dim >= 2: a kernel that trusts it reads and writes lanes past the head"},
      {"gqa", {8}, true, "n_q_heads a multiple of n_kv_heads: a kernel that pairs query head h with key head h / (n_q_heads / n_kv_heads) indexes past the last key head"},
      {"strides", {9}, true, "strides of every view non-negative and non-overlapping (ABI-VIEW-1): a negative stride addresses memory before the buffer"},
      {"cache-range", {6}, true, "every position in [0, cache_positions), cache_positions >= 1: a kernel that trusts it reads a row outside the cache"},
      {"rotary-parity", {3}, false, "rotary_dim even and >= 2"},
      {"sizes", {0, 1}, false, "n_tokens >= 0, n_q_heads >= 1, n_kv_heads >= 1"},
      {"layout", {4}, false, "layout is PEC_ROPE_NEOX or PEC_ROPE_GPTJ"},
      {"cache-dtype", {5}, false, "cache_dtype is a pec_dtype (PEC_DTYPE_F32, _BF16, _F16)"},
      {"null", {7}, false, "no NULL array where elements are due (ABI-GEN-3)"},
  };
  static const std::vector<RejectRequirement> cache = {
      {"sizes", {0}, false, "cache_positions in [1, 2^31]"},
      {"rotary-parity", {1}, false, "rotary_dim even and >= 2"},
      {"scalars", {2}, false, "theta_base finite and > 1, position_scale and attn_factor finite and > 0"},
      {"null", {3}, false, "cache is not NULL (ABI-GEN-3)"},
  };
  static const std::vector<RejectRequirement> none;
  if (scheme == "rope_qk") return qk;
  if (scheme == "rope_cached") return cached;
  if (scheme == "rope_cache") return cache;
  return none;
}

// ---- invalid generators ------------------------------------------------------------------------------

RopeQkCase gen_rope_qk_invalid(Rng& r, const GenParams& p, int branch) {
  RopeQkCase c = small_valid<RopeQkCase>(r, p, gen_rope_qk);
  if (break_shape(r, c, branch)) return c;
  switch (branch) {
    case 5: {
      const double bad[] = {1.0, 0.5, 0.0, -10000.0, kNan, kInf};
      const double bad_pos[] = {0.0, -1.0, kNan, kInf};
      const int k = static_cast<int>(r.range(0, 2));
      if (k == 0) c.theta_base = r.pick(bad);
      else if (k == 1) c.position_scale = r.pick(bad_pos);
      else c.attn_factor = r.pick(bad_pos);
      break;
    }
    case 6: {
      static constexpr std::int64_t kBad[] = {-1, -2147483648LL, 2147483648LL, std::int64_t{1} << 40};
      c.positions[static_cast<std::size_t>(r.range(0, c.n_tokens - 1))] = r.pick(kBad);
      break;
    }
    default: null_field(r, c, false); break;
  }
  return c;
}

RopeCachedCase gen_rope_cached_invalid(Rng& r, const GenParams& p, int branch) {
  RopeCachedCase c = small_valid<RopeCachedCase>(r, p, gen_rope_cached);
  if (!break_shape(r, c, branch)) {
    switch (branch) {
      case 5: c.cache_dtype = r.chance(50) ? 3 : -1; break;
      case 6: {  // a position at or past the last row, or negative, or no rows at all
        const int k = static_cast<int>(r.range(0, 4));
        const std::size_t t = static_cast<std::size_t>(r.range(0, c.n_tokens - 1));
        if (k == 0) c.positions[t] = c.cache_positions;
        else if (k == 1) c.positions[t] = c.cache_positions + r.range(1, 4096);
        else if (k == 2) c.positions[t] = -r.range(1, 3);
        else if (k == 3) c.positions[t] = -2147483648LL;
        else c.cache_positions = 0;
        break;
      }
      default: null_field(r, c, true); break;
    }
  }
  fill_cache_rows(c);
  return c;
}

RopeCacheCase gen_rope_cache_invalid(Rng& r, const GenParams& p, int branch) {
  GenParams q = p;
  q.max_position = std::min<std::int64_t>(p.max_position, 4096);
  RopeCacheCase c;
  do {
    c = gen_rope_cache(r, q);
  } while (c.cache_positions * c.rotary_dim > 4096);
  switch (branch) {
    case 0: c.cache_positions = r.chance(80) ? r.range(-3, 0) : kPosLimit + 1; break;
    case 1: {
      static constexpr std::int64_t kRot[] = {0, -2, 1, 3, 7};
      c.rotary_dim = r.pick(kRot);
      c.has_inv_freq = false;
      c.inv_freq.clear();
      break;
    }
    case 2: {
      const double bad[] = {1.0, 0.5, 0.0, -10000.0, kNan, kInf};
      const double bad_pos[] = {0.0, -1.0, kNan, kInf};
      const int k = static_cast<int>(r.range(0, 2));
      if (k == 0) c.theta_base = r.pick(bad);
      else if (k == 1) c.position_scale = r.pick(bad_pos);
      else c.attn_factor = r.pick(bad_pos);
      break;
    }
    default: c.null_field = "cache"; break;
  }
  return c;
}

// ---- shrinking -------------------------------------------------------------------------------------

std::vector<RopeQkCase> shrink_candidates(const RopeQkCase& c) {
  std::vector<RopeQkCase> out;
  shrink_shape(c, out, [](RopeQkCase&) {});
  if (c.attn_factor != 1.0 && std::isfinite(c.attn_factor) && c.attn_factor > 0) {
    RopeQkCase d = c;
    d.attn_factor = 1.0;
    out.push_back(std::move(d));
  }
  if (c.has_inv_freq) {
    RopeQkCase d = c;
    d.has_inv_freq = false;
    d.inv_freq.clear();
    out.push_back(std::move(d));
  }
  if (c.position_scale != 1.0 && std::isfinite(c.position_scale) && c.position_scale > 0) {
    RopeQkCase d = c;
    d.position_scale = 1.0;
    out.push_back(std::move(d));
  }
  shrink_shift(c, out);
  return out;
}

std::vector<RopeCachedCase> shrink_candidates(const RopeCachedCase& c) {
  std::vector<RopeCachedCase> out;
  const auto fix = [](RopeCachedCase& d) { fill_cache_rows(d); };
  shrink_shape(c, out, fix);
  // A smaller cache: just above the largest position read.
  std::int64_t top = -1;
  for (auto p : c.positions) top = std::max({top, p, p + c.shift});
  if (top >= 0 && c.cache_positions > top + 1) {
    RopeCachedCase d = c;
    d.cache_positions = top + 1;
    fix(d);
    out.push_back(std::move(d));
  }
  if (c.attn_factor != 1.0 && std::isfinite(c.attn_factor) && c.attn_factor > 0) {
    RopeCachedCase d = c;
    d.attn_factor = 1.0;
    fix(d);
    out.push_back(std::move(d));
  }
  if (c.cache_dtype >= 0 && c.cache_dtype <= 2 && c.cache_dtype != PEC_DTYPE_F32) {
    RopeCachedCase d = c;
    d.cache_dtype = PEC_DTYPE_F32;
    fix(d);
    out.push_back(std::move(d));
  }
  std::vector<RopeCachedCase> sh;
  shrink_shift(c, sh);
  for (auto& d : sh) {
    fix(d);
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<RopeCacheCase> shrink_candidates(const RopeCacheCase& c) {
  std::vector<RopeCacheCase> out;
  for (auto n : smaller(c.cache_positions, 1)) {
    RopeCacheCase d = c;
    d.cache_positions = n;
    out.push_back(std::move(d));
  }
  if (c.rotary_dim > 2 && c.rotary_dim % 2 == 0) {
    for (std::int64_t rd : {std::int64_t{2}, (c.rotary_dim / 2) & ~std::int64_t{1}, c.rotary_dim - 2}) {
      if (rd < 2 || rd >= c.rotary_dim) continue;
      RopeCacheCase d = c;
      d.rotary_dim = rd;
      if (d.has_inv_freq) d.inv_freq.resize(static_cast<std::size_t>(rd / 2));
      out.push_back(std::move(d));
    }
  }
  if (c.attn_factor != 1.0 && std::isfinite(c.attn_factor) && c.attn_factor > 0) {
    RopeCacheCase d = c;
    d.attn_factor = 1.0;
    out.push_back(std::move(d));
  }
  if (c.has_inv_freq) {
    RopeCacheCase d = c;
    d.has_inv_freq = false;
    d.inv_freq.clear();
    out.push_back(std::move(d));
  }
  if (c.position_scale != 1.0 && std::isfinite(c.position_scale) && c.position_scale > 0) {
    RopeCacheCase d = c;
    d.position_scale = 1.0;
    out.push_back(std::move(d));
  }
  return out;
}

// ---- descriptions ------------------------------------------------------------------------------------

void describe(const RopeQkCase& c, std::vector<report::Arg>& args, std::vector<report::Tensor>& in) {
  args.clear();
  describe_shape(c, args);
  args.push_back({"theta_base", c.theta_base});
  args.push_back({"position_scale", c.position_scale});
  args.push_back({"attn_factor", c.attn_factor});
  describe_views(c, args);
  args.insert(args.begin() + 11, {"inv_freq", c.has_inv_freq ? report::ArgValue{widen(c.inv_freq)}
                                                             : report::ArgValue{std::monostate{}}});
  describe_inputs(c, in);
}

void describe(const RopeCachedCase& c, std::vector<report::Arg>& args, std::vector<report::Tensor>& in) {
  args.clear();
  describe_shape(c, args);
  args.push_back({"cache_dtype", std::string(dtype_name(c.cache_dtype))});
  args.push_back({"cache_positions", c.cache_positions});
  describe_views(c, args);
  args.push_back({"cache built with", "theta_base " + report::format_real(c.theta_base) + ", position_scale " +
                                          report::format_real(c.position_scale) + ", attn_factor " +
                                          report::format_real(c.attn_factor) +
                                          (c.has_inv_freq ? ", inv_freq table" : "")});
  args.push_back({"cache rows filled (others NaN)", c.row_pos});
  describe_inputs(c, in);
  if (c.null_field != "cos_sin_cache" && !c.row_pos.empty()) {
    in.push_back({"cos_sin_cache rows", {static_cast<std::int64_t>(c.row_pos.size()), c.rotary_dim}, c.row_vals});
  }
}

void describe(const RopeCacheCase& c, std::vector<report::Arg>& args, std::vector<report::Tensor>&) {
  args = {{"storage", std::string(storage_name(c.storage))},
          {"cache_positions", c.cache_positions},
          {"rotary_dim", c.rotary_dim},
          {"theta_base", c.theta_base},
          {"position_scale", c.position_scale},
          {"attn_factor", c.attn_factor},
          {"inv_freq", c.has_inv_freq ? report::ArgValue{widen(c.inv_freq)} : report::ArgValue{std::monostate{}}}};
  if (!c.null_field.empty()) args.push_back({"null_argument", c.null_field});
  if (!c.note.empty()) args.push_back({"generator", c.note});
}

}  // namespace pecheck::verifier
