#include "verify/isolation/run.hpp"

#include <cstring>
#include <limits>
#include <span>

namespace pecheck::verifier {

namespace {

constexpr std::int64_t kIntact = std::numeric_limits<std::int64_t>::min();

template <class T>
std::span<const T> cs(const std::vector<T>& v) {
  return {v.data(), v.size()};
}

}  // namespace

bool RunResult::guards_ok() const { return guard_violation == kIntact; }

const void* CallInputs::tensor(Arena& a, const std::string& name, const std::vector<float>& v, Storage s,
                               const std::string& null_field, std::size_t align) {
  if (null_field == name) return nullptr;
  const std::vector<unsigned char> enc = encode(cs(v), s);
  return bytes(a, name, enc.data(), enc.size(), align, storage_bytes(s),
               s == Storage::F32 ? std::string("float") : std::string(storage_name(s)) + " element");
}

const std::int64_t* CallInputs::ints(Arena& a, const std::string& name, std::vector<std::int64_t> v,
                                     const std::string& null_field) {
  if (null_field == name) return nullptr;
  return static_cast<const std::int64_t*>(bytes(a, name, v.data(), v.size() * sizeof(std::int64_t), 64, 8, "int64"));
}

const void* CallInputs::bytes(Arena& a, const std::string& name, const void* p, std::size_t n, std::size_t align,
                              std::size_t elem, const std::string& unit) {
  void* q = a.allocate_input(n, align, name, elem, unit);
  if (n > 0) std::memcpy(q, p, n);
  const auto* b = static_cast<const unsigned char*>(p);
  saved_.push_back({name, q, std::vector<unsigned char>(b, b + n)});
  return q;
}

std::string CallInputs::changed() const {
  for (const auto& f : saved_) {
    if (!f.bytes.empty() && std::memcmp(f.p, f.bytes.data(), f.bytes.size()) != 0) return f.name;
  }
  if (args_ && std::memcmp(args_, args_copy_.data(), args_copy_.size()) != 0) return "args";
  return "";
}

RunResult finish_call(const CallOutcome& o, const GuardedOutput& out, const CallInputs& in, std::uint32_t poison,
                      bool output_null, const std::vector<float>* init) {
  RunResult r;
  r.outcome = o;
  r.storage = out.storage;
  r.poison = poison;
  r.out = out.values();
  r.out_bits = out.all_bits();
  if (init) {
    r.unchanged = true;
    for (std::size_t i = 0; i < r.out_bits.size() && i < init->size(); ++i) {
      r.unchanged = r.unchanged && r.out_bits[i] == to_storage((*init)[i], out.storage);
    }
  } else {
    r.unchanged = out.count_bits(poison) == out.size;
  }
  r.guard_violation = out.first_guard_violation();
  r.input_changed = in.changed();
  if (!output_null && !init) {
    for (std::size_t i = 0; i < r.out_bits.size(); ++i) {
      if (r.out_bits[i] == poison) {
        if (r.first_unwritten < 0) r.first_unwritten = static_cast<std::int64_t>(i);
        ++r.unwritten;
      }
    }
  }
  return r;
}

std::vector<std::int64_t> shifted(const std::vector<std::int64_t>& p, std::int64_t s) {
  std::vector<std::int64_t> q(p);
  for (auto& e : q) e += s;
  return q;
}

std::string placement_note(std::int32_t placement) {
  std::string s;
  if ((placement & 3) != 0) {
    s = std::string("the output buffer was placed ") + ((placement & 1) ? "below" : "above") + " its inputs" +
        ((placement & 2) ? ", adjacent (no gap before its guard zone)" : "") + " in memory";
  }
  if (const GuardSide g = guard_side_of(placement); g != GuardSide::None) {
    s += std::string(s.empty() ? "" : "; ") + "each input array lay against an inaccessible guard page " +
         (g == GuardSide::After ? "after its last element" : "before its first element");
  }
  return s;
}

}  // namespace pecheck::verifier
