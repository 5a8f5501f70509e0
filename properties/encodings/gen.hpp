// RapidCheck generators for the encoding properties, built on the generators and shrinkers of
// src/classify/generators.hpp (shared with `pecheck classify`). RapidCheck's own numeric
// generators are not used: they never produce positions near 2^31, large exponents, signed
// zeros or values near multiples of pi/2, and shrink floats poorly.
#pragma once

#include <rapidcheck.h>
#include <rapidcheck/detail/Results.h>

#include <cstdint>
#include <iostream>
#include <ostream>
#include <vector>

#include "classify/generators.hpp"
#include "reference/alibi.hpp"
#include "reference/rope.hpp"
#include "reference/t5.hpp"

namespace pecheck::props {

using classify::Rng;

// A generator from a draw function over Rng and a shrink function returning simpler candidates
// (each candidate is shrunk recursively by RapidCheck).
template <class T, class Draw, class Shrink>
rc::Gen<T> from_rng(Draw draw, Shrink shrink) {
  return rc::Gen<T>([draw, shrink](const rc::Random& random, int) {
    rc::Random rnd = random;
    Rng r(rnd.next());
    return rc::shrinkable::shrinkRecur(
        draw(r), [shrink](const T& v) { return rc::seq::fromContainer(shrink(v)); });
  });
}

// Runs a property that is expected to be FALSIFIED (an encoding that is not shift-invariant)
// and returns true only when RapidCheck found a counterexample — not when it gave up or
// errored. The shrunk counterexample (every generated value, as shown by operator<<) and the
// RC_LOG lines of the failing case are printed to stdout.
template <class Testable>
bool expect_witness(const std::string& description, Testable&& testable) {
  const rc::detail::TestResult result = rc::detail::checkTestable(std::forward<Testable>(testable));
  rc::detail::FailureResult failure;
  const bool found = result.match(failure);
  std::cout << "- " << description << (found ? ": WITNESS FOUND (shrunk)\n" : ": no witness\n");
  rc::detail::printResultMessage(result, std::cout);
  std::cout << std::endl;
  return found;
}

// Positions in [0, max) with classify::gen_position's bias; shrink toward 0.
inline rc::Gen<std::int64_t> position(std::int64_t max_exclusive) {
  return from_rng<std::int64_t>(
      [max_exclusive](Rng& r) { return classify::gen_position(r, max_exclusive); },
      [](std::int64_t v) { return classify::shrink_toward(v, 0); });
}

// A seed for a random model instance (embeddings, projections, tables); not shrunk.
inline rc::Gen<std::uint64_t> model_seed() {
  return from_rng<std::uint64_t>([](Rng& r) { return r.next(); },
                                 [](std::uint64_t) { return std::vector<std::uint64_t>{}; });
}

// A query position m, key position n and common shift c != 0 with all four positions in
// [0, max). n is near m half of the time. Shrinks each component toward 0 (c toward +-1).
struct ShiftCase {
  std::int64_t m = 0, n = 0, c = 0;
};
inline std::ostream& operator<<(std::ostream& os, const ShiftCase& s) {
  return os << "{m=" << s.m << ", n=" << s.n << ", shift=" << s.c << " -> m'=" << s.m + s.c
            << ", n'=" << s.n + s.c << ", offset n-m=" << s.n - s.m << "}";
}

inline bool valid_shift_case(const ShiftCase& s, std::int64_t max) {
  auto in = [max](std::int64_t p) { return p >= 0 && p < max; };
  return s.c != 0 && in(s.m) && in(s.n) && in(s.m + s.c) && in(s.n + s.c);
}

inline rc::Gen<ShiftCase> shift_case(std::int64_t max_exclusive) {
  return from_rng<ShiftCase>(
      [max_exclusive](Rng& r) {
        ShiftCase s;
        s.m = classify::gen_position(r, max_exclusive);
        s.n = r.coin(2) ? classify::gen_position(r, max_exclusive)
                        : std::clamp<std::int64_t>(s.m + r.range(-700, 700), 0, max_exclusive - 1);
        s.c = classify::gen_shift(r, s.m, s.n, max_exclusive);
        if (s.c == 0) {  // no room: fall back to the smallest valid case
          s = ShiftCase{0, 0, 1};
        }
        return s;
      },
      [max_exclusive](const ShiftCase& s) {
        std::vector<ShiftCase> out;
        auto push = [&](ShiftCase t) {
          if (valid_shift_case(t, max_exclusive)) out.push_back(t);
        };
        const std::int64_t low = std::min(s.m, s.n);  // move both down, keeping the offset
        for (std::int64_t k : classify::shrink_toward(low, 0))
          push({s.m - (low - k), s.n - (low - k), s.c});
        for (std::int64_t k : classify::shrink_toward(s.c, 0))
          if (k != 0) push({s.m, s.n, k});
        for (std::int64_t k : classify::shrink_toward(s.m, 0)) push({k, s.n, s.c});
        for (std::int64_t k : classify::shrink_toward(s.n, 0)) push({s.m, k, s.c});
        return out;
      });
}

// RoPE configs of one scaling kind and layout, full or partial rotary. Shrinks toward the
// plain defaults (base 10000, scale 1) and smaller dimensions while staying valid.
inline rc::Gen<reference::RopeConfig> rope_config(reference::RopeScaling kind,
                                                  reference::RopeLayout layout, bool partial) {
  return from_rng<reference::RopeConfig>(
      [=](Rng& r) { return classify::gen_rope_config(r, kind, layout, partial); },
      [partial](const reference::RopeConfig& c) {
        std::vector<reference::RopeConfig> out;
        auto push = [&](reference::RopeConfig t) {
          try {
            reference::validate(t);
          } catch (const InvalidArgument&) {
            return;
          }
          if (partial && t.rotary_dim >= t.head_dim) return;
          out.push_back(t);
        };
        if (c.base != 10000.0) {
          auto t = c;
          t.base = 10000.0;
          push(t);
        }
        if (c.position_scale != 1.0) {
          auto t = c;
          t.position_scale = 1.0;
          push(t);
        }
        if (c.head_dim > 4) {
          auto t = c;
          t.head_dim = c.head_dim / 2;
          t.rotary_dim =
              std::max<std::int64_t>(partial ? 2 : 4, (c.rotary_dim / 2) & ~std::int64_t{1});
          if (!partial) t.rotary_dim = t.head_dim - (t.head_dim % 2);
          push(t);
        }
        return out;
      });
}

}  // namespace pecheck::props

namespace pecheck::reference {
inline std::ostream& operator<<(std::ostream& os, RopeLayout l) { return os << to_string(l); }
inline std::ostream& operator<<(std::ostream& os, RopeScaling s) { return os << to_string(s); }
inline std::ostream& operator<<(std::ostream& os, AlibiMode m) { return os << to_string(m); }
inline std::ostream& operator<<(std::ostream& os, const RopeConfig& c) {
  return os << "{head_dim=" << c.head_dim << ", rotary_dim=" << c.rotary_dim
            << ", layout=" << to_string(c.layout) << ", base=" << c.base
            << ", position_scale=" << c.position_scale << ", scaling=" << to_string(c.scaling.kind)
            << ", factor=" << c.scaling.factor
            << ", original_max=" << c.scaling.original_max_positions << "}";
}
inline std::ostream& operator<<(std::ostream& os, const T5Config& c) {
  return os << "{num_buckets=" << c.num_buckets << ", max_distance=" << c.max_distance
            << ", bidirectional=" << c.bidirectional << ", n_heads=" << c.n_heads << "}";
}
}  // namespace pecheck::reference
