// pec_attention_{f32,bf16,f16} as `classify --kernel` subjects (spec/README.md CLASSIFY-9): what
// the attention output is a function of, read from the kernel's own outputs.
//
// The score. One call per score, one sequence, one query head over one key head: the query at
// position m, key 1 at n with value e0, key 2 at m (the query's own position) with value e1
// (head_dim_v = 2), nothing masked (causal 0, no window; both keys are always visible, so keys
// after the query are measured too), no soft cap. The output is the two softmax weights
// (out0, out1) = (w1, w2), and
//   S(m, n) = log(out0 / out1) = s(m, n) - s(m, m),
// s(m, n) the logit of ABI-ATTN-2 (scale <q', k'> plus the bias). The reference key sits at the
// query's position so that it moves with the query: shifting the whole call by c (m, n and the
// reference) leaves S unchanged exactly when the output does, and a per-row constant (key-only
// ALiBi's slope * q_pos, which the softmax removes) drops out. S depends only on n - m iff the
// attention output of every such row does.
//
// The tolerance (a sound interval, never MODEL-TOL-1's double term): the attention contract of the
// storage type's `field` class (spec/contracts.md PREC-ATTN-1, -3 online for float32, -4 p16 for
// bf16/f16), in the form verify's oracle (src/verify/attention/oracle.cpp) charges it, for this
// row of n = 2 visible keys with one-hot values (S_l = w_l = o_l):
//   |out_l - w_l| <= k w_l + t,   k = expm1(2 E + 20 u [+ 2 u_s]) + 2 u_s + 2^-50,
//   t = 2 tiniest(storage),
// E the largest score error of the row (attention_output_bound). E is formed from upper bounds of
// what the oracle evaluates exactly (the rotated |q'_l k'_l| by the pair norms, |x_j| by
// |scale| A_j + |bias|), so it is never below the oracle's and a kernel that passes verify's
// attention.oracle is inside it; no MPFR rotation is needed per score. Hence the exact weights lie
// in [(out_l - t) / (1 + k), min(1, (out_l + t) / (1 - k))] and the exact S in
//   [log w0_lo - log w1_hi, log w0_hi - log w1_lo];
// the score is that interval's midpoint with half its width as the bound (plus 2^-50 (|ends| + 1)
// for the logs in double). Two scores of a kernel whose exact S is shift-invariant then differ by
// at most the sum of their bounds: rounding is never read as a position dependence. When a lower
// end is <= 0 (a weight below what the output format holds: f16 below about e^-16, float32 and
// bf16 below about e^-100) or k >= 1, the score is unmeasured: its bound is unbounded and it
// agrees with every score (it can neither witness nor refute).
#include "classify/kernel_subjects_attn.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "classify/kernel_subjects_impl.hpp"
#include "oracle/oracle.hpp"
#include "verify/attention/run.hpp"
#include "verify/isolation/storage.hpp"

namespace pecheck::classify::kernel_detail {

using verifier::AttnCase;
using verifier::Fn;
using verifier::Storage;

namespace {

// The bound of an unmeasured score: larger than any difference of two measured ones (|S| stays
// below a few thousand), finite so that products with scores in the engine stay numbers.
constexpr double kUnmeasured = 1e30;

const char* encoding_name(std::int32_t e) {
  return e == PEC_ATTN_ROPE    ? "rope"
         : e == PEC_ATTN_ALIBI ? "alibi"
         : e == PEC_ATTN_T5    ? "t5"
                               : "none";
}
const char* form_name(std::int32_t f) {
  return f == PEC_ATTN_ALIBI_SYMMETRIC  ? "symmetric"
         : f == PEC_ATTN_ALIBI_KEY_ONLY ? "key-only"
                                        : "signed";
}

// The content of one instance: q [1][D], k [2][D] in the storage type.
struct Content {
  std::vector<float> q, k;
};

Content draw_content(Rng& r, std::int64_t D, Storage sto) {
  Content c;
  for (auto* v : {&c.q, &c.k}) {
    v->resize(static_cast<std::size_t>((v == &c.q ? 1 : 2) * D));
    for (auto& e : *v) e = verifier::round_to_storage(r.uniform(-1, 1), sto);
  }
  return c;
}

// S and its bound from one call (see the top of the file).
Score attention_score(State& st, Fn fn, const AttnCase& base, const Content& ct, std::int64_t m,
                      std::int64_t n) {
  AttnCase c = base;
  c.q = ct.q, c.k = ct.k;
  c.q_pos = {m};
  c.k_pos = {n, m};
  const verifier::AttnRunResult r = verifier::run_attention(st.ex, fn, c);
  if (!r.outcome.ok()) call_failed(fn, r.outcome);
  if (r.unwritten > 0 || r.out.size() != 2 || !std::isfinite(r.out[0]) ||
      !std::isfinite(r.out[1])) {
    throw KernelCallError(
        std::string(verifier::symbol(fn)) + " wrote " +
        (r.unwritten > 0 ? "no value to " + r.first_unwritten
                         : fmt::format("out = ({}, {})", r.out[0], r.out[1])) +
        " on a valid call: classify cannot measure it (run `pecheck verify` on the library)");
  }
  const AttnOutputBound b = attention_output_bound(c);
  const double o0 = r.out[0], o1 = r.out[1];
  const double lo0 = (o0 - b.abs) / (1 + b.rel), lo1 = (o1 - b.abs) / (1 + b.rel);
  if (!(b.rel < 1) || !(lo0 > 0) || !(lo1 > 0)) {
    const double tiny = std::numeric_limits<double>::min();
    return Score{std::log(std::max(o0, tiny)) - std::log(std::max(o1, tiny)),
                 magnitude_for(kUnmeasured)};
  }
  const double hi0 = std::min(1.0, (o0 + b.abs) / (1 - b.rel)),
               hi1 = std::min(1.0, (o1 + b.abs) / (1 - b.rel));
  const double lo = std::log(lo0) - std::log(hi1), hi = std::log(hi0) - std::log(lo1);
  const double half = 0.5 * (hi - lo) + 0x1p-50 * (std::fabs(lo) + std::fabs(hi) + 1.0);
  return Score{0.5 * (lo + hi), magnitude_for(half)};
}

}  // namespace

AttnOutputBound attention_output_bound(const AttnCase& c) {
  constexpr double u = 0x1p-24;  // float32 arithmetic
  const Storage sto = c.storage;
  const bool p16 = sto != Storage::F32;
  const double us = sto == Storage::F32 ? 0x1p-24 : sto == Storage::BF16 ? 0x1p-8 : 0x1p-11;
  const double tiniest = sto == Storage::F32 ? 0x1p-149 : sto == Storage::BF16 ? 0x1p-133 : 0x1p-24;
  const std::int64_t D = c.head_dim, half = c.encoding == PEC_ATTN_ROPE ? c.rotary_dim / 2 : 0;
  const double as = std::fabs(c.scale);
  const std::int64_t qp = c.q_pos.at(0);
  auto lane = [&](std::int64_t i, bool b) {
    return static_cast<std::size_t>(c.rope_layout == PEC_ROPE_NEOX ? i + (b ? half : 0)
                                                                   : 2 * i + (b ? 1 : 0));
  };
  // PREC-ATTN-1's float32 angle error of pair i at position p (PREC-ROPE-3/4).
  auto delta = [&](std::int64_t p, std::int64_t i) {
    const double f = c.has_inv_freq ? static_cast<double>(c.inv_freq[static_cast<std::size_t>(i)])
                                    : std::pow(c.theta_base, -2.0 * static_cast<double>(i) /
                                                                 static_cast<double>(c.rotary_dim));
    return c.attn_factor * u *
           (8.0 + 6.0 * std::fabs(static_cast<double>(p) * c.position_scale * f));
  };
  double E[2] = {0, 0}, X[2] = {0, 0};
  for (std::size_t j = 0; j < 2; ++j) {
    const std::int64_t kp = c.k_pos.at(j);
    const float* q = c.q.data();
    const float* k = c.k.data() + j * static_cast<std::size_t>(D);
    // A_j = sum |q'_l k'_l|: pass-through lanes as they are; a rotated pair (scaled by
    // attn_factor) has |q'_a k'_a| + |q'_b k'_b| <= attn_factor^2 |q_pair| |k_pair|
    // (Cauchy-Schwarz, the rotation keeps the norm), and |q'_a| + |q'_b| <= sqrt(2) attn_factor
    // |q_pair| in R_j.
    double A = 0, R = 0;
    for (std::int64_t l = 2 * half; l < D; ++l) A += std::fabs(static_cast<double>(q[l]) * k[l]);
    for (std::int64_t i = 0; i < half; ++i) {
      const double nq = std::hypot(q[lane(i, false)], q[lane(i, true)]) * std::fabs(c.attn_factor);
      const double nk = std::hypot(k[lane(i, false)], k[lane(i, true)]) * std::fabs(c.attn_factor);
      A += nq * nk;
      R += as * 2.0 * nq * nk * (delta(qp, i) + delta(kp, i));
    }
    double bias = 0, ambiguous = 0;
    if (c.encoding == PEC_ATTN_ALIBI) {
      bias = verifier::attn_alibi_bias(c, 0, qp, kp);
    } else if (c.encoding == PEC_ATTN_T5) {
      const oracle::T5Bucket bk =
          oracle::t5_bucket(kp - qp, c.t5_num_buckets, c.t5_max_distance, c.t5_bidirectional != 0);
      bias = c.t5_table[static_cast<std::size_t>(bk.bucket * c.n_q_heads)];
      if (bk.ambiguous)
        ambiguous =
            std::fabs(c.t5_table[static_cast<std::size_t>(bk.alternative * c.n_q_heads)] - bias);
    }
    X[j] = as * A + std::fabs(bias);
    E[j] = (static_cast<double>(D) + 2.0) * u * as * A + R + 3.0 * u * std::fabs(bias) + ambiguous +
           u * X[j] + (p16 && c.encoding == PEC_ATTN_ROPE ? 2.0 * us * as * A : 0.0);
  }
  // Online softmax (and p16): the folded scale and running maximum add 3u (|x_j| + |m|) to each
  // score error; n = 2 keys: (5n + 10) u; p16 adds 2 u_s to the exponent.
  const double mx = std::max(X[0], X[1]);
  double emax = 0;
  for (std::size_t j = 0; j < 2; ++j) emax = std::max(emax, E[j] + 3.0 * u * (X[j] + mx));
  emax *= 1.0 + 0x1p-40;  // the sums above in double, against the oracle's own
  const double rel = std::expm1(2.0 * emax + 20.0 * u + (p16 ? 2.0 * us : 0.0));
  return AttnOutputBound{rel + 2.0 * us + 0x1p-50, 2.0 * tiniest};
}

Subject attention_subject(const std::shared_ptr<State>& st, Storage sto, std::int32_t encoding,
                          std::int32_t variant) {
  const Fn fn = verifier::fn_of(verifier::Family::Attention, sto);
  Subject s;
  s.name = "kernel:" + std::string(verifier::symbol(fn)) + ":" + encoding_name(encoding);
  if (encoding == PEC_ATTN_ALIBI) s.name += std::string("-") + form_name(variant);
  if (encoding == PEC_ATTN_T5) s.name += variant ? "-bidirectional" : "-unidirectional";
  s.family = encoding == PEC_ATTN_NONE ? "nope" : encoding_name(encoding);
  s.max_position = verifier::max_position_for(st->domain, "attention", st->opt.max_position) + 1;
  s.instance = [st, sto, fn, encoding, variant](std::uint64_t seed) {
    Rng r(seed);
    AttnCase c;
    c.storage = sto;
    c.q_len = {1}, c.k_len = {2};
    c.n_q_heads = c.n_kv_heads = 1;
    c.head_dim = pick(r, {}, 2, 128, true);
    c.head_dim_v = 2;
    c.v = {1.0f, 0.0f, 0.0f, 1.0f};  // key 1 -> lane 0, key 2 -> lane 1
    c.scale = 1.0 / std::sqrt(static_cast<double>(c.head_dim));
    c.softcap = 0, c.causal = 0, c.window_left = c.window_right = -1;
    c.encoding = encoding;
    c.want_lse = true;
    c.slopes = {0.0f};
    std::string cfg = fmt::format("head_dim={}", c.head_dim);
    if (encoding == PEC_ATTN_ROPE) {
      c.rotary_dim = r.coin(2) ? c.head_dim : 2 * r.range(1, c.head_dim / 2);
      c.rope_layout = static_cast<std::int32_t>(r.range(0, 1));
      c.theta_base = r.coin(2) ? 10000.0 : 500000.0;
      cfg += fmt::format(" rotary_dim={} layout={} theta_base={}", c.rotary_dim,
                         c.rope_layout == PEC_ROPE_NEOX ? "neox" : "gptj", c.theta_base);
    } else if (encoding == PEC_ATTN_ALIBI) {
      // Slopes 2^-4 .. 2^-10 (the smaller geometric slopes of 8 to 64 heads and below): the logit
      // gaps of nearby pairs stay within what the output format holds, so they are measured.
      c.alibi_form = variant;
      c.slopes = {static_cast<float>(std::exp2(-r.uniform(4.0, 10.0)))};
      cfg += fmt::format(" alibi_form={} slope={}", form_name(variant), c.slopes[0]);
    } else if (encoding == PEC_ATTN_T5) {
      // T5's own configuration (32 buckets, max_distance 128), a random table in [-1, 1].
      c.t5_num_buckets = 32, c.t5_max_distance = 128, c.t5_bidirectional = variant;
      c.t5_table.resize(32);
      for (auto& e : c.t5_table) e = static_cast<float>(r.uniform(-1, 1));
      cfg += fmt::format(" t5 num_buckets=32 max_distance=128 bidirectional={} (random table)",
                         variant);
    }
    const auto base = std::make_shared<const AttnCase>(std::move(c));
    const auto a = std::make_shared<const Content>(draw_content(r, base->head_dim, sto));
    const auto b = std::make_shared<const Content>(draw_content(r, base->head_dim, sto));
    Instance in;
    in.config = cfg + fmt::format(
                          " storage={} scale=1/sqrt(head_dim) causal=0; score = log(out0/out1) = "
                          "s(m,n) - s(m,m): "
                          "query at m, keys at n (v=e0) and m (v=e1), q, k in [-1, 1]",
                          verifier::storage_name(sto));
    auto scorer = [st, fn, base](std::shared_ptr<const Content> ct) {
      return [st, fn, base, ct](std::int64_t m, std::int64_t n) {
        return attention_score(*st, fn, *base, *ct, m, n);
      };
    };
    in.score = scorer(a);
    in.score_other_content = scorer(b);
    return in;
  };
  return s;
}

}  // namespace pecheck::classify::kernel_detail
