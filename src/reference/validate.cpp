// Parameter validation and names of the reference encodings. Each check throws
// pecheck::InvalidArgument naming the spec clause whose domain was violated.
#include <cmath>
#include <string>

#include "reference/alibi.hpp"
#include "reference/learned.hpp"
#include "reference/rope.hpp"
#include "reference/sinusoidal.hpp"
#include "reference/t5.hpp"

namespace pecheck::reference {

namespace {
bool finite_gt(double v, double lo) { return std::isfinite(v) && v > lo; }
}  // namespace

const char* to_string(RopeLayout l) { return l == RopeLayout::Neox ? "neox" : "gptj"; }

const char* to_string(RopeScaling s) {
  switch (s) {
    case RopeScaling::None:
      return "none";
    case RopeScaling::Linear:
      return "linear";
    case RopeScaling::Ntk:
      return "ntk";
    case RopeScaling::DynamicNtk:
      return "dynamic-ntk";
    case RopeScaling::Yarn:
      return "yarn";
    case RopeScaling::Llama3:
      return "llama3";
  }
  return "unknown";
}

const char* to_string(AlibiMode m) {
  switch (m) {
    case AlibiMode::Symmetric:
      return "symmetric";
    case AlibiMode::Causal:
      return "causal";
    case AlibiMode::BloomKeyOnly:
      return "bloom-key-only";
  }
  return "unknown";
}

const char* to_string(SinusoidalLayout l) {
  return l == SinusoidalLayout::Interleaved ? "interleaved" : "concat";
}

void validate(const RopeConfig& c) {
  if (c.head_dim < 2 || c.head_dim > (std::int64_t{1} << 16)) {
    throw InvalidArgument("ROPE-ARG-1",
                          "head_dim must be in [2, 65536], got " + std::to_string(c.head_dim));
  }
  if (c.rotary_dim < 2 || c.rotary_dim > c.head_dim || c.rotary_dim % 2 != 0) {
    throw InvalidArgument("ROPE-ARG-2",
                          "rotary_dim must be even with 2 <= rotary_dim <= head_dim, got " +
                              std::to_string(c.rotary_dim));
  }
  if (!finite_gt(c.base, 1.0)) throw InvalidArgument("ROPE-ARG-3", "base must be finite and > 1");
  if (!finite_gt(c.position_scale, 0.0)) {
    throw InvalidArgument("ROPE-ARG-4", "position_scale must be finite and > 0");
  }
  const auto& s = c.scaling;
  switch (s.kind) {
    case RopeScaling::None:
      return;
    case RopeScaling::Linear:
    case RopeScaling::Ntk:
      if (!std::isfinite(s.factor) || s.factor < 1.0) {
        throw InvalidArgument("ROPE-ARG-6", "scaling factor must be finite and >= 1");
      }
      if (s.kind == RopeScaling::Ntk && c.rotary_dim < 4) {
        throw InvalidArgument("ROPE-ARG-6", "NTK scaling needs rotary_dim >= 4 (exponent d/(d-2))");
      }
      return;
    case RopeScaling::DynamicNtk:
    case RopeScaling::Yarn:
    case RopeScaling::Llama3:
      if (!std::isfinite(s.factor) || s.factor < 1.0) {
        throw InvalidArgument("ROPE-ARG-6", "scaling factor must be finite and >= 1");
      }
      if (s.original_max_positions < 1 || s.original_max_positions > kRopeMaxPosition) {
        throw InvalidArgument("ROPE-ARG-7", "original_max_positions must be in [1, 2^31]");
      }
      if (s.kind == RopeScaling::DynamicNtk && c.rotary_dim < 4) {
        throw InvalidArgument("ROPE-ARG-6", "NTK scaling needs rotary_dim >= 4 (exponent d/(d-2))");
      }
      if (s.kind == RopeScaling::Yarn &&
          !(finite_gt(s.beta_slow, 0.0) && std::isfinite(s.beta_fast) &&
            s.beta_fast > s.beta_slow)) {
        throw InvalidArgument("ROPE-ARG-8", "YaRN needs 0 < beta_slow < beta_fast");
      }
      if (s.kind == RopeScaling::Yarn &&
          (!std::isfinite(s.attention_factor) || s.attention_factor < 0 ||
           !std::isfinite(s.yarn_mscale) || !std::isfinite(s.yarn_mscale_all_dim))) {
        throw InvalidArgument("ROPE-ARG-8",
                              "YaRN attention factor and mscale must be finite (factor >= 0)");
      }
      if (s.kind == RopeScaling::Llama3 &&
          !(finite_gt(s.low_freq_factor, 0.0) && std::isfinite(s.high_freq_factor) &&
            s.high_freq_factor > s.low_freq_factor)) {
        throw InvalidArgument("ROPE-ARG-9",
                              "Llama 3 scaling needs 0 < low_freq_factor < high_freq_factor");
      }
      return;
  }
  throw InvalidArgument("ROPE-ARG-6", "unknown scaling kind");
}

void validate_rope_position(std::int64_t position) {
  if (position < 0 || position >= kRopeMaxPosition) {
    throw InvalidArgument("ROPE-ARG-5",
                          "position must be in [0, 2^31), got " + std::to_string(position));
  }
}

void validate_alibi_heads(std::int64_t n_heads) {
  if (n_heads < 1 || n_heads > (std::int64_t{1} << 20)) {
    throw InvalidArgument("ALIBI-ARG-1",
                          "n_heads must be in [1, 2^20], got " + std::to_string(n_heads));
  }
}

void validate_alibi_position(std::int64_t position) {
  if (position < 0 || position >= kAlibiMaxPosition) {
    throw InvalidArgument("ALIBI-ARG-2",
                          "position must be in [0, 2^31), got " + std::to_string(position));
  }
}

void validate(const SinusoidalConfig& c) {
  if (c.d_model < 2 || c.d_model % 2 != 0 || c.d_model > (std::int64_t{1} << 20)) {
    throw InvalidArgument(
        "SIN-ARG-1", "d_model must be even and in [2, 2^20], got " + std::to_string(c.d_model));
  }
  if (!finite_gt(c.base, 1.0)) throw InvalidArgument("SIN-ARG-2", "base must be finite and > 1");
  if (c.layout != SinusoidalLayout::Interleaved && c.layout != SinusoidalLayout::Concat) {
    throw InvalidArgument("SIN-ARG-1", "unknown layout");
  }
}

void validate_sinusoidal_position(std::int64_t position) {
  if (position < 0 || position >= kSinusoidalMaxPosition) {
    throw InvalidArgument("SIN-ARG-3",
                          "position must be in [0, 2^31), got " + std::to_string(position));
  }
}

void validate(const LearnedConfig& c) {
  if (c.max_positions < 1 || c.d_model < 1 || c.max_positions > (std::int64_t{1} << 31) ||
      c.d_model > (std::int64_t{1} << 20)) {
    throw InvalidArgument("LEARNED-ARG-1",
                          "max_positions must be in [1, 2^31] and d_model in [1, 2^20]");
  }
}

void validate_learned_position(const LearnedConfig& c, std::int64_t position) {
  if (position < 0 || position >= c.max_positions) {
    throw InvalidArgument("LEARNED-ARG-2", "position " + std::to_string(position) +
                                               " is outside the table [0, " +
                                               std::to_string(c.max_positions) + ")");
  }
}

}  // namespace pecheck::reference
