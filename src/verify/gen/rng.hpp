// Deterministic random numbers for case generation.
//
// Every case is generated from (seed, check name, case index) alone, so any single case can be
// regenerated without replaying the others: `--shard I/N` runs the indices i with i % N == I, a
// corpus entry stores (seed, check, index), and the same seed gives the same cases on every
// platform (no std::*_distribution, whose output is implementation-defined).
#pragma once

#include <cstdint>
#include <string_view>

namespace pecheck::verifier {

class Rng {
 public:
  explicit Rng(std::uint64_t state) : s_(state) {}
  static Rng for_case(std::uint64_t seed, std::string_view check, std::uint64_t index);

  std::uint64_t next();  // splitmix64
  // Uniform integer in [lo, hi] (inclusive); lo <= hi.
  std::int64_t range(std::int64_t lo, std::int64_t hi);
  bool chance(int percent) { return range(0, 99) < percent; }
  double unit();  // [0, 1)
  // Uniform float in [-1, 1) on a grid of 2^-24 (exact float values).
  float signed_unit();
  template <class T, std::size_t N>
  const T& pick(const T (&items)[N]) {
    return items[range(0, static_cast<std::int64_t>(N) - 1)];
  }

 private:
  std::uint64_t s_;
};

std::uint64_t fnv1a(std::string_view s);

}  // namespace pecheck::verifier
