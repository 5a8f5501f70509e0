// Shared-memory arena for kernel calls.
//
// One MAP_SHARED anonymous mapping created before any worker is forked, so every pointer into it
// is valid, at the same address, in pecheck and in its worker processes. Inputs, argument
// structs and outputs of a call live here: the worker writes its outputs into memory pecheck
// reads after the call, even when the worker then dies.
//
// Outputs are laid out as [guard][elements][guard]. Guards hold a canary bit pattern (ABI-GEN-4);
// elements are poisoned with a NaN-payload pattern no arithmetic produces, so an element that
// still holds it after a successful call was never written (ABI-GEN-5).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace pecheck::verifier {

// Quiet NaNs with payloads that float arithmetic never generates (it yields the default NaN
// 0x7fc00000 or propagates an input payload; inputs never carry these).
inline constexpr std::uint32_t kPoisonBits = 0x7fa5c0deu;
inline constexpr std::uint32_t kPoisonBitsAlt = 0x7fb1e55eu;
inline constexpr std::uint32_t kCanaryBits = 0xfff0cafeu;  // a negative-signed NaN payload
inline constexpr std::size_t kGuardFloats = 64;            // 256 bytes each side

class Arena;

// An output buffer with guard zones, living in an Arena.
struct GuardedOutput {
  float* data = nullptr;  // first element (never NULL, even for zero elements)
  std::size_t size = 0;
  bool guards_intact() const;
  // Index of the first guard float that changed, negative before the buffer; or nullopt-like
  // sentinel INT64_MIN when intact. Used in bounds counterexamples.
  std::int64_t first_guard_violation() const;
  std::size_t count_bits(std::uint32_t bits) const;  // elements holding exactly these bits
  std::vector<float> values() const { return {data, data + size}; }
};

class Arena {
 public:
  explicit Arena(std::size_t capacity_bytes);
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  void reset() { used_ = 0; }
  std::size_t capacity() const { return capacity_; }

  // Raw storage, `align`-byte aligned (a power of two; 64 by default, 4 packs a float buffer
  // right after the previous one). Throws std::length_error when the arena is full.
  void* allocate(std::size_t bytes, std::size_t align = 64);
  template <class T>
  T* copy(std::span<const T> v, std::size_t align = 64) {
    T* p = static_cast<T*>(allocate(v.size_bytes() == 0 ? sizeof(T) : v.size_bytes(), align));
    for (std::size_t i = 0; i < v.size(); ++i) p[i] = v[i];
    return p;
  }
  template <class T>
  T* put(const T& value) {
    T* p = static_cast<T*>(allocate(sizeof(T)));
    *p = value;
    return p;
  }
  // An output of n floats, each set to `fill_bits`, between canary guards.
  GuardedOutput output(std::size_t n, std::uint32_t fill_bits, std::size_t align = 64);
  // An output initialised from `init` (ALiBi adds in place into its scores).
  GuardedOutput output_from(std::span<const float> init, std::size_t align = 64);

 private:
  unsigned char* base_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
};

// Bit pattern helpers.
std::uint32_t float_bits(float f);
float bits_float(std::uint32_t b);
// True when every element of `p` equals `v` bit for bit (an input left untouched).
bool same_bits(const float* p, std::span<const float> v);
bool same_bits(const std::int64_t* p, std::span<const std::int64_t> v);

}  // namespace pecheck::verifier
