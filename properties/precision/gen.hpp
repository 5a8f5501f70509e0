// Generators for the precision properties. RapidCheck's own float generator has no large
// exponents; these cover positions over all of [0, 2^31) (log-uniform, with the ends) and
// float inputs over many binades, zeros included.
#pragma once

#include <rapidcheck.h>

#include <cmath>
#include <cstdint>

namespace pecheck::prop {

inline rc::Gen<std::int64_t> position() {
  return rc::gen::oneOf(
      rc::gen::inRange<std::int64_t>(0, 4097),
      rc::gen::mapcat(rc::gen::inRange(0, 31),
                      [](int e) {
                        const std::int64_t lo = std::int64_t{1} << e;
                        return rc::gen::inRange<std::int64_t>(lo, 2 * lo);
                      }),
      rc::gen::inRange<std::int64_t>((std::int64_t{1} << 31) - 1000, std::int64_t{1} << 31));
}

// A float of magnitude 2^[-20, 20] with a random 24-bit significand and sign, or zero.
inline rc::Gen<float> value() {
  return rc::gen::oneOf(
      rc::gen::just(0.0f),
      rc::gen::map(rc::gen::tuple(rc::gen::inRange(-20, 21), rc::gen::inRange(0, 1 << 24), rc::gen::arbitrary<bool>()),
                   [](const std::tuple<int, int, bool>& t) {
                     const float m = 1.0f + static_cast<float>(std::get<1>(t)) * 0x1p-24f;
                     const float v = std::ldexp(m, std::get<0>(t));
                     return std::get<2>(t) ? -v : v;
                   }));
}

inline rc::Gen<std::int64_t> rotary_dim() { return rc::gen::element<std::int64_t>(2, 32, 64, 80, 96, 128, 256); }
inline rc::Gen<double> base() { return rc::gen::element(10000.0, 500000.0, 1000000.0, 10.0); }
inline rc::Gen<double> scale() { return rc::gen::element(1.0, 0.25, 4.0, 0.125, 0.1); }

}  // namespace pecheck::prop
