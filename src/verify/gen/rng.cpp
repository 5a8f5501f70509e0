#include "verify/gen/rng.hpp"

namespace pecheck::verifier {

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

Rng Rng::for_case(std::uint64_t seed, std::string_view check, std::uint64_t index) {
  Rng r(seed ^ fnv1a(check));
  r.s_ ^= r.next() + index * 0x9e3779b97f4a7c15ull;
  r.next();
  return r;
}

std::uint64_t Rng::next() {
  std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::int64_t Rng::range(std::int64_t lo, std::int64_t hi) {
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
  if (span == 0) return static_cast<std::int64_t>(next());  // full 64-bit range
  // Multiply-shift: unbiased enough for test generation and fully deterministic.
  const unsigned __int128 m = static_cast<unsigned __int128>(next()) * span;
  return lo + static_cast<std::int64_t>(static_cast<std::uint64_t>(m >> 64));
}

double Rng::unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

float Rng::signed_unit() {
  const std::int64_t k = range(-(std::int64_t{1} << 24), (std::int64_t{1} << 24) - 1);
  return static_cast<float>(k) * 0x1.0p-24f;
}

}  // namespace pecheck::verifier
