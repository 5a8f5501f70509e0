// `pecheck verify --shard I/N`: a deterministic split of one run over N CI runners.
//
// Every check generates its cases from (seed, check name, case index) alone (verify/rng.hpp),
// so the split is by case index: shard I of N runs the case indices i with i % N == I of every
// check, and nothing else differs. N runners with the same seed and options therefore run,
// together, exactly the cases one unsharded run would. The failure corpus and the shipped
// regression vectors are replayed by every shard (they are few and cheap, and a regression
// must fail whichever runner sees it first).
//
// merge_shards() folds the N results into the result the unsharded run reports: a check fails
// when any shard found a counterexample, and the counterexample kept is the one with the
// smallest case index, which is the one the unsharded run stops at (it runs the indices in
// order and shrinks deterministically). tests/ci/test_shard.cpp checks this equality.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "report/result.hpp"

namespace pecheck::verifier {

struct Shard {
  std::int64_t index = 0;  // I, in [0, count)
  std::int64_t count = 1;  // N >= 1

  friend bool operator==(const Shard&, const Shard&) = default;
};

inline constexpr std::int64_t kMaxShards = 1 << 16;

// Parses "I/N" (decimal, 0 <= I < N <= kMaxShards, nothing else on the line). Throws
// pecheck::UsageError with one line naming the text and the rule otherwise.
Shard parse_shard(std::string_view text);

// "I/N".
std::string to_string(const Shard& s);

// Whether case `case_index` of any check belongs to shard `s` (i % N == I).
bool shard_owns(const Shard& s, std::int64_t case_index);

// The case index a counterexample was found at (a "case_index" argument, or the engine's note
// "found at case I of seed S"), or -1 when it has none (e.g. a replayed corpus case).
std::int64_t case_index_of(const report::Counterexample& cx);

// The result one unsharded run reports, from the results of shards 0..N-1 of the same run.
// Throws pecheck::UsageError when the parts disagree on the kernel, seed or check list.
report::VerifyResult merge_shards(const std::vector<report::VerifyResult>& parts);

}  // namespace pecheck::verifier
