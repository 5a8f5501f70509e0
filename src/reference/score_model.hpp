// The attention score s(m, n) of a query token at position m and a key token at position n,
// formed as a real model forms it (spec/README.md, MODEL-SCORE-1..3):
//   absolute encodings (sinusoidal, learned) are added to the token embeddings before the
//     W_q / W_k projections:   s = scale * (W_q^T (x_q + p_m)) . (W_k^T (x_k + p_n))
//   RoPE rotates the projected q and k:   s = scale * (R_m W_q^T x_q) . (R_n W_k^T x_k)
//   T5 and ALiBi add a bias to the logit:   s = scale * (W_q^T x_q) . (W_k^T x_k) + bias(m, n)
// Templated on T; uses Eigen for the vectors and projection matrices, so include it only in
// translation units that need a score.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <vector>

#include "core/error.hpp"
#include "reference/alibi.hpp"
#include "reference/learned.hpp"
#include "reference/rope.hpp"
#include "reference/sinusoidal.hpp"
#include "reference/t5.hpp"

namespace pecheck::reference {

template <class T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

// One attention head's projections: q = w_q^T x, k = w_k^T x, x in R^d_model, q, k in R^head_dim.
template <class T>
struct Projection {
  Mat<T> w_q;      // [d_model][head_dim]
  Mat<T> w_k;      // [d_model][head_dim]
  T scale = T(1);  // the logit scale (1/sqrt(head_dim) in most models)
};

namespace detail {

template <class T>
void check_shapes(const Projection<T>& p, const Vec<T>& xq, const Vec<T>& xk) {
  if (p.w_q.rows() != p.w_k.rows() || p.w_q.cols() != p.w_k.cols() || p.w_q.rows() == 0 ||
      p.w_q.cols() == 0 || xq.size() != p.w_q.rows() || xk.size() != p.w_q.rows()) {
    throw InvalidArgument("MODEL-SCORE-1", "projection and embedding shapes do not match");
  }
}

template <class T>
Vec<T> to_vec(const std::vector<T>& v) {
  Vec<T> r(static_cast<Eigen::Index>(v.size()));
  for (std::size_t i = 0; i < v.size(); ++i) r(static_cast<Eigen::Index>(i)) = v[i];
  return r;
}

template <class T>
T logit(const Projection<T>& p, const Vec<T>& xq, const Vec<T>& xk) {
  const Vec<T> q = p.w_q.transpose() * xq;
  const Vec<T> k = p.w_k.transpose() * xk;
  return p.scale * q.dot(k);
}

}  // namespace detail

// MODEL-SCORE-1 with sinusoidal encodings.
template <class T>
T score_sinusoidal(const SinusoidalConfig& c, const Projection<T>& p, const Vec<T>& xq,
                   const Vec<T>& xk, std::int64_t m, std::int64_t n) {
  detail::check_shapes(p, xq, xk);
  if (c.d_model != xq.size())
    throw InvalidArgument("SIN-ARG-1", "d_model differs from embedding size");
  const Vec<T> pm = detail::to_vec(sinusoidal_encode<T>(c, m));
  const Vec<T> pn = detail::to_vec(sinusoidal_encode<T>(c, n));
  return detail::logit(p, Vec<T>(xq + pm), Vec<T>(xk + pn));
}

// MODEL-SCORE-1 with a learned table [max_positions][d_model].
template <class T>
T score_learned(const LearnedConfig& c, std::span<const T> table, const Projection<T>& p,
                const Vec<T>& xq, const Vec<T>& xk, std::int64_t m, std::int64_t n) {
  detail::check_shapes(p, xq, xk);
  if (c.d_model != xq.size())
    throw InvalidArgument("LEARNED-ARG-1", "d_model differs from embedding size");
  const Vec<T> pm = detail::to_vec(learned_encode<T>(c, table, m));
  const Vec<T> pn = detail::to_vec(learned_encode<T>(c, table, n));
  return detail::logit(p, Vec<T>(xq + pm), Vec<T>(xk + pn));
}

// MODEL-SCORE-2. Dynamic NTK (ROPE-SCALE-DYN-1) computes its frequencies for the current
// sequence, which holds at least max(m, n) + 1 tokens: the reference uses seq_len = max(m,n)+1.
template <class T>
T score_rope(const RopeConfig& c, const Projection<T>& p, const Vec<T>& xq, const Vec<T>& xk,
             std::int64_t m, std::int64_t n) {
  detail::check_shapes(p, xq, xk);
  if (c.head_dim != p.w_q.cols())
    throw InvalidArgument("ROPE-ARG-1", "head_dim differs from projection");
  const std::int64_t seq_len = (m > n ? m : n) + 1;
  const auto f = rope_inv_freq<T>(c, seq_len);
  Vec<T> q = p.w_q.transpose() * xq;
  Vec<T> k = p.w_k.transpose() * xk;
  const auto hd = static_cast<std::size_t>(c.head_dim);
  rope_rotate<T>(c, std::span<const T>(f), m, std::span<const T>(q.data(), hd),
                 std::span<T>(q.data(), hd));
  rope_rotate<T>(c, std::span<const T>(f), n, std::span<const T>(k.data(), hd),
                 std::span<T>(k.data(), hd));
  return p.scale * q.dot(k);
}

// MODEL-SCORE-3 with the T5 bias of head h.
template <class T>
T score_t5(const T5Config& c, std::span<const T> table, std::int64_t h, const Projection<T>& p,
           const Vec<T>& xq, const Vec<T>& xk, std::int64_t m, std::int64_t n) {
  detail::check_shapes(p, xq, xk);
  return detail::logit(p, xq, xk) + t5_bias<T>(c, table, h, m, n);
}

// MODEL-SCORE-3 with the ALiBi bias of a head with the given slope (-infinity where masked).
template <class T>
T score_alibi(AlibiMode mode, const T& slope, const Projection<T>& p, const Vec<T>& xq,
              const Vec<T>& xk, std::int64_t m, std::int64_t n) {
  detail::check_shapes(p, xq, xk);
  return detail::logit(p, xq, xk) + alibi_bias<T>(mode, slope, m, n);
}

}  // namespace pecheck::reference
