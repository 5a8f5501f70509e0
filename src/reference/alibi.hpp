// Reference ALiBi (attention with linear biases), templated on the scalar type T.
//
// Spec: spec/alibi.md. The bias is added to the attention logits (ALIBI-AXIS-1).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/error.hpp"

namespace pecheck::reference {

// ALIBI-MODE-1..3. Symmetric and Causal equal the ABI's enum pec_alibi_mode.
enum class AlibiMode : int { Symmetric = 0, Causal = 1, BloomKeyOnly = 2 };

const char* to_string(AlibiMode m);

// Largest valid position + 1 (ALIBI-ARG-2).
inline constexpr std::int64_t kAlibiMaxPosition = std::int64_t{1} << 31;

// Throws pecheck::InvalidArgument (ALIBI-ARG-1) when n_heads < 1.
void validate_alibi_heads(std::int64_t n_heads);
// Throws pecheck::InvalidArgument (ALIBI-ARG-2) unless 0 <= position < 2^31.
void validate_alibi_position(std::int64_t position);

// The largest power of two <= n (n >= 1).
inline std::int64_t alibi_pow2_floor(std::int64_t n) {
  std::int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// ALIBI-SLOPE-1 / ALIBI-SLOPE-2: slope of head h of n_heads, with p = alibi_pow2_floor(n):
//   h <  p: 2^(-8(h+1)/p)
//   h >= p: 2^(-4(2(h-p)+1)/p)     (the odd powers of the 2p-head sequence)
// The exponent is a rational with denominator p (a power of two), formed exactly in T.
template <class T>
T alibi_slope(std::int64_t n_heads, std::int64_t h) {
  using std::pow;
  validate_alibi_heads(n_heads);
  if (h < 0 || h >= n_heads) throw InvalidArgument("ALIBI-ARG-1", "head index out of range");
  const std::int64_t p = alibi_pow2_floor(n_heads);
  const std::int64_t num = h < p ? 8 * (h + 1) : 4 * (2 * (h - p) + 1);
  return pow(T(2), -T(num) / T(p));
}

template <class T>
std::vector<T> alibi_slopes(std::int64_t n_heads) {
  validate_alibi_heads(n_heads);
  std::vector<T> s(static_cast<std::size_t>(n_heads));
  for (std::int64_t h = 0; h < n_heads; ++h)
    s[static_cast<std::size_t>(h)] = alibi_slope<T>(n_heads, h);
  return s;
}

// The bias added to the logit of query position q and key position k (ALIBI-MODE-*):
//   Symmetric:    -slope * |q - k|
//   Causal:       -slope * (q - k) for k <= q; -infinity for k > q (masked)
//   BloomKeyOnly: +slope * k       for k <= q; -infinity for k > q
// BloomKeyOnly = Causal + slope*q, a constant per query row (ALIBI-MODE-3).
// The distance is formed exactly in int64 and converted to T once.
template <class T>
T alibi_bias(AlibiMode mode, const T& slope, std::int64_t q, std::int64_t k) {
  using std::abs;
  validate_alibi_position(q);
  validate_alibi_position(k);
  const T inf = std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                     : std::numeric_limits<T>::max();
  switch (mode) {
    case AlibiMode::Symmetric:
      return -slope * T(q > k ? q - k : k - q);
    case AlibiMode::Causal:
      if (k > q) return -inf;
      return -slope * T(q - k);
    case AlibiMode::BloomKeyOnly:
      if (k > q) return -inf;
      return slope * T(k);
  }
  throw InvalidArgument("ALIBI-ARG-3", "unknown ALiBi mode");
}

}  // namespace pecheck::reference
