// Test cases for the five version 1 functions (RoPE, ALiBi, T5, sinusoidal, learned): the
// arguments and inputs of one call, as plain data that generators produce, shrinkers reduce and
// reports print under the ABI's field names. What every family's cases share (CaseCommon,
// GenParams, RejectRequirement) is in gen/case_common.hpp.
//
// A case may be invalid on purpose (rejection checks): its domain violation is computed from
// its fields by invalid_reason(), never stored, so that a shrunk case is judged afresh.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/result.hpp"
#include "verify/gen/case_common.hpp"

namespace pecheck::verifier {

struct RopeCase : CaseCommon {
  std::int64_t n_tokens = 0, n_heads = 1, head_dim = 2, rotary_dim = 2;
  std::int32_t layout = 0;
  double theta_base = 10000.0, position_scale = 1.0;
  std::vector<std::int64_t> positions;
  bool has_inv_freq = false;
  std::vector<float> inv_freq;
  std::vector<float> x;  // [n_tokens][n_heads][head_dim]; the queries in the shift check
  std::vector<float> k;  // keys for the shift check (same shape), else empty
};

struct AlibiCase : CaseCommon {
  std::int64_t n_heads = 1, n_q = 0, n_k = 0;
  std::int32_t mode = 0;
  std::vector<std::int64_t> q_pos, k_pos;
  std::vector<float> scores;  // initial scores [n_heads][n_q][n_k]
};

struct T5Case : CaseCommon {
  std::int64_t n_heads = 1, n_q = 0, n_k = 0, num_buckets = 32, max_distance = 128;
  std::int32_t bidirectional = 1;
  std::vector<std::int64_t> q_pos, k_pos;
  std::vector<float> table;  // [num_buckets][n_heads]
};

struct SinusoidalCase : CaseCommon {
  std::int64_t n_tokens = 0, d_model = 2;
  double base = 10000.0;
  std::vector<std::int64_t> positions;
};

struct LearnedCase : CaseCommon {
  std::int64_t n_tokens = 0, d_model = 1, max_positions = 1;
  std::vector<std::int64_t> positions;
  std::vector<float> table;  // [max_positions][d_model]
};

// Rounds every tensor of the case (x, k, scores, table) to values of c.storage (nearest even;
// a value an fp16 cannot hold finitely is scaled down by 2^-20 first), so that the case is a
// valid call of a 16-bit function (inputs are values of the format). The identity for F32.
void fit_storage(RopeCase& c);
void fit_storage(AlibiCase& c);
void fit_storage(T5Case& c);
void fit_storage(SinusoidalCase& c);
void fit_storage(LearnedCase& c);

// Valid cases, biased toward where bugs live (see each generator's comment).
RopeCase gen_rope(Rng& r, const GenParams& p);
// Production-size valid RoPE cases (the .large checks, issue 20 finding 12): kernels switch code
// paths by size (vLLM's multi-head-per-warp RoPE kernel from 10,240 token-heads on, vllm#51049),
// while the value checks' cases stay under 16,384 elements. Even case indices: many token-heads
// (10,240 to 16,384) of a short head (head_dim 2 to 8); odd ones: a long prefill chunk (128 to
// 1,024 tokens) of a production head (64 or 128 lanes). 2^15 to kLargeElements (2^16) elements.
RopeCase gen_rope_large(Rng& r, const GenParams& p);
// The same for the biases and the learned table: 2^15 to 2^16 output elements; ALiBi and T5 as
// many heads (12 to 64) of a prefill chunk or a few queries against thousands of keys; learned
// rows of 256 to 1,024 lanes from a table of up to 2,048 positions.
AlibiCase gen_alibi_large(Rng& r, const GenParams& p);
T5Case gen_t5_large(Rng& r, const GenParams& p);
LearnedCase gen_learned_large(Rng& r, const GenParams& p);
AlibiCase gen_alibi(Rng& r, const GenParams& p);
T5Case gen_t5(Rng& r, const GenParams& p);
SinusoidalCase gen_sinusoidal(Rng& r, const GenParams& p);
LearnedCase gen_learned(Rng& r, const GenParams& p);

// Invalid cases: a valid case with exactly one domain rule broken (spec/abi.md *-1 clauses,
// ABI-GEN-3 for NULL arrays). `branch` selects the rule (see reject_requirements()).
RopeCase gen_rope_invalid(Rng& r, const GenParams& p, int branch);
AlibiCase gen_alibi_invalid(Rng& r, const GenParams& p, int branch);
T5Case gen_t5_invalid(Rng& r, const GenParams& p, int branch);
SinusoidalCase gen_sinusoidal_invalid(Rng& r, const GenParams& p, int branch);
LearnedCase gen_learned_invalid(Rng& r, const GenParams& p, int branch);

const std::vector<RejectRequirement>& reject_requirements(std::string_view scheme);

// The requirement an invalid case breaks first ("" for a valid case).
std::string invalid_requirement(const RopeCase& c);
std::string invalid_requirement(const AlibiCase& c);
std::string invalid_requirement(const T5Case& c);
std::string invalid_requirement(const SinusoidalCase& c);
std::string invalid_requirement(const LearnedCase& c);

// "" when the call is valid, else the violated rule in words.
std::string invalid_reason(const RopeCase& c);
std::string invalid_reason(const AlibiCase& c);
std::string invalid_reason(const T5Case& c);
std::string invalid_reason(const SinusoidalCase& c);
std::string invalid_reason(const LearnedCase& c);

// Element counts of the output buffer (0 for negative dimensions).
std::int64_t output_size(const RopeCase& c);
std::int64_t output_size(const AlibiCase& c);
std::int64_t output_size(const T5Case& c);
std::int64_t output_size(const SinusoidalCase& c);
std::int64_t output_size(const LearnedCase& c);

// The edges of its domain a valid call sits on, each with the clause that allows it ("partial
// rotary: rotary_dim 4 < head_dim 6 (ABI-ROPE-1: ...)"), for a kernel that returned non-zero
// for it (ABI-GEN-2; gen/edges.cpp). Empty when it sits on none.
std::vector<std::string> valid_edges(const RopeCase& c);
std::vector<std::string> valid_edges(const AlibiCase& c);
std::vector<std::string> valid_edges(const T5Case& c);
std::vector<std::string> valid_edges(const SinusoidalCase& c);
std::vector<std::string> valid_edges(const LearnedCase& c);

// Smaller variants of a case, simplest first (fewer tokens and heads, smaller dimensions,
// smaller positions, simpler values). Deterministic.
std::vector<RopeCase> shrink_candidates(const RopeCase& c);
// A production-size case (the .large checks): above 16,384 elements only its halves (first or
// second half of the tokens, of the heads), so that no candidate list holds thousands of copies
// of 10^5 elements; at or below that, shrink_candidates.
std::vector<RopeCase> shrink_candidates_large(const RopeCase& c);
std::vector<AlibiCase> shrink_candidates_large(const AlibiCase& c);  // halves of the queries, of the keys
std::vector<T5Case> shrink_candidates_large(const T5Case& c);        // ... and of the heads
std::vector<LearnedCase> shrink_candidates_large(const LearnedCase& c);  // halves of the tokens
std::vector<AlibiCase> shrink_candidates(const AlibiCase& c);
std::vector<T5Case> shrink_candidates(const T5Case& c);
std::vector<SinusoidalCase> shrink_candidates(const SinusoidalCase& c);
std::vector<LearnedCase> shrink_candidates(const LearnedCase& c);

// Arguments (ABI field names, ABI order) and float inputs for reports.
void describe(const RopeCase& c, std::vector<report::Arg>& args, std::vector<report::Tensor>& in);
void describe(const AlibiCase& c, std::vector<report::Arg>& args, std::vector<report::Tensor>& in);
void describe(const T5Case& c, std::vector<report::Arg>& args, std::vector<report::Tensor>& in);
void describe(const SinusoidalCase& c, std::vector<report::Arg>& args, std::vector<report::Tensor>& in);
void describe(const LearnedCase& c, std::vector<report::Arg>& args, std::vector<report::Tensor>& in);

}  // namespace pecheck::verifier
