// Domains of the ABI functions (spec/abi.md: ABI-ROPE-1, ABI-ALIBI-1, ABI-T5-1, ABI-SIN-1,
// ABI-LEARN-1, and ABI-GEN-3 for NULL arrays) and generators of calls that break exactly one rule.
#include <cmath>
#include <limits>

#include "verify/v1/cases.hpp"

namespace pecheck::verifier {

namespace {

constexpr std::int64_t kPosLimit = std::int64_t{1} << 31;

std::string bad_positions(const std::vector<std::int64_t>& p, const char* name, std::int64_t limit = kPosLimit) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] < 0 || p[i] >= limit) {
      return std::string(name) + "[" + std::to_string(i) + "] = " + std::to_string(p[i]) + " is outside [0, " +
             std::to_string(limit) + ")";
    }
  }
  return "";
}

std::string null_reason(const CaseCommon& c, std::int64_t entries) {
  if (!c.null_field.empty() && entries > 0) return c.null_field + " is NULL";
  return "";
}

// Small valid cases to break: rejection cases need no large buffers.
GenParams small_params(const GenParams& p) {
  GenParams q = p;
  q.max_position = std::min<std::int64_t>(p.max_position, 4096);
  return q;
}

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
constexpr std::int64_t kBadPositions[] = {-1, -2147483648LL, 2147483648LL, std::int64_t{1} << 40,
                                          std::numeric_limits<std::int64_t>::min()};

void break_positions(Rng& r, std::vector<std::int64_t>& p) {
  if (p.empty()) p.push_back(0);
  p[static_cast<std::size_t>(r.range(0, static_cast<std::int64_t>(p.size()) - 1))] = r.pick(kBadPositions);
}

}  // namespace

std::string invalid_reason(const RopeCase& c) {
  if (c.n_tokens < 0) return "n_tokens < 0";
  if (c.n_heads < 1) return "n_heads < 1";
  if (c.head_dim < 2) return "head_dim < 2";
  if (c.rotary_dim < 2 || c.rotary_dim > c.head_dim || c.rotary_dim % 2 != 0) {
    return "rotary_dim is not even in [2, head_dim]";
  }
  if (c.layout != 0 && c.layout != 1) return "layout is neither PEC_ROPE_NEOX nor PEC_ROPE_GPTJ";
  if (!std::isfinite(c.theta_base) || !(c.theta_base > 1)) return "theta_base is not finite and > 1";
  if (!std::isfinite(c.position_scale) || !(c.position_scale > 0)) return "position_scale is not finite and > 0";
  if (auto s = bad_positions(c.positions, "positions"); !s.empty()) return s;
  const std::int64_t n = output_size(c);
  if (c.null_field == "positions") return null_reason(c, c.n_tokens);
  return null_reason(c, n);
}

std::string invalid_reason(const AlibiCase& c) {
  if (c.n_heads < 1) return "n_heads < 1";
  if (c.n_q < 0) return "n_q < 0";
  if (c.n_k < 0) return "n_k < 0";
  if (c.mode != 0 && c.mode != 1) return "mode is neither PEC_ALIBI_SYMMETRIC nor PEC_ALIBI_CAUSAL";
  if (auto s = bad_positions(c.q_pos, "q_pos"); !s.empty()) return s;
  if (auto s = bad_positions(c.k_pos, "k_pos"); !s.empty()) return s;
  if (c.null_field == "q_pos") return null_reason(c, c.n_q);
  if (c.null_field == "k_pos") return null_reason(c, c.n_k);
  return null_reason(c, output_size(c));
}

std::string invalid_reason(const T5Case& c) {
  if (c.n_heads < 1) return "n_heads < 1";
  if (c.n_q < 0) return "n_q < 0";
  if (c.n_k < 0) return "n_k < 0";
  if (c.bidirectional != 0 && c.bidirectional != 1) return "bidirectional is neither 0 nor 1";
  if (c.num_buckets < (c.bidirectional ? 4 : 2)) return "num_buckets below the minimum of its mode";
  if (c.num_buckets > 1024) return "num_buckets > 1024";
  const std::int64_t max_exact = c.bidirectional ? c.num_buckets / 4 : c.num_buckets / 2;
  if (c.max_distance <= max_exact) return "max_distance <= max_exact";
  if (c.max_distance > kPosLimit) return "max_distance > 2^31";
  if (auto s = bad_positions(c.q_pos, "q_pos"); !s.empty()) return s;
  if (auto s = bad_positions(c.k_pos, "k_pos"); !s.empty()) return s;
  if (c.null_field == "q_pos") return null_reason(c, c.n_q);
  if (c.null_field == "k_pos") return null_reason(c, c.n_k);
  if (c.null_field == "table") return null_reason(c, 1);
  return null_reason(c, output_size(c));
}

std::string invalid_reason(const SinusoidalCase& c) {
  if (c.n_tokens < 0) return "n_tokens < 0";
  if (c.d_model < 2 || c.d_model % 2 != 0) return "d_model is not even and >= 2";
  if (!std::isfinite(c.base) || !(c.base > 1)) return "base is not finite and > 1";
  if (auto s = bad_positions(c.positions, "positions"); !s.empty()) return s;
  if (c.null_field == "positions") return null_reason(c, c.n_tokens);
  return null_reason(c, output_size(c));
}

std::string invalid_reason(const LearnedCase& c) {
  if (c.n_tokens < 0) return "n_tokens < 0";
  if (c.d_model < 1) return "d_model < 1";
  if (c.max_positions < 1) return "max_positions < 1";
  if (auto s = bad_positions(c.positions, "positions", c.max_positions); !s.empty()) return s;
  if (c.null_field == "positions") return null_reason(c, c.n_tokens);
  if (c.null_field == "table") return null_reason(c, 1);
  return null_reason(c, output_size(c));
}

RopeCase gen_rope_invalid(Rng& r, const GenParams& p, int branch) {
  RopeCase c;
  do {
    c = gen_rope(r, small_params(p));
  } while (c.n_tokens * c.n_heads * c.head_dim > 2048);
  switch (branch) {
    case 0: c.n_tokens = -r.range(1, 3); c.positions.clear(); c.x.clear(); break;
    case 1: c.n_heads = r.range(-2, 0); c.x.clear(); break;
    case 2: c.head_dim = r.range(-2, 1); c.rotary_dim = 2; c.x.clear(); break;
    case 3:
    case 10: {  // 3: odd or < 2; 10: wider than the head
      static constexpr std::int64_t kRot[] = {0, -2, 1, 3};
      const int k = branch == 10 ? 4 : static_cast<int>(r.range(0, 3));
      c.rotary_dim = k < 4 ? kRot[k] : c.head_dim + 2;
      if (k == 2 || k == 3) c.rotary_dim = std::min(c.head_dim, c.rotary_dim) | 1;
      c.has_inv_freq = false;
      c.inv_freq.clear();
      break;
    }
    case 4: c.layout = r.chance(50) ? 2 : -1; break;
    case 5: {
      const double bad[] = {1.0, 0.5, 0.0, -10000.0, kNan, kInf};
      c.theta_base = r.pick(bad);
      break;
    }
    case 6: {
      const double bad[] = {0.0, -1.0, -0.0, kNan, kInf};
      c.position_scale = r.pick(bad);
      break;
    }
    case 7:
      if (c.n_tokens == 0) {
        c.n_tokens = 1;
        c.x = std::vector<float>(static_cast<std::size_t>(c.n_heads * c.head_dim), 0.5f);
      }
      break_positions(r, c.positions);
      break;
    default: {
      if (c.n_tokens == 0) {
        c.n_tokens = 1;
        c.positions = {0};
        c.x = std::vector<float>(static_cast<std::size_t>(c.n_heads * c.head_dim), 0.5f);
      }
      static constexpr const char* kFields[] = {"positions", "x", "y"};
      c.null_field = r.pick(kFields);
      break;
    }
  }
  return c;
}

AlibiCase gen_alibi_invalid(Rng& r, const GenParams& p, int branch) {
  AlibiCase c;
  do {
    c = gen_alibi(r, small_params(p));
  } while (c.n_heads * c.n_q * c.n_k > 2048 || c.n_q == 0 || c.n_k == 0);
  switch (branch) {
    case 0: c.n_heads = r.range(-2, 0); c.scores.clear(); break;
    case 1: c.n_q = -r.range(1, 3); c.q_pos.clear(); c.scores.clear(); break;
    case 2: c.n_k = -r.range(1, 3); c.k_pos.clear(); c.scores.clear(); break;
    case 3: c.mode = r.chance(50) ? 2 : -1; break;
    case 4: break_positions(r, r.chance(50) ? c.q_pos : c.k_pos); break;
    default: {
      static constexpr const char* kFields[] = {"q_pos", "k_pos", "scores"};
      c.null_field = r.pick(kFields);
      break;
    }
  }
  return c;
}

T5Case gen_t5_invalid(Rng& r, const GenParams& p, int branch) {
  T5Case c;
  do {
    c = gen_t5(r, small_params(p));
  } while (c.n_heads * c.n_q * c.n_k > 2048 || c.n_q == 0 || c.n_k == 0);
  switch (branch) {
    case 0: c.n_heads = r.range(-2, 0); break;
    case 1: c.n_q = -r.range(1, 3); c.q_pos.clear(); break;
    case 2: c.n_k = -r.range(1, 3); c.k_pos.clear(); break;
    case 3: c.bidirectional = r.chance(50) ? 2 : -1; break;
    case 4: c.num_buckets = r.range(-1, c.bidirectional ? 3 : 1); c.table.assign(8 * static_cast<std::size_t>(c.n_heads), 0.5f); break;
    case 5:
      if (r.chance(70)) {
        c.max_distance = r.range(-1, c.bidirectional ? c.num_buckets / 4 : c.num_buckets / 2);
      } else if (r.chance(50)) {
        c.max_distance = kPosLimit + r.range(1, 1000);
      } else {
        c.num_buckets = r.chance(50) ? 1025 : 4096;
        // The table the arguments describe (num_buckets * n_heads entries): a kernel that trusts
        // num_buckets reads inside it, no harm (ABI-GEN-8 tier A is harm shown).
        c.table.resize(static_cast<std::size_t>(c.num_buckets * c.n_heads), 0.5f);
      }
      break;
    case 6: break_positions(r, r.chance(50) ? c.q_pos : c.k_pos); break;
    default: {
      static constexpr const char* kFields[] = {"q_pos", "k_pos", "table", "bias"};
      c.null_field = r.pick(kFields);
      break;
    }
  }
  return c;
}

SinusoidalCase gen_sinusoidal_invalid(Rng& r, const GenParams& p, int branch) {
  SinusoidalCase c;
  do {
    c = gen_sinusoidal(r, small_params(p));
  } while (c.n_tokens * c.d_model > 2048 || c.n_tokens == 0);
  switch (branch) {
    case 0: c.n_tokens = -r.range(1, 3); c.positions.clear(); break;
    case 1: {
      static constexpr std::int64_t kBad[] = {0, 1, 3, 7, -2};
      c.d_model = r.pick(kBad);
      break;
    }
    case 2: {
      const double bad[] = {1.0, 0.25, 0.0, -2.0, kNan, kInf};
      c.base = r.pick(bad);
      break;
    }
    case 3: break_positions(r, c.positions); break;
    default: c.null_field = r.chance(50) ? "positions" : "out"; break;
  }
  return c;
}

LearnedCase gen_learned_invalid(Rng& r, const GenParams& p, int branch) {
  LearnedCase c;
  do {
    c = gen_learned(r, p);
  } while (c.n_tokens == 0);
  switch (branch) {
    case 0:
    case 1: {  // ABI-LEARN-1: out-of-range positions, the rejection the issue singles out
      const std::int64_t bad[] = {c.max_positions, c.max_positions + 1, -1, c.max_positions * 2 + 7,
                                  std::numeric_limits<std::int64_t>::min()};
      c.positions[static_cast<std::size_t>(r.range(0, c.n_tokens - 1))] = r.pick(bad);
      break;
    }
    case 2: c.d_model = r.range(-2, 0); break;
    case 3: c.max_positions = r.range(-2, 0); break;
    case 4: c.n_tokens = -r.range(1, 3); c.positions.clear(); break;
    default: {
      static constexpr const char* kFields[] = {"positions", "table", "out"};
      c.null_field = r.pick(kFields);
      break;
    }
  }
  return c;
}

// ---- Rejection requirements (spec/abi.md ABI-GEN-8: tier A safety, tier B hygiene) --------

const std::vector<RejectRequirement>& reject_requirements(std::string_view scheme) {
  static const std::vector<RejectRequirement> rope = {
      {"rotary-range", {2, 10}, true, "rotary_dim <= head_dim: a kernel that trusts it reads and writes lanes past the head (past the buffer at the last head)"},
      {"rotary-parity", {3}, false, "rotary_dim even and >= 2"},
      {"sizes", {0, 1}, false, "n_tokens >= 0, n_heads >= 1"},
      {"layout", {4}, false, "layout is PEC_ROPE_NEOX or PEC_ROPE_GPTJ"},
      {"scalars", {5, 6}, false, "theta_base finite and > 1, position_scale finite and > 0"},
      {"positions", {7}, false, "positions in [0, 2^31)"},
      {"null", {8}, false, "no NULL array where elements are due (ABI-GEN-3)"},
  };
  static const std::vector<RejectRequirement> alibi = {
      {"sizes", {0, 1, 2}, false, "n_heads >= 1, n_q >= 0, n_k >= 0"},
      {"mode", {3}, false, "mode is PEC_ALIBI_SYMMETRIC or PEC_ALIBI_CAUSAL"},
      {"positions", {4}, false, "q_pos and k_pos in [0, 2^31)"},
      {"null", {5}, false, "no NULL array where elements are due (ABI-GEN-3)"},
  };
  static const std::vector<RejectRequirement> t5 = {
      {"buckets", {4, 5}, true, "num_buckets and max_distance in their ranges: outside them the bucket formula divides by a zero or negative log and indexes the table out of range"},
      {"sizes", {0, 1, 2}, false, "n_heads >= 1, n_q >= 0, n_k >= 0"},
      {"mode", {3}, false, "bidirectional is 0 or 1"},
      {"positions", {6}, false, "q_pos and k_pos in [0, 2^31)"},
      {"null", {7}, false, "no NULL array where elements are due (ABI-GEN-3)"},
  };
  static const std::vector<RejectRequirement> sinusoidal = {
      {"sizes", {0}, false, "n_tokens >= 0"},
      {"d-model", {1}, false, "d_model even and >= 2"},
      {"base", {2}, false, "base finite and > 1"},
      {"positions", {3}, false, "positions in [0, 2^31)"},
      {"null", {4}, false, "no NULL array where elements are due (ABI-GEN-3)"},
  };
  static const std::vector<RejectRequirement> learned = {
      {"position-range", {0, 1, 3}, true, "every position inside the table [0, max_positions): a kernel that trusts it reads outside the table"},
      {"sizes", {2, 4}, false, "n_tokens >= 0, d_model >= 1"},
      {"null", {5}, false, "no NULL array where elements are due (ABI-GEN-3)"},
  };
  static const std::vector<RejectRequirement> none;
  if (scheme == "rope") return rope;
  if (scheme == "alibi") return alibi;
  if (scheme == "t5") return t5;
  if (scheme == "sinusoidal") return sinusoidal;
  if (scheme == "learned") return learned;
  return none;
}

// The requirement a case breaks first, in the order invalid_reason() checks the rules.
std::string invalid_requirement(const RopeCase& c) {
  if (invalid_reason(c).empty()) return "";
  if (c.n_tokens < 0 || c.n_heads < 1) return "sizes";
  if (c.head_dim < 2 || c.rotary_dim > c.head_dim) return "rotary-range";
  if (c.rotary_dim < 2 || c.rotary_dim % 2 != 0) return "rotary-parity";
  if (c.layout != 0 && c.layout != 1) return "layout";
  if (!std::isfinite(c.theta_base) || !(c.theta_base > 1) || !std::isfinite(c.position_scale) ||
      !(c.position_scale > 0)) {
    return "scalars";
  }
  if (!bad_positions(c.positions, "positions").empty()) return "positions";
  return "null";
}

std::string invalid_requirement(const AlibiCase& c) {
  if (invalid_reason(c).empty()) return "";
  if (c.n_heads < 1 || c.n_q < 0 || c.n_k < 0) return "sizes";
  if (c.mode != 0 && c.mode != 1) return "mode";
  if (!bad_positions(c.q_pos, "q_pos").empty() || !bad_positions(c.k_pos, "k_pos").empty()) return "positions";
  return "null";
}

std::string invalid_requirement(const T5Case& c) {
  if (invalid_reason(c).empty()) return "";
  if (c.n_heads < 1 || c.n_q < 0 || c.n_k < 0) return "sizes";
  if (c.bidirectional != 0 && c.bidirectional != 1) return "mode";
  const std::int64_t max_exact = c.bidirectional ? c.num_buckets / 4 : c.num_buckets / 2;
  if (c.num_buckets < (c.bidirectional ? 4 : 2) || c.num_buckets > 1024 || c.max_distance <= max_exact ||
      c.max_distance > kPosLimit) {
    return "buckets";
  }
  if (!bad_positions(c.q_pos, "q_pos").empty() || !bad_positions(c.k_pos, "k_pos").empty()) return "positions";
  return "null";
}

std::string invalid_requirement(const SinusoidalCase& c) {
  if (invalid_reason(c).empty()) return "";
  if (c.n_tokens < 0) return "sizes";
  if (c.d_model < 2 || c.d_model % 2 != 0) return "d-model";
  if (!std::isfinite(c.base) || !(c.base > 1)) return "base";
  if (!bad_positions(c.positions, "positions").empty()) return "positions";
  return "null";
}

std::string invalid_requirement(const LearnedCase& c) {
  if (invalid_reason(c).empty()) return "";
  if (c.n_tokens < 0 || c.d_model < 1) return "sizes";
  if (c.max_positions < 1 || !bad_positions(c.positions, "positions", c.max_positions).empty()) return "position-range";
  return "null";
}

}  // namespace pecheck::verifier
