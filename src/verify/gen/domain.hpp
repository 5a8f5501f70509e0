// Declared domains (spec/abi.md ABI-DOM-1..3): the subset of the ABI's domain a kernel supports
// — head_dim in {64, 128, 256}, NEOX only, causal ALiBi only, one T5 max_distance, positions
// below a bound. Declared by the library (optional export `const char* pec_domain(void)`) or on
// the command line (`--domain`). pecheck then generates valid calls only inside it, skips stored
// cases outside it, and lists what the declaration left untested.
//
// Text form (one rule per line or separated by ';'; "key value" or "key=value"; values comma-
// separated; '#' starts a comment; an optional first line "pecheck-domain 1"):
//   rope.layout neox|gptj            rope.head_dim 64,128       rope.rotary_dim full|32,64
//   rope.inv_freq yes|no             rope.max_position N
//   alibi.mode symmetric|causal      alibi.max_position N
//   t5.bidirectional 0|1             t5.num_buckets 32          t5.max_distance 128
//   t5.max_position N                sinusoidal.d_model 512     sinusoidal.max_position N
//   rope.position_scale 1            rope.attn_factor 1   (parameters the kernel does not take)
//   rope_cached.cache_dtype own|f32|bf16|f16   (the cos/sin cache dtypes the cached rotation takes;
//                                               own = the function's storage type)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "verify/v1/cases.hpp"

namespace pecheck::verifier {

struct Domain {
  bool declared = false;
  std::string text;  // normalized "key=v,v;..." (reports, reproduce lines)
  // RoPE
  std::vector<std::int32_t> rope_layouts;        // empty = any
  std::vector<std::int64_t> rope_head_dims;      // empty = any
  bool rope_full_rotary = false;                 // rotary_dim == head_dim only
  std::vector<std::int64_t> rope_rotary_dims;    // empty = any (unless full)
  std::optional<bool> rope_inv_freq;             // false: never an inv_freq table
  std::optional<std::int64_t> rope_max_position;
  std::vector<std::int32_t> mrope_layouts;       // M-RoPE: PEC_MROPE_* (empty = any)
  bool rope_unit_position_scale = false;         // position_scale is always 1 (not taken)
  bool rope_unit_attn_factor = false;            // attn_factor is always 1 (not taken)
  // pec_rope_cached_*: the cache dtypes taken (PEC_DTYPE_*, kOwnDtype = the function's storage
  // type); empty = every dtype (the ABI's contract, a float32 cache included).
  std::vector<std::int32_t> cached_dtypes;
  static constexpr std::int32_t kOwnDtype = -1;
  // ALiBi
  std::vector<std::int32_t> alibi_modes;
  std::optional<std::int64_t> alibi_max_position;
  // T5
  std::vector<std::int32_t> t5_bidirectional;
  std::vector<std::int64_t> t5_num_buckets, t5_max_distance;
  std::optional<std::int64_t> t5_max_position;
  // Sinusoidal
  std::vector<std::int64_t> sin_d_model;
  std::optional<std::int64_t> sin_max_position;
  // Attention (ABI-DOM-4; parsed by verify/attention/domain.cpp)
  std::int32_t attn_alignment = 0;               // 0 explicit, 1 bottom-right, 2 top-left
  std::vector<std::int32_t> attn_encodings;      // PEC_ATTN_* (empty = any)
  std::vector<std::int32_t> attn_alibi_forms;    // PEC_ATTN_ALIBI_* (empty = any)
  bool attn_decode = false;                      // one query per sequence
  std::optional<std::int64_t> attn_max_position;
};

// The attention rules (verify/attention/domain.cpp): true when `key` is one ("attention.*").
bool parse_attention_rule(Domain& d, const std::string& key, const std::vector<std::string>& values,
                          const std::string& rule, const std::string& origin);
void merge_attention_rules(Domain& d, const Domain& cli);
void untested_attention(const Domain& d, std::vector<std::string>& out);

// Parses the text form; throws UsageError("--domain: ...") naming the bad rule. `origin` is
// "--domain" or "pec_domain()" for the message.
Domain parse_domain(const std::string& text, const std::string& origin = "--domain");
// Both declarations together (a rule given in both must agree: the command line wins).
Domain merge_domains(const Domain& library, const Domain& cli);

// The largest position generated for a scheme under the declaration.
std::int64_t max_position_for(const Domain& d, const std::string& scheme, std::int64_t option);

// Moves a valid generated case into the declared domain (deterministic given r); inputs are
// regenerated from r when a size changes.
void constrain(const Domain& d, RopeCase& c, Rng& r);
void constrain(const Domain& d, AlibiCase& c, Rng& r);
void constrain(const Domain& d, T5Case& c, Rng& r);
void constrain(const Domain& d, SinusoidalCase& c, Rng& r);
void constrain(const Domain& d, LearnedCase& c, Rng& r);

// Whether a valid case lies inside the declared domain (stored cases outside it are skipped).
bool inside(const Domain& d, const RopeCase& c);
bool inside(const Domain& d, const AlibiCase& c);
bool inside(const Domain& d, const T5Case& c);
bool inside(const Domain& d, const SinusoidalCase& c);
bool inside(const Domain& d, const LearnedCase& c);

// What the declaration leaves untested, one line per scheme rule (for the report).
std::vector<std::string> untested(const Domain& d);

}  // namespace pecheck::verifier
