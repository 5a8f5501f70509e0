// Building blocks of the shrinkers (v1/shrink.cpp, rope_v2/shrink.cpp): index subsets simplest first,
// smaller integers, and selection of kept indices from a row-major tensor.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace pecheck::verifier::shrinking {

using Idx = std::vector<std::int64_t>;

inline Idx iota(std::int64_t n) {
  Idx v(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(i);
  return v;
}

// Keeps the given indices of each axis of a row-major [A][B][C] tensor; a tensor whose size does
// not fit the shape is returned unchanged.
inline std::vector<float> select3(const std::vector<float>& v, std::int64_t B, std::int64_t C, const Idx& a,
                                  const Idx& b, const Idx& c) {
  if (v.empty()) return v;
  for (auto i : a)
    for (auto j : b)
      for (auto k : c)
        if ((i * B + j) * C + k >= static_cast<std::int64_t>(v.size())) return v;  // shape mismatch
  std::vector<float> out;
  out.reserve(a.size() * b.size() * c.size());
  for (auto i : a)
    for (auto j : b)
      for (auto k : c) out.push_back(v[static_cast<std::size_t>((i * B + j) * C + k)]);
  return out;
}

// The two halves of [0, n) (none below 2): production-size shrinking (the .large checks).
inline std::vector<Idx> halves(std::int64_t n) {
  std::vector<Idx> h;
  if (n < 2) return h;
  Idx lo = iota(n / 2), hi;
  for (std::int64_t i = n / 2; i < n; ++i) hi.push_back(i);
  h.push_back(std::move(lo));
  h.push_back(std::move(hi));
  return h;
}

// Index subsets of [0, n) to try, smallest first: empty, each single index, each half, all but one.
inline std::vector<Idx> subsets(std::int64_t n, bool allow_empty) {
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

// Smaller values for one non-negative integer: the floor, then p - (p - floor)/2^k (approaching p
// from below).
inline std::vector<std::int64_t> smaller(std::int64_t p, std::int64_t floor = 0) {
  std::vector<std::int64_t> out;
  if (p <= floor) return out;
  out.push_back(floor);
  for (int k = 1; k < 63 && ((p - floor) >> k) > 0; ++k) out.push_back(p - ((p - floor) >> k));
  out.push_back(p - 1);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace pecheck::verifier::shrinking
