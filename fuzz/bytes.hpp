// A small reader that turns fuzzer bytes into bounded values (libFuzzer's FuzzedDataProvider is
// clang-only; the fuzz targets also build with GCC as plain regression tests, tests/ci/).
// Running out of bytes yields zeros, so every input is a complete, deterministic test case.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace pecheck::fuzz {

class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : p_(data), n_(size) {}

  std::uint8_t u8() { return i_ < n_ ? p_[i_++] : 0; }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int k = 0; k < 4; ++k) v = (v << 8) | u8();
    return v;
  }
  std::uint64_t u64() { return (std::uint64_t{u32()} << 32) | u32(); }
  // Uniform-ish integer in [lo, hi] (hi - lo < 2^32).
  std::int64_t range(std::int64_t lo, std::int64_t hi) {
    const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<std::int64_t>(u32() % span);
  }
  bool flag() { return (u8() & 1) != 0; }
  template <class T, std::size_t N>
  const T& pick(const T (&items)[N]) {
    return items[u8() % N];
  }
  float any_float() {
    const std::uint32_t b = u32();
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
  }
  double any_double() {
    const std::uint64_t b = u64();
    double d;
    std::memcpy(&d, &b, sizeof d);
    return d;
  }
  // Up to `max` bytes as a string (any bytes, including NUL and invalid UTF-8).
  std::string text(std::size_t max) {
    const std::size_t len = u8() % (max + 1);
    std::string s;
    for (std::size_t k = 0; k < len && i_ < n_; ++k) s.push_back(static_cast<char>(u8()));
    return s;
  }
  bool empty() const { return i_ >= n_; }

 private:
  const std::uint8_t* p_;
  std::size_t n_;
  std::size_t i_ = 0;
};

}  // namespace pecheck::fuzz
