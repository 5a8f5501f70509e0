// One call of a version 2 RoPE function laid out in the arena (run.cpp): q, k and the outputs
// as strided views whose gaps hold guard patterns (ABI-VIEW-2), each buffer between canary
// guard zones (ABI-GEN-4); the cos/sin cache with the rows the call may read filled and every
// other row a NaN pattern (ABI-CACHE-2); the builder's cache poisoned (ABI-GEN-5).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verify/rope_v2/cases.hpp"
#include "verify/isolation/worker.hpp"

namespace pecheck::verifier {

// Bit patterns per storage format (widened to 32 bits for 16-bit formats). NaN payloads that
// arithmetic does not produce (it gives the default NaN or propagates an input's payload, and no
// input of a valid call carries a NaN).
struct FormatPatterns {
  std::uint32_t poison, poison_alt, canary, gap, cache_nan;
};
const FormatPatterns& patterns(Storage s);

// One output read back densely ([n_tokens][n_heads][head_dim] for q_out/k_out, the whole cache
// for the builder).
struct OutRead {
  std::string name;
  std::vector<float> values;        // widened exactly
  std::vector<std::uint32_t> bits;  // raw bits of the storage type
  std::int64_t unwritten = 0;       // elements still holding the poison (out of place only)
  std::int64_t first_unwritten = -1;
};

struct ViewRunResult {
  CallOutcome outcome;
  std::vector<OutRead> outs;    // qk/cached: q_out, k_out; builder: cache
  std::string guard_violation;  // a write before or after a buffer (ABI-GEN-4), in words
  std::string gap_violation;    // a write into a gap of a view (ABI-VIEW-2), in words
  std::string input_changed;    // an input (view elements, positions, cache, args) modified
  bool unchanged = false;       // every output buffer holds exactly its initial bits
  bool guards_ok() const { return guard_violation.empty() && gap_violation.empty(); }
};

struct ViewRunMode {
  std::int64_t shift = 0;   // added to every position
  bool alt_poison = false;  // poison outputs with the alternative pattern (determinism)
  int in_place = -1;        // -1: as the case says; else bit 0: q_out == q, bit 1: k_out == k
  std::int64_t axis_shift[3] = {0, 0, 0};  // M-RoPE: added to the t, h, w rows (after `shift`)
};

ViewRunResult run_view_case(Executor& ex, Fn fn, const RopeQkCase& c, const ViewRunMode& m = {});
ViewRunResult run_view_case(Executor& ex, Fn fn, const RopeCachedCase& c,
                            const ViewRunMode& m = {});
ViewRunResult run_view_case(Executor& ex, Fn fn, const RopeCacheCase& c, const ViewRunMode& m = {});
ViewRunResult run_view_case(Executor& ex, Fn fn, const MropeCase& c, const ViewRunMode& m = {});

}  // namespace pecheck::verifier
