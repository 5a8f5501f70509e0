// Recognised causes of a failure of the cached rotation's oracle (pec_rope_cached_*, issue 22), as
// hints_qk.hpp does for pec_rope_qk_*: each matcher recomputes x_a C - x_b S under one wrong
// assumption and, when the kernel's outputs equal those values (and not the right ones), adds a
// "hint: ..." note. A hint is an observation about the shrunk case, never part of the verdict.
//
//   matcher      the kernel's outputs equal ...
//   row          the rotation by cache row t (the token's index) instead of row positions[t];
//                or NaN where row t is one pecheck fills with NaN (no position of the call)
//   cos16        the rotation with a float32 cache's entries rounded to bf16 / fp16 first
//   pairing      the rotation with the other pairing
//
// "Equal" is within 16 units of the storage type's rounding of the head's largest input times
// the cache's largest entry. Included only by checks_rope_qk.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "oracle/format.hpp"
#include "verify/rope_v2/checks_impl.hpp"

namespace pecheck::verifier::qkcheck {

using CachedExactFn = std::function<std::vector<double>(const RopeCachedCase&, const std::vector<float>&, std::int64_t,
                                                        const std::vector<std::int64_t>&)>;

inline std::vector<std::string> cached_hints(const RopeCachedCase& c, const ViewRunResult& r, std::int64_t t,
                                             const CachedExactFn& exact) {
  std::vector<std::string> hints;
  if (r.outs.size() < 2 || t < 0 || t >= c.n_tokens) return hints;
  const double u = oracle::format_info(fmt(c.storage)).unit_roundoff;
  const std::int64_t D = c.head_dim, R = c.rotary_dim;
  const std::int64_t heads[2] = {c.n_q_heads, c.n_kv_heads};
  const std::vector<float>* xs[2] = {&c.q, &c.k};
  double cmax = 0;
  for (float v : c.row_vals) cmax = std::max(cmax, std::fabs(static_cast<double>(v)));
  // Whether token t's rotated lanes of both tensors equal `alt(case, w)`, and some input is nonzero.
  const auto matches = [&](const RopeCachedCase& v, const std::vector<std::int64_t>& pos) {
    bool informative = false;
    for (int w = 0; w < 2; ++w) {
      const std::vector<double> alt = exact(v, *xs[w], heads[w], pos);
      const auto& out = r.outs[static_cast<std::size_t>(w)].values;
      for (std::int64_t h = 0; h < heads[w]; ++h) {
        const std::int64_t base = (t * heads[w] + h) * D;
        double m = 0;
        for (std::int64_t l = 0; l < R; ++l) m = std::max(m, std::fabs(static_cast<double>((*xs[w])[static_cast<std::size_t>(base + l)])));
        informative = informative || m > 0;
        const double tol = 16 * u * m * cmax + 1e-30;
        for (std::int64_t l = 0; l < R; ++l) {
          const std::size_t i = static_cast<std::size_t>(base + l);
          if (i >= out.size() || i >= alt.size() || !std::isfinite(out[i]) || !(std::fabs(out[i] - alt[i]) <= tol)) return false;
        }
      }
    }
    return informative;
  };
  if (matches(c, c.positions)) return hints;  // token t is right: no evidence about it
  const std::int64_t p = c.positions[static_cast<std::size_t>(t)];
  // row: the token's index
  if (t != p) {
    const bool row_t_filled = std::find(c.row_pos.begin(), c.row_pos.end(), t) != c.row_pos.end();
    std::vector<std::int64_t> pos = c.positions;
    pos[static_cast<std::size_t>(t)] = t;
    bool all_nan = true;
    for (int w = 0; w < 2; ++w) {
      const auto& out = r.outs[static_cast<std::size_t>(w)].values;
      for (std::int64_t h = 0; h < heads[w]; ++h)
        for (std::int64_t l = 0; l < R; ++l) {
          const std::size_t i = static_cast<std::size_t>((t * heads[w] + h) * D + l);
          all_nan = all_nan && i < out.size() && std::isnan(out[i]);
        }
    }
    bool finite = true;
    for (int w = 0; w < 2; ++w)
      for (float v : *xs[w]) finite = finite && std::isfinite(v);
    for (float v : c.row_vals) finite = finite && std::isfinite(v);
    if (row_t_filled ? matches(c, pos) : (all_nan && finite && t < c.cache_positions)) {
      hints.push_back("hint: token " + std::to_string(t) + "'s outputs " +
                      (row_t_filled ? "equal the rotation by cache row " + std::to_string(t)
                                    : "are NaN, the contents of cache row " + std::to_string(t) +
                                          " (pecheck fills the rows that are no position of the call with NaN)") +
                      ", the token's index, instead of row positions[" + std::to_string(t) + "]=" + std::to_string(p) +
                      ": the kernel indexes the cache by the token, not by its position");
      return hints;
    }
  }
  // cos16: a float32 cache's entries rounded to a 16-bit type on the way to the multiply
  if (c.cache_dtype == PEC_DTYPE_F32) {
    for (const auto& [f, name] : {std::pair{Format::BF16, "bf16"}, std::pair{Format::F16, "fp16"}}) {
      RopeCachedCase v = c;
      for (auto& e : v.row_vals) e = static_cast<float>(oracle::round_to(e, f));
      if (v.row_vals != c.row_vals && matches(v, c.positions)) {
        hints.push_back(std::string("hint: the outputs equal the rotation with the cache's cos/sin rounded to ") + name +
                        " first; the cache is float32 (cache_dtype=f32): the kernel stages the cache in a 16-bit type "
                        "(ABI-CACHE-2 allows a 16-bit cos/sin only when the cache is 16-bit)");
        return hints;
      }
    }
  }
  // pairing
  if (R >= 4) {
    RopeCachedCase v = c;
    v.layout = c.layout == PEC_ROPE_NEOX ? PEC_ROPE_GPTJ : PEC_ROPE_NEOX;
    if (matches(v, c.positions)) {
      const bool asks_neox = c.layout == PEC_ROPE_NEOX;
      hints.push_back(std::string("hint: q_out and k_out equal the rotation with the ") +
                      (asks_neox ? "GPT-J pairing (lanes 2i, 2i+1)" : "NeoX pairing (lanes i, i + rotary_dim/2)") +
                      "; the call asks for " + (asks_neox ? "NeoX (layout=neox)" : "GPT-J (layout=gptj)") +
                      ": the kernel's layout test is inverted or ignored");
    }
  }
  return hints;
}

}  // namespace pecheck::verifier::qkcheck
