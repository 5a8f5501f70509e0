// Recognised causes of a failure of the v1 RoPE checks (pec_rope_*, issue 22), the counterpart of
// rope_v2/hints_qk.hpp for one tensor: each matcher recomputes the exact values under one wrong assumption
// a kernel commonly makes and, when the kernel's output equals them, adds a "hint: ..." note. A
// hint is an observation about the shrunk case, never part of the verdict: the check failed on
// the values alone. Matchers run only on a failing evaluation.
//
//   matcher    the kernel's output equals ...
//   poison     pecheck's poison fill: elements never written (ABI-GEN-5)
//   pairing    the rotation with the other pairing (GPT-J where the call asks for NeoX, or back)
//   position   the rotation at another position (p rounded to bf16 / fp16 or wrapped to int16, the
//              token index, p +- 1), or NaN where p rounds to infinity in fp16
//   partial    (pass-through check) the lanes past rotary_dim zeroed, or rotated as if
//              rotary_dim were head_dim
//
// "Equal" is within 8 units of the storage type's rounding of the head's largest rotated input:
// far below any failure the oracle reports, far above the kernel's own rounding.
// Included only by checks_rope.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "oracle/format.hpp"
#include "oracle/oracle.hpp"
#include "verify/checks/check.hpp"
#include "verify/isolation/storage.hpp"

namespace pecheck::verifier::hints {

// The exact rotation of token `t` of c (every head, head_dim lanes) with the given layout,
// rotary_dim and position, rounded to double.
// A negative position (an int16 that wrapped) rotates backwards: R(-theta) x = S R(theta) S x,
// with S the sign flip of each pair's second lane.
inline std::vector<double> rope_token_exact(const RopeCase& c, std::int64_t t, std::int32_t layout,
                                            std::int64_t rotary_dim, std::int64_t position) {
  const std::int64_t row = c.n_heads * c.head_dim;
  std::vector<double> ex(static_cast<std::size_t>(row));
  const std::int64_t pos[1] = {position < 0 ? -position : position};
  std::vector<float> x(c.x.begin() + t * row, c.x.begin() + (t + 1) * row);
  std::vector<std::size_t> second;  // each pair's second lane, over every head
  if (position < 0) {
    for (std::int64_t h = 0; h < c.n_heads; ++h) {
      for (std::int64_t i = 0; i < rotary_dim / 2; ++i) {
        second.push_back(static_cast<std::size_t>(h * c.head_dim + (layout == PEC_ROPE_NEOX ? i + rotary_dim / 2 : 2 * i + 1)));
      }
    }
    for (std::size_t l : second) x[l] = -x[l];
  }
  const pec_rope_args a{1, c.n_heads, c.head_dim, rotary_dim, layout, c.theta_base, c.position_scale, pos,
                        c.has_inv_freq && rotary_dim == c.rotary_dim ? c.inv_freq.data() : nullptr};
  oracle::rope_block(a, x.data(), oracle::Format::F64, nullptr, ex.data());
  for (std::size_t l : second) ex[l] = -ex[l];
  return ex;
}

// Whether lanes [lo, hi) of every head of token t of the output equal `alt` (that token's row),
// within 8 storage rounding units of the head's largest input.
inline bool rope_token_matches(const RopeCase& c, const RunResult& r, std::int64_t t, const std::vector<double>& alt,
                               std::int64_t lo, std::int64_t hi) {
  const double u = oracle::format_info(storage_format(c.storage)).unit_roundoff;
  for (std::int64_t h = 0; h < c.n_heads; ++h) {
    const std::int64_t base = (t * c.n_heads + h) * c.head_dim;
    double m = 0;
    for (std::int64_t l = 0; l < c.head_dim; ++l) m = std::max(m, std::fabs(static_cast<double>(c.x[base + l])));
    const double tol = 16 * u * m + 1e-30;
    for (std::int64_t l = lo; l < hi; ++l) {
      const std::size_t i = static_cast<std::size_t>(base + l);
      if (i >= r.out.size() || !std::isfinite(r.out[i])) return false;
      if (!(std::fabs(r.out[i] - alt[static_cast<std::size_t>(h * c.head_dim + l)]) <= tol)) return false;
    }
  }
  return true;
}

// Whether token t has a nonzero input among lanes [lo, hi): zeros rotate to zeros under every
// assumption, so they can neither confirm nor contradict a matcher.
inline bool rope_token_informative(const RopeCase& c, std::int64_t t, std::int64_t lo, std::int64_t hi) {
  for (std::int64_t h = 0; h < c.n_heads; ++h) {
    for (std::int64_t l = lo; l < hi; ++l) {
      if (c.x[static_cast<std::size_t>((t * c.n_heads + h) * c.head_dim + l)] != 0) return true;
    }
  }
  return false;
}

inline std::string rope_poison_hint(const RopeCase& c, const RunResult& r) {
  if (r.unwritten <= 0 || r.first_unwritten < 0) return "";
  const std::int64_t e = r.first_unwritten, H = c.n_heads, D = c.head_dim;
  char pb[16];
  std::snprintf(pb, sizeof pb, c.storage == Storage::F32 ? "0x%08x" : "0x%04x", r.poison);
  return "hint: " + std::to_string(r.unwritten) + " element(s) of y (first: token " + std::to_string(e / (H * D)) +
         ", head " + std::to_string(e / D % H) + ", lane " + std::to_string(e % D) + ") still hold pecheck's poison NaN (" +
         pb + "): never written by the kernel -- a loop bound, head count or stride that skips them, not a value it "
         "computed (ABI-GEN-5)";
}

// The oracle check (ABI-ROPE-2): pairing and position matchers on the failing token.
inline std::vector<std::string> rope_oracle_hints(const RopeCase& c, const RunResult& r, std::int64_t t) {
  std::vector<std::string> hints;
  if (const std::string p = rope_poison_hint(c, r); !p.empty()) hints.push_back(p);
  if (t < 0 || t >= c.n_tokens || r.out.size() != c.x.size()) return hints;
  const std::int64_t R = c.rotary_dim, p = c.positions[static_cast<std::size_t>(t)];
  if (p >= 65520 && p <= 2147483647) {  // fp16's +inf: cos and sin of an infinite angle are NaN
    bool all_nan = R > 0;
    for (std::int64_t h = 0; h < c.n_heads && all_nan; ++h) {
      for (std::int64_t l = 0; l < R; ++l) all_nan = all_nan && std::isnan(r.out[static_cast<std::size_t>((t * c.n_heads + h) * c.head_dim + l)]);
    }
    bool finite_inputs = true;
    for (float v : c.x) finite_inputs = finite_inputs && std::isfinite(v);
    if (all_nan && finite_inputs) {
      hints.push_back("hint: every rotated lane of token " + std::to_string(t) + " is NaN at position " + std::to_string(p) +
                      ", which rounds to infinity in fp16 (from 65520 on): the kernel forms the angle from an fp16 "
                      "position (cos and sin of an infinite angle are NaN)");
      return hints;
    }
  }
  if (!rope_token_informative(c, t, 0, R)) return hints;
  if (rope_token_matches(c, r, t, rope_token_exact(c, t, c.layout, R, p), 0, R)) return hints;  // token is right
  if (R >= 4) {
    const std::int32_t other = c.layout == PEC_ROPE_NEOX ? PEC_ROPE_GPTJ : PEC_ROPE_NEOX;
    if (rope_token_matches(c, r, t, rope_token_exact(c, t, other, R, p), 0, R)) {
      const bool asks_neox = c.layout == PEC_ROPE_NEOX;
      hints.push_back(std::string("hint: y equals the rotation with the ") +
                      (asks_neox ? "GPT-J pairing (lanes 2i, 2i+1)" : "NeoX pairing (lanes i, i + rotary_dim/2)") +
                      "; the call asks for " + (asks_neox ? "NeoX (layout=neox)" : "GPT-J (layout=gptj)") +
                      ": the kernel's layout test is inverted or ignored");
      return hints;
    }
  }
  // Candidate positions and why a kernel would use them; one position may have several reasons
  // (2049 rounds to 2048 in bf16 and in fp16, and 2048 is also one position earlier).
  const std::int64_t bf = static_cast<std::int64_t>(std::min(oracle::round_to(static_cast<double>(p), oracle::Format::BF16), 4.0e9));
  const double f16 = oracle::round_to(static_cast<double>(p), oracle::Format::F16);
  const std::int64_t hf = std::isfinite(f16) ? static_cast<std::int64_t>(f16) : -1;
  const std::string ps = std::to_string(p);
  const std::pair<std::int64_t, std::string> cands[] = {{bf, ps + " rounded to bf16"},
                                                        {hf, ps + " rounded to fp16"},
                                                        {t, "the token's index in the batch"},
                                                        {p - 1, ps + " - 1"},
                                                        {p + 1, ps + " + 1"},
                                                        {static_cast<std::int16_t>(static_cast<std::uint16_t>(p & 0xffff)),
                                                         ps + " wrapped to int16"}};
  for (const auto& [q, why] : cands) {
    (void)why;
    if (q == p || q < -32768 || q > 2147483647) continue;
    if (!rope_token_matches(c, r, t, rope_token_exact(c, t, c.layout, R, q), 0, R)) continue;
    std::vector<std::string> rs;
    for (const auto& [q2, why2] : cands) {
      if (q2 == q) rs.push_back(why2);
    }
    std::string reasons;
    for (std::size_t k = 0; k < rs.size(); ++k) reasons += (k == 0 ? "" : k + 1 == rs.size() ? " or " : ", ") + rs[k];
    const bool sixteen = q == bf || q == hf || q < 0;
    hints.push_back("hint: token " + std::to_string(t) + "'s output equals the rotation at position " + std::to_string(q) +
                    " instead of " + ps + " (" + reasons + ")" +
                    (sixteen ? ": the kernel likely forms the angle from a 16-bit position" : ""));
    break;
  }
  return hints;
}

// The pass-through check (ABI-ROPE-3) of token t: the lanes past rotary_dim zeroed, or rotated.
inline std::vector<std::string> rope_passthrough_hints(const RopeCase& c, const RunResult& r, std::int64_t t) {
  std::vector<std::string> hints;
  const std::int64_t R = c.rotary_dim, D = c.head_dim;
  if (t < 0 || t >= c.n_tokens || R >= D || r.out.size() != c.x.size()) return hints;
  if (!rope_token_informative(c, t, R, D)) return hints;
  bool zero = true;
  for (std::int64_t h = 0; h < c.n_heads && zero; ++h) {
    for (std::int64_t l = R; l < D; ++l) zero = zero && r.out[static_cast<std::size_t>((t * c.n_heads + h) * D + l)] == 0;
  }
  if (zero) {
    hints.push_back("hint: every lane past rotary_dim=" + std::to_string(R) + " of token " + std::to_string(t) +
                    " is 0: the kernel zeroes the pass-through lanes instead of copying them (partial rotary "
                    "dropped: written for rotary_dim = head_dim)");
    return hints;
  }
  if (D % 2 == 0) {
    const std::int64_t p = c.positions[static_cast<std::size_t>(t)];
    if (rope_token_matches(c, r, t, rope_token_exact(c, t, c.layout, D, p), R, D)) {
      hints.push_back("hint: the lanes past rotary_dim=" + std::to_string(R) + " of token " + std::to_string(t) +
                      " equal the rotation with rotary_dim=head_dim=" + std::to_string(D) +
                      ": the kernel rotates every lane (partial rotary ignored)");
    }
  }
  return hints;
}

}  // namespace pecheck::verifier::hints
