// Valid generators of the version 2 RoPE cases (cases.hpp), view strides and the cache rows
// (domains and invalid generators: invalid.cpp; shrinking and descriptions: shrink.cpp).
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

#include "oracle/format.hpp"
#include "oracle/oracle.hpp"
#include "verify/rope_v2/cases.hpp"

namespace pecheck::verifier {

namespace {

constexpr std::int64_t kMaxElements = 16384;  // q + k elements of one valid case

oracle::Format fmt(std::int32_t dtype) {
  return dtype == PEC_DTYPE_BF16  ? oracle::Format::BF16
         : dtype == PEC_DTYPE_F16 ? oracle::Format::F16
                                  : oracle::Format::F32;
}

// A float rounded to the storage type; a value an fp16 cannot hold finitely is scaled down by
// 2^-20 first (as fit_storage of v1/cases.hpp).
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
      for (std::size_t t = 0; t < p.size(); ++t)
        p[t] = std::min(s + static_cast<std::int64_t>(t), max_pos);
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
    case 4:
      std::fill(p.begin(), p.end(), r.range(0, max_pos));
      break;
    case 5:
      for (auto& e : p) {
        const int b = static_cast<int>(
            r.range(0, 63 - __builtin_clzll(static_cast<unsigned long long>(max_pos) | 1)));
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
  static constexpr std::int64_t kPairs[][2] = {
      {1, 1}, {2, 1},  {4, 1}, {8, 1},  {3, 1},  {4, 2}, {6, 2},  {6, 3}, {8, 2}, {8, 8},
      {5, 5}, {12, 4}, {9, 3}, {10, 5}, {32, 8}, {7, 7}, {16, 2}, {2, 2}, {6, 1}, {14, 2}};
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
  static constexpr std::int64_t kDims[] = {2,  4,  6,  8,  16,  18,  32, 48,
                                           64, 64, 80, 96, 128, 128, 256};
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
      if (c.rotary_dim > 8)
        c.rotary_dim /= 2, c.rotary_dim &= ~std::int64_t{1}, c.head_dim = c.rotary_dim;
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
  if (k < 7) return 0.1 * std::log(s) + 1.0;                      // YaRN mscale
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
      double f =
          std::pow(c.theta_base, -2.0 * static_cast<double>(i) / static_cast<double>(rotary_dim)) *
          lin;
      if (r.chance(20)) f /= 1.0 + r.unit() * 40.0;  // LongRoPE-style per-pair rescale
      c.inv_freq.push_back(static_cast<float>(f));
    }
    c.note = "inv_freq table" + std::string(lin != 1.0 ? " (linearly scaled)" : "");
  }
}

}  // namespace

// ---- views -------------------------------------------------------------------------------------

pec_strides view_strides(const QkShape& c, const ViewSpec& v, std::int64_t n_heads) {
  if (v.explicit_strides) return v.strides;
  const std::int64_t d = std::max<std::int64_t>(c.head_dim, 0),
                     t = std::max<std::int64_t>(c.n_tokens, 0);
  const std::int64_t h = std::max<std::int64_t>(n_heads, 0);
  switch (v.kind) {
    case ViewSpec::HeadMajor: {
      const std::int64_t st = d + v.token_gap;
      return {st, t * st + v.head_gap};
    }
    case ViewSpec::FusedQkv:
      return {
          (std::max<std::int64_t>(c.n_q_heads, 0) + 2 * std::max<std::int64_t>(c.n_kv_heads, 0)) *
                  d +
              v.token_gap,
          d};
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

std::string view_violation(const QkShape& c, const pec_strides& s, std::int64_t n_heads,
                           const char* name) {
  const std::int64_t T = c.n_tokens, H = n_heads, D = c.head_dim;
  const std::string n(name);
  if (T <= 0 || H <= 0 || D <= 0) return "";
  const bool need_token = T > 1, need_head = H > 1;
  if (s.token < 0 || s.head < 0) {
    return n + " strides {" + std::to_string(s.token) + ", " + std::to_string(s.head) +
           "} are negative";
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
  // Not one of ABI-VIEW-1's layouts; say which bound each misses and whether two elements of
  // the view actually share an address (strides of interleaved views may not).
  std::string need;
  if (!need_head) {
    need = "token >= " + std::to_string(D);
  } else if (!need_token) {
    need = "head >= " + std::to_string(D);
  } else {
    need = "token-major needs head >= " + std::to_string(D) + " and token >= n_heads*head = " +
           std::to_string(H * s.head) + "; head-major needs token >= " + std::to_string(D) +
           " and head >= n_tokens*token = " + std::to_string(T * s.token);
  }
  bool shared = false;
  if (T * H * D <= 4096) {
    std::vector<std::int64_t> idx;
    for (std::int64_t t = 0; t < T; ++t)
      for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t l = 0; l < D; ++l) idx.push_back(t * s.token + h * s.head + l);
    std::sort(idx.begin(), idx.end());
    shared = std::adjacent_find(idx.begin(), idx.end()) != idx.end();
  }
  return n + " strides {token " + std::to_string(s.token) + ", head " + std::to_string(s.head) +
         "} fit neither layout of ABI-VIEW-1 for " + std::to_string(T) + " tokens x " +
         std::to_string(H) + " heads x " + std::to_string(D) + " lanes (" + need + ")" +
         (shared ? "; elements of the view share addresses" : "");
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
  return d == PEC_DTYPE_F32    ? "f32"
         : d == PEC_DTYPE_BF16 ? "bf16"
         : d == PEC_DTYPE_F16  ? "f16"
                               : "invalid";
}

void fill_cache_rows(RopeCachedCase& c) {
  c.row_pos.clear();
  c.row_vals.clear();
  if (c.rotary_dim < 2 || c.rotary_dim % 2 != 0 || c.rotary_dim > 4096) return;
  if (c.cache_dtype < 0 || c.cache_dtype > 2 || !std::isfinite(c.attn_factor) ||
      !(c.attn_factor > 0))
    return;
  if (!std::isfinite(c.theta_base) || !(c.theta_base > 1) || !std::isfinite(c.position_scale) ||
      !(c.position_scale > 0))
    return;
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
      c.row_vals[base + static_cast<std::size_t>(half + i)] =
          static_cast<float>(pr.yb_rounded.in(f));
    }
  }
}

// ---- valid generators
// ----------------------------------------------------------------------------

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
  std::int64_t max_pos =
      big ? p.max_position : std::min<std::int64_t>(p.max_position, r.chance(50) ? 8191 : 2047);
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
    c.cache_positions = std::min<std::int64_t>(
        p.max_position + 1, r.range(8192, std::max<std::int64_t>(8192, p.max_position + 1)));
    c.rotary_dim = 2 * r.range(1, 2);  // <= 2^19 elements: the builder writes them all
  }
  gen_freq(r, c, c.rotary_dim);
  c.attn_factor = gen_attn_factor(r);
  c.placement = static_cast<std::int32_t>(r.range(0, 3));
  return c;
}

// ---- production-size valid generators (the .large checks, issue 20 finding 12)
// ----------------------------------------------------------------------------

namespace {

// Reshapes a drawn case to production size (gen_rope_large's two kinds, v1/cases.hpp): even case
// indices many token-heads (10,240 to 16,384 query token-heads, head_dim 2 to 8, GQA groups of
// 1 to 8), odd ones a long prefill chunk of 64 or 128 lanes (2^15 to 2^16 elements in q and k; many-head cases at most 2^16).
// Views keep their drawn kind and gaps (strides derive from the shape).
template <class C>
void large_shape(Rng& r, const GenParams& p, C& c) {
  static constexpr std::int64_t kShortDims[] = {4, 8};
  static constexpr std::int64_t kManyHeads[] = {8, 16, 32, 64};
  static constexpr std::int64_t kGroup[] = {1, 2, 4, 8};
  std::int64_t rotary = 0;
  if (p.case_index % 2 == 0) {
    c.head_dim = r.pick(kShortDims);
    rotary = c.head_dim;
    c.n_q_heads = r.pick(kManyHeads);
    c.n_kv_heads = c.n_q_heads / r.pick(kGroup);
    c.n_tokens = (r.range(10240, 16384) + c.n_q_heads - 1) / c.n_q_heads;
    while (c.n_tokens * (c.n_q_heads + c.n_kv_heads) * c.head_dim > kLargeElements && c.head_dim > 2) {
      c.head_dim /= 2;  // at most kLargeElements in q and k
    }
    rotary = c.head_dim;
  } else {
    c.head_dim = r.chance(50) ? 64 : 128;
    rotary = r.chance(75) ? c.head_dim : c.head_dim / 2;
    c.n_q_heads = r.chance(50) ? 1 : 2;
    c.n_kv_heads = 1;
    c.n_tokens = r.range(std::int64_t{1} << 15, kLargeElements) / ((c.n_q_heads + c.n_kv_heads) * c.head_dim);
  }
  if (rotary != c.rotary_dim) gen_freq(r, c, rotary);  // an inv_freq table has rotary_dim / 2 entries
  c.rotary_dim = rotary;
  c.positions.assign(static_cast<std::size_t>(c.n_tokens), 0);
  if (p.case_index % 2 == 1 || r.chance(50)) {  // one prefill chunk at a random offset
    const std::int64_t s = r.range(0, std::max<std::int64_t>(0, p.max_position - c.n_tokens + 1));
    for (std::int64_t t = 0; t < c.n_tokens; ++t) c.positions[static_cast<std::size_t>(t)] = std::min(s + t, p.max_position);
  } else {
    for (auto& e : c.positions) e = r.range(0, p.max_position);
  }
  c.q = gen_values(r, c.n_tokens * c.n_q_heads * c.head_dim, c.storage);
  c.k = gen_values(r, c.n_tokens * c.n_kv_heads * c.head_dim, c.storage);
}

}  // namespace

RopeQkCase gen_rope_qk_large(Rng& r, const GenParams& p) {
  RopeQkCase c = gen_rope_qk(r, p);
  large_shape(r, p, c);
  return c;
}

RopeCachedCase gen_rope_cached_large(Rng& r, const GenParams& p) {
  RopeCachedCase c = gen_rope_cached(r, p);
  large_shape(r, p, c);
  // A long cache, but one the arena can fill with NaN rows on every call: positions below 16,384
  // (a cache of 16,384 rows of 128 lanes is 8 MiB of float32).
  for (auto& q : c.positions) q %= std::min<std::int64_t>(p.max_position + 1, 16384);
  std::int64_t top = 0;
  for (auto q : c.positions) top = std::max(top, q);
  c.cache_positions = top + 1 + r.range(0, 64);  // a long cache: rows up to the largest position
  fill_cache_rows(c);
  return c;
}

}  // namespace pecheck::verifier
