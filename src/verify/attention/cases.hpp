// Cases of pec_attention_{f32,bf16,f16} (spec/abi.md ABI-ATTN-*): a batch of variable-length
// sequences with explicit positions, GQA, the four strided views, and the encoding inside. Plain
// data as verify/v1/cases.hpp: the inputs as floats that are values of the storage type.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pecheck_kernel.h"
#include "verify/gen/case_common.hpp"
#include "verify/gen/domain.hpp"

namespace pecheck::verifier {

struct AttnCase : CaseCommon {
  // Per-sequence lengths; the offsets q_start/k_start are their prefix sums. An invalid
  // "lengths" case sets explicit_offsets and gives the offsets as they are.
  std::vector<std::int64_t> q_len, k_len;
  bool explicit_offsets = false;
  std::vector<std::int64_t> q_start_given, k_start_given;
  std::vector<std::int64_t> q_pos, k_pos;  // total_q, total_k entries
  std::int64_t n_q_heads = 1, n_kv_heads = 1, head_dim = 4, head_dim_v = 4;
  // Token-major views with gaps (ABI-VIEW-1): s.head = dim + head_gap, s.token = H s.head + token_gap.
  std::int64_t head_gap[4] = {0, 0, 0, 0}, token_gap[4] = {0, 0, 0, 0};  // q, k, v, out
  double scale = 0.5, softcap = 0;
  std::int32_t causal = 0;
  std::int64_t window_left = -1, window_right = -1;
  std::int32_t encoding = PEC_ATTN_NONE;
  std::int64_t rotary_dim = 2;
  std::int32_t rope_layout = PEC_ROPE_NEOX;
  double theta_base = 10000.0, position_scale = 1.0, attn_factor = 1.0;
  bool has_inv_freq = false;
  std::vector<float> inv_freq;
  std::int32_t alibi_form = PEC_ATTN_ALIBI_SYMMETRIC;
  std::vector<float> slopes;  // n_q_heads
  std::int64_t t5_num_buckets = 32, t5_max_distance = 128;
  std::int32_t t5_bidirectional = 1;
  std::vector<float> t5_table;  // [num_buckets][n_q_heads]
  bool want_lse = true;
  std::vector<float> q, k, v;  // dense [total][heads][dim]

  std::int64_t n_seqs() const { return static_cast<std::int64_t>(q_len.size()); }
  std::int64_t total_q() const;
  std::int64_t total_k() const;
  std::vector<std::int64_t> q_start() const;
  std::vector<std::int64_t> k_start() const;
  std::int64_t group() const { return n_kv_heads > 0 && n_q_heads % n_kv_heads == 0 ? n_q_heads / n_kv_heads : 1; }
};

// Strides of view t (0 q, 1 k, 2 v, 3 out).
pec_strides attn_strides(const AttnCase& c, int t);
std::int64_t attn_heads(const AttnCase& c, int t);
std::int64_t attn_dim(const AttnCase& c, int t);
std::int64_t attn_tokens(const AttnCase& c, int t);

// Visible: key j for query i under the case's mask (positions as given, plus a common shift).
bool attn_visible(const AttnCase& c, std::int64_t qp, std::int64_t kp);
// The ALiBi bias of the case's form for one head (double; exact for |slope*d| < 2^53).
double attn_alibi_bias(const AttnCase& c, std::int64_t h, std::int64_t qp, std::int64_t kp);

void fit_storage(AttnCase& c);
AttnCase gen_attention(Rng& r, const GenParams& p);
AttnCase gen_attention_invalid(Rng& r, const GenParams& p, int branch);
// Regenerates q, k, v (and slopes, table) for the current shape.
void refill_attention(AttnCase& c, Rng& r);
const std::vector<RejectRequirement>& reject_requirements_attention();
std::string invalid_reason(const AttnCase& c);
std::string invalid_requirement(const AttnCase& c);
std::vector<AttnCase> shrink_candidates(const AttnCase& c);
// The edges of ABI-ATTN-1's domain a valid call sits on (for "returned non-zero for a valid call").
std::vector<std::string> valid_edges(const AttnCase& c);
void describe(const AttnCase& c, std::vector<report::Arg>& args, std::vector<report::Tensor>& in);
void constrain(const Domain& d, AttnCase& c, Rng& r);
bool inside(const Domain& d, const AttnCase& c);
struct CorpusEntry;
void case_from_entry(const CorpusEntry& e, AttnCase& c);

// Positions as the declared alignment gives them (ABI-DOM-4): 1 bottom-right, 2 top-left.
void align_positions(AttnCase& c, int alignment);

}  // namespace pecheck::verifier
