// Invalid attention calls (spec/abi.md ABI-ATTN-1, ABI-GEN-3, ABI-GEN-8): one rule broken per
// case, the rule judged afresh from the fields (a shrunk case is re-judged), and the tier of
// each rule. Tier A only where the harm is shown: a kernel that trusts the argument reads or
// writes memory the call does not give it.
#include <cmath>
#include <limits>

#include "verify/attention/cases.hpp"

namespace pecheck::verifier {

namespace {

enum Branch {
  kNullQ, kNullK, kNullV, kNullOut, kNullPos, kNullOffsets, kNullSlopes,
  kHeads, kLengths, kRotary, kBuckets,
  kPosRange, kEncoding, kCausal, kWindow, kScale, kSoftcap, kForm, kSeqs, kDims,
};

bool nondecreasing_from_zero(const std::vector<std::int64_t>& s) {
  if (s.empty() || s[0] != 0) return false;
  for (std::size_t i = 1; i < s.size(); ++i)
    if (s[i] < s[i - 1]) return false;
  return true;
}

}  // namespace

const std::vector<RejectRequirement>& reject_requirements_attention() {
  static const std::vector<RejectRequirement> r = {
      {"null", {kNullQ, kNullK, kNullV, kNullOut, kNullPos, kNullOffsets, kNullSlopes}, false,
       "no NULL array where elements are due (ABI-GEN-3)"},
      {"heads", {kHeads}, true,
       "n_q_heads is a multiple of n_kv_heads: otherwise h / (n_q_heads / n_kv_heads) names a key head past the k and v views"},
      {"lengths", {kLengths}, true,
       "q_start and k_start start at 0 and never decrease: a kernel that trusts a decreasing offset walks a "
       "sequence past the tokens the buffers hold (a negative length)"},
      {"rotary-range", {kRotary}, true,
       "RoPE: 2 <= rotary_dim <= head_dim, even: wider lanes run past the head and, at the last head, past the buffer"},
      {"buckets", {kBuckets}, true,
       "T5: num_buckets and max_distance in range (ABI-T5-1): outside them the bucket indexes the table out of range"},
      {"position-range", {kPosRange}, false, "every position in [0, 2^31)"},
      {"encoding", {kEncoding, kForm}, false, "encoding and alibi_form are values of their enums"},
      {"mask", {kCausal, kWindow}, false, "causal is 0 or 1; window_left, window_right >= -1"},
      {"scalars", {kScale, kSoftcap}, false, "scale finite; softcap finite and >= 0"},
      {"sizes", {kSeqs, kDims}, false, "n_seqs >= 0, head_dim >= 1, head_dim_v >= 1"},
  };
  return r;
}

std::string invalid_requirement(const AttnCase& c) {
  const std::string why = invalid_reason(c);
  if (why.empty()) return "";
  if (!c.null_field.empty()) return "null";
  if (why.starts_with("n_q_heads")) return "heads";
  if (why.starts_with("q_start") || why.starts_with("k_start")) return "lengths";
  if (why.starts_with("rotary_dim")) return "rotary-range";
  if (why.starts_with("t5")) return "buckets";
  if (why.starts_with("position")) return "position-range";
  if (why.starts_with("encoding") || why.starts_with("alibi_form")) return "encoding";
  if (why.starts_with("causal") || why.starts_with("window")) return "mask";
  if (why.starts_with("scale") || why.starts_with("softcap")) return "scalars";
  return "sizes";
}

std::string invalid_reason(const AttnCase& c) {
  if (!c.null_field.empty()) return c.null_field + " is NULL with elements to read or write";
  if (c.n_seqs() < 0 || (c.explicit_offsets && c.q_start_given.empty())) return "n_seqs < 0";
  if (c.head_dim < 1 || c.head_dim_v < 1) return "head_dim and head_dim_v must be >= 1";
  if (c.n_q_heads < 1 || c.n_kv_heads < 1 || c.n_q_heads % c.n_kv_heads != 0)
    return "n_q_heads (" + std::to_string(c.n_q_heads) + ") is not a multiple of n_kv_heads (" +
           std::to_string(c.n_kv_heads) + ")";
  if (c.explicit_offsets) {
    if (!nondecreasing_from_zero(c.q_start_given)) return "q_start does not start at 0 or decreases (a negative length)";
    if (!nondecreasing_from_zero(c.k_start_given)) return "k_start does not start at 0 or decreases (a negative length)";
  }
  if (c.encoding == PEC_ATTN_ROPE && (c.rotary_dim < 2 || c.rotary_dim > c.head_dim || c.rotary_dim % 2))
    return "rotary_dim " + std::to_string(c.rotary_dim) + " outside [2, head_dim] or odd";
  if (c.encoding == PEC_ATTN_T5) {
    const std::int64_t nb = c.t5_num_buckets;
    const std::int64_t exact = c.t5_bidirectional ? nb / 4 : nb / 2;
    if (nb > 1024 || nb < (c.t5_bidirectional ? 4 : 2) || c.t5_max_distance <= exact ||
        c.t5_max_distance > (std::int64_t{1} << 31))
      return "t5_num_buckets / t5_max_distance out of range (ABI-T5-1)";
  }
  for (auto* v : {&c.q_pos, &c.k_pos})
    for (auto p : *v)
      if (p < 0 || p >= (std::int64_t{1} << 31)) return "position " + std::to_string(p) + " outside [0, 2^31)";
  if (c.encoding < 0 || c.encoding > 3) return "encoding " + std::to_string(c.encoding) + " is not a pec_attn_encoding";
  if (c.encoding == PEC_ATTN_ALIBI && (c.alibi_form < 0 || c.alibi_form > 2))
    return "alibi_form " + std::to_string(c.alibi_form) + " is not a pec_attn_alibi_form";
  if (c.causal != 0 && c.causal != 1) return "causal is " + std::to_string(c.causal);
  if (c.window_left < -1 || c.window_right < -1) return "window bound below -1";
  if (!std::isfinite(c.scale)) return "scale is not finite";
  if (!std::isfinite(c.softcap) || c.softcap < 0) return "softcap is negative or not finite";
  return "";
}

AttnCase gen_attention_invalid(Rng& r, const GenParams& p, int branch) {
  AttnCase c = gen_attention(r, p);
  // Small bases keep the invalid call cheap and the harm visible.
  if (branch <= kNullSlopes) {  // a NULL array is invalid only where it has elements to read or write
    if (c.q_len.empty() || c.total_q() == 0) c.q_len = {1}, c.k_len = {1}, c.q_pos = {0}, c.k_pos = {0};
    if (c.total_k() == 0) c.k_len[0] = 1, c.k_pos.insert(c.k_pos.begin(), 0);
    refill_attention(c, r);
  }
  switch (branch) {
    case kNullQ: case kNullK: case kNullV: case kNullOut: {
      static const char* kName[] = {"q", "k", "v", "out"};
      c.null_field = kName[branch - kNullQ];
      break;
    }
    case kNullPos: c.null_field = r.chance(50) ? "q_pos" : "k_pos"; break;
    case kNullOffsets: c.null_field = r.chance(50) ? "q_start" : "k_start"; break;
    case kNullSlopes: c.encoding = PEC_ATTN_ALIBI, c.null_field = "alibi_slopes"; break;
    case kHeads: {
      static const std::int64_t kPairs[][2] = {{3, 2}, {6, 4}, {5, 2}, {2, 3}, {7, 4}};
      const auto& pr = r.pick(kPairs);
      c.n_q_heads = pr[0], c.n_kv_heads = pr[1];
      refill_attention(c, r);
      break;
    }
    case kLengths: {
      // A sequence whose offsets decrease: the buffers hold q_start[n] tokens, the first sequence
      // claims more.
      c.explicit_offsets = true;
      const std::int64_t a = r.range(3, 8), b = r.range(1, a - 1);
      c.q_len = {a, b - a};
      c.k_len = {a, b - a};
      c.q_start_given = {0, a, b};
      c.k_start_given = {0, a, b};
      if (r.chance(50)) c.q_start_given = {0, b}, c.q_len = {b};  // only the keys decrease
      c.q_len.resize(2, 0), c.q_start_given.resize(3, c.q_start_given.back());
      c.q_pos.clear(), c.k_pos.clear();
      for (std::int64_t i = 0; i < c.total_q(); ++i) c.q_pos.push_back(i);
      for (std::int64_t i = 0; i < c.total_k(); ++i) c.k_pos.push_back(i);
      refill_attention(c, r);
      break;
    }
    case kRotary: c.encoding = PEC_ATTN_ROPE, c.rotary_dim = c.head_dim + 2 * r.range(1, 4); break;
    case kBuckets:
      c.encoding = PEC_ATTN_T5;
      if (r.chance(50)) c.t5_max_distance = c.t5_bidirectional ? c.t5_num_buckets / 4 : c.t5_num_buckets / 2;
      else c.t5_num_buckets = 1;
      refill_attention(c, r);
      break;
    case kPosRange:
      if (c.q_pos.empty()) c.q_len = {1}, c.k_len = {1}, c.q_pos = {0}, c.k_pos = {0}, refill_attention(c, r);
      c.q_pos[0] = r.chance(50) ? -r.range(1, 5) : (std::int64_t{1} << 31) + r.range(0, 5);
      break;
    case kEncoding: c.encoding = r.chance(50) ? 4 : -1; break;
    case kForm: c.encoding = PEC_ATTN_ALIBI, c.alibi_form = 3; break;
    case kCausal: c.causal = r.chance(50) ? 2 : -1; break;
    case kWindow: (r.chance(50) ? c.window_left : c.window_right) = -r.range(2, 9); break;
    case kScale: c.scale = r.chance(50) ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity(); break;
    case kSoftcap: c.softcap = r.chance(50) ? -1.0 : std::numeric_limits<double>::infinity(); break;
    case kSeqs: c.explicit_offsets = true, c.q_len.clear(), c.k_len.clear(), c.q_start_given.clear(), c.k_start_given.clear(), c.q_pos.clear(), c.k_pos.clear(); break;
    case kDims: (r.chance(50) ? c.head_dim : c.head_dim_v) = 0, refill_attention(c, r); break;
  }
  return c;
}

}  // namespace pecheck::verifier
