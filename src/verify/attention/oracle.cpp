// The attention oracle and its budgets (oracle.hpp; spec/contracts.md PREC-ATTN-1..6).
#include "verify/attention/oracle.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "oracle/dd.hpp"
#include "oracle/oracle.hpp"

namespace pecheck::verifier {

namespace {

using oracle::DoubleDouble;
constexpr double kU = 0x1p-24;  // float32 arithmetic

double unit_roundoff(Storage s) { return s == Storage::F32 ? 0x1p-24 : s == Storage::BF16 ? 0x1p-8 : 0x1p-11; }
double tiniest(Storage s) { return s == Storage::F32 ? 0x1p-149 : s == Storage::BF16 ? 0x1p-133 : 0x1p-24; }

// Dense rotated tensor (double-double), times attn_factor; the input itself without RoPE.
std::vector<DoubleDouble> rotated(const AttnCase& c, const std::vector<float>& x, std::int64_t T, std::int64_t H,
                                  const std::vector<std::int64_t>& pos) {
  std::vector<DoubleDouble> y(x.size());
  if (c.encoding != PEC_ATTN_ROPE || x.empty()) {
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = {static_cast<double>(x[i]), 0.0};
    return y;
  }
  const pec_rope_args a{T, H, c.head_dim, c.rotary_dim, c.rope_layout, c.theta_base, c.position_scale, pos.data(),
                        c.has_inv_freq ? c.inv_freq.data() : nullptr};
  oracle::rope_block_exact(a, x.data(), y.data(), nullptr);
  if (c.attn_factor != 1.0) {
    const std::int64_t D = c.head_dim;
    for (std::size_t i = 0; i < y.size(); ++i) {
      if (static_cast<std::int64_t>(i) % D < c.rotary_dim) y[i] = oracle::dd::mul_d(c.attn_factor, y[i]);
    }
  }
  return y;
}

}  // namespace

const char* attn_class_name(AttnClass c) {
  return c == AttnClass::Eager ? "eager" : c == AttnClass::Online ? "online" : "p16";
}
AttnClass attn_field_class(Storage s) { return s == Storage::F32 ? AttnClass::Online : AttnClass::P16; }
AttnClass attn_class_named(const std::string& name, Storage s) {
  if (name == "eager") return AttnClass::Eager;
  if (name == "online") return AttnClass::Online;
  if (name == "p16") return AttnClass::P16;
  return attn_field_class(s);
}

AttnExact attention_exact(const AttnCase& c, std::int64_t shift, AttnClass cls) {
  AttnExact e;
  const std::int64_t Tq = c.total_q(), Hq = c.n_q_heads, D = c.head_dim, Dv = c.head_dim_v, Hkv = c.n_kv_heads;
  const std::int64_t G = c.group();
  std::vector<std::int64_t> qp = c.q_pos, kp = c.k_pos;
  for (auto& p : qp) p += shift;
  for (auto& p : kp) p += shift;
  const std::vector<DoubleDouble> q = rotated(c, c.q, Tq, Hq, qp), k = rotated(c, c.k, c.total_k(), Hkv, kp);
  const double us = unit_roundoff(c.storage);
  // Rotation error of a float32 RoPE per frequency pair at position p (PREC-ATTN-1, after
  // PREC-ROPE-3/4): attn_factor u (8 + 6 |theta|).
  const std::int64_t half = c.encoding == PEC_ATTN_ROPE ? c.rotary_dim / 2 : 0;
  std::vector<double> freq(static_cast<std::size_t>(half));
  for (std::int64_t i = 0; i < half; ++i)
    freq[static_cast<std::size_t>(i)] = c.has_inv_freq ? static_cast<double>(c.inv_freq[static_cast<std::size_t>(i)])
                                                       : std::pow(c.theta_base, -2.0 * static_cast<double>(i) / static_cast<double>(c.rotary_dim));
  auto rot_err = [&](std::int64_t p, std::int64_t i) {
    return c.attn_factor * kU * (8.0 + 6.0 * static_cast<double>(p) * c.position_scale * freq[static_cast<std::size_t>(i)]);
  };
  auto lane_a = [&](std::int64_t i) { return c.rope_layout == PEC_ROPE_NEOX ? i : 2 * i; };
  auto lane_b = [&](std::int64_t i) { return c.rope_layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1; };

  e.out.assign(static_cast<std::size_t>(Tq * Hq * Dv), 0.0);
  for (auto& b : e.class_bound) b.assign(e.out.size(), 0.0);
  e.weight_sum.assign(e.out.size(), 0.0);
  e.lse.assign(static_cast<std::size_t>(Tq * Hq), -std::numeric_limits<double>::infinity());
  e.lse_bound.assign(e.lse.size(), 0.0);
  e.empty.assign(e.lse.size(), 1);
  const auto qs = c.q_start(), ks = c.k_start();
  std::vector<long double> X;
  std::vector<double> E, E16, A;
  std::vector<std::int64_t> J;
  for (std::int64_t s = 0; s < c.n_seqs(); ++s) {
    for (std::int64_t i = qs[static_cast<std::size_t>(s)]; i < qs[static_cast<std::size_t>(s) + 1]; ++i) {
      for (std::int64_t h = 0; h < Hq; ++h) {
        const std::int64_t g = h / G;
        X.clear(), E.clear(), E16.clear(), J.clear();
        const DoubleDouble* qv = &q[static_cast<std::size_t>((i * Hq + h) * D)];
        for (std::int64_t j = ks[static_cast<std::size_t>(s)]; j < ks[static_cast<std::size_t>(s) + 1]; ++j) {
          const std::int64_t qpos = qp[static_cast<std::size_t>(i)], kpos = kp[static_cast<std::size_t>(j)];
          if (!attn_visible(c, qpos, kpos)) continue;
          const DoubleDouble* kv = &k[static_cast<std::size_t>((j * Hkv + g) * D)];
          DoubleDouble dot{0, 0};
          double mag = 0;
          for (std::int64_t l = 0; l < D; ++l) {
            const DoubleDouble p = oracle::dd::two_prod(qv[l].hi, kv[l].hi);
            const double cross = qv[l].hi * kv[l].lo + qv[l].lo * kv[l].hi;
            dot = oracle::dd::add(dot, {p.hi, p.lo + cross});
            mag += std::fabs(qv[l].hi * kv[l].hi);
          }
          const DoubleDouble sd = oracle::dd::mul_d(c.scale, dot);
          long double x = static_cast<long double>(sd.hi) + static_cast<long double>(sd.lo);
          const double as = std::fabs(c.scale);
          double err = (static_cast<double>(D) + 2.0) * kU * as * mag;
          // p16 only: rotated q, k stored in 16 bits
          const double err16 = c.encoding == PEC_ATTN_ROPE ? 2.0 * us * as * mag : 0.0;
          for (std::int64_t pi = 0; pi < half; ++pi) {
            const std::int64_t la = lane_a(pi), lb = lane_b(pi);
            const double qa = std::fabs(qv[la].hi) + std::fabs(qv[lb].hi), ka = std::fabs(kv[la].hi) + std::fabs(kv[lb].hi);
            err += as * qa * ka * (rot_err(qpos, pi) + rot_err(kpos, pi));
          }
          if (c.softcap > 0) {
            x = static_cast<long double>(c.softcap) * std::tanh(x / static_cast<long double>(c.softcap));
            err += 4.0 * kU * c.softcap;
          }
          if (c.encoding == PEC_ATTN_ALIBI) {
            const double b = attn_alibi_bias(c, h, qpos, kpos);
            x += b;
            err += 3.0 * kU * std::fabs(b);
          } else if (c.encoding == PEC_ATTN_T5) {
            const oracle::T5Bucket bk = oracle::t5_bucket(kpos - qpos, c.t5_num_buckets, c.t5_max_distance, c.t5_bidirectional != 0);
            const double b = c.t5_table[static_cast<std::size_t>(bk.bucket * Hq + h)];
            x += b;
            if (bk.ambiguous) {  // ABI-T5-2: the neighbouring bucket is accepted too
              err += std::fabs(c.t5_table[static_cast<std::size_t>(bk.alternative * Hq + h)] - b);
              ++e.ambiguous_t5;
            }
          }
          err += kU * std::fabs(static_cast<double>(x));  // the bias addition
          X.push_back(x), E.push_back(err), E16.push_back(err16), J.push_back(j);
        }
        const std::size_t row = static_cast<std::size_t>(i * Hq + h);
        if (X.empty()) continue;  // out = 0, lse = -inf, both exactly
        e.empty[row] = 0;
        const long double m = *std::max_element(X.begin(), X.end());
        long double l = 0;
        std::vector<long double> w(X.size());
        for (std::size_t t = 0; t < X.size(); ++t) l += (w[t] = std::exp(X[t] - m));
        // The exponent of each class (PREC-ATTN-2..4): the largest score error (online softmax
        // folds the scale into exp2 and subtracts a running max in float32; p16 stores the rotated
        // q, k in 16 bits) and the softmax and P.V rounding of n terms.
        double emax[3] = {0, 0, 0};
        for (std::size_t t = 0; t < X.size(); ++t) {
          w[t] /= l;
          const double fold = 3.0 * kU * (std::fabs(static_cast<double>(X[t])) + std::fabs(static_cast<double>(m)));
          emax[0] = std::max(emax[0], E[t]);
          emax[1] = std::max(emax[1], E[t] + fold);
          emax[2] = std::max(emax[2], E[t] + E16[t] + fold);
        }
        const double n = static_cast<double>(X.size());
        const double cns[3] = {2.0 * n + 6.0, 5.0 * n + 10.0, 5.0 * n + 10.0};
        double rel[3];
        for (int k = 0; k < 3; ++k) rel[k] = std::expm1(2.0 * emax[k] + cns[k] * kU + (k == 2 ? 2.0 * us : 0.0));
        for (std::int64_t lane = 0; lane < Dv; ++lane) {
          long double o = 0;
          double S = 0;
          for (std::size_t t = 0; t < X.size(); ++t) {
            const double vv = c.v[static_cast<std::size_t>((J[t] * Hkv + g) * Dv + lane)];
            o += w[t] * vv;
            S += static_cast<double>(w[t]) * std::fabs(vv);
          }
          const std::size_t k2 = row * static_cast<std::size_t>(Dv) + static_cast<std::size_t>(lane);
          e.out[k2] = static_cast<double>(o);
          e.weight_sum[k2] = S;
          for (int k = 0; k < 3; ++k)
            e.class_bound[static_cast<std::size_t>(k)][k2] =
                S * rel[k] + 2.0 * us * std::fabs(static_cast<double>(o)) + 2.0 * tiniest(c.storage) + 0x1p-50 * S;
        }
        const int ci = static_cast<int>(cls);
        e.lse[row] = static_cast<double>(m + std::log(l));
        e.lse_bound[row] = emax[ci] + cns[ci] * kU + 2.0 * kU * std::fabs(e.lse[row]) + 0x1p-50;
      }
    }
  }
  e.out_bound = e.class_bound[static_cast<std::size_t>(cls)];
  return e;
}

}  // namespace pecheck::verifier
