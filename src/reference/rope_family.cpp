// Validation and the integer parts of the RoPE family (spec/rope.md, "The RoPE family"). Each
// check throws pecheck::InvalidArgument naming the clause whose domain was violated.
#include "reference/rope_family.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace pecheck::reference {

namespace {
bool finite_gt(double v, double lo) { return std::isfinite(v) && v > lo; }

void validate_geometry(std::int64_t head_dim, std::int64_t rotary_dim, double base,
                       double position_scale) {
  RopeConfig g;
  g.head_dim = head_dim;
  g.rotary_dim = rotary_dim;
  g.base = base;
  g.position_scale = position_scale;
  validate(g);  // ROPE-ARG-1..4
}
}  // namespace

const char* to_string(MropeLayout l) {
  return l == MropeLayout::Sectioned ? "sectioned" : "interleaved";
}

void validate(const AttnFactorConfig& c) {
  static constexpr const char* kTypes[] = {"default", "linear", "dynamic", "ntk",
                                           "llama3",  "yarn",   "longrope"};
  if (std::find(std::begin(kTypes), std::end(kTypes), c.rope_type) == std::end(kTypes)) {
    throw InvalidArgument("ROPE-ATTN-1", "unknown rope_type '" + c.rope_type + "'");
  }
  if (!std::isfinite(c.attention_factor) || c.attention_factor < 0) {
    throw InvalidArgument("ROPE-ATTN-1",
                          "attention_factor must be finite and >= 0 (0 = not given)");
  }
  if (c.rope_type == "yarn" && (!std::isfinite(c.factor) || c.factor < 1.0 ||
                                !std::isfinite(c.mscale) || !std::isfinite(c.mscale_all_dim))) {
    throw InvalidArgument("ROPE-ATTN-1", "yarn needs a finite factor >= 1 and finite mscales");
  }
  if (c.rope_type == "longrope" && c.attention_factor == 0 &&
      (c.original_max_position_embeddings < 2 || c.max_position_embeddings < 1)) {
    throw InvalidArgument("ROPE-ATTN-1",
                          "longrope needs original_max_position_embeddings >= 2 and "
                          "max_position_embeddings >= 1");
  }
}

void validate(const LongRopeConfig& c) {
  validate_geometry(c.head_dim, c.rotary_dim, c.base, c.position_scale);
  const auto half = static_cast<std::size_t>(c.rotary_dim / 2);
  if (c.short_factor.size() != half || c.long_factor.size() != half) {
    throw InvalidArgument("ROPE-LONG-ARG-1", "short_factor and long_factor need rotary_dim/2 = " +
                                                 std::to_string(half) + " entries each");
  }
  for (const auto* t : {&c.short_factor, &c.long_factor}) {
    for (double v : *t) {
      if (!finite_gt(v, 0.0))
        throw InvalidArgument("ROPE-LONG-ARG-1", "rescale factors must be finite and > 0");
    }
  }
  if (c.original_max_position_embeddings < 2 ||
      c.original_max_position_embeddings > kRopeMaxPosition || c.max_position_embeddings < 1 ||
      c.max_position_embeddings > kRopeMaxPosition) {
    throw InvalidArgument("ROPE-LONG-ARG-1",
                          "original_max_position_embeddings must be in [2, 2^31] and "
                          "max_position_embeddings in [1, 2^31]");
  }
  if (!std::isfinite(c.attention_factor) || c.attention_factor < 0) {
    throw InvalidArgument("ROPE-LONG-ARG-1", "attention_factor must be finite and >= 0");
  }
}

void validate(const Llama4Config& c) {
  validate(c.rope);
  if (c.attention_chunk_size < 1 || c.attention_chunk_size > kRopeMaxPosition) {
    throw InvalidArgument("ROPE-L4-ARG-1", "attention_chunk_size must be in [1, 2^31]");
  }
  if (c.no_rope_layer_interval < 1) {
    throw InvalidArgument("ROPE-L4-ARG-1", "no_rope_layer_interval must be >= 1");
  }
  if (!finite_gt(c.floor_scale, 0.0) || !std::isfinite(c.attn_scale) || c.attn_scale < 0 ||
      !finite_gt(c.norm_eps, 0.0)) {
    throw InvalidArgument("ROPE-L4-ARG-1",
                          "floor_scale must be finite and > 0, attn_scale finite and >= 0, "
                          "norm_eps finite and > 0");
  }
}

void validate(const MropeConfig& c) {
  validate_geometry(c.head_dim, c.rotary_dim, c.base, c.position_scale);
  const std::int64_t half = c.rotary_dim / 2;
  for (std::int64_t s : c.section) {
    if (s < 0) throw InvalidArgument("ROPE-MROPE-ARG-1", "mrope_section entries must be >= 0");
  }
  if (c.section[0] + c.section[1] + c.section[2] != half) {
    throw InvalidArgument("ROPE-MROPE-ARG-1",
                          "mrope_section must sum to rotary_dim/2 = " + std::to_string(half));
  }
  if (c.layout == MropeLayout::Interleaved &&
      ((c.section[1] > 0 && 3 * c.section[1] - 2 >= half) ||
       (c.section[2] > 0 && 3 * c.section[2] - 1 >= half))) {
    throw InvalidArgument("ROPE-MROPE-ARG-1",
                          "interleaved layout: the h indices 1, 4, .., 3*section[1]-2 and the w "
                          "indices 2, 5, .., 3*section[2]-1 must lie below rotary_dim/2");
  }
  if (c.layout != MropeLayout::Sectioned && c.layout != MropeLayout::Interleaved) {
    throw InvalidArgument("ROPE-MROPE-ARG-1", "unknown layout");
  }
}

void validate(const MlaConfig& c) {
  if (c.n_heads < 1 || c.qk_nope_head_dim < 0 || c.qk_rope_head_dim < 2 ||
      c.qk_rope_head_dim % 2 != 0) {
    throw InvalidArgument("ROPE-MLA-ARG-1",
                          "n_heads >= 1, qk_nope_head_dim >= 0, qk_rope_head_dim even and >= 2");
  }
  if (c.rope.head_dim != c.qk_rope_head_dim || c.rope.rotary_dim != c.qk_rope_head_dim) {
    throw InvalidArgument("ROPE-MLA-ARG-1",
                          "the rope slice's head_dim and rotary_dim equal qk_rope_head_dim");
  }
  validate(c.rope);
}

std::vector<MropePosition> mrope_position_ids(const std::vector<MropeSegment>& segments) {
  std::vector<MropePosition> out;
  std::int64_t next = 0;  // largest position so far + 1
  for (const auto& s : segments) {
    if (!s.image) {
      if (s.length < 0) throw InvalidArgument("ROPE-MROPE-5", "text length must be >= 0");
      for (std::int64_t k = 0; k < s.length; ++k) out.push_back(mrope_text_position(next + k));
      next += s.length;
    } else {
      if (s.grid_t < 1 || s.grid_h < 1 || s.grid_w < 1)
        throw InvalidArgument("ROPE-MROPE-5", "an image grid has T, H, W >= 1");
      std::int64_t top = next;
      for (std::int64_t t = 0; t < s.grid_t; ++t)
        for (std::int64_t h = 0; h < s.grid_h; ++h)
          for (std::int64_t w = 0; w < s.grid_w; ++w) {
            out.push_back({next + t, next + h, next + w});
            top = std::max({top, next + t, next + h, next + w});
          }
      next = top + 1;
    }
    if (next >= kRopeMaxPosition) throw InvalidArgument("ROPE-ARG-5", "positions reach 2^31");
  }
  return out;
}

}  // namespace pecheck::reference
