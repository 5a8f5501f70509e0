// Reference RoPE (rotary position embedding), templated on the scalar type T.
//
// Spec: spec/rope.md. Every formula below carries the clause it implements. T may be float,
// double or a Boost.Multiprecision type: math calls are unqualified (`using std::sin; sin(x)`)
// so that argument-dependent lookup finds the multiprecision overloads. Parameters are given
// as doubles (as a model config gives them) and converted exactly to T before any arithmetic.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace pecheck::reference {

// ROPE-PAIR-1 / ROPE-PAIR-2. Values equal the ABI's enum pec_rope_layout.
enum class RopeLayout : int { Neox = 0, Gptj = 1 };

// ROPE-SCALE-*: the frequency scalings production models use.
enum class RopeScaling : int { None, Linear, Ntk, DynamicNtk, Yarn, Llama3 };

const char* to_string(RopeLayout l);
const char* to_string(RopeScaling s);

// Parameters of the scalings. Only the fields of the selected kind are read.
struct RopeScalingParams {
  RopeScaling kind = RopeScaling::None;
  double factor = 1.0;                      // linear, ntk, dynamic-ntk, yarn, llama3 (>= 1)
  std::int64_t original_max_positions = 0;  // dynamic-ntk, yarn, llama3 (> 0)
  double beta_fast = 32.0;                  // yarn: rotations at the fast end of the ramp
  double beta_slow = 1.0;                   // yarn: rotations at the slow end of the ramp
  bool yarn_truncate = true;                // yarn: floor/ceil the correction range
  double yarn_mscale = 1.0;                 // yarn: mscale (DeepSeek-style), see ROPE-SCALE-YARN-2
  double yarn_mscale_all_dim = 0.0;         // yarn: 0 = not given
  double attention_factor = 0.0;            // yarn: 0 = derive from factor (ROPE-SCALE-YARN-2)
  double low_freq_factor = 1.0;             // llama3
  double high_freq_factor = 4.0;            // llama3
};

struct RopeConfig {
  std::int64_t head_dim = 128;
  std::int64_t rotary_dim = 128;  // even, 2 <= rotary_dim <= head_dim (ROPE-ARG-2)
  RopeLayout layout = RopeLayout::Neox;
  double base = 10000.0;        // > 1 (ROPE-ARG-3)
  double position_scale = 1.0;  // > 0, finite (ROPE-ARG-4)
  RopeScalingParams scaling{};
};

// Largest valid position + 1 (ROPE-ARG-5): positions lie in [0, 2^31).
inline constexpr std::int64_t kRopeMaxPosition = std::int64_t{1} << 31;

// Throws pecheck::InvalidArgument naming the violated ROPE-ARG-* clause.
void validate(const RopeConfig& c);
void validate_rope_position(std::int64_t position);

// The lanes rotated together for frequency index i (ROPE-PAIR-1, ROPE-PAIR-2).
struct RopePair {
  std::int64_t a;
  std::int64_t b;
};
inline RopePair rope_pair(const RopeConfig& c, std::int64_t i) {
  if (c.layout == RopeLayout::Neox) return {i, i + c.rotary_dim / 2};
  return {2 * i, 2 * i + 1};
}

// True when the scaling's frequencies do not depend on the sequence (ROPE-SCALE-REL-1):
// every kind except dynamic NTK.
inline bool rope_is_offset_only(const RopeConfig& c) {
  return c.scaling.kind != RopeScaling::DynamicNtk;
}

// pi in T without pulling a multiprecision header: 4*atan(1) is exact to T's precision.
template <class T>
T pi_of() {
  using std::atan;
  return T(4) * atan(T(1));
}

namespace detail {

template <class T>
T rope_pow(const T& base, const T& e) {
  using std::pow;
  return pow(base, e);
}

// YaRN's correction dimension for a number of rotations (ROPE-SCALE-YARN-1):
//   d(r) = rotary_dim * ln(L / (2 pi r)) / (2 ln base)
template <class T>
T yarn_correction_dim(const T& rotations, const T& dim, const T& base, const T& orig_max) {
  using std::log;
  const T two_pi = T(2) * pi_of<T>();
  return dim * log(orig_max / (rotations * two_pi)) / (T(2) * log(base));
}

}  // namespace detail

// The base after NTK-aware scaling (ROPE-SCALE-NTK-1): base * factor^(d/(d-2)), d = rotary_dim.
// For dynamic NTK (ROPE-SCALE-DYN-1) the factor is replaced by
//   factor * L / original_max - (factor - 1),  L = max(seq_len, original_max).
template <class T>
T rope_effective_base(const RopeConfig& c, std::int64_t seq_len = 0) {
  const T base = T(c.base);
  const T d = T(c.rotary_dim);
  const auto& s = c.scaling;
  if (c.rotary_dim == 2 && (s.kind == RopeScaling::Ntk || s.kind == RopeScaling::DynamicNtk)) {
    // d/(d-2) is undefined for d == 2; validate() rejects it, this guards direct calls.
    throw InvalidArgument("ROPE-ARG-6", "NTK scaling needs rotary_dim >= 4");
  }
  if (s.kind == RopeScaling::Ntk) {
    return base * detail::rope_pow(T(s.factor), d / (d - T(2)));
  }
  if (s.kind == RopeScaling::DynamicNtk) {
    const std::int64_t L = seq_len > s.original_max_positions ? seq_len : s.original_max_positions;
    const T alpha = T(s.factor) * T(L) / T(s.original_max_positions) - (T(s.factor) - T(1));
    return base * detail::rope_pow(alpha, d / (d - T(2)));
  }
  return base;
}

// Inverse frequencies f_i, i in [0, rotary_dim/2) (ROPE-FREQ-1 and the ROPE-SCALE-* clauses).
// seq_len is the current sequence length; only dynamic NTK reads it (ROPE-SCALE-DYN-1).
template <class T>
std::vector<T> rope_inv_freq(const RopeConfig& c, std::int64_t seq_len = 0) {
  validate(c);
  using std::ceil;
  using std::floor;
  using std::log;
  const std::int64_t half = c.rotary_dim / 2;
  const T d = T(c.rotary_dim);
  const T base = rope_effective_base<T>(c, seq_len);
  std::vector<T> f(static_cast<std::size_t>(half));
  for (std::int64_t i = 0; i < half; ++i) {
    // ROPE-FREQ-1: f_i = base^(-2i/d)
    f[static_cast<std::size_t>(i)] = detail::rope_pow(base, -T(2 * i) / d);
  }
  const auto& s = c.scaling;
  const T factor = T(s.factor);
  if (s.kind == RopeScaling::Linear) {
    for (auto& x : f) x /= factor;  // ROPE-SCALE-LINEAR-1
  } else if (s.kind == RopeScaling::Yarn) {
    // ROPE-SCALE-YARN-1: blend interpolated (f/factor) and extrapolated (f) frequencies with a
    // linear ramp over the frequency index between the correction dimensions.
    const T orig = T(s.original_max_positions);
    T low = detail::yarn_correction_dim(T(s.beta_fast), d, base, orig);
    T high = detail::yarn_correction_dim(T(s.beta_slow), d, base, orig);
    if (s.yarn_truncate) {
      low = floor(low);
      high = ceil(high);
    }
    if (low < T(0)) low = T(0);
    if (high > d - T(1)) high = d - T(1);
    if (low == high) high += T(0.001);
    for (std::int64_t i = 0; i < half; ++i) {
      T ramp = (T(i) - low) / (high - low);
      if (ramp < T(0)) ramp = T(0);
      if (ramp > T(1)) ramp = T(1);
      const T extrap = T(1) - ramp;  // weight of the unscaled frequency
      auto& x = f[static_cast<std::size_t>(i)];
      x = (x / factor) * (T(1) - extrap) + x * extrap;
    }
  } else if (s.kind == RopeScaling::Llama3) {
    // ROPE-SCALE-LLAMA3-1: wavelength 2*pi/f; long wavelengths (> L/low) are divided by factor,
    // short ones (< L/high) kept, and those between blended by a smooth factor.
    const T orig = T(s.original_max_positions);
    const T lo = T(s.low_freq_factor);
    const T hi = T(s.high_freq_factor);
    const T low_wavelen = orig / lo;
    const T high_wavelen = orig / hi;
    const T two_pi = T(2) * pi_of<T>();
    for (auto& x : f) {
      const T wavelen = two_pi / x;
      if (wavelen > low_wavelen) {
        x = x / factor;
      } else if (!(wavelen < high_wavelen)) {
        const T smooth = (orig / wavelen - lo) / (hi - lo);
        x = (T(1) - smooth) * x / factor + smooth * x;
      }
    }
  }
  return f;
}

// YaRN's attention temperature (ROPE-SCALE-YARN-2): cos and sin are multiplied by it, so the
// score carries its square. 1 for every other scaling.
//   mscale(s, m) = 1 if s <= 1 else 0.1 * m * ln(s) + 1
//   attention_factor = given ? given : (mscale && mscale_all_dim ?
//                      mscale(f, mscale) / mscale(f, mscale_all_dim) : mscale(f, 1))
template <class T>
T rope_attention_factor(const RopeConfig& c) {
  using std::log;
  const auto& s = c.scaling;
  if (s.kind != RopeScaling::Yarn) return T(1);
  if (s.attention_factor > 0) return T(s.attention_factor);
  auto ms = [&](const T& scale, const T& m) {
    return scale <= T(1) ? T(1) : T(0.1) * m * log(scale) + T(1);
  };
  const T f = T(s.factor);
  if (s.yarn_mscale != 0 && s.yarn_mscale_all_dim != 0) {
    return ms(f, T(s.yarn_mscale)) / ms(f, T(s.yarn_mscale_all_dim));
  }
  return ms(f, T(1));
}

// ROPE-ANGLE-1: angle_i(p) = p * position_scale * f_i, evaluated in T (the position is
// converted to T first; for float, positions above 2^24 round, as in a float kernel).
template <class T>
T rope_angle(const RopeConfig& c, const T& inv_freq_i, std::int64_t position) {
  return T(position) * T(c.position_scale) * inv_freq_i;
}

// Rotates one head vector x (head_dim lanes) at `position` into y (ROPE-ROT-1, ROPE-PAIR-3):
// for each pair (a, b): y[a] = x[a] cos - x[b] sin, y[b] = x[b] cos + x[a] sin, with cos and sin
// multiplied by the attention factor (1 unless YaRN). Lanes rotary_dim.. are copied.
// y may alias x.
template <class T>
void rope_rotate(const RopeConfig& c, std::span<const T> inv_freq, std::int64_t position,
                 std::span<const T> x, std::span<T> y) {
  using std::cos;
  using std::sin;
  validate_rope_position(position);
  if (static_cast<std::int64_t>(x.size()) != c.head_dim ||
      static_cast<std::int64_t>(y.size()) != c.head_dim) {
    throw InvalidArgument("ROPE-ARG-1", "head vector length differs from head_dim");
  }
  if (static_cast<std::int64_t>(inv_freq.size()) != c.rotary_dim / 2) {
    throw InvalidArgument("ROPE-ARG-2", "inverse-frequency table length differs from rotary_dim/2");
  }
  const T mscale = rope_attention_factor<T>(c);
  std::vector<T> out(x.begin(), x.end());
  for (std::int64_t i = 0; i < c.rotary_dim / 2; ++i) {
    const T ang = rope_angle<T>(c, inv_freq[static_cast<std::size_t>(i)], position);
    const T cs = cos(ang) * mscale;
    const T sn = sin(ang) * mscale;
    const auto [a, b] = rope_pair(c, i);
    const T xa = x[static_cast<std::size_t>(a)];
    const T xb = x[static_cast<std::size_t>(b)];
    out[static_cast<std::size_t>(a)] = xa * cs - xb * sn;
    out[static_cast<std::size_t>(b)] = xb * cs + xa * sn;
  }
  for (std::size_t k = 0; k < out.size(); ++k) y[k] = out[k];
}

// Convenience: rotate with the frequencies of the config (dynamic NTK: for seq_len).
template <class T>
std::vector<T> rope_rotate(const RopeConfig& c, std::int64_t position, std::span<const T> x,
                           std::int64_t seq_len = 0) {
  const auto f = rope_inv_freq<T>(c, seq_len);
  std::vector<T> y(x.size());
  rope_rotate<T>(c, std::span<const T>(f), position, x, std::span<T>(y));
  return y;
}

}  // namespace pecheck::reference
