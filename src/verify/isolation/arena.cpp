#include "verify/isolation/arena.hpp"

#include <sys/mman.h>

#include <algorithm>
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

std::uint32_t GuardedOutput::bits(std::int64_t i) const {
  if (storage == Storage::F32) {
    std::uint32_t b;
    std::memcpy(&b, static_cast<const unsigned char*>(data) + i * 4, 4);
    return b;
  }
  std::uint16_t h;
  std::memcpy(&h, static_cast<const unsigned char*>(data) + i * 2, 2);
  return h;
}

void GuardedOutput::set_bits(std::int64_t i, std::uint32_t b) const {
  if (storage == Storage::F32) {
    std::memcpy(static_cast<unsigned char*>(data) + i * 4, &b, 4);
  } else {
    const std::uint16_t h = static_cast<std::uint16_t>(b);
    std::memcpy(static_cast<unsigned char*>(data) + i * 2, &h, 2);
  }
}

bool GuardedOutput::guards_intact() const {
  return first_guard_violation() == std::numeric_limits<std::int64_t>::min();
}

std::int64_t GuardedOutput::first_guard_violation() const {
  const std::int64_t g = static_cast<std::int64_t>(guard_elems());
  const std::uint32_t canary = canary_bits(storage);
  for (std::int64_t k = g; k > 0; --k) {
    if (bits(-k) != canary) return -k;
  }
  const std::int64_t n = static_cast<std::int64_t>(size);
  for (std::int64_t k = 0; k < g; ++k) {
    if (bits(n + k) != canary) return n + k;
  }
  return std::numeric_limits<std::int64_t>::min();
}

std::size_t GuardedOutput::count_bits(std::uint32_t b) const {
  std::size_t n = 0;
  for (std::size_t i = 0; i < size; ++i) n += bits(static_cast<std::int64_t>(i)) == b;
  return n;
}

std::vector<float> GuardedOutput::values() const {
  std::vector<float> v(size);
  for (std::size_t i = 0; i < size; ++i) v[i] = value(static_cast<std::int64_t>(i));
  return v;
}

std::vector<std::uint32_t> GuardedOutput::all_bits() const {
  std::vector<std::uint32_t> v(size);
  for (std::size_t i = 0; i < size; ++i) v[i] = bits(static_cast<std::int64_t>(i));
  return v;
}

Arena::Arena(std::size_t capacity_bytes) : capacity_(capacity_bytes) {
  void* p = mmap(nullptr, capacity_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error("cannot map the shared call arena");
  base_ = map_base_ = static_cast<unsigned char*>(p);
  map_bytes_ = capacity_;
}

Arena::~Arena() {
  if (map_base_) munmap(map_base_, map_bytes_);
}

void Arena::narrow(std::size_t slice, std::size_t slices) {
  if (slices <= 1) return;
  const std::size_t part = (map_bytes_ / slices) & ~std::size_t{4095};
  base_ = map_base_ + slice * part;
  capacity_ = part;
  reset();
}

void* Arena::allocate(std::size_t bytes, std::size_t align) {
  const std::size_t start = (used_ + align - 1) & ~(align - 1);
  if (bytes > capacity_ || start > capacity_ - bytes) {
    throw std::length_error("call arena exhausted (" + std::to_string(bytes) + " bytes requested)");
  }
  used_ = start + bytes;
  return base_ + start;
}

void* Arena::allocate_input(std::size_t bytes, std::size_t align, const std::string& name, std::size_t elem_bytes,
                            const std::string& unit) {
  if (!can_guard(bytes)) {
    return allocate(bytes == 0 ? 1 : bytes, align);
  }
  const auto up = [](std::size_t v) { return (v + kPageBytes - 1) & ~(kPageBytes - 1); };
  std::size_t start = 0, lo = 0;
  if (side_ == GuardSide::After) {  // the last element ends where the span begins
    lo = up(used_ + bytes);
    start = lo - bytes;
  } else {  // the first element starts where the span ends
    lo = up(used_);
    start = lo + kGuardSpanBytes;
  }
  const std::size_t end = std::max(start + bytes, lo + kGuardSpanBytes);
  if (end > capacity_) throw std::length_error("call arena exhausted (" + std::to_string(bytes) + " bytes requested)");
  used_ = end;
  GuardedInput g;
  g.name = name;
  g.start = reinterpret_cast<std::uintptr_t>(base_ + start);
  g.elem_bytes = elem_bytes == 0 ? 1 : elem_bytes;
  g.count = bytes / g.elem_bytes;
  g.unit = unit;
  g.span = {reinterpret_cast<std::uint64_t>(base_ + lo), reinterpret_cast<std::uint64_t>(base_ + lo + kGuardSpanBytes)};
  guarded_.push_back(std::move(g));
  return base_ + start;
}

std::string Arena::describe_fault(std::uint64_t addr, bool write) const {
  for (const auto& g : guarded_) {
    if (addr < g.span.lo || addr >= g.span.hi) continue;
    const auto off = static_cast<std::int64_t>(addr) - static_cast<std::int64_t>(g.start);
    const auto w = static_cast<std::int64_t>(g.elem_bytes);
    const std::int64_t e = off >= 0 ? off / w : -((-off + w - 1) / w);  // floor
    const auto n = static_cast<std::int64_t>(g.count);
    const std::string units = g.unit + (((e < 0 ? -e : e - n + 1) == 1) ? "" : "s");
    std::string s = std::string(write ? "wrote " : "read ") + g.name + "[" + std::to_string(e) + "]: ";
    s += e < 0 ? std::to_string(-e) + " " + units + " before its first element"
               : std::to_string(e - n + 1) + " " + units + " after the last of its " + std::to_string(n) + " elements";
    return s + " (an inaccessible guard page)";
  }
  return "";
}

GuardedOutput Arena::output(std::size_t n, std::uint32_t fill_bits, std::size_t align, Storage s) {
  const std::size_t w = storage_bytes(s);
  auto* p = static_cast<unsigned char*>(allocate(n * w + 2 * kGuardBytes, align));
  GuardedOutput out{p + kGuardBytes, n, s};
  const std::int64_t g = static_cast<std::int64_t>(out.guard_elems());
  const std::uint32_t canary = canary_bits(s);
  for (std::int64_t i = -g; i < 0; ++i) out.set_bits(i, canary);
  for (std::size_t i = 0; i < n; ++i) out.set_bits(static_cast<std::int64_t>(i), fill_bits);
  for (std::int64_t i = 0; i < g; ++i) out.set_bits(static_cast<std::int64_t>(n) + i, canary);
  return out;
}

GuardedOutput Arena::output_from(std::span<const float> init, std::size_t align, Storage s) {
  GuardedOutput out = output(init.size(), poison_bits(s), align, s);
  for (std::size_t i = 0; i < init.size(); ++i) out.set_bits(static_cast<std::int64_t>(i), to_storage(init[i], s));
  return out;
}

}  // namespace pecheck::verifier
