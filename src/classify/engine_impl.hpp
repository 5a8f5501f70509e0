// Internal helpers of the classification engine shared by engine.cpp and engine_axes.cpp (not
// installed; the public interface is engine.hpp).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "classify/engine.hpp"
#include "classify/generators.hpp"
#include "reference/tolerance.hpp"

namespace pecheck::classify::detail {

inline std::uint64_t case_seed(std::uint64_t seed, std::uint64_t property, std::int64_t i) {
  Rng r(seed ^ (property * 0xD1B54A32D192ED03ull) ^
        (static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull));
  r.next();
  return r.next();
}

// MODEL-TOL-1: two scores agree when both are the same infinity or differ by at most the
// tolerance of their summed magnitudes. NaN never agrees.
inline bool scores_agree(const Score& a, const Score& b, double* tol_out = nullptr) {
  const double tol = reference::shift_tolerance<double>(a.magnitude + b.magnitude);
  if (tol_out) *tol_out = tol;
  if (std::isnan(a.value) || std::isnan(b.value)) return false;
  if (std::isinf(a.value) || std::isinf(b.value)) return a.value == b.value;
  return std::fabs(a.value - b.value) <= tol;
}

// Greedy shrinking of a vector of integers: try each component's simpler candidates (and a
// joint move of the positions toward 0 that keeps their differences) while `fails` holds.
template <class Valid, class Fails>
int shrink(std::vector<std::int64_t>& v, const std::vector<bool>& nonzero,
           const std::vector<bool>& is_position, Valid valid, Fails fails) {
  int steps = 0;
  for (bool progress = true; progress && steps < 400;) {
    progress = false;
    // joint move: subtract k from every position component
    std::int64_t lowest = std::numeric_limits<std::int64_t>::max();
    for (std::size_t i = 0; i < v.size(); ++i)
      if (is_position[i]) lowest = std::min(lowest, v[i]);
    if (lowest != std::numeric_limits<std::int64_t>::max() && lowest > 0) {
      for (std::int64_t k : shrink_toward(lowest, 0)) {
        auto cand = v;
        for (std::size_t i = 0; i < v.size(); ++i)
          if (is_position[i]) cand[i] -= lowest - k;
        if (valid(cand) && fails(cand)) {
          v = cand;
          ++steps;
          progress = true;
          break;
        }
      }
      if (progress) continue;
    }
    for (std::size_t i = 0; i < v.size() && !progress; ++i) {
      for (std::int64_t c : shrink_toward(v[i], 0)) {
        if (nonzero[i] && c == 0) continue;
        auto cand = v;
        cand[i] = c;
        if (valid(cand) && fails(cand)) {
          v = cand;
          ++steps;
          progress = true;
          break;
        }
      }
    }
  }
  return steps;
}

// Draws (m, n): independent positions, or n close to m (half the time) so that small and
// medium offsets (T5's exact and log ranges) are as common as huge ones.
inline void draw_pair(Rng& r, std::int64_t max_pos, std::int64_t& m, std::int64_t& n) {
  m = gen_position(r, max_pos);
  if (r.coin(2)) {
    n = gen_position(r, max_pos);
  } else {
    const std::int64_t d = r.coin(2) ? r.range(-16, 16) : r.range(-600, 600);
    n = std::clamp<std::int64_t>(m + d, 0, max_pos - 1);
  }
}

inline bool in_range(std::int64_t p, std::int64_t max_pos) { return p >= 0 && p < max_pos; }

inline std::string pos3(const Position3& p) { return fmt::format("({},{},{})", p[0], p[1], p[2]); }

}  // namespace pecheck::classify::detail
