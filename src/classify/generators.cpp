#include "classify/generators.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

namespace pecheck::classify {

std::int64_t gen_position(Rng& r, std::int64_t max_exclusive) {
  const std::int64_t top = max_exclusive - 1;
  if (top <= 0) return 0;
  std::int64_t p = 0;
  switch (r.range(0, 5)) {
    case 0:  // small
      p = r.range(0, std::min<std::int64_t>(top, 16));
      break;
    case 1: {  // near a power of two
      int maxbit = 0;
      while (maxbit < 62 && (std::int64_t{1} << (maxbit + 1)) <= top) ++maxbit;
      const std::int64_t pw = std::int64_t{1} << r.range(0, maxbit);
      p = pw + r.range(-3, 3);
      break;
    }
    case 2:  // near the top of the range
      p = top - r.range(0, std::min<std::int64_t>(top, 1000));
      break;
    default: {  // log-uniform over the whole range
      const double e = r.uniform(0.0, std::log2(static_cast<double>(top) + 1.0));
      p = static_cast<std::int64_t>(std::exp2(e)) - 1 + r.range(0, 1);
      break;
    }
  }
  return std::clamp<std::int64_t>(p, 0, top);
}

std::int64_t gen_shift(Rng& r, std::int64_t m, std::int64_t n, std::int64_t max_exclusive) {
  const std::int64_t lo = -std::min(m, n);                     // m + c >= 0
  const std::int64_t hi = max_exclusive - 1 - std::max(m, n);  // m + c < max
  if (lo == 0 && hi == 0) return 0;                            // no room (single position)
  std::int64_t c = 0;
  for (int tries = 0; tries < 8 && c == 0; ++tries) {
    if (r.coin(3)) {
      c = r.range(std::max<std::int64_t>(lo, -8), std::min<std::int64_t>(hi, 8));
    } else {
      // magnitude log-uniform, sign as room allows
      const bool up = hi > 0 && (lo == 0 || r.coin(2));
      const std::int64_t room = up ? hi : -lo;
      const double e = r.uniform(0.0, std::log2(static_cast<double>(room) + 1.0));
      const std::int64_t mag =
          std::clamp<std::int64_t>(static_cast<std::int64_t>(std::exp2(e)), 1, room);
      c = up ? mag : -mag;
    }
  }
  if (c == 0) c = hi > 0 ? 1 : -1;
  return c;
}

std::int64_t gen_heads(Rng& r) {
  static constexpr std::int64_t kOdd[] = {3, 5, 6, 7, 12, 20, 24, 25, 40, 48, 71, 96, 112};
  switch (r.range(0, 3)) {
    case 0:
      return kOdd[r.range(0, std::size(kOdd) - 1)];
    case 1:
      return std::int64_t{1} << r.range(0, 7);
    case 2:
      return r.range(1, 64);
    default:
      return r.range(65, 1024);
  }
}

double gen_real(Rng& r) {
  constexpr double half_pi = std::numbers::pi / 2;
  switch (r.range(0, 5)) {
    case 0: {  // near a multiple of pi/2
      const double k = static_cast<double>(r.range(-1000000, 1000000));
      const double tiny = std::ldexp(r.uniform(-1.0, 1.0), -static_cast<int>(r.range(0, 50)));
      return k * half_pi + tiny;
    }
    case 1:
      return r.coin(2) ? 0.0 : -0.0;
    case 2:  // large or small exponents (finite, so products stay finite for unit partners)
      return std::ldexp(r.uniform(-1.0, 1.0), static_cast<int>(r.range(-60, 60)));
    default:
      return r.uniform(-4.0, 4.0);
  }
}

RotaryDims gen_rotary_dims(Rng& r, bool partial) {
  static constexpr std::int64_t kDims[] = {2,  4,  6,  8,  10,  16,  24, 32,
                                           40, 64, 80, 96, 128, 160, 256};
  std::int64_t hd = kDims[r.range(0, std::size(kDims) - 1)];
  if (r.coin(4)) hd += 1;  // odd head_dim: only partial rotary can be valid in full
  std::int64_t rd = hd - (hd % 2);
  if (partial) {
    if (hd < 4) hd = 4;
    // rotary fraction 1/4, 1/2 or arbitrary even < head_dim
    switch (r.range(0, 2)) {
      case 0:
        rd = std::max<std::int64_t>(2, (hd / 4) & ~std::int64_t{1});
        break;
      case 1:
        rd = std::max<std::int64_t>(2, (hd / 2) & ~std::int64_t{1});
        break;
      default:
        rd = 2 * r.range(1, std::max<std::int64_t>(1, (hd - 1) / 2));
        break;
    }
    if (rd >= hd) rd = hd - 2;
    if (rd < 2) rd = 2;
  }
  return {hd, rd};
}

reference::RopeConfig gen_rope_config(Rng& r, reference::RopeScaling kind,
                                      reference::RopeLayout layout, bool partial) {
  using reference::RopeScaling;
  reference::RopeConfig c;
  const RotaryDims dims = gen_rotary_dims(r, partial);
  c.head_dim = dims.head_dim;
  c.rotary_dim = dims.rotary_dim;
  if ((kind == RopeScaling::Ntk || kind == RopeScaling::DynamicNtk) && c.rotary_dim < 4) {
    c.head_dim = std::max<std::int64_t>(c.head_dim, partial ? 6 : 4);
    c.rotary_dim = 4;
  }
  c.layout = layout;
  static constexpr double kBases[] = {10000.0, 500000.0, 1000000.0, 1.0e4 * 0.75, 2.0};
  c.base = r.coin(4) ? r.uniform(1.5, 2.0e6) : kBases[r.range(0, std::size(kBases) - 1)];
  c.position_scale = r.coin(3) ? r.uniform(0.125, 4.0) : 1.0;
  auto& s = c.scaling;
  s.kind = kind;
  s.factor = kind == RopeScaling::None
                 ? 1.0
                 : (r.coin(2) ? static_cast<double>(r.range(2, 16)) : r.uniform(1.0, 32.0));
  s.original_max_positions = std::int64_t{1} << r.range(9, 17);
  s.beta_fast = r.coin(2) ? 32.0 : r.uniform(8.0, 64.0);
  s.beta_slow = r.coin(2) ? 1.0 : r.uniform(0.25, 4.0);
  s.yarn_truncate = !r.coin(4);
  s.low_freq_factor = r.coin(2) ? 1.0 : r.uniform(0.5, 2.0);
  s.high_freq_factor = r.coin(2) ? 4.0 : s.low_freq_factor + r.uniform(0.5, 8.0);
  return c;
}

reference::LongRopeConfig gen_longrope_config(Rng& r) {
  reference::LongRopeConfig c;
  const RotaryDims dims = gen_rotary_dims(r, r.coin(3));
  c.head_dim = dims.head_dim;
  c.rotary_dim = dims.rotary_dim;
  c.layout = r.coin(4) ? reference::RopeLayout::Gptj : reference::RopeLayout::Neox;
  c.base = r.coin(2) ? 10000.0 : r.uniform(1.5, 2.0e6);
  c.position_scale = r.coin(3) ? r.uniform(0.125, 4.0) : 1.0;
  const auto half = static_cast<std::size_t>(c.rotary_dim / 2);
  double lam = 1.0;
  for (std::size_t i = 0; i < half; ++i) {
    c.short_factor.push_back(r.uniform(1.0, 3.0));
    lam = std::min(64.0, lam * r.uniform(1.0, 1.6));  // long factors grow with i, as in Phi-3
    c.long_factor.push_back(lam);
  }
  c.original_max_position_embeddings = std::int64_t{1} << r.range(9, 17);
  c.max_position_embeddings = c.original_max_position_embeddings * r.range(1, 64);
  if (r.coin(4)) c.attention_factor = r.uniform(0.5, 2.0);
  return c;
}

reference::Llama4Config gen_llama4_config(Rng& r) {
  reference::Llama4Config c;
  c.rope = gen_rope_config(r, reference::RopeScaling::Llama3, reference::RopeLayout::Gptj, false);
  c.attention_chunk_size = r.coin(2) ? 8192 : r.range(2, 8192);
  c.floor_scale = r.coin(2) ? 8192.0 : static_cast<double>(r.range(2, 8192));
  c.attn_scale = r.coin(2) ? 0.1 : r.uniform(0.01, 1.0);
  c.use_qk_norm = !r.coin(4);
  return c;
}

reference::MropeConfig gen_mrope_config(Rng& r, reference::MropeLayout layout) {
  reference::MropeConfig c;
  c.layout = layout;
  if (r.coin(3)) {  // the shipped configs
    c.head_dim = c.rotary_dim = 128;
    c.section = layout == reference::MropeLayout::Sectioned
                    ? std::array<std::int64_t, 3>{16, 24, 24}
                    : std::array<std::int64_t, 3>{24, 20, 20};
    c.base = layout == reference::MropeLayout::Sectioned ? 1.0e6 : 5.0e6;
    return c;
  }
  static constexpr std::int64_t kHalf[] = {3, 4, 8, 12, 16, 32, 64};
  const std::int64_t half = kHalf[r.range(0, std::size(kHalf) - 1)];
  c.head_dim = c.rotary_dim = 2 * half;
  if (layout == reference::MropeLayout::Sectioned) {
    const std::int64_t a = r.range(0, half), b = r.range(0, half - a);
    c.section = {a, b, half - a - b};
  } else {
    const std::int64_t h = r.range(0, half / 3), w = r.range(0, half / 3);
    c.section = {half - h - w, h, w};
  }
  c.base = r.coin(2) ? 10000.0 : r.uniform(1.5, 5.0e6);
  c.position_scale = r.coin(3) ? r.uniform(0.125, 4.0) : 1.0;
  return c;
}

reference::MlaConfig gen_mla_config(Rng& r) {
  reference::MlaConfig c;
  static constexpr std::int64_t kNope[] = {0, 2, 16, 128};
  static constexpr std::int64_t kRope[] = {2, 8, 16, 64};
  c.qk_nope_head_dim = kNope[r.range(0, 3)];
  c.qk_rope_head_dim = kRope[r.range(0, 3)];
  c.rope = gen_rope_config(r, reference::RopeScaling::Yarn, reference::RopeLayout::Gptj, false);
  c.rope.head_dim = c.rope.rotary_dim = c.qk_rope_head_dim;
  static constexpr double kMscale[][2] = {{1.0, 1.0}, {0.707, 1.0}, {1.0, 0.0}, {0.0, 0.0}};
  const auto& ms = kMscale[r.range(0, 3)];
  c.rope.scaling.yarn_mscale = ms[0];
  c.rope.scaling.yarn_mscale_all_dim = ms[1];
  return c;
}

reference::T5Config gen_t5_config(Rng& r, bool bidirectional) {
  reference::T5Config c;
  c.bidirectional = bidirectional;
  static constexpr std::int64_t kBuckets[] = {4, 8, 16, 32, 32, 64, 128, 5, 7, 33};
  c.num_buckets = kBuckets[r.range(0, std::size(kBuckets) - 1)];
  const std::int64_t nb = bidirectional ? c.num_buckets / 2 : c.num_buckets;
  const std::int64_t exact = nb / 2;
  static constexpr std::int64_t kDist[] = {128, 128, 256, 1024, 4096};
  c.max_distance = r.coin(3) ? exact + r.range(1, 600) : kDist[r.range(0, std::size(kDist) - 1)];
  if (c.max_distance <= exact) c.max_distance = exact + 1;
  c.n_heads = gen_heads(r);
  if (c.n_heads > 64) c.n_heads = 1 + c.n_heads % 64;  // keep bias tables small
  return c;
}

std::int64_t gen_t5_offset(Rng& r, const reference::T5Config& c) {
  const std::int64_t M = c.max_distance;
  std::int64_t d = 0;
  switch (r.range(0, 4)) {
    case 0:
      d = r.range(0, 16);
      break;
    case 1:
      d = r.range(0, M);
      break;
    case 2:
      d = M + r.range(-2, 2);
      break;
    case 3:
      d = M + r.range(0, 100 * M);
      break;
    default:
      d = r.range(M, (std::int64_t{1} << 31) - 1);
      break;
  }
  d = std::clamp<std::int64_t>(d, 0, (std::int64_t{1} << 31) - 1);
  return r.coin(2) ? d : -d;
}

std::vector<std::int64_t> shrink_toward(std::int64_t v, std::int64_t target) {
  std::vector<std::int64_t> out;
  if (v == target) return out;
  out.push_back(target);
  const std::int64_t diff = v - target;
  // halve the distance repeatedly: target + diff/2, target + 3diff/4, ...
  for (std::int64_t step = diff / 2; step != 0; step /= 2) {
    const std::int64_t c = v - step;
    if (c != target && (out.empty() || out.back() != c)) out.push_back(c);
  }
  const std::int64_t one = diff > 0 ? v - 1 : v + 1;
  if (std::find(out.begin(), out.end(), one) == out.end()) out.push_back(one);
  return out;
}

std::vector<double> shrink_real(double v) {
  std::vector<double> out;
  if (v == 0.0 && !std::signbit(v)) return out;
  out.push_back(0.0);
  if (v == 0.0) return out;  // -0 shrinks to +0 only
  if (std::isfinite(v)) {
    const double t = std::trunc(v);
    if (t != v) out.push_back(t);
    if (std::fabs(v) > 1.0) out.push_back(v / 2);
    if (v < 0) out.push_back(-v);
  }
  return out;
}

std::vector<std::int64_t> shrink_heads(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t c : shrink_toward(n, 1)) out.push_back(c);
  return out;
}

}  // namespace pecheck::classify
