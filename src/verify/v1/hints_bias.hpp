// Recognised causes of a failure of the ALiBi and T5 oracle checks (issue 22), as rope_v2/hints_qk.hpp
// does for RoPE: each matcher recomputes the whole output under one wrong assumption a kernel
// commonly makes and, when every element of the kernel's output equals it, adds a "hint: ..."
// note. A hint is an observation about the shrunk case, never part of the verdict. Matchers run
// only on a failing evaluation.
//
//   ALiBi      the kernel's output equals scores + ...
//     pow2     the bias with slope 2^(-8(h+1)/n) for every head (the power-of-two formula applied
//              to a head count that is not a power of two)
//     sign     the bias with its sign flipped (+slope |q - k|)
//     signed   -slope (q - k) or -slope (k - q) without the absolute value (symmetric mode)
//   T5         every element is the table entry of the bucket of ...
//     sign     q - k (the relative position negated; T5-REL-1 says k - q)
//     bidir    the other bidirectional setting
//     maxdist  max_distance - 1 or max_distance + 1
//
// "Equal": an ALiBi element within 8 units of the storage type's rounding of |score| + |bias|
// (and of float32's of |bias|), and the assumed value differs from the exact one at the failing
// element by more than twice that (so a kernel that is merely imprecise gets no hint); a T5
// element bit for bit (either bucket on an ambiguous boundary).
// Included only by checks_bias.cpp.
#pragma once

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "oracle/format.hpp"
#include "oracle/oracle.hpp"
#include "verify/checks/check.hpp"
#include "verify/isolation/storage.hpp"

namespace pecheck::verifier::hints {

// `ref`: the exact scores + bias (-inf where masked); `w`: the failing element.
inline std::vector<std::string> alibi_hints(const AlibiCase& c, const RunResult& r, const std::vector<double>& ref,
                                            std::int64_t w) {
  std::vector<std::string> hints;
  const std::size_t n = ref.size();
  if (r.out.size() != n || w < 0 || static_cast<std::size_t>(w) >= n || c.n_q * c.n_k == 0) return hints;
  const double u = oracle::format_info(storage_format(c.storage)).unit_roundoff;
  const bool causal = c.mode == PEC_ALIBI_CAUSAL;
  const std::int64_t per_head = c.n_q * c.n_k;
  // The bias of element i under an assumption: slope(h) and the distance d = q - k.
  using BiasFn = std::function<double(std::int64_t h, std::int64_t d)>;
  const auto true_slope = [&](std::int64_t h) { return oracle::alibi_slope(c.n_heads, h).exact.hi; };
  const auto matches = [&](const BiasFn& bias) {
    bool discriminates = false;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t h = static_cast<std::int64_t>(i) / per_head;
      const std::int64_t qi = (static_cast<std::int64_t>(i) / c.n_k) % c.n_q, kj = static_cast<std::int64_t>(i) % c.n_k;
      const double a = r.out[i];
      if (std::isinf(ref[i])) {  // masked: both -inf (no assumption here changes the mask)
        if (!(std::isinf(a) && a < 0)) return false;
        continue;
      }
      const double b = bias(h, c.q_pos[static_cast<std::size_t>(qi)] - c.k_pos[static_cast<std::size_t>(kj)]);
      const double alt = static_cast<double>(c.scores[i]) + b;
      const double tol = 8 * u * (std::fabs(c.scores[i]) + std::fabs(b)) + 8 * 0x1p-24 * std::fabs(b) + 1e-30;
      if (!std::isfinite(a) || !(std::fabs(a - alt) <= tol)) return false;
      if (static_cast<std::int64_t>(i) == w) discriminates = std::fabs(alt - ref[i]) > 2 * tol;
    }
    return discriminates;
  };
  const auto dist = [](std::int64_t d) { return static_cast<double>(d < 0 ? -d : d); };
  const bool pow2 = (c.n_heads & (c.n_heads - 1)) == 0;
  if (!pow2 && matches([&](std::int64_t h, std::int64_t d) {
        return -std::exp2(-8.0 * static_cast<double>(h + 1) / static_cast<double>(c.n_heads)) * dist(d);
      })) {
    hints.push_back("hint: the bias equals -2^(-8(h+1)/n_heads) |q - k| for every head: the power-of-two slope formula "
                    "applied to n_heads=" + std::to_string(c.n_heads) +
                    ", which is not a power of two (ALiBi takes p = the largest power of two <= n_heads and "
                    "interleaves the slopes of 2p heads for heads p..n_heads-1)");
    return hints;
  }
  if (matches([&](std::int64_t h, std::int64_t d) { return true_slope(h) * dist(d); })) {
    hints.push_back("hint: the bias equals +slope |q - k|: its sign is flipped (ALiBi subtracts slope x distance, "
                    "so farther keys get lower scores)");
    return hints;
  }
  if (!causal) {
    if (matches([&](std::int64_t h, std::int64_t d) { return -true_slope(h) * static_cast<double>(d); })) {
      hints.push_back("hint: the bias equals -slope (q - k) without the absolute value: keys after the query get a "
                      "positive bias; symmetric mode (mode=symmetric) uses -slope |q - k|");
    } else if (matches([&](std::int64_t h, std::int64_t d) { return true_slope(h) * static_cast<double>(d); })) {
      hints.push_back("hint: the bias equals -slope (k - q) without the absolute value: keys before the query get a "
                      "positive bias; symmetric mode (mode=symmetric) uses -slope |q - k|");
    }
  }
  return hints;
}

inline std::vector<std::string> t5_hints(const T5Case& c, const RunResult& r) {
  std::vector<std::string> hints;
  if (r.out_bits.size() != static_cast<std::size_t>(c.n_heads * c.n_q * c.n_k) || c.n_q * c.n_k == 0) return hints;
  // Whether every element is the table entry of the bucket `bucket_of(rel)` returns.
  const auto matches = [&](const std::function<oracle::T5Bucket(std::int64_t)>& bucket_of) {
    try {
      for (std::int64_t i = 0; i < c.n_q; ++i) {
        for (std::int64_t j = 0; j < c.n_k; ++j) {
          const oracle::T5Bucket b = bucket_of(c.k_pos[static_cast<std::size_t>(j)] - c.q_pos[static_cast<std::size_t>(i)]);
          for (std::int64_t h = 0; h < c.n_heads; ++h) {
            const std::uint32_t got = r.out_bits[static_cast<std::size_t>((h * c.n_q + i) * c.n_k + j)];
            const auto entry = [&](std::int64_t k) {
              return to_storage(c.table[static_cast<std::size_t>(k * c.n_heads + h)], c.storage);
            };
            if (got != entry(b.bucket) && !(b.ambiguous && got == entry(b.alternative))) return false;
          }
        }
      }
    } catch (const std::exception&) {  // arguments the oracle does not take: no evidence
      return false;
    }
    return true;
  };
  const bool bi = c.bidirectional != 0;
  if (matches([&](std::int64_t rel) { return oracle::t5_bucket(-rel, c.num_buckets, c.max_distance, bi); })) {
    hints.push_back("hint: every element is the table entry of the bucket of q_pos - k_pos: the relative position is "
                    "negated (T5 buckets relative = k_pos - q_pos, T5-REL-1)");
  } else if (matches([&](std::int64_t rel) { return oracle::t5_bucket(rel, c.num_buckets, c.max_distance, !bi); })) {
    hints.push_back(std::string("hint: every element is the table entry of T5's ") +
                    (bi ? "unidirectional (causal)" : "bidirectional") + " bucket; the call asks for bidirectional=" +
                    std::to_string(c.bidirectional) + ": the kernel's bidirectional flag is inverted or ignored");
  } else {
    for (std::int64_t md : {c.max_distance - 1, c.max_distance + 1}) {
      if (matches([&](std::int64_t rel) { return oracle::t5_bucket(rel, c.num_buckets, md, bi); })) {
        hints.push_back("hint: every element is the table entry of the bucket with max_distance=" + std::to_string(md) +
                        " instead of " + std::to_string(c.max_distance) +
                        ": an off-by-one in the logarithmic buckets' range");
        break;
      }
    }
  }
  return hints;
}

}  // namespace pecheck::verifier::hints
