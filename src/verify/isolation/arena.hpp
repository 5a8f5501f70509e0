// Shared-memory arena for kernel calls.
//
// One MAP_SHARED anonymous mapping created before any worker is forked, so every pointer into it
// is valid, at the same address, in pecheck and in its worker processes. Inputs, argument
// structs and outputs of a call live here: the worker writes its outputs into memory pecheck
// reads after the call, even when the worker then dies.
//
// Outputs are laid out as [guard][elements][guard], elements of 4 or 2 bytes by their storage
// format (verify/isolation/storage.hpp). Guards hold a canary bit pattern (ABI-GEN-4); elements
// are poisoned with a NaN-payload pattern no arithmetic or conversion produces, so an element
// that still holds it after a successful call was never written (ABI-GEN-5). The patterns per
// format and why no kernel produces them: storage.hpp (poison_bits, canary_bits).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "verify/isolation/storage.hpp"

namespace pecheck::verifier {

// The float32 patterns (poison_bits(Storage::F32), canary_bits(Storage::F32)).
inline constexpr std::uint32_t kPoisonBits = 0x7fa5c0deu;
inline constexpr std::uint32_t kPoisonBitsAlt = 0x7fb1e55eu;
inline constexpr std::uint32_t kCanaryBits = 0xfff0cafeu;  // a negative-signed NaN payload
inline constexpr std::size_t kGuardBytes = 256;             // each side
inline constexpr std::size_t kGuardFloats = kGuardBytes / 4;

// Inaccessible guard pages around inputs (ABI-GEN-4 reads): in some cases every input array is
// placed flush against a span the worker makes PROT_NONE for the duration of the call, after
// its last element or before its first, so that a read (or write) past that end kills the
// worker with SIGSEGV at an address pecheck maps back to the input and element offset. The span
// is large (1 MiB) so that an index far past the end (a negative T5 bucket) still lands in it.
inline constexpr std::size_t kPageBytes = 4096;
inline constexpr std::size_t kGuardSpanBytes = std::size_t{1} << 20;
inline constexpr std::size_t kMaxGuardSpans = 8;  // per call (Request::guard_lo/hi)
inline constexpr std::size_t kArenaReserved = 64; // the fault slot at the start of the arena

enum class GuardSide : int { None = 0, After = 1, Before = 2 };

struct GuardSpan {
  std::uint64_t lo = 0, hi = 0;  // [lo, hi), page-aligned
};

// An input placed against a guard span: what a fault address in that span is reported as.
struct GuardedInput {
  std::string name;
  std::uintptr_t start = 0;    // first element
  std::size_t elem_bytes = 4;  // 4 float32, 2 bf16/f16, 8 int64
  std::size_t count = 0;       // elements
  std::string unit;            // "float", "bf16 element", "int64"
  GuardSpan span;
};

class Arena;

// An output buffer with guard zones, living in an Arena.
struct GuardedOutput {
  void* data = nullptr;  // first element (never NULL, even for zero elements)
  std::size_t size = 0;  // elements
  Storage storage = Storage::F32;

  std::size_t elem_bytes() const { return storage_bytes(storage); }
  std::size_t guard_elems() const { return kGuardBytes / elem_bytes(); }
  float* f32() const { return static_cast<float*>(data); }                 // storage F32 only
  std::uint16_t* u16() const { return static_cast<std::uint16_t*>(data); }  // BF16/F16 only
  // Raw bits of element i; i may lie in the guard zones ([-guard_elems(), size + guard_elems())).
  std::uint32_t bits(std::int64_t i) const;
  void set_bits(std::int64_t i, std::uint32_t b) const;
  float value(std::int64_t i) const { return from_storage(bits(i), storage); }
  bool guards_intact() const;
  // Index of the first guard element that changed, negative before the buffer; or the sentinel
  // INT64_MIN when intact. Used in bounds counterexamples (in elements of the format).
  std::int64_t first_guard_violation() const;
  std::size_t count_bits(std::uint32_t bits) const;  // elements holding exactly these bits
  std::vector<float> values() const;                 // decoded exactly (storage.hpp)
  std::vector<std::uint32_t> all_bits() const;
};

class Arena {
 public:
  explicit Arena(std::size_t capacity_bytes);
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  void reset() {
    used_ = kArenaReserved;
    side_ = GuardSide::None;
    guarded_.clear();
  }
  // Restricts this Arena (in a forked lane process) to part `slice` of `slices` equal parts of
  // its mapping; the mapping stays whole and shared. Only call before allocating.
  void narrow(std::size_t slice, std::size_t slices);
  std::size_t capacity() const { return capacity_; }

  // Raw storage, `align`-byte aligned (a power of two; 64 by default, 4 or 2 packs a buffer
  // right after the previous one). Throws std::length_error when the arena is full.
  void* allocate(std::size_t bytes, std::size_t align = 64);

  // Guard pages for the inputs of the next call (cleared by reset()). With GuardSide::None
  // allocate_input is allocate; otherwise the input lies flush against a guard span on that
  // side (at most kMaxGuardSpans inputs per call; later ones, and empty ones, are unguarded).
  void set_guard_side(GuardSide s) { side_ = s; }
  GuardSide guard_side() const { return side_; }
  void* allocate_input(std::size_t bytes, std::size_t align, const std::string& name, std::size_t elem_bytes,
                       const std::string& unit);
  const std::vector<GuardedInput>& guarded_inputs() const { return guarded_; }
  // Whether allocate_input(bytes, ...) would place the input against a guard span.
  bool can_guard(std::size_t bytes) const {
    return side_ != GuardSide::None && bytes > 0 && guarded_.size() < kMaxGuardSpans;
  }
  // Corrects the first element and count of the last guarded input (a buffer whose allocation
  // holds more than its elements: the query+key views' canary zone on the unguarded side).
  void relabel_last_input(const void* first, std::size_t count) {
    if (!guarded_.empty()) guarded_.back().start = reinterpret_cast<std::uintptr_t>(first), guarded_.back().count = count;
  }
  // The word the worker's SIGSEGV handler stores the fault address in (bit 0 of the second word:
  // the access was a write).
  std::uint64_t* fault_slot() const { return reinterpret_cast<std::uint64_t*>(base_); }
  // A fault address in one of this call's guard spans, in words ("read x[64]: 1 float after the
  // last of its 64 elements"); "" when it lies in none.
  std::string describe_fault(std::uint64_t addr, bool write) const;
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
  // An output of n elements of the format, each set to `fill_bits`, between canary guards.
  GuardedOutput output(std::size_t n, std::uint32_t fill_bits, std::size_t align = 64,
                       Storage s = Storage::F32);
  // An output initialised from `init` encoded in the format (ALiBi adds in place into its
  // scores; in-place RoPE); the values must be representable (they are encoded with RNE).
  GuardedOutput output_from(std::span<const float> init, std::size_t align = 64, Storage s = Storage::F32);

 private:
  unsigned char* base_ = nullptr;
  std::size_t capacity_ = 0;
  unsigned char* map_base_ = nullptr;  // the whole mapping (unmapped by the owner)
  std::size_t map_bytes_ = 0;
  std::size_t used_ = kArenaReserved;
  GuardSide side_ = GuardSide::None;
  std::vector<GuardedInput> guarded_;
};

// Bit pattern helpers.
std::uint32_t float_bits(float f);
float bits_float(std::uint32_t b);
// True when every element of `p` equals `v` bit for bit (an input left untouched).
bool same_bits(const float* p, std::span<const float> v);
bool same_bits(const std::int64_t* p, std::span<const std::int64_t> v);

}  // namespace pecheck::verifier
