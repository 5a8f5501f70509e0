// One pec_attention_* call laid out in the arena: q, k, v and out as strided views whose gaps hold
// NaN gap patterns (ABI-VIEW-2: the call must not read them), each buffer between canary guards
// (ABI-GEN-4); out and lse poisoned (ABI-GEN-5); every other input remembered bit for bit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verify/attention/cases.hpp"
#include "verify/isolation/worker.hpp"

namespace pecheck::verifier {

struct AttnRunMode {
  std::int64_t shift = 0;   // added to every query and key position
  bool alt_poison = false;  // the alternative poison (determinism's second call)
};

struct AttnRunResult {
  CallOutcome outcome;
  std::vector<float> out;             // [total_q][n_q_heads][head_dim_v], widened exactly
  std::vector<std::uint32_t> out_bits;
  std::vector<float> lse;             // [total_q][n_q_heads] (empty when not requested)
  std::vector<std::uint32_t> lse_bits;
  std::string guard_violation;        // a write before or after a buffer, in words
  std::string gap_violation;          // a write into a gap of a view
  std::string input_changed;          // an input the call modified
  std::int64_t unwritten = 0;         // out and lse elements still holding the poison
  std::string first_unwritten;        // "out (token 3, head 1, lane 0)"
  bool unchanged = false;             // every output element holds its initial bits
  std::uint32_t poison = 0;
  bool guards_ok() const { return guard_violation.empty() && gap_violation.empty(); }
};

AttnRunResult run_attention(Executor& ex, Fn fn, const AttnCase& c, const AttnRunMode& m = {});

}  // namespace pecheck::verifier
