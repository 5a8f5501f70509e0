// Reference sinusoidal absolute position encoding (Vaswani et al. 2017), templated on T.
//
// Spec: spec/sinusoidal.md. The encoding is added to the token embedding at the input
// (SIN-AXIS-1), so the attention score depends on both positions (SIN-AXIS-2), even though the
// raw dot product p_m . p_n depends only on m - n (SIN-DOT-1).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/error.hpp"

namespace pecheck::reference {

enum class SinusoidalLayout : int {
  Interleaved = 0,  // SIN-LAYOUT-1: pe[2i] = sin(p w_i), pe[2i+1] = cos(p w_i), w_i = base^(-2i/d)
  Concat = 1,       // SIN-LAYOUT-2: tensor2tensor get_timing_signal_1d, halves [sin | cos]
};

const char* to_string(SinusoidalLayout l);

struct SinusoidalConfig {
  std::int64_t d_model = 512;  // even, >= 2 (SIN-ARG-1)
  double base = 10000.0;       // > 1 (SIN-ARG-2)
  SinusoidalLayout layout = SinusoidalLayout::Interleaved;
};

inline constexpr std::int64_t kSinusoidalMaxPosition = std::int64_t{1} << 31;  // SIN-ARG-3

void validate(const SinusoidalConfig& c);
void validate_sinusoidal_position(std::int64_t position);

// Frequencies w_i, i in [0, d_model/2):
//   Interleaved (SIN-LAYOUT-1): w_i = base^(-2i/d_model)
//   Concat      (SIN-LAYOUT-2): w_i = base^(-i/max(d_model/2 - 1, 1))   (tensor2tensor's
//                               log-spaced timescales from 1 to base, both ends included)
template <class T>
std::vector<T> sinusoidal_freq(const SinusoidalConfig& c) {
  using std::pow;
  validate(c);
  const std::int64_t half = c.d_model / 2;
  std::vector<T> w(static_cast<std::size_t>(half));
  for (std::int64_t i = 0; i < half; ++i) {
    const T e = c.layout == SinusoidalLayout::Interleaved ? T(2 * i) / T(c.d_model)
                                                          : T(i) / T(half - 1 > 1 ? half - 1 : 1);
    w[static_cast<std::size_t>(i)] = pow(T(c.base), -e);
  }
  return w;
}

// The encoding of one position (d_model values), SIN-LAYOUT-1 / SIN-LAYOUT-2.
template <class T>
std::vector<T> sinusoidal_encode(const SinusoidalConfig& c, std::int64_t position) {
  using std::cos;
  using std::sin;
  validate_sinusoidal_position(position);
  const auto w = sinusoidal_freq<T>(c);
  const std::size_t half = w.size();
  std::vector<T> pe(2 * half);
  for (std::size_t i = 0; i < half; ++i) {
    const T a = T(position) * w[i];
    if (c.layout == SinusoidalLayout::Interleaved) {
      pe[2 * i] = sin(a);
      pe[2 * i + 1] = cos(a);
    } else {
      pe[i] = sin(a);
      pe[half + i] = cos(a);
    }
  }
  return pe;
}

}  // namespace pecheck::reference
