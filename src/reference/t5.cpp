// Exact T5 bucket (T5-BUCKET-3): the floor of the logarithmic part is decided by comparing
// exact big integers, so the bucket is the one of real arithmetic, for every input.
#include "reference/t5.hpp"

#include <string>
#include <vector>

namespace pecheck::reference {

namespace {

// Unsigned big integer, little-endian 32-bit limbs; only what the comparison needs.
class BigUint {
 public:
  explicit BigUint(std::uint64_t v = 1) {
    limbs_.push_back(static_cast<std::uint32_t>(v));
    limbs_.push_back(static_cast<std::uint32_t>(v >> 32));
    trim();
  }
  // *this *= v, v < 2^32.
  void mul(std::uint32_t v) {
    std::uint64_t carry = 0;
    for (auto& l : limbs_) {
      const std::uint64_t t = std::uint64_t{l} * v + carry;
      l = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    if (carry) limbs_.push_back(static_cast<std::uint32_t>(carry));
    trim();
  }
  void mul_pow(std::uint32_t v, std::int64_t e) {
    for (std::int64_t i = 0; i < e; ++i) mul(v);
  }
  friend int compare(const BigUint& a, const BigUint& b) {
    if (a.limbs_.size() != b.limbs_.size()) return a.limbs_.size() < b.limbs_.size() ? -1 : 1;
    for (std::size_t i = a.limbs_.size(); i-- > 0;) {
      if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] < b.limbs_[i] ? -1 : 1;
    }
    return 0;
  }

 private:
  void trim() {
    while (limbs_.size() > 1 && limbs_.back() == 0) limbs_.pop_back();
  }
  std::vector<std::uint32_t> limbs_;
};

// compare(d^n * e^k, M^k * e^n): sign of n ln(d/e) - k ln(M/e).
int compare_log(std::int64_t d, std::int64_t e, std::int64_t M, std::int64_t n, std::int64_t k) {
  BigUint lhs, rhs;
  lhs.mul_pow(static_cast<std::uint32_t>(d), n);
  lhs.mul_pow(static_cast<std::uint32_t>(e), k);
  rhs.mul_pow(static_cast<std::uint32_t>(M), k);
  rhs.mul_pow(static_cast<std::uint32_t>(e), n);
  return compare(lhs, rhs);
}

// Largest k in [0, n] with floor(n ln(d/e)/ln(M/e)) >= k, for e <= d < M.
std::int64_t log_part(std::int64_t d, std::int64_t e, std::int64_t M, std::int64_t n) {
  std::int64_t lo = 0, hi = n;  // the predicate holds at k = 0 (d >= e)
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (compare_log(d, e, M, n, mid) >= 0)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

}  // namespace

void validate(const T5Config& c) {
  if (c.num_buckets < 2 || c.num_buckets > kT5MaxBuckets) {
    throw InvalidArgument("T5-ARG-1",
                          "num_buckets must be in [2, 1024], got " + std::to_string(c.num_buckets));
  }
  const std::int64_t nb = c.bidirectional ? c.num_buckets / 2 : c.num_buckets;
  if (nb / 2 < 1) {
    throw InvalidArgument("T5-ARG-1",
                          "num_buckets too small: max_exact = " + std::to_string(nb / 2) +
                              " (bidirectional needs num_buckets >= 4)");
  }
  if (c.max_distance <= nb / 2 || c.max_distance > kT5MaxPosition) {
    throw InvalidArgument("T5-ARG-2", "max_distance must be in (max_exact, 2^31], got " +
                                          std::to_string(c.max_distance));
  }
  if (c.n_heads < 1 || c.n_heads > (std::int64_t{1} << 20)) {
    throw InvalidArgument("T5-ARG-3",
                          "n_heads must be in [1, 2^20], got " + std::to_string(c.n_heads));
  }
}

void validate_t5_position(std::int64_t position) {
  if (position < 0 || position >= kT5MaxPosition) {
    throw InvalidArgument("T5-ARG-4",
                          "position must be in [0, 2^31), got " + std::to_string(position));
  }
}

T5Fold t5_fold(const T5Config& c, std::int64_t relative) {
  validate(c);
  if (relative <= -kT5MaxPosition || relative >= kT5MaxPosition) {
    throw InvalidArgument("T5-ARG-4", "relative position must be in (-2^31, 2^31)");
  }
  T5Fold f{};
  if (c.bidirectional) {
    f.nb = c.num_buckets / 2;
    f.base = relative > 0 ? f.nb : 0;
    f.dist = relative < 0 ? -relative : relative;
  } else {
    f.nb = c.num_buckets;
    f.base = 0;
    f.dist = relative < 0 ? -relative : 0;
  }
  f.exact = f.nb / 2;
  return f;
}

std::int64_t t5_bucket(const T5Config& c, std::int64_t relative) {
  const T5Fold f = t5_fold(c, relative);
  if (f.dist < f.exact) return f.base + f.dist;
  if (f.dist >= c.max_distance) return f.base + f.nb - 1;  // log part >= n: clamped
  const std::int64_t k = log_part(f.dist, f.exact, c.max_distance, f.nb - f.exact);
  const std::int64_t large = f.exact + k;
  return f.base + (large < f.nb - 1 ? large : f.nb - 1);
}

bool t5_bucket_on_boundary(const T5Config& c, std::int64_t relative) {
  const T5Fold f = t5_fold(c, relative);
  if (f.dist < f.exact) return false;
  const std::int64_t n = f.nb - f.exact;
  // At or beyond max_distance the real value is >= n; it is an integer there only at d == M.
  if (f.dist >= c.max_distance) return f.dist == c.max_distance;
  const std::int64_t k = log_part(f.dist, f.exact, c.max_distance, n);
  return compare_log(f.dist, f.exact, c.max_distance, n, k) == 0;
}

}  // namespace pecheck::reference
