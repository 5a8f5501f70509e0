// Reference T5 relative-position bias, templated on the scalar type T.
//
// Spec: spec/t5.md. The bias is a learned table indexed by a bucket of the relative position
// relative = key_position - query_position (T5-REL-1) and is added to the logits (T5-AXIS-1).
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "core/error.hpp"

namespace pecheck::reference {

struct T5Config {
  std::int64_t num_buckets = 32;    // T5-ARG-1
  std::int64_t max_distance = 128;  // T5-ARG-2
  bool bidirectional = true;        // T5-BUCKET-1 (true) / T5-BUCKET-2 (false)
  std::int64_t n_heads = 1;         // T5-ARG-3: table is [num_buckets][n_heads]
};

inline constexpr std::int64_t kT5MaxPosition = std::int64_t{1} << 31;  // T5-ARG-4
inline constexpr std::int64_t kT5MaxBuckets = 1024;                    // T5-ARG-1

// Throws pecheck::InvalidArgument naming the T5-ARG-* clause.
void validate(const T5Config& c);
void validate_t5_position(std::int64_t position);

// The pieces of the bucket formula after the direction is folded in (T5-BUCKET-1/2):
//   base   : num_buckets/2 when bidirectional and relative > 0, else 0
//   nb     : num_buckets/2 when bidirectional, else num_buckets (integer division)
//   dist   : |relative| when bidirectional, max(-relative, 0) when causal
//   exact  : nb/2 (max_exact)
struct T5Fold {
  std::int64_t base;
  std::int64_t nb;
  std::int64_t dist;
  std::int64_t exact;
};
T5Fold t5_fold(const T5Config& c, std::int64_t relative);

// Exact bucket of T5's _relative_position_bucket in real arithmetic (T5-BUCKET-3):
//   dist <  exact: base + dist
//   dist >= exact: base + min(exact + floor((nb - exact) * ln(dist/exact) /
//   ln(max_distance/exact)),
//                             nb - 1)
// The floor of the logarithmic part is decided exactly with integers: with n = nb - exact,
//   floor(n ln(d/e) / ln(M/e)) >= k  <=>  d^n * e^k >= M^k * e^n
// (both sides exact big integers), so no rounding of a logarithm can move a boundary.
std::int64_t t5_bucket(const T5Config& c, std::int64_t relative);

// True when the real value n*ln(dist/exact)/ln(max_distance/exact) is an integer (at or
// inside the clamp), i.e. where an implementation that evaluates the logarithm in floating
// point may legitimately land one bucket below (T5-BUCKET-4).
bool t5_bucket_on_boundary(const T5Config& c, std::int64_t relative);

// The logarithmic value v = (nb - exact) * ln(dist/exact) / ln(max_distance/exact) evaluated
// in T, as the reference code does (T5-BUCKET-4); requires dist >= exact.
template <class T>
T t5_log_value(const T5Config& c, const T5Fold& f) {
  using std::log;
  return log(T(f.dist) / T(f.exact)) / log(T(c.max_distance) / T(f.exact)) * T(f.nb - f.exact);
}

// The bucket as the reference code evaluates it, with the logarithm in T (T5-BUCKET-4):
// equals t5_bucket() except possibly one off where the real value lies within the evaluation
// error of an integer (always at flagged exact boundaries, t5_bucket_on_boundary()).
template <class T>
std::int64_t t5_bucket_in(const T5Config& c, std::int64_t relative) {
  const T5Fold f = t5_fold(c, relative);
  if (f.dist < f.exact) return f.base + f.dist;
  const T v = t5_log_value<T>(c, f);
  // v >= 0; clamp before converting so huge distances cannot overflow the integer.
  const T cap = T(f.nb);
  const std::int64_t k = v >= cap ? f.nb : static_cast<std::int64_t>(static_cast<long double>(v));
  const std::int64_t large = f.exact + k;
  return f.base + (large < f.nb - 1 ? large : f.nb - 1);
}

// The bias of head h for query position q and key position k (T5-BIAS-1):
//   table[bucket(k - q) * n_heads + h]
template <class T>
T t5_bias(const T5Config& c, std::span<const T> table, std::int64_t h, std::int64_t q,
          std::int64_t k) {
  validate(c);
  validate_t5_position(q);
  validate_t5_position(k);
  if (static_cast<std::int64_t>(table.size()) != c.num_buckets * c.n_heads) {
    throw InvalidArgument("T5-ARG-3", "bias table size differs from num_buckets * n_heads");
  }
  if (h < 0 || h >= c.n_heads) throw InvalidArgument("T5-ARG-3", "head index out of range");
  const std::int64_t b = t5_bucket(c, k - q);
  return table[static_cast<std::size_t>(b * c.n_heads + h)];
}

}  // namespace pecheck::reference
