// Why a valid call is valid, where it is near the edge of its domain (issue 20): a kernel that
// returns non-zero for a valid call (ABI-GEN-2) has usually applied a rule stricter than the
// ABI's at one of these edges; the counterexample names each edge the call sits on and the
// clause that allows it.
#include <cmath>
#include <string>
#include <vector>

#include "verify/v1/cases.hpp"
#include "verify/rope_v2/cases.hpp"

namespace pecheck::verifier {

namespace {

constexpr std::int64_t kLimit = std::int64_t{1} << 31;

std::string n(std::int64_t v) { return std::to_string(v); }

std::int64_t top(const std::vector<std::int64_t>& p) {
  std::int64_t m = -1;
  for (auto v : p) m = v > m ? v : m;
  return m;
}

void positions_edges(std::vector<std::string>& out, const std::vector<std::int64_t>& p, const char* name,
                     const char* clause) {
  const std::int64_t m = top(p);
  if (m >= (std::int64_t{1} << 24)) {
    out.push_back(std::string(name) + " up to " + n(m) + " (" + clause + ": any position in [0, 2^31); past 2^24 a "
                  "float32 no longer holds every integer)");
  }
  for (auto v : p)
    if (v == 0) {
      out.push_back(std::string(name) + " include 0 (" + clause + ": positions start at 0)");
      break;
    }
}

void rope_edges(std::vector<std::string>& out, std::int64_t n_tokens, std::int64_t head_dim, std::int64_t rotary_dim,
                std::int32_t layout, bool inv_freq, const char* clause) {
  if (n_tokens == 0) out.push_back(std::string("n_tokens 0: an empty call (") + clause + ": n_tokens >= 0) returns 0");
  if (rotary_dim < head_dim) {
    out.push_back("partial rotary: rotary_dim " + n(rotary_dim) + " < head_dim " + n(head_dim) + " (" + clause +
                  ": rotary_dim even, 2 <= rotary_dim <= head_dim; lanes past it are copied)");
  }
  if (head_dim % 2 != 0) out.push_back("odd head_dim " + n(head_dim) + " (" + clause + ": only rotary_dim must be even)");
  if (head_dim != 64 && head_dim != 128 && head_dim != 256) {
    out.push_back("head_dim " + n(head_dim) + ", not 64/128/256 (" + clause + ": any head_dim >= 2)");
  }
  if (layout == 1) out.push_back(std::string("layout gptj (") + clause + ": PEC_ROPE_NEOX or PEC_ROPE_GPTJ)");
  if (inv_freq) out.push_back(std::string("an inv_freq table is given (") + clause + ": it replaces theta_base)");
}

void scalar_edges(std::vector<std::string>& out, double theta_base, double position_scale, double attn_factor,
                  const char* clause) {
  if (theta_base < 100 || theta_base > 1e6) {
    out.push_back("theta_base " + std::to_string(theta_base) + " (" + clause + ": any finite theta_base > 1)");
  }
  if (position_scale != 1.0) {
    out.push_back("position_scale " + std::to_string(position_scale) + " (" + clause + ": any finite value > 0)");
  }
  if (attn_factor != 1.0) {
    out.push_back("attn_factor " + std::to_string(attn_factor) + " (" + clause + ": any finite value > 0)");
  }
}

void qk_edges(std::vector<std::string>& out, const QkShape& c, const char* clause) {
  rope_edges(out, c.n_tokens, c.head_dim, c.rotary_dim, c.layout, false, clause);
  if (c.n_kv_heads != c.n_q_heads) {
    out.push_back("GQA: " + n(c.n_q_heads) + " query heads share " + n(c.n_kv_heads) + " key heads (" + clause +
                  ": n_q_heads a multiple of n_kv_heads)");
  }
  const struct {
    const ViewSpec& v;
    const char* name;
  } views[] = {{c.q_view, "q"}, {c.k_view, "k"}, {c.q_out_view, "q_out"}, {c.k_out_view, "k_out"}};
  for (const auto& e : views) {
    if (e.v.kind == ViewSpec::HeadMajor) {
      out.push_back(std::string(e.name) + " is head-major (ABI-VIEW-1: s.token >= head_dim, s.head >= n_tokens*s.token)");
    } else if (e.v.kind == ViewSpec::FusedQkv) {
      out.push_back(std::string(e.name) + " is a view into a fused QKV buffer (ABI-VIEW-1, ABI-VIEW-2)");
    } else if (e.v.head_gap > 0 || e.v.token_gap > 0) {
      out.push_back(std::string(e.name) + " has gaps between heads or rows (ABI-VIEW-1: strides at least the dense ones)");
    }
  }
  if (c.q_in_place) out.push_back("q_out == q: in place (ABI-QK-4)");
  if (c.k_in_place) out.push_back("k_out == k: in place (ABI-QK-4)");
  positions_edges(out, c.positions, "positions", clause);
}

}  // namespace

std::vector<std::string> valid_edges(const RopeCase& c) {
  std::vector<std::string> out;
  rope_edges(out, c.n_tokens, c.head_dim, c.rotary_dim, c.layout, c.has_inv_freq, "ABI-ROPE-1");
  scalar_edges(out, c.theta_base, c.position_scale, 1.0, "ABI-ROPE-1");
  positions_edges(out, c.positions, "positions", "ABI-ROPE-1");
  return out;
}

std::vector<std::string> valid_edges(const AlibiCase& c) {
  std::vector<std::string> out;
  if (c.n_q == 0 || c.n_k == 0) out.push_back("n_q or n_k 0: an empty call (ABI-ALIBI-1: n_q, n_k >= 0) returns 0");
  if ((c.n_heads & (c.n_heads - 1)) != 0) {
    out.push_back("n_heads " + n(c.n_heads) + " is no power of two (ABI-ALIBI-1: any n_heads >= 1; the slopes interleave)");
  }
  if (c.mode == 1) out.push_back("causal mode (ABI-ALIBI-1: PEC_ALIBI_SYMMETRIC or PEC_ALIBI_CAUSAL)");
  positions_edges(out, c.q_pos, "q_pos", "ABI-ALIBI-1");
  positions_edges(out, c.k_pos, "k_pos", "ABI-ALIBI-1");
  return out;
}

std::vector<std::string> valid_edges(const T5Case& c) {
  std::vector<std::string> out;
  if (c.n_q == 0 || c.n_k == 0) out.push_back("n_q or n_k 0: an empty call (ABI-T5-1: n_q, n_k >= 0) returns 0");
  const std::int64_t lo = c.bidirectional ? 4 : 2, max_exact = c.bidirectional ? c.num_buckets / 4 : c.num_buckets / 2;
  if (c.num_buckets == lo || c.num_buckets == 1024) {
    out.push_back("num_buckets " + n(c.num_buckets) + " at the edge of ABI-T5-1's range [" + n(lo) + ", 1024]");
  }
  if (c.max_distance == max_exact + 1 || c.max_distance == kLimit) {
    out.push_back("max_distance " + n(c.max_distance) + " at the edge of ABI-T5-1's range (max_exact " + n(max_exact) +
                  ", 2^31]");
  }
  positions_edges(out, c.q_pos, "q_pos", "ABI-T5-1");
  positions_edges(out, c.k_pos, "k_pos", "ABI-T5-1");
  return out;
}

std::vector<std::string> valid_edges(const SinusoidalCase& c) {
  std::vector<std::string> out;
  if (c.n_tokens == 0) out.push_back("n_tokens 0: an empty call (ABI-SIN-1: n_tokens >= 0) returns 0");
  if (c.d_model == 2) out.push_back("d_model 2, the smallest (ABI-SIN-1: d_model even and >= 2)");
  if (c.base < 100 || c.base > 1e6) out.push_back("base " + std::to_string(c.base) + " (ABI-SIN-1: any finite base > 1)");
  positions_edges(out, c.positions, "positions", "ABI-SIN-1");
  return out;
}

std::vector<std::string> valid_edges(const LearnedCase& c) {
  std::vector<std::string> out;
  if (c.n_tokens == 0) out.push_back("n_tokens 0: an empty call (ABI-LEARN-1: n_tokens >= 0) returns 0");
  if (top(c.positions) == c.max_positions - 1) {
    out.push_back("a position at the table's last row " + n(c.max_positions - 1) +
                  " (ABI-LEARN-1: positions in [0, max_positions))");
  }
  return out;
}

std::vector<std::string> valid_edges(const RopeQkCase& c) {
  std::vector<std::string> out;
  qk_edges(out, c, "ABI-QK-1");
  if (c.has_inv_freq) out.push_back("an inv_freq table is given (ABI-QK-1: it replaces theta_base)");
  scalar_edges(out, c.theta_base, c.position_scale, c.attn_factor, "ABI-QK-1");
  return out;
}

std::vector<std::string> valid_edges(const RopeCachedCase& c) {
  std::vector<std::string> out;
  qk_edges(out, c, "ABI-CACHE-1");
  if (dtype_storage(c.cache_dtype) != c.storage) {
    out.push_back(std::string("cache_dtype ") + dtype_name(c.cache_dtype) +
                  " differs from the storage type of q and k (ABI-CACHE-1: any pec_dtype)");
  }
  if (top(c.positions) == c.cache_positions - 1) {
    out.push_back("a position at the cache's last row " + n(c.cache_positions - 1) +
                  " (ABI-CACHE-1: positions in [0, cache_positions))");
  }
  return out;
}

std::vector<std::string> valid_edges(const MropeCase& c) {
  std::vector<std::string> out;
  qk_edges(out, c, "ABI-MROPE-1");
  for (int a = 0; a < 3; ++a)
    if (c.section[a] == 0) {
      out.push_back("mrope_section[" + std::to_string(a) + "] is 0 (ABI-MROPE-1: entries >= 0 summing to rotary_dim/2)");
    }
  if (c.mrope_layout == PEC_MROPE_INTERLEAVED) out.push_back("interleaved layout (ABI-MROPE-1)");
  scalar_edges(out, c.theta_base, c.position_scale, c.attn_factor, "ABI-MROPE-1");
  return out;
}

std::vector<std::string> valid_edges(const RopeCacheCase& c) {
  std::vector<std::string> out;
  if (c.cache_positions == 1) out.push_back("cache_positions 1, the smallest (ABI-CACHE-3)");
  scalar_edges(out, c.theta_base, c.position_scale, c.attn_factor, "ABI-CACHE-3");
  return out;
}

}  // namespace pecheck::verifier
