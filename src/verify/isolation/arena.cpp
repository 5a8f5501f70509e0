#include "verify/isolation/arena.hpp"

#include <sys/mman.h>

#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace pecheck::verifier {

std::uint32_t float_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

float bits_float(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

bool same_bits(const float* p, std::span<const float> v) {
  return v.empty() || std::memcmp(p, v.data(), v.size_bytes()) == 0;
}

bool same_bits(const std::int64_t* p, std::span<const std::int64_t> v) {
  return v.empty() || std::memcmp(p, v.data(), v.size_bytes()) == 0;
}

bool GuardedOutput::guards_intact() const {
  return first_guard_violation() == std::numeric_limits<std::int64_t>::min();
}

std::int64_t GuardedOutput::first_guard_violation() const {
  for (std::size_t g = kGuardFloats; g > 0; --g) {
    if (float_bits(data[-static_cast<std::ptrdiff_t>(g)]) != kCanaryBits) {
      return -static_cast<std::int64_t>(g);
    }
  }
  for (std::size_t g = 0; g < kGuardFloats; ++g) {
    if (float_bits(data[size + g]) != kCanaryBits) return static_cast<std::int64_t>(size + g);
  }
  return std::numeric_limits<std::int64_t>::min();
}

std::size_t GuardedOutput::count_bits(std::uint32_t bits) const {
  std::size_t n = 0;
  for (std::size_t i = 0; i < size; ++i) n += float_bits(data[i]) == bits;
  return n;
}

Arena::Arena(std::size_t capacity_bytes) : capacity_(capacity_bytes) {
  void* p = mmap(nullptr, capacity_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error("cannot map the shared call arena");
  base_ = static_cast<unsigned char*>(p);
}

Arena::~Arena() {
  if (base_) munmap(base_, capacity_);
}

void* Arena::allocate(std::size_t bytes, std::size_t align) {
  const std::size_t start = (used_ + align - 1) & ~(align - 1);
  if (bytes > capacity_ || start > capacity_ - bytes) {
    throw std::length_error("call arena exhausted (" + std::to_string(bytes) + " bytes requested)");
  }
  used_ = start + bytes;
  return base_ + start;
}

GuardedOutput Arena::output(std::size_t n, std::uint32_t fill_bits, std::size_t align) {
  auto* p = static_cast<float*>(allocate((n + 2 * kGuardFloats) * sizeof(float), align));
  const float canary = bits_float(kCanaryBits);
  const float fill = bits_float(fill_bits);
  for (std::size_t i = 0; i < kGuardFloats; ++i) p[i] = canary;
  for (std::size_t i = 0; i < n; ++i) p[kGuardFloats + i] = fill;
  for (std::size_t i = 0; i < kGuardFloats; ++i) p[kGuardFloats + n + i] = canary;
  return GuardedOutput{p + kGuardFloats, n};
}

GuardedOutput Arena::output_from(std::span<const float> init, std::size_t align) {
  GuardedOutput out = output(init.size(), kPoisonBits, align);
  if (!init.empty()) std::memcpy(out.data, init.data(), init.size_bytes());
  return out;
}

}  // namespace pecheck::verifier
