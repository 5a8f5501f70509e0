// Helpers shared by the kernel tests: guarded output buffers, deterministic inputs, the
// independent MPFR vectors (tests/vectors, computed outside pecheck's code).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "pecheck_kernel.h"

namespace pecheck::kernels::test {

// A float buffer with guard zones before and after, filled with a signalling-NaN pattern,
// and the payload poisoned (so that unwritten elements are detected, ABI-GEN-4/5).
class Guarded {
 public:
  static constexpr std::size_t kGuard = 64;  // floats on each side
  static constexpr std::uint32_t kPattern = 0x7fa5a5a5u;
  explicit Guarded(std::size_t n, std::size_t align_floats = 16) : n_(n) {
    buf_.resize(n + 2 * kGuard + align_floats);
    // Start the payload on a 64-byte boundary so that streaming stores can be exercised.
    auto addr = reinterpret_cast<std::uintptr_t>(buf_.data() + kGuard);
    off_ = kGuard + (align_floats ? ((64 - addr % 64) % 64) / sizeof(float) : 0);
    for (auto& v : buf_) v = std::bit_cast<float>(kPattern);
  }
  float* data() { return buf_.data() + off_; }
  const float* data() const { return buf_.data() + off_; }
  std::size_t size() const { return n_; }
  bool guards_intact() const {
    for (std::size_t i = 0; i < buf_.size(); ++i) {
      if (i >= off_ && i < off_ + n_) continue;
      if (std::bit_cast<std::uint32_t>(buf_[i]) != kPattern) return false;
    }
    return true;
  }
  // Index of the first payload element still holding the poison pattern, or -1.
  long first_unwritten() const {
    for (std::size_t i = 0; i < n_; ++i) {
      if (std::bit_cast<std::uint32_t>(data()[i]) == kPattern) return static_cast<long>(i);
    }
    return -1;
  }
  void fill(const std::vector<float>& v) { std::memcpy(data(), v.data(), n_ * sizeof(float)); }

 private:
  std::size_t n_, off_ = 0;
  std::vector<float> buf_;
};

inline bool same_bits(const float* a, const float* b, std::size_t n, std::size_t* where = nullptr) {
  for (std::size_t i = 0; i < n; ++i) {
    if (std::bit_cast<std::uint32_t>(a[i]) != std::bit_cast<std::uint32_t>(b[i])) {
      if (where) *where = i;
      return false;
    }
  }
  return true;
}

// Inputs in [-2, 2] with some exact zeros and large/small magnitudes mixed in.
inline std::vector<float> random_inputs(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::uniform_int_distribution<int> pick(0, 15);
  std::vector<float> v(n);
  for (auto& x : v) {
    const int k = pick(rng);
    x = k == 0 ? 0.0f : k == 1 ? u(rng) * 1e20f : k == 2 ? u(rng) * 1e-20f : u(rng);
  }
  return v;
}

// Positions biased to where bugs live: small, around powers of two, and up to 2^31 - 1.
inline std::vector<std::int64_t> random_positions(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> p(n);
  for (auto& x : p) {
    const int k = static_cast<int>(rng() % 4);
    if (k == 0) x = static_cast<std::int64_t>(rng() % 4096);
    else if (k == 1) x = (std::int64_t{1} << 31) - 1 - static_cast<std::int64_t>(rng() % 1024);
    else if (k == 2) x = std::int64_t{1} << (rng() % 31);
    else x = static_cast<std::int64_t>(rng() % (std::uint64_t{1} << 31));
  }
  return p;
}

// Rows of a tab-separated file of tests/vectors (comments and header skipped; a missing file
// gives no rows, which the callers assert against).
inline std::vector<std::vector<std::string>> read_tsv(const std::string& name) {
  std::ifstream in(std::string(PECHECK_SOURCE_DIR) + "/tests/vectors/" + name);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> cols;
    std::stringstream ss(line);
    std::string c;
    while (std::getline(ss, c, '\t')) cols.push_back(c);
    rows.push_back(cols);
  }
  return rows;
}

}  // namespace pecheck::kernels::test

namespace pecheck::kernels::test {

// 16-bit storage in tests (ABI-STORE-1). A test's own widening (independent of
// shared/f16_conv.hpp): bfloat16 is the upper half of a float; binary16 by its definition.
inline float widen_bf16(std::uint16_t h) { return std::bit_cast<float>(std::uint32_t{h} << 16); }
inline float widen_f16(std::uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const float sign = (h & 0x8000) ? -1.0f : 1.0f;
  if (e == 0x1f) return m ? std::numeric_limits<float>::quiet_NaN() : sign * INFINITY;
  if (e == 0) return sign * std::ldexp(static_cast<float>(m), -24);
  return sign * std::ldexp(static_cast<float>(m + 1024), e - 25);
}
// A pattern no kernel writes: a signalling NaN of the format (kernels quiet every NaN).
inline std::uint16_t poison16(std::int32_t dtype) { return dtype == PEC_DTYPE_BF16 ? 0x7fa5 : 0x7d5a; }

// A uint16_t buffer with guard zones, payload poisoned (as Guarded).
class Guarded16 {
 public:
  static constexpr std::size_t kGuard = 64;
  Guarded16(std::size_t n, std::uint16_t pattern) : n_(n), pat_(pattern), buf_(n + 2 * kGuard, pattern) {}
  std::uint16_t* data() { return buf_.data() + kGuard; }
  const std::uint16_t* data() const { return buf_.data() + kGuard; }
  bool guards_intact() const {
    for (std::size_t i = 0; i < buf_.size(); ++i) {
      if ((i < kGuard || i >= kGuard + n_) && buf_[i] != pat_) return false;
    }
    return true;
  }
  long first_unwritten() const {
    for (std::size_t i = 0; i < n_; ++i) {
      if (data()[i] == pat_) return static_cast<long>(i);
    }
    return -1;
  }

 private:
  std::size_t n_;
  std::uint16_t pat_;
  std::vector<std::uint16_t> buf_;
};

}  // namespace pecheck::kernels::test
