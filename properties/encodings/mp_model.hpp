// Score comparisons in 100-digit MPFR (Boost.Multiprecision), behind a light interface: the
// multiprecision and Eigen instantiations live in mp_model.cpp only, so the property files
// compile fast. Tolerances are MODEL-TOL-1/2 (src/reference/tolerance.hpp) in that precision.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "reference/alibi.hpp"
#include "reference/rope.hpp"
#include "reference/rope_family.hpp"
#include "reference/sinusoidal.hpp"
#include "reference/t5.hpp"

namespace pecheck::props {

// Two quantities a, b (rounded to double for display), |a - b| and the tolerance, all
// computed in 100-digit MPFR.
struct MpCompare {
  double a = 0, b = 0, diff = 0, tol = 0;
  bool agree() const { return diff <= tol; }
};
inline std::ostream& operator<<(std::ostream& os, const MpCompare& c) {
  return os << "{a=" << c.a << ", b=" << c.b << ", |a-b|=" << c.diff << ", tolerance=" << c.tol
            << "}";
}

// A random model instance: d_model x head_dim projections and two embeddings, entries drawn
// uniform in [-1, 1] from the seed (the same draws in every precision).
struct ModelDraw {
  std::uint64_t seed = 0;
  std::int64_t d_model = 8;
  std::int64_t head_dim = 8;  // ignored for RoPE (the config's head_dim is used)
};

// s(m, n) against s(m + c, n + c), MODEL-SCORE-1..3 in 100-digit MPFR.
MpCompare mp_rope_shift(const reference::RopeConfig& cfg, const ModelDraw& md, std::int64_t m,
                        std::int64_t n, std::int64_t c);
MpCompare mp_sinusoidal_shift(const reference::SinusoidalConfig& cfg, const ModelDraw& md,
                              std::int64_t m, std::int64_t n, std::int64_t c);
MpCompare mp_t5_shift(const reference::T5Config& cfg, const ModelDraw& md, std::int64_t h,
                      std::int64_t m, std::int64_t n, std::int64_t c);
MpCompare mp_alibi_shift(reference::AlibiMode mode, std::int64_t n_heads, std::int64_t h,
                         const ModelDraw& md, std::int64_t m, std::int64_t n, std::int64_t c);

// The raw dot product p_m . p_n against p_{m+c} . p_{n+c} (SIN-DOT-1).
MpCompare mp_sinusoidal_dot_shift(const reference::SinusoidalConfig& cfg, std::int64_t m,
                                  std::int64_t n, std::int64_t c);

// Softmax of the row of query m over `keys` (all <= m) against the row shifted by c: a = the
// probability with the largest change, b = its shifted value, tol = MODEL-TOL-2.
MpCompare mp_alibi_softmax_row(reference::AlibiMode mode, std::int64_t n_heads, std::int64_t h,
                               const ModelDraw& md, std::int64_t m,
                               const std::vector<std::int64_t>& keys, std::int64_t c);

// The inverse frequencies of a config in 100-digit MPFR, rounded to double (for comparisons of
// the double/float reference against a higher-precision evaluation).
std::vector<double> mp_rope_inv_freq(const reference::RopeConfig& cfg, std::int64_t seq_len);
double mp_rope_attention_factor(const reference::RopeConfig& cfg);

// The RoPE family (spec/rope.md, issue 14), s(m, n) against s(m + c, n + c) in 100-digit MPFR.
MpCompare mp_longrope_shift(const reference::LongRopeConfig& cfg, const ModelDraw& md,
                            std::int64_t m, std::int64_t n, std::int64_t c);
// A Llama 4 RoPE layer (chunked attention, qk-norm): magnitude per ROPE-L4-4.
MpCompare mp_llama4_rope_shift(const reference::Llama4Config& cfg, const ModelDraw& md,
                               std::int64_t m, std::int64_t n, std::int64_t c);
// M-RoPE with a shift vector c (one component per axis).
MpCompare mp_mrope_shift(const reference::MropeConfig& cfg, const ModelDraw& md,
                         const reference::MropePosition& m, const reference::MropePosition& n,
                         const reference::MropePosition& c);
MpCompare mp_mla_shift(const reference::MlaConfig& cfg, const ModelDraw& md, std::int64_t m,
                       std::int64_t n, std::int64_t c);
std::vector<double> mp_longrope_inv_freq(const reference::LongRopeConfig& cfg,
                                         std::int64_t seq_len);
double mp_rope_attn_factor(const reference::AttnFactorConfig& cfg);

}  // namespace pecheck::props
