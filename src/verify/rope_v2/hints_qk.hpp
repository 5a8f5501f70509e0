// Recognised causes of a failure of the query+key oracle (issue 22): each matcher recomputes the
// exact values under one wrong assumption a kernel commonly makes and, when the kernel's outputs
// equal those values, adds a "hint: ..." note naming the cause. A hint is an observation about
// the shrunk case, never part of the verdict: the check failed on the values alone.
//
//   matcher    the kernel's outputs equal ...
//   pairing    the rotation with the other pairing (GPT-J where the call asks for NeoX, or back)
//   poison     pecheck's own poison fill: elements never written (ABI-GEN-5)
//   read       a NaN no input holds: read from a gap or guard pattern (a stride or index error)
//   position   the rotation at another position (p rounded to bf16 / fp16, the token index, p +- 1, 0)
//   attn       the rotation with attn_factor applied twice, not at all, or to one tensor only
//
// "Equal" is within 8 units of the storage type's rounding of the head's largest input (times the
// factor): far below any failure the oracle reports, far above the kernel's own rounding.
// Included only by checks_rope_qk.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "oracle/format.hpp"
#include "verify/rope_v2/checks_impl.hpp"

namespace pecheck::verifier::qkcheck {

using ExactFn = std::function<std::vector<double>(const RopeQkCase&, const std::vector<float>&, std::int64_t,
                                                  const std::vector<std::int64_t>&)>;

inline std::vector<std::string> qk_hints(const RopeQkCase& c, const ViewRunResult& r, std::int64_t fail_token,
                                         const ExactFn& exact) {
  std::vector<std::string> hints;
  if (r.outs.size() < 2 || c.n_tokens == 0) return hints;
  const double u = oracle::format_info(fmt(c.storage)).unit_roundoff;
  const std::int64_t D = c.head_dim, R = c.rotary_dim;
  const char* names[2] = {"q_out", "k_out"};
  const std::int64_t heads[2] = {c.n_q_heads, c.n_kv_heads};
  const std::vector<float>* xs[2] = {&c.q, &c.k};

  // Whether tensor w's rotated lanes (of token `only`, or every token when only < 0) equal `alt`.
  auto matches = [&](int w, const std::vector<double>& alt, std::int64_t only, double factor) {
    const auto& out = r.outs[static_cast<std::size_t>(w)].values;
    const auto& x = *xs[w];
    const std::int64_t H = heads[w];
    bool any = false;
    for (std::int64_t t = 0; t < c.n_tokens; ++t) {
      if (only >= 0 && t != only) continue;
      for (std::int64_t h = 0; h < H; ++h) {
        const std::int64_t base = (t * H + h) * D;
        double m = 0;
        for (std::int64_t l = 0; l < R; ++l) m = std::max(m, std::fabs(static_cast<double>(x[base + l])));
        const double tol = 8 * u * m * std::max(1.0, factor) + 1e-30;
        for (std::int64_t l = 0; l < R; ++l) {
          const std::size_t i = static_cast<std::size_t>(base + l);
          if (i >= out.size() || !std::isfinite(out[i]) || !(std::fabs(out[i] - alt[i]) <= tol)) return false;
          any = any || m > 0;
        }
      }
    }
    (void)any;
    return true;
  };
  // Whether tensor w has a nonzero input (of token `only`, or any): all-zero inputs rotate to
  // zeros under every assumption, so they can neither confirm nor contradict a matcher.
  auto informative = [&](int w, std::int64_t only) {
    const auto& x = *xs[w];
    const std::int64_t H = heads[w];
    for (std::int64_t t = 0; t < c.n_tokens; ++t) {
      if (only >= 0 && t != only) continue;
      for (std::int64_t h = 0; h < H; ++h) {
        for (std::int64_t l = 0; l < R; ++l) {
          if (x[static_cast<std::size_t>((t * H + h) * D + l)] != 0) return true;
        }
      }
    }
    return false;
  };
  auto exact_of = [&](const RopeQkCase& v, int w, const std::vector<std::int64_t>& pos) {
    return exact(v, *xs[w], heads[w], pos);
  };
  const double f = c.attn_factor;
  const std::vector<double> ex[2] = {exact_of(c, 0, c.positions), exact_of(c, 1, c.positions)};
  const bool ok[2] = {matches(0, ex[0], -1, f), matches(1, ex[1], -1, f)};

  // poison: elements never written
  for (int w = 0; w < 2; ++w) {
    const auto& o = r.outs[static_cast<std::size_t>(w)];
    const std::uint32_t p0 = poison_bits(c.storage), p1 = poison_bits(c.storage, true);
    std::int64_t n = 0, first = -1;
    for (std::size_t i = 0; i < o.bits.size(); ++i) {
      if (o.bits[i] != p0 && o.bits[i] != p1) continue;
      if (first < 0) first = static_cast<std::int64_t>(i);
      ++n;
    }
    if (n > 0) {
      const std::int64_t H = heads[w];
      char pb[16];
      std::snprintf(pb, sizeof pb, c.storage == Storage::F32 ? "0x%08x" : "0x%04x", p0);
      hints.push_back("hint: " + std::to_string(n) + " element(s) of " + names[w] + " (first: token " +
                      std::to_string(first / (H * D)) + ", head " + std::to_string(first / D % H) + ", lane " +
                      std::to_string(first % D) + ") still hold pecheck's poison NaN (" + pb +
                      "): never written by the kernel — a loop bound, head count or stride that skips them, "
                      "not a value it computed (ABI-GEN-5)");
    }
  }

  // NaN that is not the poison and no input holds: read from outside the view's elements (a gap or
  // guard pattern, another head's or token's slot)
  {
    bool finite_inputs = true;
    for (int w = 0; w < 2; ++w) {
      for (float v : *xs[w]) finite_inputs = finite_inputs && std::isfinite(v);
    }
    for (int w = 0; w < 2 && finite_inputs; ++w) {
      const auto& o = r.outs[static_cast<std::size_t>(w)];
      const std::uint32_t p0 = poison_bits(c.storage), p1 = poison_bits(c.storage, true);
      for (std::size_t i = 0; i < o.values.size(); ++i) {
        if (!std::isnan(o.values[i]) || o.bits[i] == p0 || o.bits[i] == p1) continue;
        const std::int64_t H = heads[w], e = static_cast<std::int64_t>(i);
        hints.push_back("hint: " + std::string(names[w]) + " (token " + std::to_string(e / (H * D)) + ", head " +
                        std::to_string(e / D % H) + ", lane " + std::to_string(e % D) +
                        ") is a NaN that no input holds: the kernel read outside the views' elements (pecheck "
                        "fills gaps and guard zones with NaN patterns) -- a stride or index error");
        finite_inputs = false;  // one such hint is enough
        break;
      }
    }
  }

  // pairing
  if (R >= 4 && !(ok[0] && ok[1])) {
    RopeQkCase v = c;
    v.layout = c.layout == PEC_ROPE_NEOX ? PEC_ROPE_GPTJ : PEC_ROPE_NEOX;
    if ((informative(0, -1) || informative(1, -1)) && matches(0, exact_of(v, 0, c.positions), -1, f) &&
        matches(1, exact_of(v, 1, c.positions), -1, f)) {
      const bool asks_neox = c.layout == PEC_ROPE_NEOX;
      hints.push_back(std::string("hint: q_out and k_out equal the rotation with the ") +
                      (asks_neox ? "GPT-J pairing (lanes 2i, 2i+1)" : "NeoX pairing (lanes i, i + rotary_dim/2)") +
                      "; the call asks for " + (asks_neox ? "NeoX (layout=neox)" : "GPT-J (layout=gptj)") +
                      ": the kernel's layout test is inverted or ignored");
    }
  }

  // attention factor
  if (f != 1.0 && !(ok[0] && ok[1])) {
    auto state = [&](int w) -> std::string {
      if (!informative(w, -1)) return "";  // zeros: no evidence either way
      if (ok[w]) return "right";
      std::vector<double> twice = ex[w], none = ex[w];
      for (auto& e : twice) e *= f;
      for (auto& e : none) e /= f;
      if (matches(w, twice, -1, f * f)) return "twice";
      if (matches(w, none, -1, 1.0)) return "none";
      return "";
    };
    const std::string s0 = state(0), s1 = state(1);
    std::string what;
    if (s0 == "twice" && s1 == "twice") what = "applied twice to q and k (cos and sin each carry attn_factor^2)";
    else if (s0 == "none" && s1 == "none") what = "not applied (q_out and k_out are the unscaled rotation)";
    else if (s0 == "right" && s1 == "twice") what = "applied twice to k only";
    else if (s0 == "twice" && s1 == "right") what = "applied twice to q only";
    else if (s0 == "right" && s1 == "none") what = "applied to q only (k_out is the unscaled rotation)";
    else if (s0 == "none" && s1 == "right") what = "applied to k only (q_out is the unscaled rotation)";
    else if (s0 == "none" && s1.empty()) what = "not applied to q (q_out is the unscaled rotation; k's inputs are zero here)";
    else if (s0.empty() && s1 == "none") what = "not applied to k (k_out is the unscaled rotation; q's inputs are zero here)";
    else if (s0 == "twice" && s1.empty()) what = "applied twice to q (k's inputs are zero here)";
    else if (s0.empty() && s1 == "twice") what = "applied twice to k (q's inputs are zero here)";
    if (!what.empty()) {
      hints.push_back("hint: attn_factor=" + report::format_real(f) + " " + what +
                      "; ABI-QK-2 multiplies cos and sin of both tensors by it once");
    }
  }

  // another position, for the failing token
  if (fail_token >= 0 && fail_token < c.n_tokens && !(ok[0] && ok[1])) {
    const std::int64_t p = c.positions[static_cast<std::size_t>(fail_token)];
    const std::pair<double, const char*> cands[] = {
        {oracle::round_to(static_cast<double>(p), Format::BF16), "the position rounded to bf16"},
        {oracle::round_to(static_cast<double>(p), Format::F16), "the position rounded to fp16"},
        {static_cast<double>(fail_token), "the token's index in the batch"},
        {static_cast<double>(p - 1), "one position earlier"},
        {static_cast<double>(p + 1), "one position later"},
        {0.0, "position 0"}};
    for (const auto& [q, why] : cands) {
      if (!std::isfinite(q) || q == static_cast<double>(p) || q < 0) continue;
      std::vector<std::int64_t> pos = c.positions;
      pos[static_cast<std::size_t>(fail_token)] = static_cast<std::int64_t>(q);
      if ((informative(0, fail_token) || informative(1, fail_token)) && matches(0, exact_of(c, 0, pos), fail_token, f) &&
          matches(1, exact_of(c, 1, pos), fail_token, f)) {
        hints.push_back("hint: token " + std::to_string(fail_token) + "'s outputs equal the rotation at position " +
                        std::to_string(static_cast<std::int64_t>(q)) + " (" + why + ") instead of " +
                        std::to_string(p));
        break;
      }
    }
  }
  return hints;
}

}  // namespace pecheck::verifier::qkcheck
