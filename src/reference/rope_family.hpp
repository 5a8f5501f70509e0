// The RoPE family as 2025-26 models ship it (spec/rope.md, "The RoPE family"): the attention
// factor from a config (ROPE-ATTN-1), LongRoPE (Phi-3/Phi-4), Llama 4's iRoPE with chunked
// attention and attention temperature tuning, NoPE, M-RoPE (Qwen2-VL / Qwen2.5-VL sectioned,
// Qwen3-VL interleaved) and DeepSeek's MLA decoupled RoPE. Templated on the scalar type like
// rope.hpp: math calls are unqualified so Boost.Multiprecision's overloads are found by ADL.
// Parameters are doubles (as a model config gives them), converted exactly to T.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "reference/rope.hpp"

namespace pecheck::reference {

// ---------------------------------------------------------------------------------------------
// ROPE-ATTN-1: the one factor multiplying cos and sin, from a model's rope_scaling config.

struct AttnFactorConfig {
  std::string rope_type = "default";  // default | linear | dynamic | ntk | llama3 | yarn | longrope
  double factor = 1.0;                // yarn: rope_scaling.factor (s)
  double attention_factor = 0.0;      // rope_scaling.attention_factor; 0 = not given
  double mscale = 0.0;                // yarn (DeepSeek): rope_scaling.mscale; 0 = not given
  double mscale_all_dim = 0.0;        // yarn (DeepSeek): rope_scaling.mscale_all_dim; 0 = not given
  std::int64_t original_max_position_embeddings = 0;  // longrope
  std::int64_t max_position_embeddings = 0;           // longrope
};

// Throws InvalidArgument("ROPE-ATTN-1") for an unknown rope_type or out-of-domain numbers.
void validate(const AttnFactorConfig& c);

// yarn_get_mscale(s, mu) = 1 if s <= 1 else 0.1 * mu * ln(s) + 1   (ROPE-ATTN-1)
template <class T>
T yarn_get_mscale(const T& s, const T& mu) {
  using std::log;
  return s <= T(1) ? T(1) : mu * log(s) / T(10) + T(1);  // 0.1 as the real 1/10
}

// ROPE-ATTN-1:
//   explicit attention_factor (> 0, yarn or longrope)  -> it
//   yarn with mscale and mscale_all_dim both non-zero   -> mscale(s, mscale) / mscale(s,
//   mscale_all_dim) yarn otherwise                                       -> mscale(s, 1) = 0.1 ln s
//   + 1 (1 for s <= 1) longrope, s = max_position_embeddings / original_max -> 1 if s <= 1 else
//   sqrt(1 + ln s / ln orig) every other type                                     -> 1
template <class T>
T rope_attn_factor(const AttnFactorConfig& c) {
  using std::log;
  using std::sqrt;
  validate(c);
  const bool yarn = c.rope_type == "yarn";
  const bool longrope = c.rope_type == "longrope";
  if (!yarn && !longrope) return T(1);
  if (c.attention_factor > 0) return T(c.attention_factor);
  if (yarn) {
    const T s = T(c.factor);
    if (c.mscale != 0 && c.mscale_all_dim != 0) {
      return yarn_get_mscale(s, T(c.mscale)) / yarn_get_mscale(s, T(c.mscale_all_dim));
    }
    return yarn_get_mscale(s, T(1));
  }
  const T orig = T(c.original_max_position_embeddings);
  const T s = T(c.max_position_embeddings) / orig;
  if (s <= T(1)) return T(1);
  return sqrt(T(1) + log(s) / log(orig));
}

// The rotation of ROPE-ROT-1 with a given frequency table and attention factor a (cos and sin
// both multiplied by a). Lanes rotary_dim.. are copied. y may alias x. `geometry` supplies
// head_dim, rotary_dim, layout and position_scale; its scaling is not read.
template <class T>
void rope_rotate_with(const RopeConfig& geometry, std::span<const T> inv_freq, const T& a,
                      std::int64_t position, std::span<const T> x, std::span<T> y) {
  using std::cos;
  using std::sin;
  validate_rope_position(position);
  if (static_cast<std::int64_t>(x.size()) != geometry.head_dim ||
      static_cast<std::int64_t>(y.size()) != geometry.head_dim) {
    throw InvalidArgument("ROPE-ARG-1", "head vector length differs from head_dim");
  }
  if (static_cast<std::int64_t>(inv_freq.size()) != geometry.rotary_dim / 2) {
    throw InvalidArgument("ROPE-ARG-2", "inverse-frequency table length differs from rotary_dim/2");
  }
  std::vector<T> out(x.begin(), x.end());
  for (std::int64_t i = 0; i < geometry.rotary_dim / 2; ++i) {
    const T ang = rope_angle<T>(geometry, inv_freq[static_cast<std::size_t>(i)], position);
    const T cs = cos(ang) * a;
    const T sn = sin(ang) * a;
    const auto [pa, pb] = rope_pair(geometry, i);
    const T xa = x[static_cast<std::size_t>(pa)];
    const T xb = x[static_cast<std::size_t>(pb)];
    out[static_cast<std::size_t>(pa)] = xa * cs - xb * sn;
    out[static_cast<std::size_t>(pb)] = xb * cs + xa * sn;
  }
  for (std::size_t k = 0; k < out.size(); ++k) y[k] = out[k];
}

// ---------------------------------------------------------------------------------------------
// LongRoPE (ROPE-LONG-*): Phi-3 / Phi-3.5 / Phi-4-mini `rope_scaling.type = longrope`.

struct LongRopeConfig {
  std::int64_t head_dim = 96;
  std::int64_t rotary_dim = 96;  // Phi-4-mini: head_dim 128, partial_rotary_factor 0.75 -> 96
  RopeLayout layout = RopeLayout::Neox;
  double base = 10000.0;
  double position_scale = 1.0;
  std::vector<double> short_factor;  // rotary_dim/2 rescale factors lambda_i (> 0)
  std::vector<double> long_factor;   // rotary_dim/2 rescale factors lambda_i (> 0)
  std::int64_t original_max_position_embeddings = 4096;
  std::int64_t max_position_embeddings = 131072;
  double attention_factor = 0.0;  // 0 = not given: derived (ROPE-ATTN-1)
};

// ROPE-LONG-ARG-1: throws InvalidArgument naming the clause.
void validate(const LongRopeConfig& c);

// The plain geometry (head_dim, rotary_dim, layout, base, position_scale) as a RopeConfig.
inline RopeConfig longrope_geometry(const LongRopeConfig& c) {
  RopeConfig g;
  g.head_dim = c.head_dim;
  g.rotary_dim = c.rotary_dim;
  g.layout = c.layout;
  g.base = c.base;
  g.position_scale = c.position_scale;
  return g;
}

// ROPE-LONG-2: the long table is used once the sequence is longer than original_max.
inline bool longrope_uses_long(const LongRopeConfig& c, std::int64_t seq_len) {
  return seq_len > c.original_max_position_embeddings;
}

// ROPE-LONG-1: f_i = base^(-2i/d) / lambda_i with lambda the table of the sequence length.
template <class T>
std::vector<T> longrope_inv_freq(const LongRopeConfig& c, std::int64_t seq_len) {
  validate(c);
  const auto& lambda = longrope_uses_long(c, seq_len) ? c.long_factor : c.short_factor;
  const T d = T(c.rotary_dim);
  const T base = T(c.base);
  std::vector<T> f(static_cast<std::size_t>(c.rotary_dim / 2));
  for (std::size_t i = 0; i < f.size(); ++i) {
    using std::pow;
    f[i] = pow(base, -T(2 * static_cast<std::int64_t>(i)) / d) / T(lambda[i]);
  }
  return f;
}

inline AttnFactorConfig longrope_attn_config(const LongRopeConfig& c) {
  AttnFactorConfig a;
  a.rope_type = "longrope";
  a.attention_factor = c.attention_factor;
  a.original_max_position_embeddings = c.original_max_position_embeddings;
  a.max_position_embeddings = c.max_position_embeddings;
  return a;
}

// ROPE-LONG-3 (ROPE-ATTN-1): the same factor for both tables.
template <class T>
T longrope_attention_factor(const LongRopeConfig& c) {
  return rope_attn_factor<T>(longrope_attn_config(c));
}

// ---------------------------------------------------------------------------------------------
// Llama 4 (ROPE-L4-*): iRoPE and attention temperature tuning.

struct Llama4Config {
  RopeConfig rope = default_rope();  // the RoPE layers' rotation (llama3-type scaling)
  std::int64_t attention_chunk_size = 8192;
  std::int64_t no_rope_layer_interval = 4;
  std::vector<int> no_rope_layers;  // per layer: 1 = RoPE layer, 0 = NoPE; empty = derived
  bool attn_temperature_tuning = true;
  double floor_scale = 8192.0;
  double attn_scale = 0.1;
  bool use_qk_norm = true;  // L2 norm (no weight) of q and k after RoPE
  double norm_eps = 1e-5;   // rms_norm_eps

  static RopeConfig default_rope() {
    RopeConfig r;
    r.head_dim = r.rotary_dim = 128;
    r.layout = RopeLayout::Gptj;  // complex (interleaved) pairs
    r.base = 500000.0;
    r.scaling.kind = RopeScaling::Llama3;
    r.scaling.factor = 8.0;
    r.scaling.original_max_positions = 8192;
    return r;
  }
};

// ROPE-L4-ARG-1.
void validate(const Llama4Config& c);

// ROPE-L4-1: layer l uses RoPE unless no_rope_layers[l] == 0; derived: (l + 1) % interval != 0.
inline bool llama4_uses_rope(const Llama4Config& c, std::int64_t layer) {
  if (layer < 0) throw InvalidArgument("ROPE-L4-ARG-1", "layer index must be >= 0");
  if (c.no_rope_layers.empty() && c.no_rope_layer_interval < 1)
    throw InvalidArgument("ROPE-L4-ARG-1", "no_rope_layer_interval must be >= 1");
  if (!c.no_rope_layers.empty()) {
    if (layer >= static_cast<std::int64_t>(c.no_rope_layers.size()))
      throw InvalidArgument("ROPE-L4-ARG-1", "layer index beyond no_rope_layers");
    return c.no_rope_layers[static_cast<std::size_t>(layer)] != 0;
  }
  return (layer + 1) % c.no_rope_layer_interval != 0;
}

// ROPE-L4-2: RoPE layers attend causally within their chunk; NoPE layers causally to all.
inline bool llama4_key_visible(const Llama4Config& c, bool rope_layer, std::int64_t m,
                               std::int64_t n) {
  if (n > m) return false;
  if (!rope_layer) return true;
  return m / c.attention_chunk_size == n / c.attention_chunk_size;
}

// ROPE-L4-3: tau(p) = ln(floor((p + 1) / floor_scale) + 1) * attn_scale + 1 (NoPE layers, on
// the query only); 1 when tuning is off.
template <class T>
T llama4_attn_temperature(const Llama4Config& c, std::int64_t p) {
  using std::floor;
  using std::log;
  validate_rope_position(p);
  if (!c.attn_temperature_tuning) return T(1);
  return log(floor((T(p) + T(1)) / T(c.floor_scale)) + T(1)) * T(c.attn_scale) + T(1);
}

// ---------------------------------------------------------------------------------------------
// M-RoPE (ROPE-MROPE-*): Qwen2-VL / Qwen2.5-VL (sectioned), Qwen3-VL (interleaved).

enum class MropeLayout : int { Sectioned = 0, Interleaved = 1 };
const char* to_string(MropeLayout l);

struct MropePosition {
  std::int64_t t = 0, h = 0, w = 0;
  std::int64_t axis(int a) const { return a == 0 ? t : (a == 1 ? h : w); }
  bool operator==(const MropePosition&) const = default;
};

// ROPE-MROPE-4: a text token at sequence position p has t = h = w = p.
inline MropePosition mrope_text_position(std::int64_t p) { return {p, p, p}; }

struct MropeConfig {
  std::int64_t head_dim = 128;
  std::int64_t rotary_dim = 128;
  double base = 1000000.0;  // Qwen2-VL / Qwen2.5-VL; Qwen3-VL: 5000000
  double position_scale = 1.0;
  std::array<std::int64_t, 3> section{16, 24, 24};  // mrope_section; Qwen3-VL: {24, 20, 20}
  MropeLayout layout = MropeLayout::Sectioned;
};

// ROPE-MROPE-ARG-1.
void validate(const MropeConfig& c);

// The NeoX geometry shared by every axis (rotate_half pairing, ROPE-PAIR-1).
inline RopeConfig mrope_geometry(const MropeConfig& c) {
  RopeConfig g;
  g.head_dim = c.head_dim;
  g.rotary_dim = c.rotary_dim;
  g.layout = RopeLayout::Neox;
  g.base = c.base;
  g.position_scale = c.position_scale;
  return g;
}

// ROPE-MROPE-2 / -3: the axis (0 = t, 1 = h, 2 = w) whose position rotates frequency pair i.
inline int mrope_axis(const MropeConfig& c, std::int64_t i) {
  if (c.layout == MropeLayout::Sectioned) {
    if (i < c.section[0]) return 0;
    if (i < c.section[0] + c.section[1]) return 1;
    return 2;
  }
  // Interleaved: index 1, 4, 7, ... (the first section[1] of them) -> h; 2, 5, 8, ... (the first
  // section[2]) -> w; every other index -> t.
  if (i % 3 == 1 && i < 3 * c.section[1]) return 1;
  if (i % 3 == 2 && i < 3 * c.section[2]) return 2;
  return 0;
}

// ROPE-MROPE-1: the plain frequencies base^(-2i/d); only the position differs per pair.
template <class T>
std::vector<T> mrope_inv_freq(const MropeConfig& c) {
  validate(c);
  return rope_inv_freq<T>(mrope_geometry(c));
}

// ROPE-MROPE-1: pair i rotated by the angle pos[axis(i)] * position_scale * f_i.
template <class T>
void mrope_rotate(const MropeConfig& c, std::span<const T> inv_freq, const MropePosition& pos,
                  std::span<const T> x, std::span<T> y) {
  using std::cos;
  using std::sin;
  const RopeConfig g = mrope_geometry(c);
  for (int a = 0; a < 3; ++a) validate_rope_position(pos.axis(a));
  if (static_cast<std::int64_t>(x.size()) != c.head_dim ||
      static_cast<std::int64_t>(y.size()) != c.head_dim) {
    throw InvalidArgument("ROPE-ARG-1", "head vector length differs from head_dim");
  }
  if (static_cast<std::int64_t>(inv_freq.size()) != c.rotary_dim / 2) {
    throw InvalidArgument("ROPE-ARG-2", "inverse-frequency table length differs from rotary_dim/2");
  }
  std::vector<T> out(x.begin(), x.end());
  for (std::int64_t i = 0; i < c.rotary_dim / 2; ++i) {
    const T ang =
        rope_angle<T>(g, inv_freq[static_cast<std::size_t>(i)], pos.axis(mrope_axis(c, i)));
    const T cs = cos(ang), sn = sin(ang);
    const auto [pa, pb] = rope_pair(g, i);
    const T xa = x[static_cast<std::size_t>(pa)];
    const T xb = x[static_cast<std::size_t>(pb)];
    out[static_cast<std::size_t>(pa)] = xa * cs - xb * sn;
    out[static_cast<std::size_t>(pb)] = xb * cs + xa * sn;
  }
  for (std::size_t k = 0; k < out.size(); ++k) y[k] = out[k];
}

// ROPE-MROPE-5: the position ids of a multimodal sequence (Qwen2-VL get_rope_index, images):
// a text run continues from the largest position so far + 1 on all three axes; an image of
// T x H x W patches (after the spatial merge), raster order t, h, w, starting at s = the
// largest position so far + 1, gets (s + t, s + h, s + w).
struct MropeSegment {
  bool image = false;
  std::int64_t length = 0;                          // text tokens
  std::int64_t grid_t = 1, grid_h = 1, grid_w = 1;  // image patches
};
std::vector<MropePosition> mrope_position_ids(const std::vector<MropeSegment>& segments);

// ---------------------------------------------------------------------------------------------
// MLA decoupled RoPE (ROPE-MLA-*): DeepSeek V2 / V3.

struct MlaConfig {
  std::int64_t n_heads = 128;
  std::int64_t qk_nope_head_dim = 128;
  std::int64_t qk_rope_head_dim = 64;
  RopeConfig rope = default_rope();  // the rope slice: head_dim = rotary_dim = qk_rope_head_dim

  static RopeConfig default_rope() {
    RopeConfig r;
    r.head_dim = r.rotary_dim = 64;
    r.layout = RopeLayout::Gptj;  // pairs (2i, 2i+1)
    r.base = 10000.0;
    r.scaling.kind = RopeScaling::Yarn;
    r.scaling.factor = 40.0;
    r.scaling.original_max_positions = 4096;
    r.scaling.beta_fast = 32.0;
    r.scaling.beta_slow = 1.0;
    r.scaling.yarn_mscale = 1.0;
    r.scaling.yarn_mscale_all_dim = 1.0;
    return r;
  }
  std::int64_t qk_head_dim() const { return qk_nope_head_dim + qk_rope_head_dim; }
};

// ROPE-MLA-ARG-1.
void validate(const MlaConfig& c);

// ROPE-MLA-3: softmax scale = qk_head_dim^-1/2 * mscale(s, mscale_all_dim)^2 when mscale_all_dim
// is given (non-zero), else qk_head_dim^-1/2.
template <class T>
T mla_softmax_scale(const MlaConfig& c) {
  using std::sqrt;
  validate(c);
  const T base = T(1) / sqrt(T(c.qk_head_dim()));
  const auto& s = c.rope.scaling;
  if (s.kind != RopeScaling::Yarn || s.yarn_mscale_all_dim == 0) return base;
  const T m = yarn_get_mscale(T(s.factor), T(s.yarn_mscale_all_dim));
  return base * m * m;
}

// ROPE-MLA-1: a query head [nope (qk_nope_head_dim) | rope (qk_rope_head_dim)]: the rope slice
// rotated at `position` with the YaRN table and attention factor (ROPE-SCALE-YARN-*), the nope
// slice copied. The same function rotates the shared key slice (a vector of qk_rope_head_dim).
template <class T>
void mla_rotate_head(const MlaConfig& c, std::int64_t position, std::span<const T> head,
                     std::span<T> out) {
  validate(c);
  if (static_cast<std::int64_t>(head.size()) != c.qk_head_dim() || out.size() != head.size()) {
    throw InvalidArgument("ROPE-MLA-ARG-1",
                          "a query head has qk_nope_head_dim + qk_rope_head_dim lanes");
  }
  const auto f = rope_inv_freq<T>(c.rope);
  const T a = rope_attention_factor<T>(c.rope);
  const auto nope = static_cast<std::size_t>(c.qk_nope_head_dim);
  std::vector<T> pe(head.begin() + static_cast<std::ptrdiff_t>(nope), head.end());
  std::vector<T> rpe(pe.size());
  rope_rotate_with<T>(c.rope, std::span<const T>(f), a, position, std::span<const T>(pe),
                      std::span<T>(rpe));
  for (std::size_t k = 0; k < nope; ++k) out[k] = head[k];
  for (std::size_t k = 0; k < rpe.size(); ++k) out[nope + k] = rpe[k];
}

template <class T>
std::vector<T> mla_rotate_key_slice(const MlaConfig& c, std::int64_t position,
                                    std::span<const T> k_pe) {
  validate(c);
  if (static_cast<std::int64_t>(k_pe.size()) != c.qk_rope_head_dim) {
    throw InvalidArgument("ROPE-MLA-ARG-1", "the shared key slice has qk_rope_head_dim lanes");
  }
  const auto f = rope_inv_freq<T>(c.rope);
  std::vector<T> out(k_pe.size());
  rope_rotate_with<T>(c.rope, std::span<const T>(f), rope_attention_factor<T>(c.rope), position,
                      k_pe, std::span<T>(out));
  return out;
}

// ROPE-MLA-2: the key heads of one token: head h = [k_nope(h) | R(n) k_pe], the rotated slice
// computed once and shared by every head. k_nope is [n_heads][qk_nope_head_dim].
template <class T>
std::vector<std::vector<T>> mla_key_heads(const MlaConfig& c, std::int64_t position,
                                          std::span<const T> k_nope, std::span<const T> k_pe) {
  validate(c);
  const auto nope = static_cast<std::size_t>(c.qk_nope_head_dim);
  if (k_nope.size() != static_cast<std::size_t>(c.n_heads) * nope) {
    throw InvalidArgument("ROPE-MLA-ARG-1", "k_nope has n_heads x qk_nope_head_dim lanes");
  }
  const std::vector<T> rpe = mla_rotate_key_slice<T>(c, position, k_pe);
  std::vector<std::vector<T>> heads(static_cast<std::size_t>(c.n_heads));
  for (std::size_t h = 0; h < heads.size(); ++h) {
    heads[h].assign(k_nope.begin() + static_cast<std::ptrdiff_t>(h * nope),
                    k_nope.begin() + static_cast<std::ptrdiff_t>((h + 1) * nope));
    heads[h].insert(heads[h].end(), rpe.begin(), rpe.end());
  }
  return heads;
}

}  // namespace pecheck::reference
