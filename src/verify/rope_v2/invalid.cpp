// Domains of the version 2 RoPE functions (spec/abi.md ABI-QK-1, ABI-VIEW-1, ABI-CACHE-1,
// ABI-CACHE-3, ABI-GEN-3), their rejection requirements in two tiers (ABI-GEN-8) and generators of
// calls that break exactly one rule.
#include <cmath>
#include <limits>

#include "verify/rope_v2/cases.hpp"

namespace pecheck::verifier {

namespace {

constexpr std::int64_t kPosLimit = std::int64_t{1} << 31;

std::string bad_positions(const std::vector<std::int64_t>& p, std::int64_t limit) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] < 0 || p[i] >= limit) {
      return "positions[" + std::to_string(i) + "] = " + std::to_string(p[i]) + " is outside [0, " +
             std::to_string(limit) + ")";
    }
  }
  return "";
}

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::string shape_reason(const QkShape& c) {
  if (c.n_tokens < 0) return "n_tokens < 0";
  if (c.n_q_heads < 1 || c.n_kv_heads < 1) return "n_q_heads or n_kv_heads < 1";
  if (c.head_dim < 2 || c.rotary_dim > c.head_dim) return "rotary_dim > head_dim or head_dim < 2";
  if (c.rotary_dim < 2 || c.rotary_dim % 2 != 0) return "rotary_dim is not even and >= 2";
  if (c.n_q_heads % c.n_kv_heads != 0) {
    return "n_q_heads = " + std::to_string(c.n_q_heads) +
           " is not a multiple of n_kv_heads = " + std::to_string(c.n_kv_heads);
  }
  if (c.layout != 0 && c.layout != 1) return "layout is neither PEC_ROPE_NEOX nor PEC_ROPE_GPTJ";
  return "";
}

std::string shape_requirement(const QkShape& c) {
  if (c.n_tokens < 0 || c.n_q_heads < 1 || c.n_kv_heads < 1) return "sizes";
  if (c.head_dim < 2 || c.rotary_dim > c.head_dim) return "rotary-range";
  if (c.rotary_dim < 2 || c.rotary_dim % 2 != 0) return "rotary-parity";
  if (c.n_q_heads % c.n_kv_heads != 0) return "gqa";
  if (c.layout != 0 && c.layout != 1) return "layout";
  return "";
}

std::string views_reason(const QkShape& c) {
  const std::int64_t hq = c.n_q_heads, hk = c.n_kv_heads;
  if (auto s = view_violation(c, view_strides(c, c.q_view, hq), hq, "q"); !s.empty()) return s;
  if (auto s = view_violation(c, view_strides(c, c.k_view, hk), hk, "k"); !s.empty()) return s;
  if (auto s = view_violation(c, view_strides(c, c.q_out_view, hq), hq, "q_out"); !s.empty())
    return s;
  if (auto s = view_violation(c, view_strides(c, c.k_out_view, hk), hk, "k_out"); !s.empty())
    return s;
  return "";
}

std::string null_reason(const QkShape& c, bool cached) {
  if (c.null_field.empty()) return "";
  if (c.null_field == "cos_sin_cache" && cached) return "cos_sin_cache is NULL";
  if (c.n_tokens > 0) return c.null_field + " is NULL";
  return "";
}

std::string scalars_reason(double base, double scale, double attn) {
  if (!std::isfinite(base) || !(base > 1)) return "theta_base is not finite and > 1";
  if (!std::isfinite(scale) || !(scale > 0)) return "position_scale is not finite and > 0";
  if (!std::isfinite(attn) || !(attn > 0)) return "attn_factor is not finite and > 0";
  return "";
}

template <class C>
C small_valid(Rng& r, const GenParams& p, C (*gen)(Rng&, const GenParams&)) {
  GenParams q = p;
  q.max_position = std::min<std::int64_t>(p.max_position, 4096);
  C c;
  do {
    c = gen(r, q);
  } while (c.n_tokens * (c.n_q_heads + c.n_kv_heads) * c.head_dim > 2048 || c.n_tokens == 0);
  return c;
}

// Branches shared by both query+key generators (numbers as in the requirement tables).
template <class C>
bool break_shape(Rng& r, C& c, int branch) {
  switch (branch) {
    case 0:
      c.n_tokens = -r.range(1, 3);
      c.positions.clear();
      c.q.clear();
      c.k.clear();
      return true;
    case 1:
      if (r.chance(50))
        c.n_q_heads = r.range(-2, 0);
      else
        c.n_kv_heads = r.range(-2, 0);
      c.q.clear();
      c.k.clear();
      return true;
    case 2:  // rotary-range: wider than the head, or a head below 2 lanes
      if (r.chance(75)) {
        c.rotary_dim = c.head_dim + 2 * r.range(1, 2);
      } else {
        c.head_dim = r.range(0, 1), c.rotary_dim = 2;
        c.q.clear();
        c.k.clear();
      }
      c.inv_freq.clear();
      c.has_inv_freq = false;
      return true;
    case 3: {
      static constexpr std::int64_t kRot[] = {0, -2, 1, 3};
      c.rotary_dim = r.pick(kRot);
      if (c.rotary_dim > c.head_dim) c.rotary_dim = 1;
      c.inv_freq.clear();
      c.has_inv_freq = false;
      return true;
    }
    case 4:
      c.layout = r.chance(50) ? 2 : -1;
      return true;
    case 8: {  // gqa: n_q_heads not a multiple of n_kv_heads (5/2, 7/3, 3/2, 1/2, ...)
      static constexpr std::int64_t kBad[][2] = {{5, 2}, {7, 3}, {3, 2}, {1, 2},
                                                 {6, 4}, {9, 2}, {2, 3}};
      const auto& b = kBad[r.range(0, static_cast<std::int64_t>(std::size(kBad)) - 1)];
      c.n_q_heads = b[0];
      c.n_kv_heads = b[1];
      c.q =
          std::vector<float>(static_cast<std::size_t>(c.n_tokens * c.n_q_heads * c.head_dim), 0.5f);
      c.k = std::vector<float>(static_cast<std::size_t>(c.n_tokens * c.n_kv_heads * c.head_dim),
                               0.25f);
      c.q_view = c.k_view = c.q_out_view = c.k_out_view = ViewSpec{};
      c.q_in_place = c.k_in_place = false;
      return true;
    }
    case 9: {  // strides: negative, overlapping heads or rows (n_tokens, heads >= 2 make them
               // matter)
      c.n_tokens = std::max<std::int64_t>(c.n_tokens, 2);
      c.positions.resize(static_cast<std::size_t>(c.n_tokens), 0);
      c.q.resize(static_cast<std::size_t>(c.n_tokens * c.n_q_heads * c.head_dim), 0.5f);
      c.k.resize(static_cast<std::size_t>(c.n_tokens * c.n_kv_heads * c.head_dim), 0.25f);
      const int which = static_cast<int>(r.range(0, 3));
      ViewSpec& v = which == 0   ? c.q_view
                    : which == 1 ? c.k_view
                    : which == 2 ? c.q_out_view
                                 : c.k_out_view;
      if (which == 0) c.q_in_place = false;
      if (which == 1) c.k_in_place = false;
      if (which == 2) c.q_in_place = false;
      if (which == 3) c.k_in_place = false;
      const std::int64_t heads = (which % 2 == 0) ? c.n_q_heads : c.n_kv_heads;
      const pec_strides good = view_strides(c, ViewSpec{}, heads);
      v.explicit_strides = true;
      switch (r.range(0, 3)) {
        case 0:
          v.strides = {good.token, -c.head_dim};
          break;  // negative head stride
        case 1:
          v.strides = {-good.token, c.head_dim};
          break;  // negative token stride
        case 2:
          v.strides = {good.token, c.head_dim - r.range(1, c.head_dim)};
          break;  // heads overlap
        default:
          v.strides = {heads * c.head_dim - r.range(1, c.head_dim), c.head_dim};
          break;  // rows overlap
      }
      if (heads == 1 && (v.strides.head < 0 || v.strides.head < c.head_dim))
        v.strides = {-good.token, c.head_dim};
      return true;
    }
    default:
      return false;
  }
}

void null_field(Rng& r, QkShape& c, bool cached) {
  static constexpr const char* kFields[] = {"q", "k", "q_out", "k_out", "positions"};
  static constexpr const char* kCached[] = {"q",     "k",         "q_out",
                                            "k_out", "positions", "cos_sin_cache"};
  c.null_field = cached ? r.pick(kCached) : r.pick(kFields);
  c.q_in_place = c.k_in_place = false;
  c.q_out_view = c.q_view;
  c.k_out_view = c.k_view;
}

}  // namespace

// ---- domains
// ---------------------------------------------------------------------------------------

std::string invalid_reason(const RopeQkCase& c) {
  if (auto s = shape_reason(c); !s.empty()) return s;
  if (auto s = scalars_reason(c.theta_base, c.position_scale, c.attn_factor); !s.empty()) return s;
  if (auto s = bad_positions(c.positions, kPosLimit); !s.empty()) return s;
  if (auto s = views_reason(c); !s.empty()) return s;
  return null_reason(c, false);
}

std::string invalid_requirement(const RopeQkCase& c) {
  if (invalid_reason(c).empty()) return "";
  if (auto s = shape_requirement(c); !s.empty()) return s;
  if (!scalars_reason(c.theta_base, c.position_scale, c.attn_factor).empty()) return "scalars";
  if (!bad_positions(c.positions, kPosLimit).empty()) return "positions";
  if (!views_reason(c).empty()) return "strides";
  return "null";
}

std::string invalid_reason(const RopeCachedCase& c) {
  if (auto s = shape_reason(c); !s.empty()) return s;
  if (c.cache_dtype < 0 || c.cache_dtype > 2)
    return "cache_dtype " + std::to_string(c.cache_dtype) + " is not a pec_dtype";
  if (c.cache_positions < 1) return "cache_positions < 1";
  if (auto s = bad_positions(c.positions, c.cache_positions); !s.empty())
    return s + " (cache_positions)";
  if (auto s = views_reason(c); !s.empty()) return s;
  return null_reason(c, true);
}

std::string invalid_requirement(const RopeCachedCase& c) {
  if (invalid_reason(c).empty()) return "";
  if (auto s = shape_requirement(c); !s.empty()) return s;
  if (c.cache_dtype < 0 || c.cache_dtype > 2) return "cache-dtype";
  if (c.cache_positions < 1 || !bad_positions(c.positions, c.cache_positions).empty())
    return "cache-range";
  if (!views_reason(c).empty()) return "strides";
  return "null";
}

std::string invalid_reason(const RopeCacheCase& c) {
  if (c.cache_positions < 1 || c.cache_positions > kPosLimit)
    return "cache_positions is not in [1, 2^31]";
  if (c.rotary_dim < 2 || c.rotary_dim % 2 != 0) return "rotary_dim is not even and >= 2";
  if (auto s = scalars_reason(c.theta_base, c.position_scale, c.attn_factor); !s.empty()) return s;
  if (c.null_field == "cache") return "cache is NULL";
  return "";
}

std::string invalid_requirement(const RopeCacheCase& c) {
  if (invalid_reason(c).empty()) return "";
  if (c.cache_positions < 1 || c.cache_positions > kPosLimit) return "sizes";
  if (c.rotary_dim < 2 || c.rotary_dim % 2 != 0) return "rotary-parity";
  if (!scalars_reason(c.theta_base, c.position_scale, c.attn_factor).empty()) return "scalars";
  return "null";
}

std::int64_t output_size(const RopeCacheCase& c) {
  if (c.cache_positions <= 0 || c.rotary_dim <= 0) return 0;
  return c.cache_positions * c.rotary_dim;
}

const std::vector<RejectRequirement>& reject_requirements_qk(std::string_view scheme) {
  static const std::vector<RejectRequirement> qk = {
      {"rotary-range",
       {2},
       true,
       "rotary_dim <= head_dim and head_dim >= 2: a kernel that trusts it reads and writes lanes "
       "past the head"},
      {"gqa",
       {8},
       true,
       "n_q_heads a multiple of n_kv_heads: a kernel that pairs query head h with key head h / "
       "(n_q_heads / n_kv_heads) indexes past the last key head",
       "ABI-QK-1"},
      {"strides",
       {9},
       false,
       "strides of every view one of ABI-VIEW-1's layouts (token-major or head-major, never "
       "negative): a kernel that trusts them addresses t*s.token + h*s.head + l, inside the "
       "buffer the view spans, so overlapping or negative strides touch nothing outside it",
       "ABI-VIEW-1"},
      {"rotary-parity", {3}, false, "rotary_dim even and >= 2"},
      {"sizes", {0, 1}, false, "n_tokens >= 0, n_q_heads >= 1, n_kv_heads >= 1"},
      {"layout", {4}, false, "layout is PEC_ROPE_NEOX or PEC_ROPE_GPTJ"},
      {"scalars",
       {5},
       false,
       "theta_base finite and > 1, position_scale and attn_factor finite and > 0"},
      {"positions", {6}, false, "positions in [0, 2^31)"},
      {"null", {7}, false, "no NULL array where elements are due (ABI-GEN-3)"},
  };
  static const std::vector<RejectRequirement> cached = {
      {"rotary-range",
       {2},
       true,
       "rotary_dim <= head_dim and head_dim >= 2: a kernel that trusts it reads and writes lanes "
       "past the head"},
      {"gqa",
       {8},
       true,
       "n_q_heads a multiple of n_kv_heads: a kernel that pairs query head h with key head h / "
       "(n_q_heads / n_kv_heads) indexes past the last key head",
       "ABI-QK-1"},
      {"strides",
       {9},
       false,
       "strides of every view one of ABI-VIEW-1's layouts (token-major or head-major, never "
       "negative): a kernel that trusts them addresses t*s.token + h*s.head + l, inside the "
       "buffer the view spans, so overlapping or negative strides touch nothing outside it",
       "ABI-VIEW-1"},
      {"cache-range",
       {6},
       true,
       "every position in [0, cache_positions), cache_positions >= 1: a kernel that trusts it "
       "reads a row outside the cache",
       "ABI-CACHE-1"},
      {"rotary-parity", {3}, false, "rotary_dim even and >= 2"},
      {"sizes", {0, 1}, false, "n_tokens >= 0, n_q_heads >= 1, n_kv_heads >= 1"},
      {"layout", {4}, false, "layout is PEC_ROPE_NEOX or PEC_ROPE_GPTJ"},
      {"cache-dtype", {5}, false, "cache_dtype is a pec_dtype (PEC_DTYPE_F32, _BF16, _F16)"},
      {"null", {7}, false, "no NULL array where elements are due (ABI-GEN-3)"},
  };
  static const std::vector<RejectRequirement> cache = {
      {"sizes", {0}, false, "cache_positions in [1, 2^31]"},
      {"rotary-parity", {1}, false, "rotary_dim even and >= 2"},
      {"scalars",
       {2},
       false,
       "theta_base finite and > 1, position_scale and attn_factor finite and > 0"},
      {"null", {3}, false, "cache is not NULL (ABI-GEN-3)"},
  };
  static const std::vector<RejectRequirement> mrope = [] {
    std::vector<RejectRequirement> m = qk;  // ABI-MROPE-1: ABI-QK-1's rules, and three of its own
    for (auto& e : m)
      if (e.id == "positions") e.rule = "positions of every row (t, h, w) in [0, 2^31)";
    m.insert(m.begin() + 3,
             {"sections",
              {10},
              true,
              "mrope_section entries >= 0 summing to rotary_dim/2: a kernel that trusts them "
              "rotates pairs past the rotary part (or its frequency table's end)"});
    m.push_back({"mrope-layout", {11}, false, "mrope_layout is PEC_MROPE_SECTIONED or PEC_MROPE_INTERLEAVED"});
    m.push_back({"interleave",
                 {12},
                 false,
                 "interleaved: 3 s_h - 2 and 3 s_w - 1 below rotary_dim/2 (ROPE-MROPE-ARG-1)"});
    return m;
  }();
  static const std::vector<RejectRequirement> none;
  if (scheme == "mrope") return mrope;
  if (scheme == "rope_qk") return qk;
  if (scheme == "rope_cached") return cached;
  if (scheme == "rope_cache") return cache;
  return none;
}

// ---- invalid generators
// ------------------------------------------------------------------------------

RopeQkCase gen_rope_qk_invalid(Rng& r, const GenParams& p, int branch) {
  RopeQkCase c = small_valid<RopeQkCase>(r, p, gen_rope_qk);
  if (break_shape(r, c, branch)) return c;
  switch (branch) {
    case 5: {
      const double bad[] = {1.0, 0.5, 0.0, -10000.0, kNan, kInf};
      const double bad_pos[] = {0.0, -1.0, kNan, kInf};
      const int k = static_cast<int>(r.range(0, 2));
      if (k == 0)
        c.theta_base = r.pick(bad);
      else if (k == 1)
        c.position_scale = r.pick(bad_pos);
      else
        c.attn_factor = r.pick(bad_pos);
      break;
    }
    case 6: {
      static constexpr std::int64_t kBad[] = {-1, -2147483648LL, 2147483648LL,
                                              std::int64_t{1} << 40};
      c.positions[static_cast<std::size_t>(r.range(0, c.n_tokens - 1))] = r.pick(kBad);
      break;
    }
    default:
      null_field(r, c, false);
      break;
  }
  return c;
}

RopeCachedCase gen_rope_cached_invalid(Rng& r, const GenParams& p, int branch) {
  RopeCachedCase c = small_valid<RopeCachedCase>(r, p, gen_rope_cached);
  if (!break_shape(r, c, branch)) {
    switch (branch) {
      case 5:
        c.cache_dtype = r.chance(50) ? 3 : -1;
        break;
      case 6: {  // a position at or past the last row, or negative, or no rows at all
        const int k = static_cast<int>(r.range(0, 4));
        const std::size_t t = static_cast<std::size_t>(r.range(0, c.n_tokens - 1));
        if (k == 0)
          c.positions[t] = c.cache_positions;
        else if (k == 1)
          c.positions[t] = c.cache_positions + r.range(1, 4096);
        else if (k == 2)
          c.positions[t] = -r.range(1, 3);
        else if (k == 3)
          c.positions[t] = -2147483648LL;
        else
          c.cache_positions = 0;
        break;
      }
      default:
        null_field(r, c, true);
        break;
    }
  }
  fill_cache_rows(c);
  return c;
}

RopeCacheCase gen_rope_cache_invalid(Rng& r, const GenParams& p, int branch) {
  GenParams q = p;
  q.max_position = std::min<std::int64_t>(p.max_position, 4096);
  RopeCacheCase c;
  do {
    c = gen_rope_cache(r, q);
  } while (c.cache_positions * c.rotary_dim > 4096);
  switch (branch) {
    case 0:
      c.cache_positions = r.chance(80) ? r.range(-3, 0) : kPosLimit + 1;
      break;
    case 1: {
      static constexpr std::int64_t kRot[] = {0, -2, 1, 3, 7};
      c.rotary_dim = r.pick(kRot);
      c.has_inv_freq = false;
      c.inv_freq.clear();
      break;
    }
    case 2: {
      const double bad[] = {1.0, 0.5, 0.0, -10000.0, kNan, kInf};
      const double bad_pos[] = {0.0, -1.0, kNan, kInf};
      const int k = static_cast<int>(r.range(0, 2));
      if (k == 0)
        c.theta_base = r.pick(bad);
      else if (k == 1)
        c.position_scale = r.pick(bad_pos);
      else
        c.attn_factor = r.pick(bad_pos);
      break;
    }
    default:
      c.null_field = "cache";
      break;
  }
  return c;
}

}  // namespace pecheck::verifier
