// Precision sweeps: how far float implementations of each encoding ("variants") are from the
// exact value as the position grows, in ULPs of the storage format and in units of the
// contract's budget (spec/contracts.md, spec/budgets.tsv). Used by `pecheck precision` and by
// the properties in properties/precision/.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oracle/format.hpp"

namespace pecheck::precision {

// A way to compute an encoding in floating point. Honest variants are what a kernel engineer
// would write; degraded ones reproduce field bugs and must violate the f32 contract.
struct Variant {
  std::string scheme;   // rope, alibi, t5, sinusoidal
  std::string name;     // reference, fma, powf, accurate, ggml, bf16_inv_freq, ...
  bool degraded = false;
  std::string budget;   // the budgets.tsv variant it is judged against
  std::string description;
};

// Every variant of a scheme (InvalidArgument for an unknown scheme).
std::vector<Variant> variants(std::string_view scheme);
Variant variant(std::string_view scheme, std::string_view name);

struct SweepOptions {
  std::string scheme = "rope";
  oracle::Format dtype = oracle::Format::F32;
  std::int64_t max_position = (std::int64_t{1} << 31) - 1;
  std::int64_t dense_until = 256;  // every position below this; then per_octave per octave
  int per_octave = 32;
  int samples = 4;                 // random input vectors per position (RoPE)
  std::uint64_t seed = 1;
  std::int64_t rotary_dim = 128;   // RoPE; d_model for sinusoidal
  double base = 10000.0;
};

struct SweepPoint {
  std::int64_t position = 0;
  double max_ulps = 0;   // largest error in ULPs of the magnitude M in the storage format
                         // (log2 = bits lost; T5: buckets off)
  double max_units = 0;  // largest error in budget units (> 1: exceeds the contract)
};

struct SweepResult {
  Variant variant;
  oracle::Format dtype = oracle::Format::F32;
  std::string budget_row;  // "scheme/dtype/variant" of the row used
  std::vector<SweepPoint> points;
  std::optional<std::int64_t> first_exceeding;  // first position with max_units > 1: exact
                                                // (every position before it checked) when
  bool exact_first = false;                     // exact_first, else the first sampled one,
  std::int64_t within_at = -1;                  // with the sample before it (within budget)
  double worst_units = 0;
};

// The positions a sweep visits: 0 .. dense_until-1, then per_octave per octave up to max.
std::vector<std::int64_t> sweep_positions(const SweepOptions& o);

// Error of one variant at one position (max over lanes/heads/samples).
SweepPoint measure(const Variant& v, const SweepOptions& o, std::int64_t position);
SweepResult sweep(const Variant& v, const SweepOptions& o);

// First position in [from, to] with max_units > 1, scanning every position (for degraded
// variants, whose violations start early); nullopt if none.
std::optional<std::int64_t> first_exceeding_dense(const Variant& v, const SweepOptions& o,
                                                  std::int64_t from, std::int64_t to);

// Writes <dir>/precision_<scheme>_<dtype>.csv and .svg atomically (creating dir); IoError
// when they cannot be written. Returns the two paths.
std::vector<std::filesystem::path> write_outputs(const std::filesystem::path& dir,
                                                 const std::vector<SweepResult>& results);
std::string render_csv(const std::vector<SweepResult>& results);
std::string render_svg(const std::vector<SweepResult>& results);

}  // namespace pecheck::precision
