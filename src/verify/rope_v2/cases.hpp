// Cases of the version 2 RoPE functions (spec/abi.md ABI-QK-*, ABI-VIEW-*, ABI-CACHE-*):
// query+key rotation with GQA and strided views (pec_rope_qk_*), rotation from a cos/sin cache
// (pec_rope_cached_*) and the cache builder (pec_rope_cache_*). Plain data, as v1/cases.hpp: the
// ABI fields, the views' layout, and the inputs as floats that are values of the storage type
// (bf16/f16 values widened exactly), so the oracle reads them as the exact inputs of the call.
//
// One case type per function family, whatever the storage type: CaseCommon::storage says which
// format the values are values of (set from the check's function, GenParams::storage).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pecheck_kernel.h"
#include "report/result.hpp"
#include "verify/gen/case_common.hpp"

namespace pecheck::verifier {

// How one tensor [n_tokens][n_heads][head_dim] is laid out (ABI-VIEW-1). Strides are derived
// from the shape and the gaps, so a shrunk case (fewer heads, a smaller head) keeps a view of
// the same kind; an invalid-stride case sets `explicit_strides`.
struct ViewSpec {
  enum Kind : std::int32_t {
    TokenMajor = 0,  // s.head = head_dim + head_gap, s.token = n_heads * s.head + token_gap
    HeadMajor = 1,   // s.token = head_dim + token_gap, s.head = n_tokens * s.token + head_gap (HF
                     // [heads][seq][dim])
    FusedQkv = 2,    // token-major inside a fused [n_tokens][n_q + 2 n_kv][head_dim] buffer:
                     // s.head = head_dim, s.token = (n_q + 2 n_kv) head_dim (+ token_gap)
  };
  std::int32_t kind = TokenMajor;
  std::int64_t head_gap = 0, token_gap = 0;
  bool explicit_strides = false;  // invalid cases: `strides` as given
  pec_strides strides{0, 0};
};

// Shape fields shared by the query+key functions.
struct QkShape : CaseCommon {
  std::int64_t n_tokens = 0, n_q_heads = 1, n_kv_heads = 1, head_dim = 2, rotary_dim = 2;
  std::int32_t layout = 0;
  std::vector<std::int64_t> positions;
  ViewSpec q_view, k_view, q_out_view, k_out_view;
  bool q_in_place = false, k_in_place = false;  // q_out == q (its view), k_out == k (ABI-QK-4)
  std::vector<float> q,
      k;  // dense [n_tokens][n_q_heads][head_dim], [n_tokens][n_kv_heads][head_dim]
};

struct RopeQkCase : QkShape {
  double theta_base = 10000.0, position_scale = 1.0, attn_factor = 1.0;
  bool has_inv_freq = false;
  std::vector<float> inv_freq;
};

struct RopeCachedCase : QkShape {
  std::int32_t cache_dtype = PEC_DTYPE_F32;
  std::int64_t cache_positions = 1;
  // How the cache rows were built (attn_factor * cos / sin at the position, ABI-CACHE-2): the
  // rows a call may read are filled from these, every other row holds a NaN pattern.
  double theta_base = 10000.0, position_scale = 1.0, attn_factor = 1.0;
  bool has_inv_freq = false;
  std::vector<float> inv_freq;
  // The rows the call may read (its positions, and positions + shift): row_pos[j] holds
  // row_vals[j*rotary_dim .. +rotary_dim), values of cache_dtype (cos then sin). Recomputed by
  // fill_cache_rows() whenever positions, rotary_dim, cache_dtype or the factors change.
  std::vector<std::int64_t> row_pos;
  std::vector<float> row_vals;
};

// M-RoPE (ABI-MROPE-*): the query+key form with a (t, h, w) position per token. `positions`
// holds the t row (the position a report names), pos_h and pos_w the other two rows; the
// call's positions argument is [3][n_tokens] = t row, h row, w row. CaseCommon::shift is unused:
// the .shift check moves each axis by its own amount (axis_shift).
struct MropeCase : QkShape {
  double theta_base = 10000.0, position_scale = 1.0, attn_factor = 1.0;
  bool has_inv_freq = false;
  std::vector<float> inv_freq;
  std::int32_t mrope_layout = PEC_MROPE_SECTIONED;
  std::int64_t section[3] = {1, 0, 0};  // frequency pairs of t, h, w
  std::vector<std::int64_t> pos_h, pos_w;
  std::int64_t axis_shift[3] = {0, 0, 0};
  // True for a case whose positions argument is NULL (null_field == "positions") as for qk.
};

// The axis (0 t, 1 h, 2 w) of frequency pair i (spec/rope.md ROPE-MROPE-2/-3); -1 for a pair
// no axis claims (an invalid section).
int mrope_axis(const MropeCase& c, std::int64_t i);
// Position of token t on axis a (0 t, 1 h, 2 w).
std::int64_t mrope_position(const MropeCase& c, int a, std::int64_t t);

struct RopeCacheCase : CaseCommon {
  std::int64_t cache_positions = 1, rotary_dim = 2;
  double theta_base = 10000.0, position_scale = 1.0, attn_factor = 1.0;
  bool has_inv_freq = false;
  std::vector<float> inv_freq;
};

// Strides of a view for a tensor with `n_heads` heads of case `c` (ABI-VIEW-1).
pec_strides view_strides(const QkShape& c, const ViewSpec& v, std::int64_t n_heads);
// Elements from the first to one past the last element of the view (0 when it has none).
std::int64_t view_span(const QkShape& c, const pec_strides& s, std::int64_t n_heads);
// The ABI's stride rule for one view: "" when valid, else why not.
std::string view_violation(const QkShape& c, const pec_strides& s, std::int64_t n_heads,
                           const char* name);

// The storage type of a valid pec_dtype (F32 for an invalid one); "f32", "bf16", "f16", "invalid".
Storage dtype_storage(std::int32_t dtype);
const char* dtype_name(std::int32_t dtype);

// Rounds q and k to values of c.storage (as fit_storage of v1/cases.hpp; the cache rows keep their
// own cache_dtype).
void fit_storage(RopeQkCase& c);
void fit_storage(RopeCachedCase& c);
void fit_storage(RopeCacheCase& c);
void fit_storage(MropeCase& c);

// Fills row_pos/row_vals for the positions of c (and positions + c.shift): each value is
// attn_factor * cos / sin of the exact angle, correctly rounded to cache_dtype (oracle).
void fill_cache_rows(RopeCachedCase& c);

// The edges of its domain a valid call sits on (v1/cases.hpp, gen/edges.cpp).
std::vector<std::string> valid_edges(const RopeQkCase& c);
std::vector<std::string> valid_edges(const RopeCachedCase& c);
std::vector<std::string> valid_edges(const MropeCase& c);
std::vector<std::string> valid_edges(const RopeCacheCase& c);

// Valid generators for the storage type p.storage, biased toward where bugs live (gen.cpp).
RopeQkCase gen_rope_qk(Rng& r, const GenParams& p);
RopeCachedCase gen_rope_cached(Rng& r, const GenParams& p);
// Production-size valid cases (the .large checks; gen_rope_large of v1/cases.hpp): many query
// token-heads of a short head, or a long prefill chunk of 64 or 128 lanes (a cache of up to 16,384 rows).
RopeQkCase gen_rope_qk_large(Rng& r, const GenParams& p);
RopeCachedCase gen_rope_cached_large(Rng& r, const GenParams& p);
// Their shrinking: halves of the tokens and of the GQA groups above 16,384 elements, then the
// case's shrink_candidates.
MropeCase gen_mrope_large(Rng& r, const GenParams& p);  // the same shapes; sections and rows as gen_mrope
std::vector<RopeQkCase> shrink_candidates_large(const RopeQkCase& c);
std::vector<RopeCachedCase> shrink_candidates_large(const RopeCachedCase& c);
std::vector<MropeCase> shrink_candidates_large(const MropeCase& c);
RopeCacheCase gen_rope_cache(Rng& r, const GenParams& p);
MropeCase gen_mrope(Rng& r, const GenParams& p);
// Invalid generators: one rule broken, `branch` as in reject_requirements("rope_qk" etc.).
RopeQkCase gen_rope_qk_invalid(Rng& r, const GenParams& p, int branch);
RopeCachedCase gen_rope_cached_invalid(Rng& r, const GenParams& p, int branch);
RopeCacheCase gen_rope_cache_invalid(Rng& r, const GenParams& p, int branch);
MropeCase gen_mrope_invalid(Rng& r, const GenParams& p, int branch);

// Rejection requirements of the three schemes (tier A memory safety, tier B hygiene).
const std::vector<RejectRequirement>& reject_requirements_qk(std::string_view scheme);

std::string invalid_reason(const RopeQkCase& c);
std::string invalid_reason(const RopeCachedCase& c);
std::string invalid_reason(const RopeCacheCase& c);
std::string invalid_requirement(const RopeQkCase& c);
std::string invalid_requirement(const RopeCachedCase& c);
std::string invalid_requirement(const RopeCacheCase& c);
std::string invalid_reason(const MropeCase& c);
std::string invalid_requirement(const MropeCase& c);

std::int64_t output_size(const RopeCacheCase& c);  // cache_positions * rotary_dim (0 if negative)

std::vector<RopeQkCase> shrink_candidates(const RopeQkCase& c);
std::vector<RopeCachedCase> shrink_candidates(const RopeCachedCase& c);
std::vector<RopeCacheCase> shrink_candidates(const RopeCacheCase& c);
std::vector<MropeCase> shrink_candidates(const MropeCase& c);

void describe(const RopeQkCase& c, std::vector<report::Arg>& args, std::vector<report::Tensor>& in);
void describe(const RopeCachedCase& c, std::vector<report::Arg>& args,
              std::vector<report::Tensor>& in);
void describe(const RopeCacheCase& c, std::vector<report::Arg>& args,
              std::vector<report::Tensor>& in);
void describe(const MropeCase& c, std::vector<report::Arg>& args, std::vector<report::Tensor>& in);

}  // namespace pecheck::verifier
