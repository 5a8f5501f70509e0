// One kernel call for a case: lays the arguments and inputs out in the shared arena, poisons the
// output between guard zones, runs the call through the Executor and reads back everything the
// checks need (the output, guards, poisoned elements left, inputs left intact).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verify/isolation/arena.hpp"
#include "verify/gen/cases.hpp"
#include "verify/isolation/worker.hpp"

namespace pecheck::verifier {

struct RunMode {
  bool in_place = false;       // RoPE: y == x (ABI-ROPE-4)
  bool keys = false;           // RoPE: use the case's keys `k` as x
  std::int64_t shift = 0;      // added to every position
  std::uint32_t poison = kPoisonBits;
  bool zero_scores = false;    // ALiBi: start from zero scores (the bias alone)
};

struct RunResult {
  CallOutcome outcome;
  std::vector<float> out;            // the output buffer after the call
  std::int64_t guard_violation = 0;  // first changed guard index (see GuardedOutput), or INT64_MIN
  std::string input_changed;         // name of an input the call modified, "" when none
  std::int64_t unwritten = 0;        // output elements still holding the poison
  std::int64_t first_unwritten = -1;
  bool unchanged = false;            // the output holds exactly its initial bits
  bool guards_ok() const;
};

RunResult run_case(Executor& ex, const RopeCase& c, const RunMode& m = {});
RunResult run_case(Executor& ex, const AlibiCase& c, const RunMode& m = {});
RunResult run_case(Executor& ex, const T5Case& c, const RunMode& m = {});
RunResult run_case(Executor& ex, const SinusoidalCase& c, const RunMode& m = {});
RunResult run_case(Executor& ex, const LearnedCase& c, const RunMode& m = {});

// Positions after a shift (for building the oracle's view of a shifted call).
std::vector<std::int64_t> shifted(const std::vector<std::int64_t>& p, std::int64_t s);

}  // namespace pecheck::verifier
