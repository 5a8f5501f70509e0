// What the run_case of every family shares (v1/run.hpp, rope_v2/run.hpp, attention/run.hpp): the
// result of one kernel call read back (the output decoded and as raw bits, guards, poisoned
// elements left, inputs left intact), the inputs placed in the arena and remembered
// (CallInputs), finish_call, and the guard pages a case's placement asks for.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verify/isolation/arena.hpp"
#include "verify/gen/case_common.hpp"
#include "verify/isolation/worker.hpp"

namespace pecheck::verifier {

// The guard pages a case's placement asks for (bit 2: after every input, bit 3: before it;
// gen/case_common.hpp CaseCommon::placement).
inline GuardSide guard_side_of(std::int32_t placement) {
  return (placement & 4) != 0 ? GuardSide::After : (placement & 8) != 0 ? GuardSide::Before : GuardSide::None;
}

struct RunMode {
  bool in_place = false;       // RoPE: y == x (ABI-ROPE-4)
  bool keys = false;           // RoPE: use the case's keys `k` as x
  std::int64_t shift = 0;      // added to every position
  bool alt_poison = false;     // poison with poison_bits(storage, true) (the determinism check's second call)
  bool zero_scores = false;    // ALiBi: start from zero scores (the bias alone)
};

struct RunResult {
  CallOutcome outcome;
  Storage storage = Storage::F32;    // the format of the output
  std::vector<float> out;            // the output buffer after the call, decoded exactly
  std::vector<std::uint32_t> out_bits;  // the same elements as raw bits of the format
  std::uint32_t poison = kPoisonBits;   // the poison pattern the output was filled with
  std::int64_t guard_violation = 0;  // first changed guard index (see GuardedOutput), or INT64_MIN
  std::string input_changed;         // name of an input the call modified, "" when none
  std::int64_t unwritten = 0;        // output elements still holding the poison
  std::int64_t first_unwritten = -1;
  bool unchanged = false;            // the output holds exactly its initial bits
  bool guards_ok() const;
};

// Inputs placed in the arena, remembered so that a write into them is detected (ABI-GEN-4).
// Shared by the run_case of every family (v1/run.cpp, rope_v2/run.cpp, attention/run.cpp).
class CallInputs {
 public:
  // A tensor of floats encoded in `s` (NULL when `name` is the case's null_field).
  const void* tensor(Arena& a, const std::string& name, const std::vector<float>& v, Storage s,
                     const std::string& null_field, std::size_t align = 64);
  const std::int64_t* ints(Arena& a, const std::string& name, std::vector<std::int64_t> v,
                           const std::string& null_field);
  // Any other bytes (a cos/sin cache, an argument struct's arrays): remembered as they are.
  // `elem`/`unit`: the element size and its name in a guard-page fault ("float", "int64").
  const void* bytes(Arena& a, const std::string& name, const void* p, std::size_t n, std::size_t align = 64,
                    std::size_t elem = 1, const std::string& unit = "byte");
  template <class A>
  const A* args(Arena& a, const A& value) {
    const A* p = a.put(value);
    args_ = p;
    args_copy_.assign(reinterpret_cast<const unsigned char*>(&value),
                      reinterpret_cast<const unsigned char*>(&value) + sizeof(A));
    return p;
  }
  // The name of the first input whose bytes changed ("args" for the struct), "" when none.
  std::string changed() const;

 private:
  struct Saved {
    std::string name;
    const void* p;
    std::vector<unsigned char> bytes;
  };
  std::vector<Saved> saved_;
  const void* args_ = nullptr;
  std::vector<unsigned char> args_copy_;
};

// Reads back an output after a call: values, bits, guards, unwritten (poisoned) elements, inputs
// changed. `init`: the output's initial values for a read-write output (ALiBi scores, in-place
// RoPE; `unchanged` compares with them, nothing counts as unwritten), else NULL (poisoned).
RunResult finish_call(const CallOutcome& o, const GuardedOutput& out, const CallInputs& in, std::uint32_t poison,
                      bool output_null, const std::vector<float>* init = nullptr);

// Positions after a shift (for building the oracle's view of a shifted call).
std::vector<std::int64_t> shifted(const std::vector<std::int64_t>& p, std::int64_t s);

}  // namespace pecheck::verifier
