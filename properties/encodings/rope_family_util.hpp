// Shared parts of the RoPE family properties (rope_family.cpp: attention factor, LongRoPE, Llama 4,
// NoPE; rope_family_mm.cpp: M-RoPE, MLA): printers of the configs, unshrunk config generators,
// head vectors and the double-precision model. Included by those two files only.
#pragma once

#include "reference/rope_family.hpp"


#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cmath>
#include <functional>
#include <iostream>

#include "gen.hpp"
#include "mp_model.hpp"
#include "reference/score_family.hpp"
#include "reference/tolerance.hpp"

namespace pecheck::reference {
inline std::ostream& operator<<(std::ostream& os, const LongRopeConfig& c) {
  return os << "{head_dim=" << c.head_dim << ", rotary_dim=" << c.rotary_dim
            << ", layout=" << to_string(c.layout) << ", base=" << c.base
            << ", position_scale=" << c.position_scale
            << ", original_max=" << c.original_max_position_embeddings
            << ", max_position=" << c.max_position_embeddings
            << ", attention_factor=" << c.attention_factor
            << ", short[0]=" << (c.short_factor.empty() ? 0.0 : c.short_factor[0])
            << ", long[0]=" << (c.long_factor.empty() ? 0.0 : c.long_factor[0]) << "}";
}
inline std::ostream& operator<<(std::ostream& os, const Llama4Config& c) {
  return os << "{head_dim=" << c.rope.head_dim << ", base=" << c.rope.base
            << ", llama3 factor=" << c.rope.scaling.factor << ", chunk=" << c.attention_chunk_size
            << ", floor_scale=" << c.floor_scale << ", attn_scale=" << c.attn_scale
            << ", qk_norm=" << c.use_qk_norm << "}";
}
inline std::ostream& operator<<(std::ostream& os, const MropeConfig& c) {
  return os << "{head_dim=" << c.head_dim << ", base=" << c.base
            << ", position_scale=" << c.position_scale << ", mrope_section=[" << c.section[0] << ","
            << c.section[1] << "," << c.section[2] << "], " << to_string(c.layout) << "}";
}
inline std::ostream& operator<<(std::ostream& os, const MropePosition& p) {
  return os << "(t=" << p.t << ", h=" << p.h << ", w=" << p.w << ")";
}
inline std::ostream& operator<<(std::ostream& os, const MlaConfig& c) {
  return os << "{qk_nope_head_dim=" << c.qk_nope_head_dim
            << ", qk_rope_head_dim=" << c.qk_rope_head_dim << ", base=" << c.rope.base
            << ", yarn factor=" << c.rope.scaling.factor
            << ", mscale=" << c.rope.scaling.yarn_mscale
            << ", mscale_all_dim=" << c.rope.scaling.yarn_mscale_all_dim << "}";
}
}  // namespace pecheck::reference

namespace pecheck::props {
namespace {

using reference::Llama4Config;
using reference::LongRopeConfig;
using reference::MlaConfig;
using reference::MropeConfig;
using reference::MropeLayout;
using reference::MropePosition;

constexpr std::int64_t kMax = reference::kRopeMaxPosition;

template <class C, class Draw>
inline rc::Gen<C> unshrunk(Draw draw) {
  return from_rng<C>(draw, [](const C&) { return std::vector<C>{}; });
}

inline rc::Gen<LongRopeConfig> longrope_config() {
  return unshrunk<LongRopeConfig>([](Rng& r) { return classify::gen_longrope_config(r); });
}
inline rc::Gen<Llama4Config> llama4_config() {
  return unshrunk<Llama4Config>([](Rng& r) { return classify::gen_llama4_config(r); });
}
inline rc::Gen<MropeConfig> mrope_config(MropeLayout l) {
  return unshrunk<MropeConfig>([l](Rng& r) { return classify::gen_mrope_config(r, l); });
}
inline rc::Gen<MlaConfig> mla_config() {
  return unshrunk<MlaConfig>([](Rng& r) { return classify::gen_mla_config(r); });
}

inline ModelDraw draw_model() {
  ModelDraw d;
  d.seed = *model_seed();
  d.d_model = *rc::gen::inRange<std::int64_t>(1, 9);
  return d;
}

// A head vector of `n` reals in [-4, 4] (and signed zeros), shrinking toward 0.
inline std::vector<double> vec(std::int64_t n) {
  return *from_rng<std::vector<double>>(
      [n](Rng& r) {
        std::vector<double> v(static_cast<std::size_t>(n));
        for (auto& x : v) x = r.coin(8) ? (r.coin(2) ? 0.0 : -0.0) : r.uniform(-4.0, 4.0);
        return v;
      },
      [](const std::vector<double>&) { return std::vector<std::vector<double>>{}; });
}

// A double-precision model instance for scores that are compared bit for bit.
struct DModel {
  reference::Projection<double> proj;
  reference::Vec<double> xq, xk;
};
inline DModel dmodel(std::uint64_t seed, std::int64_t d_model, std::int64_t head_dim) {
  Rng r(seed);
  DModel m;
  m.proj.w_q.resize(d_model, head_dim);
  m.proj.w_k.resize(d_model, head_dim);
  m.xq.resize(d_model);
  m.xk.resize(d_model);
  for (auto* a : {&m.proj.w_q, &m.proj.w_k})
    for (Eigen::Index i = 0; i < a->size(); ++i) a->data()[i] = r.uniform(-1.0, 1.0);
  for (auto* a : {&m.xq, &m.xk})
    for (Eigen::Index i = 0; i < a->size(); ++i) a->data()[i] = r.uniform(-1.0, 1.0);
  m.proj.scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
  return m;
}

// MODEL-TOL-1's magnitude of one double score: sigma * a^2 * (Phi + D + 2) * norms.
inline double dmagnitude(const DModel& m, double a2, double phi) {
  const double D = static_cast<double>(m.proj.w_q.rows() + m.proj.w_q.cols());
  return std::fabs(m.proj.scale) * a2 * (phi + D + 2.0) * m.proj.w_q.norm() * m.xq.norm() *
         m.proj.w_k.norm() * m.xk.norm();
}

inline bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

}  // namespace
}  // namespace pecheck::props
