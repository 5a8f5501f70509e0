// Scores s(m, n) of the RoPE family (spec/rope.md, "The RoPE family") formed as the models form
// them, on the projections of score_model.hpp (MODEL-SCORE-2). Masked entries are -infinity.
// Uses Eigen: include it only in translation units that need a score.
#pragma once

#include <cmath>
#include <limits>

#include "reference/rope_family.hpp"
#include "reference/score_model.hpp"

namespace pecheck::reference {

namespace detail {
template <class T>
void rotate_in_place(const RopeConfig& g, const std::vector<T>& f, const T& a, std::int64_t p,
                     Vec<T>& v) {
  const auto hd = static_cast<std::size_t>(g.head_dim);
  rope_rotate_with<T>(g, std::span<const T>(f), a, p, std::span<const T>(v.data(), hd),
                      std::span<T>(v.data(), hd));
}
template <class T>
void check_head_dim(const Projection<T>& p, std::int64_t head_dim, const char* clause) {
  if (p.w_q.cols() != head_dim) throw InvalidArgument(clause, "head_dim differs from projection");
}
}  // namespace detail

// ROPE-LONG-1..3: the table of the sequence (L = max(m, n) + 1, as for dynamic NTK) and the
// attention factor on cos and sin of both q and k.
template <class T>
T score_longrope(const LongRopeConfig& c, const Projection<T>& p, const Vec<T>& xq,
                 const Vec<T>& xk, std::int64_t m, std::int64_t n) {
  detail::check_shapes(p, xq, xk);
  detail::check_head_dim(p, c.head_dim, "ROPE-LONG-ARG-1");
  const std::int64_t seq_len = (m > n ? m : n) + 1;
  const auto f = longrope_inv_freq<T>(c, seq_len);
  const T a = longrope_attention_factor<T>(c);
  const RopeConfig g = longrope_geometry(c);
  Vec<T> q = p.w_q.transpose() * xq;
  Vec<T> k = p.w_k.transpose() * xk;
  detail::rotate_in_place(g, f, a, m, q);
  detail::rotate_in_place(g, f, a, n, k);
  return p.scale * q.dot(k);
}

// ROPE-NOPE-1: no positional term; with `causal`, keys after the query are masked (-inf).
template <class T>
T score_nope(const Projection<T>& p, const Vec<T>& xq, const Vec<T>& xk, std::int64_t m,
             std::int64_t n, bool causal) {
  detail::check_shapes(p, xq, xk);
  validate_rope_position(m);
  validate_rope_position(n);
  if (causal && n > m) return -std::numeric_limits<T>::infinity();
  return detail::logit(p, xq, xk);
}

// ROPE-L4-1..4: a RoPE layer rotates q and k (llama3-type table), L2-normalises them
// (use_qk_norm) and masks keys outside the query's chunk; a NoPE layer masks causally and scales
// the query by tau(m) (temperature tuning).
template <class T>
T score_llama4(const Llama4Config& c, bool rope_layer, const Projection<T>& p, const Vec<T>& xq,
               const Vec<T>& xk, std::int64_t m, std::int64_t n) {
  using std::sqrt;
  validate(c);
  detail::check_shapes(p, xq, xk);
  detail::check_head_dim(p, c.rope.head_dim, "ROPE-L4-ARG-1");
  validate_rope_position(m);
  validate_rope_position(n);
  if (!llama4_key_visible(c, rope_layer, m, n)) return -std::numeric_limits<T>::infinity();
  Vec<T> q = p.w_q.transpose() * xq;
  Vec<T> k = p.w_k.transpose() * xk;
  if (rope_layer) {
    const auto f = rope_inv_freq<T>(c.rope);
    detail::rotate_in_place(c.rope, f, T(1), m, q);
    detail::rotate_in_place(c.rope, f, T(1), n, k);
    if (c.use_qk_norm) {
      auto l2 = [&](Vec<T>& v) {
        const T ms = v.squaredNorm() / T(v.size());
        v /= sqrt(ms + T(c.norm_eps));
      };
      l2(q);
      l2(k);
    }
  } else {
    q *= llama4_attn_temperature<T>(c, m);
  }
  return p.scale * q.dot(k);
}

// ROPE-MROPE-1: q rotated at the query's (t, h, w), k at the key's.
template <class T>
T score_mrope(const MropeConfig& c, const Projection<T>& p, const Vec<T>& xq, const Vec<T>& xk,
              const MropePosition& m, const MropePosition& n) {
  detail::check_shapes(p, xq, xk);
  detail::check_head_dim(p, c.head_dim, "ROPE-MROPE-ARG-1");
  const auto f = mrope_inv_freq<T>(c);
  Vec<T> q = p.w_q.transpose() * xq;
  Vec<T> k = p.w_k.transpose() * xk;
  const auto hd = static_cast<std::size_t>(c.head_dim);
  mrope_rotate<T>(c, std::span<const T>(f), m, std::span<const T>(q.data(), hd),
                  std::span<T>(q.data(), hd));
  mrope_rotate<T>(c, std::span<const T>(f), n, std::span<const T>(k.data(), hd),
                  std::span<T>(k.data(), hd));
  return p.scale * q.dot(k);
}

// ROPE-MLA-1..3 for one head: the projection gives the query head [q_nope | q_pe] and the key
// [k_nope(h) | k_pe] (qk_head_dim columns each); the rope slices are rotated, and the score is
// scaled by the softmax scale of ROPE-MLA-3 (the projection's own scale is not used).
template <class T>
T score_mla(const MlaConfig& c, const Projection<T>& p, const Vec<T>& xq, const Vec<T>& xk,
            std::int64_t m, std::int64_t n) {
  detail::check_shapes(p, xq, xk);
  detail::check_head_dim(p, c.qk_head_dim(), "ROPE-MLA-ARG-1");
  Vec<T> q = p.w_q.transpose() * xq;
  Vec<T> k = p.w_k.transpose() * xk;
  const auto hd = static_cast<std::size_t>(c.qk_head_dim());
  mla_rotate_head<T>(c, m, std::span<const T>(q.data(), hd), std::span<T>(q.data(), hd));
  mla_rotate_head<T>(c, n, std::span<const T>(k.data(), hd), std::span<T>(k.data(), hd));
  return mla_softmax_scale<T>(c) * q.dot(k);
}

}  // namespace pecheck::reference
