// Case generators, biased toward where kernel bugs live: both layouts, partial rotary, token
// counts that are not multiples of vector widths (and zero), repeated and non-contiguous
// (packed) positions, positions near --max-position, position_scale != 1, inverse-frequency
// tables from every scaling of spec/rope.md, head counts that are not powers of two, T5
// distances around max_exact and beyond max_distance in both directions, both modes.
//
// Boundaries of the ABI's domain (spec/abi.md), each with a stated share of the cases of every
// value check (README "Verifying a kernel", generators):
//   RoPE head_dim odd (head_dim - rotary_dim odd)        25%  (of which head_dim = rotary_dim + 1: 40%)
//   RoPE rotary_dim = 2                                  10%
//   n_tokens / n_q / n_k = 0 and = 1                      5% each
//   n_heads = 1; non-powers of two (3, 5, 6, 7, 9, ...)   18%; 53% of the drawn counts
//   positions 0 and --max-position (2^31 - 1 at most)    10%: both put into the case
//   theta_base 1 + 2^-20 .. 1 + 2^-10; 1e12              3%; 3%
//   position_scale 1e-3 or 1e3                            4%
//   T5 num_buckets 1024 (the limit) or 64 with max_distance 1000 or 2^31, offsets spread
//   log-uniformly over [max_exact, max_distance]          30% of T5 cases
//   output below / above its inputs, adjacent or not     25% each (bit 0, bit 1 of placement)
#include <algorithm>
#include <cmath>

#include "reference/rope.hpp"
#include "verify/v1/cases.hpp"

namespace pecheck::verifier {

namespace {

// Output elements per generated case: large enough for real shapes (e.g. 24 tokens x 5 heads x
// 128 lanes), small enough that the oracle checks thousands of cases within the time budget.
// The oracles of ALiBi (non-power-of-two slopes) and sinusoidal (one angle per element) cost
// more per element than RoPE's (one angle per token and frequency, shared by the heads).
constexpr std::int64_t kMaxElements = 16384;
constexpr std::int64_t kMaxElementsPerElementOracle = 4096;

// Input values: mostly in [-1, 1), sometimes scaled over many binades, sometimes signed zeros.
float gen_value(Rng& r) {
  const int k = static_cast<int>(r.range(0, 19));
  if (k == 0) return r.chance(50) ? 0.0f : -0.0f;
  float v = r.signed_unit();
  if (k <= 3) v = std::ldexp(v, static_cast<int>(r.range(-30, 30)));
  return v;
}

std::vector<float> gen_values(Rng& r, std::int64_t n) {
  std::vector<float> v(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  for (auto& e : v) e = gen_value(r);
  return v;
}

// n positions in [0, max_pos] in one of several shapes.
std::vector<std::int64_t> gen_positions(Rng& r, std::int64_t n, std::int64_t max_pos) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(n));
  if (n == 0) return p;
  const std::int64_t span = std::min<std::int64_t>(n - 1, max_pos);
  switch (r.range(0, 6)) {
    case 0: {  // contiguous from a random start (a prefill chunk)
      const std::int64_t s = r.range(0, max_pos - span);
      for (std::int64_t t = 0; t < n; ++t) p[t] = std::min(s + t, max_pos);
      break;
    }
    case 1: {  // packed sequences: segments restarting at 0
      std::int64_t pos = 0;
      for (std::int64_t t = 0; t < n; ++t) {
        if (t > 0 && r.chance(20)) pos = 0;
        p[t] = std::min(pos++, max_pos);
      }
      break;
    }
    case 2:  // anywhere
      for (auto& e : p) e = r.range(0, max_pos);
      break;
    case 3:  // at the top of the range
      for (auto& e : p) e = max_pos - r.range(0, std::min<std::int64_t>(64, max_pos));
      break;
    case 4: {  // one position repeated
      const std::int64_t v = r.range(0, max_pos);
      std::fill(p.begin(), p.end(), v);
      break;
    }
    case 5:  // powers of two and their neighbours (fp16/bf16 rounding boundaries)
      for (auto& e : p) {
        const int b = static_cast<int>(r.range(0, 63 - __builtin_clzll(static_cast<unsigned long long>(max_pos) | 1)));
        e = std::clamp<std::int64_t>((std::int64_t{1} << b) + r.range(-1, 1), 0, max_pos);
      }
      break;
    default: {  // decode-style: a few recent tokens at a large offset, non-contiguous
      const std::int64_t s = r.range(0, max_pos);
      for (auto& e : p) e = std::clamp<std::int64_t>(s - r.range(0, 3 * n), 0, max_pos);
      break;
    }
  }
  return p;
}

std::int64_t gen_count(Rng& r) {
  const int k = static_cast<int>(r.range(0, 19));
  if (k == 0) return 0;
  if (k == 1) return 1;
  if (k <= 6) return r.range(1, 5);
  if (k <= 15) return r.range(6, 33);
  return r.range(34, 70);
}

std::int64_t gen_heads(Rng& r) {
  static constexpr std::int64_t kHeads[] = {1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 20, 24, 32, 40, 1};
  return r.pick(kHeads);
}

std::int64_t even_in(Rng& r, std::int64_t lo, std::int64_t hi) { return 2 * r.range(lo / 2, hi / 2); }

// An inverse-frequency table from one of the scalings of spec/rope.md, rounded to float as the
// ABI passes it (the oracle takes the float values as exact).
void gen_inv_freq(Rng& r, RopeCase& c) {
  using reference::RopeScaling;
  static constexpr RopeScaling kKinds[] = {RopeScaling::None, RopeScaling::Linear, RopeScaling::Ntk,
                                           RopeScaling::DynamicNtk, RopeScaling::Yarn, RopeScaling::Llama3};
  static constexpr double kFactors[] = {2, 4, 8, 16, 32, 40};
  static constexpr std::int64_t kOrig[] = {2048, 4096, 8192};
  reference::RopeConfig cfg;
  cfg.head_dim = c.head_dim;
  cfg.rotary_dim = c.rotary_dim;
  cfg.layout = static_cast<reference::RopeLayout>(c.layout);
  cfg.base = c.theta_base;
  cfg.position_scale = c.position_scale;
  cfg.scaling.kind = r.pick(kKinds);
  cfg.scaling.factor = r.pick(kFactors);
  cfg.scaling.original_max_positions = r.pick(kOrig);
  const std::int64_t seq = r.range(1, 4 * cfg.scaling.original_max_positions);
  // NTK's exponent d/(d-2) needs rotary_dim >= 4 (ROPE-ARG-6): plain frequencies below that.
  if (c.rotary_dim < 4 && (cfg.scaling.kind == RopeScaling::Ntk || cfg.scaling.kind == RopeScaling::DynamicNtk)) {
    cfg.scaling.kind = RopeScaling::None;
  }
  c.inv_freq = reference::rope_inv_freq<float>(cfg, seq);
  c.has_inv_freq = true;
  c.note = std::string("inv_freq from scaling ") + reference::to_string(cfg.scaling.kind);
  if (cfg.scaling.kind != RopeScaling::None) {
    c.note += " factor " + std::to_string(static_cast<int>(cfg.scaling.factor)) + " original_max " +
              std::to_string(cfg.scaling.original_max_positions);
  }
  if (cfg.scaling.kind == RopeScaling::DynamicNtk) c.note += " seq_len " + std::to_string(seq);
}

// Puts position 0 and the largest position into a share of the cases (ABI boundaries).
void gen_extreme_positions(Rng& r, std::vector<std::int64_t>& p, std::int64_t max_pos) {
  if (p.empty() || !r.chance(10)) return;
  p.front() = 0;
  p.back() = max_pos;
}

}  // namespace

RopeCase gen_rope(Rng& r, const GenParams& p) {
  static constexpr std::int64_t kDims[] = {2, 4, 6, 8, 10, 16, 18, 24, 32, 34, 48, 64, 80, 96, 128, 128, 130, 256};
  static constexpr double kScales[] = {0.5, 0.25, 0.125, 2.0, 4.0, 8.0, 1.0 / 3.0, 1.0 / 1.5, 0.1};
  static constexpr double kBases[] = {10000.0, 10000.0, 500000.0, 1000000.0, 100.0, 2.0, 1.0e8};
  RopeCase c;
  c.layout = r.chance(50) ? 0 : 1;
  c.head_dim = r.pick(kDims);
  const int rk = static_cast<int>(r.range(0, 9));
  if (rk < 5 || c.head_dim == 2) {
    c.rotary_dim = c.head_dim;
  } else if (rk < 7) {
    c.rotary_dim = std::max<std::int64_t>(2, (c.head_dim / 2) & ~std::int64_t{1});
  } else {
    c.rotary_dim = even_in(r, 2, c.head_dim);
  }
  if (r.chance(10)) c.rotary_dim = 2;
  if (r.chance(25)) {  // odd head_dim: pass-through lanes that do not come in pairs
    c.head_dim = r.chance(40) ? c.rotary_dim + 1 : c.rotary_dim + 2 * r.range(0, 8) + 1;
  }
  c.n_heads = gen_heads(r);
  c.n_tokens = gen_count(r);
  while (c.n_tokens * c.n_heads * c.head_dim > kMaxElements) {
    if (c.n_heads > 1) c.n_heads = (c.n_heads + 1) / 2; else c.n_tokens /= 2;
  }
  c.position_scale = r.chance(50) ? 1.0 : r.pick(kScales);
  if (r.chance(4)) c.position_scale = r.chance(50) ? 1.0e-3 : 1.0e3;
  c.theta_base = r.chance(85) ? r.pick(kBases) : 1.0 + r.unit() * 1.0e6;
  if (r.chance(6)) c.theta_base = r.chance(50) ? 1.0 + std::ldexp(1.0, -static_cast<int>(r.range(10, 20))) : 1.0e12;
  c.positions = gen_positions(r, c.n_tokens, p.max_position);
  gen_extreme_positions(r, c.positions, p.max_position);
  if (r.chance(40)) gen_inv_freq(r, c);
  const std::int64_t n = c.n_tokens * c.n_heads * c.head_dim;
  c.x = gen_values(r, n);
  c.placement = static_cast<std::int32_t>(r.range(0, 3));
  return c;
}

RopeCase gen_rope_large(Rng& r, const GenParams& p) {
  RopeCase c = gen_rope(r, p);  // layout, base, scale, inv_freq drawn as for any case; shape below
  static constexpr std::int64_t kShortDims[] = {4, 6, 8};
  static constexpr std::int64_t kManyHeads[] = {8, 12, 16, 32, 40, 64};
  std::int64_t rotary = 0;
  if (p.case_index % 2 == 0) {  // many token-heads
    c.head_dim = r.pick(kShortDims);
    c.n_heads = r.pick(kManyHeads);
    c.n_tokens = (r.range(10240, 16384) + c.n_heads - 1) / c.n_heads;
    while (c.n_tokens * c.n_heads * c.head_dim > kLargeElements && c.head_dim > 2) c.head_dim -= 2;
    rotary = c.head_dim;
  } else {  // a long prefill chunk of a production head
    c.head_dim = r.chance(50) ? 64 : 128;
    rotary = r.chance(75) ? c.head_dim : c.head_dim / 2;  // partial rotary (GPT-NeoX, ChatGLM)
    c.n_heads = r.chance(50) ? 1 : 2;
    c.n_tokens = r.range(std::int64_t{1} << 15, kLargeElements) / (c.n_heads * c.head_dim);
  }
  if (c.has_inv_freq && rotary != c.rotary_dim) {  // the table has rotary_dim / 2 entries
    c.has_inv_freq = false;
    c.inv_freq.clear();
    c.note.clear();
  }
  c.rotary_dim = rotary;
  if (p.case_index % 2 == 1 || r.chance(50)) {  // one prefill chunk at a random offset
    const std::int64_t s = r.range(0, std::max<std::int64_t>(0, p.max_position - c.n_tokens + 1));
    c.positions.resize(static_cast<std::size_t>(c.n_tokens));
    for (std::int64_t t = 0; t < c.n_tokens; ++t) c.positions[static_cast<std::size_t>(t)] = std::min(s + t, p.max_position);
  } else {
    c.positions = gen_positions(r, c.n_tokens, p.max_position);
  }
  c.x = gen_values(r, c.n_tokens * c.n_heads * c.head_dim);
  return c;
}

AlibiCase gen_alibi(Rng& r, const GenParams& p) {
  AlibiCase c;
  c.n_heads = gen_heads(r);
  c.mode = r.chance(50) ? 0 : 1;
  c.n_q = r.chance(5) ? 0 : r.chance(5) ? 1 : r.range(1, 24);
  c.n_k = r.chance(5) ? 0 : r.chance(5) ? 1 : r.range(1, 40);
  while (c.n_heads * c.n_q * c.n_k > kMaxElementsPerElementOracle && c.n_heads > 1) c.n_heads = (c.n_heads + 1) / 2;
  while (c.n_heads * c.n_q * c.n_k > kMaxElementsPerElementOracle) c.n_k = (c.n_k + 1) / 2;
  if (r.chance(40)) {  // one sequence: keys 0..n_k-1 from a start, queries its last tokens
    const std::int64_t s = r.range(0, std::max<std::int64_t>(0, p.max_position - c.n_k));
    for (std::int64_t j = 0; j < c.n_k; ++j) c.k_pos.push_back(std::min(s + j, p.max_position));
    for (std::int64_t i = 0; i < c.n_q; ++i) {
      c.q_pos.push_back(std::clamp(s + c.n_k - c.n_q + i, std::int64_t{0}, p.max_position));
    }
  } else {
    c.q_pos = gen_positions(r, c.n_q, p.max_position);
    c.k_pos = gen_positions(r, c.n_k, p.max_position);
    gen_extreme_positions(r, c.k_pos, p.max_position);
  }
  const std::int64_t n = c.n_heads * c.n_q * c.n_k;
  if (r.chance(30)) {
    c.scores.assign(static_cast<std::size_t>(n), 0.0f);
  } else {
    c.scores = gen_values(r, n);
  }
  c.placement = static_cast<std::int32_t>(r.range(0, 3));
  return c;
}

T5Case gen_t5(Rng& r, const GenParams& p) {
  static constexpr std::int64_t kBuckets[] = {32, 32, 64, 16, 8, 4, 33, 128};
  static constexpr std::int64_t kDistances[] = {128, 128, 256, 512, 64, 1000};
  T5Case c;
  c.n_heads = gen_heads(r);
  c.bidirectional = r.chance(50) ? 1 : 0;
  // Causal num_buckets 2 and 3 are valid (ABI-T5-1) but outside the oracle's domain (it needs
  // num_buckets >= 4), so the value checks start at 4.
  c.num_buckets = r.chance(80) ? r.pick(kBuckets) : r.range(4, 100);
  const std::int64_t max_exact = c.bidirectional ? c.num_buckets / 4 : c.num_buckets / 2;
  c.max_distance = r.chance(80) ? std::max(r.pick(kDistances), max_exact + 1)
                                : r.range(max_exact + 1, 4 * max_exact + 4096);
  // Many buckets with a large max_distance together: the log buckets are narrow there, and a
  // slightly wrong scale moves many offsets across a boundary.
  const bool wide = r.chance(30);
  if (wide) {
    static constexpr std::int64_t kWide[][2] = {{64, 1000}, {64, 1000}, {1024, 2147483648}, {1024, 100000},
                                                {128, 1000000}, {32, 2147483648}};
    const auto& w = kWide[r.range(0, 5)];
    c.num_buckets = w[0];
    c.max_distance = w[1];
  }
  const std::int64_t max_exact_w = c.bidirectional ? c.num_buckets / 4 : c.num_buckets / 2;
  c.n_q = r.chance(5) ? 0 : r.chance(5) ? 1 : r.range(1, 20);
  c.n_k = r.chance(5) ? 0 : r.chance(5) ? 1 : r.range(1, 40);
  while (c.n_heads * c.n_q * c.n_k > kMaxElements) c.n_heads = (c.n_heads + 1) / 2;
  const int mode = wide ? 3 : static_cast<int>(r.range(0, 2));
  if (mode == 0) {  // offsets at the bucket boundaries, both signs
    const std::int64_t anchors[] = {0, 1, max_exact - 1, max_exact, max_exact + 1, c.max_distance - 1,
                                    c.max_distance, c.max_distance + 1, 2 * c.max_distance, 3 * c.max_distance / 2};
    const std::int64_t q0 = r.range(0, p.max_position);
    for (std::int64_t i = 0; i < c.n_q; ++i) c.q_pos.push_back(std::clamp(q0 + r.range(-2, 2), std::int64_t{0}, p.max_position));
    // The log buckets' boundaries: distance e (M/e)^(k/(nb-e)) for bucket e + k (rounded, +-1).
    const std::int64_t nb = c.bidirectional ? c.num_buckets / 2 : c.num_buckets;
    const auto boundary = [&] {
      const double k = static_cast<double>(r.range(1, std::max<std::int64_t>(1, nb - max_exact - 1)));
      const double d = static_cast<double>(max_exact) *
                       std::pow(static_cast<double>(c.max_distance) / static_cast<double>(max_exact),
                                k / static_cast<double>(nb - max_exact));
      return std::llround(d) + r.range(-1, 1);
    };
    for (std::int64_t j = 0; j < c.n_k; ++j) {
      const std::int64_t off = (r.chance(30) ? boundary() : r.pick(anchors)) * (r.chance(50) ? 1 : -1);
      c.k_pos.push_back(std::clamp(q0 + off, std::int64_t{0}, p.max_position));
    }
  } else if (mode == 1) {  // one sequence
    const std::int64_t s = r.range(0, std::max<std::int64_t>(0, p.max_position - c.n_k));
    for (std::int64_t j = 0; j < c.n_k; ++j) c.k_pos.push_back(std::min(s + j, p.max_position));
    for (std::int64_t i = 0; i < c.n_q; ++i) c.q_pos.push_back(std::min(s + r.range(0, c.n_k), p.max_position));
  } else if (mode == 3) {  // offsets spread log-uniformly over [max_exact, max_distance], both signs
    const std::int64_t q0 = r.range(0, p.max_position);
    const double lo = std::log(static_cast<double>(max_exact_w)), hi = std::log(static_cast<double>(c.max_distance));
    for (std::int64_t i = 0; i < c.n_q; ++i) c.q_pos.push_back(q0);
    for (std::int64_t j = 0; j < c.n_k; ++j) {
      const auto off = static_cast<std::int64_t>(std::exp(lo + (hi - lo) * r.unit()));
      c.k_pos.push_back(std::clamp(q0 + (r.chance(50) ? off : -off), std::int64_t{0}, p.max_position));
    }
  } else {
    c.q_pos = gen_positions(r, c.n_q, p.max_position);
    c.k_pos = gen_positions(r, c.n_k, p.max_position);
  }
  c.table = gen_values(r, c.num_buckets * c.n_heads);
  c.placement = static_cast<std::int32_t>(r.range(0, 3));
  return c;
}

SinusoidalCase gen_sinusoidal(Rng& r, const GenParams& p) {
  static constexpr std::int64_t kDims[] = {2, 4, 6, 8, 10, 16, 18, 30, 64, 128, 130, 256, 512};
  static constexpr double kBases[] = {10000.0, 10000.0, 500.0, 1.0e6, 2.0};
  SinusoidalCase c;
  c.d_model = r.pick(kDims);
  c.n_tokens = gen_count(r);
  while (c.n_tokens * c.d_model > kMaxElementsPerElementOracle) c.n_tokens /= 2;
  c.base = r.chance(85) ? r.pick(kBases) : 1.0 + r.unit() * 1.0e5;
  c.positions = gen_positions(r, c.n_tokens, p.max_position);
  gen_extreme_positions(r, c.positions, p.max_position);
  c.placement = static_cast<std::int32_t>(r.range(0, 3));
  return c;
}

LearnedCase gen_learned(Rng& r, const GenParams&) {
  LearnedCase c;
  c.max_positions = r.chance(20) ? r.range(1, 4) : r.range(5, 600);
  c.d_model = r.chance(30) ? r.range(1, 9) : r.range(10, 70);
  c.n_tokens = gen_count(r);
  for (std::int64_t t = 0; t < c.n_tokens; ++t) {
    const int k = static_cast<int>(r.range(0, 9));
    c.positions.push_back(k == 0 ? 0 : k == 1 ? c.max_positions - 1 : r.range(0, c.max_positions - 1));
  }
  c.table = gen_values(r, c.max_positions * c.d_model);
  c.placement = static_cast<std::int32_t>(r.range(0, 3));
  return c;
}

// Production-size bias and table cases (the .large checks; cases.hpp). The ALiBi and T5 oracles
// cost about a microsecond per element, so these stay at 2^15 to 2^16 elements.
namespace {

// One sequence of n_k keys from a random start with its last n_q tokens as queries (a prefill
// chunk), or n_q recent queries against a long cache (decode).
void large_sequence(Rng& r, const GenParams& p, std::int64_t n_q, std::int64_t n_k, std::vector<std::int64_t>& q_pos,
                    std::vector<std::int64_t>& k_pos) {
  const std::int64_t s = r.range(0, std::max<std::int64_t>(0, p.max_position - n_k + 1));
  k_pos.resize(static_cast<std::size_t>(n_k));
  q_pos.resize(static_cast<std::size_t>(n_q));
  for (std::int64_t j = 0; j < n_k; ++j) k_pos[static_cast<std::size_t>(j)] = std::min(s + j, p.max_position);
  for (std::int64_t i = 0; i < n_q; ++i) {
    q_pos[static_cast<std::size_t>(i)] = std::clamp(s + n_k - n_q + i, std::int64_t{0}, p.max_position);
  }
}

// Heads, queries and keys of a large bias case: even case indices many heads (non-powers of two
// among them) of a prefill chunk, odd ones a few queries against thousands of keys.
void large_bias_shape(Rng& r, const GenParams& p, std::int64_t& heads, std::int64_t& n_q, std::int64_t& n_k) {
  static constexpr std::int64_t kManyHeads[] = {12, 16, 20, 24, 32, 40, 48, 64};
  const std::int64_t elements = r.range(std::int64_t{1} << 15, kLargeElements);
  if (p.case_index % 2 == 0) {
    heads = r.pick(kManyHeads);
    n_q = r.range(8, 32);
  } else {
    heads = r.range(1, 8);
    n_q = r.range(1, 4);
  }
  n_k = (elements + heads * n_q - 1) / (heads * n_q);
}

}  // namespace

AlibiCase gen_alibi_large(Rng& r, const GenParams& p) {
  AlibiCase c = gen_alibi(r, p);
  large_bias_shape(r, p, c.n_heads, c.n_q, c.n_k);
  large_sequence(r, p, c.n_q, c.n_k, c.q_pos, c.k_pos);
  const std::int64_t n = c.n_heads * c.n_q * c.n_k;
  if (r.chance(50)) {
    c.scores.assign(static_cast<std::size_t>(n), 0.0f);
  } else {
    c.scores = gen_values(r, n);
  }
  return c;
}

T5Case gen_t5_large(Rng& r, const GenParams& p) {
  T5Case c = gen_t5(r, p);
  large_bias_shape(r, p, c.n_heads, c.n_q, c.n_k);
  large_sequence(r, p, c.n_q, c.n_k, c.q_pos, c.k_pos);
  c.table = gen_values(r, c.num_buckets * c.n_heads);
  return c;
}

LearnedCase gen_learned_large(Rng& r, const GenParams& p) {
  static constexpr std::int64_t kModel[] = {256, 512, 768, 1024};
  LearnedCase c = gen_learned(r, p);
  c.d_model = r.pick(kModel);
  c.n_tokens = (r.range(std::int64_t{1} << 15, kLargeElements) + c.d_model - 1) / c.d_model;
  c.max_positions = p.case_index % 2 == 0 ? c.n_tokens : r.range(c.n_tokens, 2048);  // a GPT-2 sized table
  c.positions.resize(static_cast<std::size_t>(c.n_tokens));
  const std::int64_t s = r.range(0, c.max_positions - c.n_tokens);
  for (std::int64_t t = 0; t < c.n_tokens; ++t) c.positions[static_cast<std::size_t>(t)] = s + t;
  c.table = gen_values(r, c.max_positions * c.d_model);
  return c;
}

std::int64_t output_size(const RopeCase& c) {
  if (c.n_tokens <= 0 || c.n_heads <= 0 || c.head_dim <= 0) return 0;
  return c.n_tokens * c.n_heads * c.head_dim;
}
std::int64_t output_size(const AlibiCase& c) {
  if (c.n_heads <= 0 || c.n_q <= 0 || c.n_k <= 0) return 0;
  return c.n_heads * c.n_q * c.n_k;
}
std::int64_t output_size(const T5Case& c) {
  if (c.n_heads <= 0 || c.n_q <= 0 || c.n_k <= 0) return 0;
  return c.n_heads * c.n_q * c.n_k;
}
std::int64_t output_size(const SinusoidalCase& c) {
  if (c.n_tokens <= 0 || c.d_model <= 0) return 0;
  return c.n_tokens * c.d_model;
}
std::int64_t output_size(const LearnedCase& c) {
  if (c.n_tokens <= 0 || c.d_model <= 0) return 0;
  return c.n_tokens * c.d_model;
}

namespace {

// A value of the format near v: rounded (nearest even); for fp16, a value of magnitude 2^14 or
// more is scaled by 2^-20 first (so that it and a rotation of it stay finite: 65504 is fp16's
// largest value).
void fit_values(std::vector<float>& v, Storage s) {
  if (s == Storage::F32) return;
  for (auto& e : v) {
    float w = e;
    if (s == Storage::F16 && std::fabs(w) >= 0x1p14f) w = std::ldexp(w, -20);
    e = round_to_storage(w, s);
  }
}

}  // namespace

void fit_storage(RopeCase& c) {
  fit_values(c.x, c.storage);
  fit_values(c.k, c.storage);
}
void fit_storage(AlibiCase& c) { fit_values(c.scores, c.storage); }
void fit_storage(T5Case& c) { fit_values(c.table, c.storage); }
void fit_storage(SinusoidalCase&) {}
void fit_storage(LearnedCase& c) { fit_values(c.table, c.storage); }

}  // namespace pecheck::verifier
