// Building blocks of the buggy ABI version 2 examples (examples/buggy/rope_cache_*.cpp,
// rope_key_q_heads.cpp, rope_stride_ignored.cpp, rope_attn_*.cpp, mla_rope_reslice.cpp, mrope_*.cpp
// and the 16-bit storage bugs): the storage formats, the argument checks of spec/abi.md (ABI-QK-1,
// ABI-CACHE-1, ABI-CACHE-3, ABI-MROPE-1, ABI-VIEW-1) and the element addressing of strided
// views. The arithmetic is that of the vLLM-style kernel examples/field/vllm_rope.c (float, one
// rounding to the storage type); each buggy file writes its loop itself and changes exactly one
// thing in it, so the file shows the bug and nothing else.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "pecheck_kernel.h"

#include "fp16_compat.h"

namespace example::v2 {

inline constexpr std::int64_t kPosLimit = std::int64_t{1} << 31;

// ---- Storage formats (ABI-STORE-1) ------------------------------------------------------------
inline float bf16_to_float(std::uint16_t h) {
  const std::uint32_t u = std::uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
// Round to nearest, ties to even; NaN stays NaN.
inline std::uint16_t float_to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return std::uint16_t(u >> 16);
}
inline float f16_to_float(std::uint16_t h) {
  example_half v;
  std::memcpy(&v, &h, sizeof v);
  return float(v);
}
inline std::uint16_t float_to_f16(float f) {
  const example_half v = static_cast<example_half>(f);  // IEEE conversion: nearest even, overflow to inf
  std::uint16_t h;
  std::memcpy(&h, &v, sizeof h);
  return h;
}

// Element i of a tensor of format dt, widened to float (exact).
inline float load(const void* p, std::int32_t dt, std::int64_t i) {
  if (dt == PEC_DTYPE_F32) return static_cast<const float*>(p)[i];
  if (dt == PEC_DTYPE_BF16) return bf16_to_float(static_cast<const std::uint16_t*>(p)[i]);
  return f16_to_float(static_cast<const std::uint16_t*>(p)[i]);
}
inline void store(void* p, std::int32_t dt, std::int64_t i, float v) {
  if (dt == PEC_DTYPE_F32) {
    static_cast<float*>(p)[i] = v;
  } else if (dt == PEC_DTYPE_BF16) {
    static_cast<std::uint16_t*>(p)[i] = float_to_bf16(v);
  } else {
    static_cast<std::uint16_t*>(p)[i] = float_to_f16(v);
  }
}
// Pass-through lanes: the stored bits, untouched (ABI-ROPE-3).
inline void copy_bits(void* dst, const void* src, std::int32_t dt, std::int64_t di, std::int64_t si) {
  const std::size_t w = dt == PEC_DTYPE_F32 ? 4 : 2;
  std::memcpy(static_cast<char*>(dst) + w * di, static_cast<const char*>(src) + w * si, w);
}

// ---- Views (ABI-VIEW-1) -----------------------------------------------------------------------
// Index of element (t, h, l) of a strided view.
inline std::int64_t at(const pec_strides& s, std::int64_t t, std::int64_t h, std::int64_t l) {
  return t * s.token + h * s.head + l;
}

inline bool ge_product(std::int64_t a, std::int64_t n, std::int64_t b) {  // a >= n*b, no overflow
  if (n == 0 || b == 0) return a >= 0;
  if (b > INT64_MAX / n) return false;
  return a >= n * b;
}
inline bool view_ok(const pec_strides& s, std::int64_t n_tokens, std::int64_t n_heads, std::int64_t head_dim) {
  const bool need_token = n_tokens > 1, need_head = n_heads > 1;
  if (s.token < 0 || s.head < 0) return false;
  if (n_tokens == 0) return true;  // no element: no stride is needed
  if (need_token && need_head) {
    return (s.head >= head_dim && ge_product(s.token, n_heads, s.head)) ||
           (s.token >= head_dim && ge_product(s.head, n_tokens, s.token));
  }
  if (need_head) return s.head >= head_dim;
  if (need_token) return s.token >= head_dim;
  return true;
}
inline bool same(const pec_strides& a, const pec_strides& b) { return a.token == b.token && a.head == b.head; }

inline bool finite_positive(double v) { return std::isfinite(v) && v > 0.0; }

// The shape, layout and view rules shared by ABI-QK-1 and ABI-CACHE-1.
template <class Args>
bool shape_ok(const Args* a, const void* q, const void* k, const void* q_out, const void* k_out) {
  if (a->n_tokens < 0 || a->n_q_heads < 1 || a->n_kv_heads < 1 || a->n_q_heads % a->n_kv_heads != 0) return false;
  if (a->head_dim < 2 || a->rotary_dim < 2 || a->rotary_dim > a->head_dim || a->rotary_dim % 2 != 0) return false;
  if (a->layout != PEC_ROPE_NEOX && a->layout != PEC_ROPE_GPTJ) return false;
  if (!view_ok(a->q, a->n_tokens, a->n_q_heads, a->head_dim) || !view_ok(a->q_out, a->n_tokens, a->n_q_heads, a->head_dim) ||
      !view_ok(a->k, a->n_tokens, a->n_kv_heads, a->head_dim) || !view_ok(a->k_out, a->n_tokens, a->n_kv_heads, a->head_dim)) {
    return false;
  }
  if (a->n_tokens == 0) return true;
  if (q == nullptr || k == nullptr || q_out == nullptr || k_out == nullptr || a->positions == nullptr) return false;
  return !(q_out == q && !same(a->q, a->q_out)) && !(k_out == k && !same(a->k, a->k_out));
}

// ABI-CACHE-1.
inline bool cached_args_ok(const pec_rope_cached_args* a, const void* q, const void* k, const void* q_out,
                           const void* k_out) {
  if (a == nullptr || !shape_ok(a, q, k, q_out, k_out)) return false;
  if (a->cache_dtype != PEC_DTYPE_F32 && a->cache_dtype != PEC_DTYPE_BF16 && a->cache_dtype != PEC_DTYPE_F16) return false;
  if (a->cache_positions < 1) return false;
  if (a->n_tokens == 0) return true;
  if (a->cos_sin_cache == nullptr) return false;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    const std::int64_t p = a->positions[t];
    if (p < 0 || p >= a->cache_positions || p >= kPosLimit) return false;
  }
  return true;
}

// ABI-QK-1.
inline bool qk_args_ok(const pec_rope_qk_args* a, const void* q, const void* k, const void* q_out, const void* k_out) {
  if (a == nullptr || !shape_ok(a, q, k, q_out, k_out)) return false;
  if (!(std::isfinite(a->theta_base) && a->theta_base > 1.0)) return false;
  if (!finite_positive(a->position_scale) || !finite_positive(a->attn_factor)) return false;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    if (a->positions[t] < 0 || a->positions[t] >= kPosLimit) return false;
  }
  return true;
}

// ABI-MROPE-1: ABI-QK-1 with the M-RoPE layout, the sections (entries >= 0 summing to
// rotary_dim/2; interleaved: 3*s_h - 2 < rotary_dim/2, 3*s_w - 1 < rotary_dim/2 when non-zero) and
// three rows of positions.
inline bool mrope_args_ok(const pec_mrope_args* a, const void* q, const void* k, const void* q_out, const void* k_out) {
  if (a == nullptr || !shape_ok(a, q, k, q_out, k_out)) return false;
  if (!(std::isfinite(a->theta_base) && a->theta_base > 1.0)) return false;
  if (!finite_positive(a->position_scale) || !finite_positive(a->attn_factor)) return false;
  if (a->mrope_layout != PEC_MROPE_SECTIONED && a->mrope_layout != PEC_MROPE_INTERLEAVED) return false;
  const std::int64_t half = a->rotary_dim / 2, st = a->mrope_section[0], sh = a->mrope_section[1], sw = a->mrope_section[2];
  if (st < 0 || sh < 0 || sw < 0 || st > half || sh > half - st || sw != half - st - sh) return false;
  if (a->mrope_layout == PEC_MROPE_INTERLEAVED && ((sh > 0 && sh > (half + 1) / 3) || (sw > 0 && sw > half / 3))) return false;
  for (std::int64_t t = 0; t < 3 * a->n_tokens; ++t) {
    if (a->positions[t] < 0 || a->positions[t] >= kPosLimit) return false;
  }
  return true;
}

// ABI-CACHE-3.
inline bool cache_args_ok(const pec_rope_cache_args* a, const void* cache) {
  if (a == nullptr || a->cache_positions < 1 || a->cache_positions > kPosLimit) return false;
  if (a->rotary_dim < 2 || a->rotary_dim % 2 != 0) return false;
  if (!(std::isfinite(a->theta_base) && a->theta_base > 1.0)) return false;
  return finite_positive(a->position_scale) && finite_positive(a->attn_factor) && cache != nullptr;
}

// ---- Arithmetic of the vLLM-style kernel ------------------------------------------------------
struct Pair {
  std::int64_t a, b;
};
// NEOX pairs lane i with i + rotary_dim/2; GPTJ pairs 2i with 2i+1 (ABI-ROPE-2).
inline Pair pair_of(std::int32_t layout, std::int64_t i, std::int64_t rotary_dim) {
  return layout == PEC_ROPE_NEOX ? Pair{i, i + rotary_dim / 2} : Pair{2 * i, 2 * i + 1};
}
// The float inverse frequency of vLLM / Hugging Face: 1 / base^(2i/d) with a float exponent.
inline float powf_inv_freq(const float* table, double base, std::int64_t i, std::int64_t d) {
  return table ? table[i] : 1.0f / std::pow(float(base), float(2 * i) / float(d));
}

// Rotates one pair of a head in float with cos c and sin s, one rounding at the store; both
// lanes are read before either is written (y may be x). xo / yo: element offsets of the head.
inline void rotate(std::int32_t dt, const void* x, std::int64_t xo, void* y, std::int64_t yo, Pair p, float c, float s) {
  const float xa = load(x, dt, xo + p.a), xb = load(x, dt, xo + p.b);
  store(y, dt, yo + p.a, xa * c - xb * s);
  store(y, dt, yo + p.b, xb * c + xa * s);
}

}  // namespace example::v2
