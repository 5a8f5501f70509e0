// The score comparison shared by the shift checks of the version 2 RoPE functions
// (checks_rope_qk.cpp: rope_qk and rope_cached; checks_mrope.cpp: mrope). Included by those two
// files only, after checks_impl.hpp.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "verify/rope_v2/checks_impl.hpp"

namespace pecheck::verifier::qkcheck {

// ---- relative scores of every GQA group, from two calls ----------------------------------------

// Compares the scores <q_out(t, h), k_out(u, g)> of every query head h with the key head g of its
// group (ABI-QK-3) between two calls r0, r1 of case c, against the score contract `b` (the bound
// of oracle::rope_score_bound at both calls' angles). `angles(t, u, tm, tn, tms, tns)` fills the
// pair angles of query token t and key token u before and after the shift (left at 0 where the
// angles are not known: the cached form). `moved` names the shift in the message ("under a shift
// of 3 positions"). Returns the worst ratio; `fl` holds its element and message.
template <class Case, class Angles>
double group_score_shift(Ctx& ctx, const Case& c, const ViewRunResult& r0, const ViewRunResult& r1,
                         const Budget& b, double attn, const std::vector<double>& lf,
                         const std::string& variant, const std::string& moved, Angles angles,
                         Failure& fl) {
  const std::int64_t half = c.rotary_dim / 2, D = c.head_dim, ratio = c.n_q_heads / c.n_kv_heads;
  std::vector<double> qv(static_cast<std::size_t>(c.rotary_dim)), kv(qv.size());
  std::vector<double> tm(static_cast<std::size_t>(half), 0.0), tn(tm.size(), 0.0),
      tms(tm.size(), 0.0), tns(tm.size(), 0.0);
  const auto& q0 = r0.outs[0].values;
  const auto& k0 = r0.outs[1].values;
  const auto& q1 = r1.outs[0].values;
  const auto& k1 = r1.outs[1].values;
  double worst_units = 0;
  for (std::int64_t h = 0; h < c.n_q_heads; ++h) {
    const std::int64_t g = h / ratio;  // the key head of query head h's group (ABI-QK-3)
    for (std::int64_t t = 0; t < c.n_tokens; ++t) {
      for (std::int64_t u = 0; u < c.n_tokens; ++u) {
        const std::int64_t bq = (t * c.n_q_heads + h) * D, bk = (u * c.n_kv_heads + g) * D;
        double s0 = 0, s1 = 0;
        for (std::int64_t l = 0; l < D; ++l) {
          s0 += static_cast<double>(q0[bq + l]) * k0[bk + l];
          s1 += static_cast<double>(q1[bq + l]) * k1[bk + l];
        }
        for (std::int64_t i = 0; i < half; ++i) {  // NEOX order for the bound: (i, i + half)
          qv[i] = attn * c.q[bq + lane_a(c.layout, c.rotary_dim, i)];
          qv[i + half] = attn * c.q[bq + lane_b(c.layout, c.rotary_dim, i)];
          kv[i] = attn * c.k[bk + lane_a(c.layout, c.rotary_dim, i)];
          kv[i + half] = attn * c.k[bk + lane_b(c.layout, c.rotary_dim, i)];
        }
        angles(t, u, tm, tn, tms, tns);
        // Pass-through lanes are copies: they add the same product to both scores.
        const double bound = oracle::rope_score_bound(b, qv, kv, tm, tn, lf) +
                             oracle::rope_score_bound(b, qv, kv, tms, tns, lf);
        const double diff = std::fabs(s1 - s0);
        const double units = diff == 0 ? 0 : bound > 0 ? diff / bound : INFINITY;
        ctx.observe(c.positions[t], 0, units);
        if (units > worst_units || (std::isnan(diff) && worst_units == 0)) {
          worst_units = std::isnan(diff) ? INFINITY : units;
          report::WorstElement w;
          w.output = "score";
          w.index = {h, t, u};
          w.index_names = {"q_head", "q_token", "k_token"};
          w.flat_index = (h * c.n_tokens + t) * c.n_tokens + u;
          w.position = c.positions[t];
          w.expected = s0;
          w.actual = s1;
          w.abs_error = diff;
          w.ulps = diff / oracle::ulp_of(s0, Format::F32);
          w.contract_units = worst_units;
          fl.worst = w;
          fl.message = "the score <q_out[" + std::to_string(t) + "][" + std::to_string(h) +
                       "], k_out[" + std::to_string(u) + "][" + std::to_string(g) +
                       "]> (query head " + std::to_string(h) + " with key head " +
                       std::to_string(g) + " of its group) " +
                       (std::isnan(diff)  // no distance to speak of: say what is NaN (issue 22)
                            ? std::string("is NaN ") + moved +
                                  " (an output element is NaN: the oracle and written checks say which)"
                            : "moved by " + report::format_real(diff) + " " + moved + ", " +
                                  report::format_real(worst_units) + " times the score contract of class '" +
                                  variant + "' (PREC-SCORE-1)");
        }
      }
    }
  }
  return worst_units;
}

}  // namespace pecheck::verifier::qkcheck
