// Building blocks of the C++ example kernels (examples/example_kernels.cpp and the buggy ones
// under examples/buggy/): argument validation per spec/abi.md and the correct arithmetic,
// with every real quantity formed in double and rounded to float once (see
// example_c_kernels.c for why that meets the float32 contract at every valid position).
// Each buggy example changes exactly one thing, so its file shows the bug and nothing else.
#pragma once

#include <cmath>
#include <cstdint>

#include "pecheck_kernel.h"

namespace example {

inline constexpr std::int64_t kPosLimit = std::int64_t{1} << 31;

inline bool positions_ok(const std::int64_t* pos, std::int64_t n, std::int64_t limit = kPosLimit) {
  if (n > 0 && pos == nullptr) return false;
  for (std::int64_t i = 0; i < n; ++i) {
    if (pos[i] < 0 || pos[i] >= limit) return false;
  }
  return true;
}

inline bool finite_above_one(double v) { return std::isfinite(v) && v > 1.0; }

// ABI-ROPE-1.
inline bool rope_args_ok(const pec_rope_args* a, const float* x, const float* y) {
  if (a == nullptr) return false;
  if (a->n_tokens < 0 || a->n_heads < 1 || a->head_dim < 2) return false;
  if (a->rotary_dim < 2 || a->rotary_dim > a->head_dim || a->rotary_dim % 2 != 0) return false;
  if (a->layout != PEC_ROPE_NEOX && a->layout != PEC_ROPE_GPTJ) return false;
  if (!finite_above_one(a->theta_base)) return false;
  if (!(std::isfinite(a->position_scale) && a->position_scale > 0.0)) return false;
  if (!positions_ok(a->positions, a->n_tokens)) return false;
  return a->n_tokens == 0 || (x != nullptr && y != nullptr);
}

// f_i = inv_freq ? inv_freq[i] : theta_base^(-2i/rotary_dim)   (ABI-ROPE-2)
inline double rope_freq(const pec_rope_args* a, std::int64_t i) {
  return a->inv_freq ? double{a->inv_freq[i]}
                     : std::pow(a->theta_base, -2.0 * double(i) / double(a->rotary_dim));
}

struct Pair {
  std::int64_t a, b;
};

// NEOX pairs lane i with i + rotary_dim/2; GPTJ pairs 2i with 2i+1 (ABI-ROPE-2).
inline Pair rope_pair(std::int32_t layout, std::int64_t i, std::int64_t rotary_dim) {
  return layout == PEC_ROPE_NEOX ? Pair{i, i + rotary_dim / 2} : Pair{2 * i, 2 * i + 1};
}

// Rotates one pair in double; both lanes are read before either is written (y may be x).
inline void rotate(const float* xr, float* yr, Pair p, double angle) {
  const double cs = std::cos(angle), sn = std::sin(angle);
  const double xa = xr[p.a], xb = xr[p.b];
  yr[p.a] = float(xa * cs - xb * sn);
  yr[p.b] = float(xb * cs + xa * sn);
}

// The ALiBi slope rule of the paper and BLOOM (ABI-ALIBI-2): p = largest power of two <= n.
inline double alibi_slope(std::int64_t h, std::int64_t n_heads) {
  std::int64_t p = 1;
  while (p * 2 <= n_heads) p *= 2;
  if (h < p) return std::exp2(-8.0 * double(h + 1) / double(p));
  return std::exp2(-4.0 * double(2 * (h - p) + 1) / double(p));
}

// ABI-ALIBI-1.
inline bool alibi_args_ok(const pec_alibi_args* a, const float* scores) {
  if (a == nullptr || a->n_heads < 1 || a->n_q < 0 || a->n_k < 0) return false;
  if (a->mode != PEC_ALIBI_SYMMETRIC && a->mode != PEC_ALIBI_CAUSAL) return false;
  if (!positions_ok(a->q_pos, a->n_q) || !positions_ok(a->k_pos, a->n_k)) return false;
  return a->n_q == 0 || a->n_k == 0 || scores != nullptr;
}

// T5's _relative_position_bucket of rel = key - query (spec/t5.md T5-BUCKET-1..3), with the
// logarithm in double like the reference code (which uses float32).
inline std::int64_t t5_bucket(std::int64_t rel, bool bidirectional, std::int64_t num_buckets,
                              std::int64_t max_distance) {
  std::int64_t nb = num_buckets, base = 0, d = 0;
  if (bidirectional) {
    nb = num_buckets / 2;
    base = rel > 0 ? nb : 0;
    d = rel < 0 ? -rel : rel;
  } else {
    d = rel < 0 ? -rel : 0;
  }
  const std::int64_t e = nb / 2;
  if (d < e) return base + d;
  if (d >= max_distance) return base + nb - 1;
  const auto v = e + std::int64_t(std::floor(double(nb - e) * std::log(double(d) / double(e)) /
                                             std::log(double(max_distance) / double(e))));
  return base + (v < nb - 1 ? v : nb - 1);
}

// ABI-T5-1.
inline bool t5_args_ok(const pec_t5_args* a, const float* bias) {
  if (a == nullptr || a->n_heads < 1 || a->n_q < 0 || a->n_k < 0) return false;
  if (a->bidirectional != 0 && a->bidirectional != 1) return false;
  if (a->num_buckets > 1024 || a->num_buckets < (a->bidirectional ? 4 : 2)) return false;
  const std::int64_t e = a->bidirectional ? a->num_buckets / 4 : a->num_buckets / 2;
  if (!(e < a->max_distance && a->max_distance <= kPosLimit)) return false;
  if (!positions_ok(a->q_pos, a->n_q) || !positions_ok(a->k_pos, a->n_k)) return false;
  return a->n_q == 0 || a->n_k == 0 || (a->table != nullptr && bias != nullptr);
}

// ABI-SIN-1.
inline bool sinusoidal_args_ok(const pec_sinusoidal_args* a, const float* out) {
  if (a == nullptr || a->n_tokens < 0 || a->d_model < 2 || a->d_model % 2 != 0) return false;
  if (!finite_above_one(a->base) || !positions_ok(a->positions, a->n_tokens)) return false;
  return a->n_tokens == 0 || out != nullptr;
}

inline double sinusoidal_angle(const pec_sinusoidal_args* a, std::int64_t t, std::int64_t i) {
  return double(a->positions[t]) * std::pow(a->base, -2.0 * double(i) / double(a->d_model));
}

// ABI-LEARN-1: a position outside [0, max_positions) is rejected.
inline bool learned_args_ok(const pec_learned_args* a, const float* out) {
  if (a == nullptr || a->n_tokens < 0 || a->d_model < 1 || a->max_positions < 1) return false;
  if (!positions_ok(a->positions, a->n_tokens, a->max_positions)) return false;
  return a->n_tokens == 0 || (a->table != nullptr && out != nullptr);
}

}  // namespace example
