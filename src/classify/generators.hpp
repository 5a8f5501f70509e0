// Generators and shrinkers over the encodings' parameter space, shared by the classification
// engine (`pecheck classify`) and the RapidCheck properties in properties/encodings/.
//
// Every draw comes from one deterministic 64-bit source, so a seed reproduces a case. The
// distributions are biased toward where bugs and boundary effects live: positions near 0, near
// powers of two and up to 2^31 - 1; head counts that are not powers of two; partial rotary;
// offsets beyond T5's max_distance in both directions; reals near multiples of pi/2, signed
// zeros and large exponents. Shrinkers move toward the simplest value (0, fewer heads, full
// rotary) and list candidates simplest first.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/rope.hpp"
#include "reference/rope_family.hpp"
#include "reference/t5.hpp"

namespace pecheck::classify {

// SplitMix64: small, fast, statistically adequate for test-case generation.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi] (inclusive), lo <= hi.
  std::int64_t range(std::int64_t lo, std::int64_t hi) {
    const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
    return span == 0 ? static_cast<std::int64_t>(next())
                     : lo + static_cast<std::int64_t>(next() % span);
  }
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
  bool coin(int one_in) { return range(0, one_in - 1) == 0; }

 private:
  std::uint64_t state_;
};

// A position in [0, max_exclusive): small values, values near powers of two (±3), values near
// the top of the range, and values uniform on a log scale, so 2^20 .. 2^31 - 1 appear often.
std::int64_t gen_position(Rng& r, std::int64_t max_exclusive);

// A common shift c with m + c and n + c in [0, max_exclusive); never 0; either sign.
std::int64_t gen_shift(Rng& r, std::int64_t m, std::int64_t n, std::int64_t max_exclusive);

// Head counts in [1, 1024], biased to non-powers of two (3, 5, 6, 12, 40, 96, ...).
std::int64_t gen_heads(Rng& r);

// A real value of the given family for rotation inputs and angles:
//   near a multiple of pi/2 (k*pi/2 + tiny), signed zero, large/small exponent, or uniform.
double gen_real(Rng& r);

// A head_dim / rotary_dim pair: head_dim in {2..256}, rotary_dim even, full or partial.
struct RotaryDims {
  std::int64_t head_dim;
  std::int64_t rotary_dim;
};
RotaryDims gen_rotary_dims(Rng& r, bool partial);

// A complete valid RoPE config for one scaling kind and layout (parameters drawn around the
// values production models use).
reference::RopeConfig gen_rope_config(Rng& r, reference::RopeScaling kind,
                                      reference::RopeLayout layout, bool partial);

// Configs of the RoPE family (spec/rope.md, issue 14), drawn around the shipped defaults
// (Phi-3 LongRoPE, Llama 4, Qwen2-VL / Qwen3-VL, DeepSeek V3) and beyond them.
reference::LongRopeConfig gen_longrope_config(Rng& r);
reference::Llama4Config gen_llama4_config(Rng& r);
reference::MropeConfig gen_mrope_config(Rng& r, reference::MropeLayout layout);
reference::MlaConfig gen_mla_config(Rng& r);

// A valid T5 config (num_buckets 4..128, max_distance above max_exact up to 4096).
reference::T5Config gen_t5_config(Rng& r, bool bidirectional);

// An offset for a T5 config: inside max_exact, in the log range, at and beyond max_distance
// (far beyond, up to 2^31 - 1), in both directions.
std::int64_t gen_t5_offset(Rng& r, const reference::T5Config& c);

// Shrink candidates, simplest first; each is strictly simpler than the input.
std::vector<std::int64_t> shrink_toward(std::int64_t v, std::int64_t target);
std::vector<double> shrink_real(double v);
std::vector<std::int64_t> shrink_heads(std::int64_t n);

}  // namespace pecheck::classify
