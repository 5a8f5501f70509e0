// The built-in subjects of `pecheck classify`: every encoding and variant of spec/ as a score
// function of a random model instance, built on the reference score model in double.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>

#include "classify/engine.hpp"
#include "classify/generators.hpp"
#include "reference/score_family.hpp"

namespace pecheck::classify {

namespace {

using reference::Mat;
using reference::Projection;
using reference::Vec;

// Random model parts: entries uniform in [-1, 1].
struct Model {
  Projection<double> proj;
  Vec<double> xq, xk;
};

Model make_model(Rng& r, std::int64_t d_model, std::int64_t head_dim) {
  Model md;
  auto fill = [&](auto& m) {
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = r.uniform(-1.0, 1.0);
  };
  md.proj.w_q.resize(d_model, head_dim);
  md.proj.w_k.resize(d_model, head_dim);
  md.xq.resize(d_model);
  md.xk.resize(d_model);
  fill(md.proj.w_q);
  fill(md.proj.w_k);
  fill(md.xq);
  fill(md.xk);
  md.proj.scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
  return md;
}

// The same model with freshly drawn token embeddings (the projections are kept).
Model with_other_content(const Model& md, Rng& r) {
  Model o = md;
  for (Eigen::Index i = 0; i < o.xq.size(); ++i) o.xq(i) = r.uniform(-1.0, 1.0);
  for (Eigen::Index i = 0; i < o.xk.size(); ++i) o.xk(i) = r.uniform(-1.0, 1.0);
  return o;
}

// The instance's two score functions from one scorer of (model, m, n): the drawn model, then
// the same model with fresh token embeddings (drawn from r here, after the model: the order of
// the draws is part of what a seed reproduces).
template <class ScoreFn>
void set_scores(Instance& in, ScoreFn fn, const std::shared_ptr<Model>& md, Rng& r) {
  in.score = [fn, md](std::int64_t m, std::int64_t n) { return fn(*md, m, n); };
  auto other = std::make_shared<Model>(with_other_content(*md, r));
  in.score_other_content = [fn, other](std::int64_t m, std::int64_t n) { return fn(*other, m, n); };
}


// MODEL-TOL-1's magnitude for one score: sigma * a^2 * (Phi + D + 2) * |Wq| |xq~| |Wk| |xk~| + |b|.
double magnitude(const Model& md, const Vec<double>& xq, const Vec<double>& xk, double a,
                 double phi, double bias) {
  const double D = static_cast<double>(md.proj.w_q.rows() + md.proj.w_q.cols());
  return std::fabs(md.proj.scale) * a * a * (phi + D + 2.0) * md.proj.w_q.norm() * xq.norm() *
             md.proj.w_k.norm() * xk.norm() +
         (std::isfinite(bias) ? std::fabs(bias) : 0.0);
}

Subject sinusoidal_subject(reference::SinusoidalLayout layout) {
  Subject s;
  s.name = layout == reference::SinusoidalLayout::Interleaved ? "sinusoidal" : "sinusoidal-concat";
  s.family = "sinusoidal";
  s.instance = [layout](std::uint64_t seed) {
    Rng r(seed);
    reference::SinusoidalConfig c;
    c.layout = layout;
    c.d_model = 2 * r.range(2, 12);
    c.base = r.coin(2) ? 10000.0 : r.uniform(2.0, 1.0e5);
    auto md = std::make_shared<Model>(make_model(r, c.d_model, r.range(2, 16)));
    Instance in;
    in.config =
        fmt::format("d_model={} base={} head_dim={}", c.d_model, c.base, md->proj.w_q.cols());
    auto fn = [c](const Model& mdl, std::int64_t m, std::int64_t n) {
      const double v = reference::score_sinusoidal<double>(c, mdl.proj, mdl.xq, mdl.xk, m, n);
      const Vec<double> pm = reference::detail::to_vec(reference::sinusoidal_encode<double>(c, m));
      const Vec<double> pn = reference::detail::to_vec(reference::sinusoidal_encode<double>(c, n));
      const double phi = static_cast<double>(std::max(m, n));  // max w_i = 1
      return Score{v, magnitude(mdl, mdl.xq + pm, mdl.xk + pn, 1.0, phi, 0.0)};
    };
    set_scores(in, fn, md, r);
    return in;
  };
  return s;
}

Subject learned_subject() {
  Subject s;
  s.name = "learned";
  s.family = "learned";
  s.max_position = 2048;  // the drawn tables have at least this many rows
  s.instance = [](std::uint64_t seed) {
    Rng r(seed);
    reference::LearnedConfig c;
    c.max_positions = 2048;
    c.d_model = r.range(1, 12);
    auto table = std::make_shared<std::vector<double>>(
        static_cast<std::size_t>(c.max_positions * c.d_model));
    for (auto& t : *table) t = r.uniform(-1.0, 1.0);
    auto md = std::make_shared<Model>(make_model(r, c.d_model, r.range(2, 16)));
    Instance in;
    in.config = fmt::format("max_positions={} d_model={} head_dim={}", c.max_positions, c.d_model,
                            md->proj.w_q.cols());
    auto fn = [c, table](const Model& mdl, std::int64_t m, std::int64_t n) {
      const std::span<const double> t(*table);
      const double v = reference::score_learned<double>(c, t, mdl.proj, mdl.xq, mdl.xk, m, n);
      const Vec<double> pm = reference::detail::to_vec(reference::learned_encode<double>(c, t, m));
      const Vec<double> pn = reference::detail::to_vec(reference::learned_encode<double>(c, t, n));
      return Score{v, magnitude(mdl, mdl.xq + pm, mdl.xk + pn, 1.0, 0.0, 0.0)};
    };
    set_scores(in, fn, md, r);
    return in;
  };
  return s;
}

Subject t5_subject(bool bidirectional) {
  Subject s;
  s.name = bidirectional ? "t5-bidirectional" : "t5-causal";
  s.family = "t5";
  s.instance = [bidirectional](std::uint64_t seed) {
    Rng r(seed);
    const reference::T5Config c = gen_t5_config(r, bidirectional);
    auto table =
        std::make_shared<std::vector<double>>(static_cast<std::size_t>(c.num_buckets * c.n_heads));
    for (auto& t : *table) t = r.uniform(-4.0, 4.0);
    const std::int64_t h = r.range(0, c.n_heads - 1);
    auto md = std::make_shared<Model>(make_model(r, r.range(2, 12), r.range(2, 16)));
    Instance in;
    in.config = fmt::format("num_buckets={} max_distance={} n_heads={} head={}", c.num_buckets,
                            c.max_distance, c.n_heads, h);
    auto fn = [c, table, h](const Model& mdl, std::int64_t m, std::int64_t n) {
      const std::span<const double> t(*table);
      const double v = reference::score_t5<double>(c, t, h, mdl.proj, mdl.xq, mdl.xk, m, n);
      const double b = reference::t5_bias<double>(c, t, h, m, n);
      return Score{v, magnitude(mdl, mdl.xq, mdl.xk, 1.0, 0.0, b)};
    };
    set_scores(in, fn, md, r);
    return in;
  };
  return s;
}

Subject alibi_subject(reference::AlibiMode mode) {
  Subject s;
  s.name = std::string("alibi-") + reference::to_string(mode);
  s.family = "alibi";
  s.instance = [mode](std::uint64_t seed) {
    Rng r(seed);
    const std::int64_t heads = gen_heads(r);
    const std::int64_t h = r.range(0, heads - 1);
    const double slope = reference::alibi_slope<double>(heads, h);
    auto md = std::make_shared<Model>(make_model(r, r.range(2, 12), r.range(2, 16)));
    Instance in;
    in.config = fmt::format("n_heads={} head={} slope={:a}", heads, h, slope);
    auto fn = [mode, slope](const Model& mdl, std::int64_t m, std::int64_t n) {
      const double v = reference::score_alibi<double>(mode, slope, mdl.proj, mdl.xq, mdl.xk, m, n);
      const double b = reference::alibi_bias<double>(mode, slope, m, n);
      return Score{v, magnitude(mdl, mdl.xq, mdl.xk, 1.0, 0.0, b)};
    };
    set_scores(in, fn, md, r);
    return in;
  };
  return s;
}

Subject rope_subject(std::string name, reference::RopeScaling kind, reference::RopeLayout layout,
                     bool partial) {
  Subject s;
  s.name = std::move(name);
  s.family = "rope";
  s.instance = [kind, layout, partial](std::uint64_t seed) {
    Rng r(seed);
    const reference::RopeConfig c = gen_rope_config(r, kind, layout, partial);
    auto md = std::make_shared<Model>(make_model(r, r.range(2, 16), c.head_dim));
    const double a = reference::rope_attention_factor<double>(c);
    Instance in;
    in.config = fmt::format(
        "head_dim={} rotary_dim={} layout={} base={} position_scale={} scaling={} factor={} "
        "original_max={}",
        c.head_dim, c.rotary_dim, reference::to_string(c.layout), c.base, c.position_scale,
        reference::to_string(kind), c.scaling.factor, c.scaling.original_max_positions);
    auto fn = [c, a](const Model& mdl, std::int64_t m, std::int64_t n) {
      const double v = reference::score_rope<double>(c, mdl.proj, mdl.xq, mdl.xk, m, n);
      const auto f = reference::rope_inv_freq<double>(c, std::max(m, n) + 1);
      double fmax = 0;
      for (double x : f) fmax = std::max(fmax, x);
      const double phi = static_cast<double>(std::max(m, n)) * c.position_scale * fmax;
      return Score{v, magnitude(mdl, mdl.xq, mdl.xk, a, phi, 0.0)};
    };
    set_scores(in, fn, md, r);
    return in;
  };
  return s;
}

// ROPE-LONG-*: Phi-3-style LongRoPE. Regime: the factor table (short / long) of the pair.
Subject longrope_subject() {
  Subject s;
  s.name = "rope-longrope";
  s.family = "rope";
  s.regime_function_of =
      "n - m within one factor table (short: max(m,n)+1 <= original_max, long beyond)";
  s.instance = [](std::uint64_t seed) {
    Rng r(seed);
    const reference::LongRopeConfig c = gen_longrope_config(r);
    auto md = std::make_shared<Model>(make_model(r, r.range(2, 16), c.head_dim));
    const double a = reference::longrope_attention_factor<double>(c);
    Instance in;
    in.config = fmt::format(
        "head_dim={} rotary_dim={} layout={} base={} position_scale={} original_max={} "
        "max_position={} attention_factor={}",
        c.head_dim, c.rotary_dim, reference::to_string(c.layout), c.base, c.position_scale,
        c.original_max_position_embeddings, c.max_position_embeddings, a);
    auto fn = [c, a](const Model& mdl, std::int64_t m, std::int64_t n) {
      const double v = reference::score_longrope<double>(c, mdl.proj, mdl.xq, mdl.xk, m, n);
      const auto f = reference::longrope_inv_freq<double>(c, std::max(m, n) + 1);
      const double fmax = *std::max_element(f.begin(), f.end());
      const double phi = static_cast<double>(std::max(m, n)) * c.position_scale * fmax;
      return Score{v, magnitude(mdl, mdl.xq, mdl.xk, a, phi, 0.0)};
    };
    set_scores(in, fn, md, r);
    in.regime = [c](std::int64_t m, std::int64_t n) {
      return std::int64_t{reference::longrope_uses_long(c, std::max(m, n) + 1)};
    };
    return in;
  };
  return s;
}

// ROPE-L4-2 / -4: a RoPE layer (chunked attention). Regime: whether m and n share a chunk.
Subject llama4_rope_subject() {
  Subject s;
  s.name = "llama4-rope-chunked";
  s.family = "rope";
  s.regime_function_of =
      "n - m while m and n share a chunk of attention_chunk_size (masked, -inf, across chunks)";
  s.instance = [](std::uint64_t seed) {
    Rng r(seed);
    const reference::Llama4Config c = gen_llama4_config(r);
    auto md = std::make_shared<Model>(make_model(r, r.range(2, 16), c.rope.head_dim));
    Instance in;
    in.config =
        fmt::format("head_dim={} base={} llama3 factor={} chunk={} qk_norm={}", c.rope.head_dim,
                    c.rope.base, c.rope.scaling.factor, c.attention_chunk_size, c.use_qk_norm);
    auto fn = [c](const Model& mdl, std::int64_t m, std::int64_t n) {
      const double v = reference::score_llama4<double>(c, true, mdl.proj, mdl.xq, mdl.xk, m, n);
      const auto f = reference::rope_inv_freq<double>(c.rope);
      const double fmax = *std::max_element(f.begin(), f.end());
      const double phi = static_cast<double>(std::max(m, n)) * c.rope.position_scale * fmax;
      if (!c.use_qk_norm) return Score{v, magnitude(mdl, mdl.xq, mdl.xk, 1.0, phi, 0.0)};
      // ROPE-L4-4: normalised q and k have norm <= sqrt(head_dim); the mean of squares adds
      // head_dim terms to the dot-product length.
      const double hd = static_cast<double>(c.rope.head_dim);
      const double D = static_cast<double>(mdl.proj.w_q.rows()) + 2.0 * hd;
      return Score{v, std::fabs(mdl.proj.scale) * (phi + D + 2.0) * hd};
    };
    set_scores(in, fn, md, r);
    const std::int64_t C = c.attention_chunk_size;
    in.regime = [C](std::int64_t m, std::int64_t n) { return std::int64_t{m / C == n / C}; };
    return in;
  };
  return s;
}

// ROPE-L4-3: a NoPE layer with attention temperature tuning (causal, full attention).
Subject llama4_nope_subject() {
  Subject s;
  s.name = "llama4-nope-temperature";
  s.family = "nope";
  s.instance = [](std::uint64_t seed) {
    Rng r(seed);
    const reference::Llama4Config c = gen_llama4_config(r);
    auto md = std::make_shared<Model>(make_model(r, r.range(2, 16), c.rope.head_dim));
    Instance in;
    in.config = fmt::format("head_dim={} floor_scale={} attn_scale={}", c.rope.head_dim,
                            c.floor_scale, c.attn_scale);
    auto fn = [c](const Model& mdl, std::int64_t m, std::int64_t n) {
      const double v = reference::score_llama4<double>(c, false, mdl.proj, mdl.xq, mdl.xk, m, n);
      const double tau = reference::llama4_attn_temperature<double>(c, m);
      return Score{v, magnitude(mdl, mdl.xq, mdl.xk, std::sqrt(tau), 0.0, 0.0)};
    };
    set_scores(in, fn, md, r);
    return in;
  };
  return s;
}

// ROPE-NOPE-1: no positional term, causal mask.
Subject nope_subject() {
  Subject s;
  s.name = "nope";
  s.family = "nope";
  s.instance = [](std::uint64_t seed) {
    Rng r(seed);
    auto md = std::make_shared<Model>(make_model(r, r.range(2, 12), r.range(2, 16)));
    Instance in;
    in.config =
        fmt::format("d_model={} head_dim={} causal", md->proj.w_q.rows(), md->proj.w_q.cols());
    auto fn = [](const Model& mdl, std::int64_t m, std::int64_t n) {
      const double v = reference::score_nope<double>(mdl.proj, mdl.xq, mdl.xk, m, n, true);
      return Score{v, magnitude(mdl, mdl.xq, mdl.xk, 1.0, 0.0, 0.0)};
    };
    set_scores(in, fn, md, r);
    return in;
  };
  return s;
}

// ROPE-MROPE-*: 3-axis positions; the 1-D score is the text tokens' (t = h = w).
Subject mrope_subject(reference::MropeLayout layout) {
  Subject s;
  s.name = layout == reference::MropeLayout::Sectioned ? "mrope-qwen2-vl" : "mrope-qwen3-vl";
  s.family = "rope";
  s.axes = 3;
  s.instance = [layout](std::uint64_t seed) {
    Rng r(seed);
    const reference::MropeConfig c = gen_mrope_config(r, layout);
    auto md = std::make_shared<Model>(make_model(r, r.range(2, 16), c.head_dim));
    Instance in;
    in.config = fmt::format("head_dim={} base={} position_scale={} mrope_section=[{},{},{}] {}",
                            c.head_dim, c.base, c.position_scale, c.section[0], c.section[1],
                            c.section[2], reference::to_string(c.layout));
    auto fn = [c](const Model& mdl, const Position3& m, const Position3& n) {
      const reference::MropePosition pm{m[0], m[1], m[2]}, pn{n[0], n[1], n[2]};
      const double v = reference::score_mrope<double>(c, mdl.proj, mdl.xq, mdl.xk, pm, pn);
      const auto f = reference::mrope_inv_freq<double>(c);
      const double fmax = *std::max_element(f.begin(), f.end());
      std::int64_t top = 0;
      for (int a = 0; a < 3; ++a) top = std::max({top, m[a], n[a]});
      const double phi = static_cast<double>(top) * c.position_scale * fmax;
      return Score{v, magnitude(mdl, mdl.xq, mdl.xk, 1.0, phi, 0.0)};
    };
    in.score3 = [fn, md](const Position3& m, const Position3& n) { return fn(*md, m, n); };
    in.score = [fn, md](std::int64_t m, std::int64_t n) {
      return fn(*md, Position3{m, m, m}, Position3{n, n, n});
    };
    auto other = std::make_shared<Model>(with_other_content(*md, r));
    in.score_other_content = [fn, other](std::int64_t m, std::int64_t n) {
      return fn(*other, Position3{m, m, m}, Position3{n, n, n});
    };
    return in;
  };
  return s;
}

// ROPE-MLA-*: DeepSeek's decoupled RoPE (rope slice of one head, YaRN, mscale softmax scale).
Subject mla_subject() {
  Subject s;
  s.name = "rope-mla-deepseek";
  s.family = "rope";
  s.instance = [](std::uint64_t seed) {
    Rng r(seed);
    const reference::MlaConfig c = gen_mla_config(r);
    const double ms[2] = {c.rope.scaling.yarn_mscale, c.rope.scaling.yarn_mscale_all_dim};
    auto md = std::make_shared<Model>(make_model(r, r.range(2, 16), c.qk_head_dim()));
    md->proj.scale = reference::mla_softmax_scale<double>(c);  // the scale the score uses
    const double a = reference::rope_attention_factor<double>(c.rope);
    Instance in;
    in.config = fmt::format(
        "qk_nope_head_dim={} qk_rope_head_dim={} base={} yarn factor={} original_max={} "
        "mscale={} mscale_all_dim={}",
        c.qk_nope_head_dim, c.qk_rope_head_dim, c.rope.base, c.rope.scaling.factor,
        c.rope.scaling.original_max_positions, ms[0], ms[1]);
    auto fn = [c, a](const Model& mdl, std::int64_t m, std::int64_t n) {
      const double v = reference::score_mla<double>(c, mdl.proj, mdl.xq, mdl.xk, m, n);
      const auto f = reference::rope_inv_freq<double>(c.rope);
      const double fmax = *std::max_element(f.begin(), f.end());
      const double phi = static_cast<double>(std::max(m, n)) * c.rope.position_scale * fmax;
      return Score{v, magnitude(mdl, mdl.xq, mdl.xk, std::max(a, 1.0), phi, 0.0)};
    };
    set_scores(in, fn, md, r);
    return in;
  };
  return s;
}

}  // namespace

std::vector<Subject> builtin_subjects() {
  using reference::AlibiMode;
  using reference::RopeLayout;
  using reference::RopeScaling;
  std::vector<Subject> v;
  v.push_back(sinusoidal_subject(reference::SinusoidalLayout::Interleaved));
  v.push_back(sinusoidal_subject(reference::SinusoidalLayout::Concat));
  v.push_back(learned_subject());
  v.push_back(t5_subject(true));
  v.push_back(t5_subject(false));
  v.push_back(rope_subject("rope-neox", RopeScaling::None, RopeLayout::Neox, false));
  v.push_back(rope_subject("rope-gptj", RopeScaling::None, RopeLayout::Gptj, false));
  v.push_back(rope_subject("rope-neox-partial", RopeScaling::None, RopeLayout::Neox, true));
  v.push_back(rope_subject("rope-gptj-partial", RopeScaling::None, RopeLayout::Gptj, true));
  v.push_back(rope_subject("rope-neox-linear", RopeScaling::Linear, RopeLayout::Neox, false));
  v.push_back(rope_subject("rope-neox-ntk", RopeScaling::Ntk, RopeLayout::Neox, false));
  v.push_back(
      rope_subject("rope-neox-dynamic-ntk", RopeScaling::DynamicNtk, RopeLayout::Neox, false));
  v.push_back(rope_subject("rope-neox-yarn", RopeScaling::Yarn, RopeLayout::Neox, false));
  v.push_back(rope_subject("rope-neox-llama3", RopeScaling::Llama3, RopeLayout::Neox, false));
  v.push_back(alibi_subject(AlibiMode::Symmetric));
  v.push_back(alibi_subject(AlibiMode::Causal));
  v.push_back(alibi_subject(AlibiMode::BloomKeyOnly));
  // The RoPE family as 2025-26 models ship it (issue 14).
  v.push_back(longrope_subject());
  v.push_back(llama4_rope_subject());
  v.push_back(llama4_nope_subject());
  v.push_back(nope_subject());
  v.push_back(mrope_subject(reference::MropeLayout::Sectioned));
  v.push_back(mrope_subject(reference::MropeLayout::Interleaved));
  v.push_back(mla_subject());
  return v;
}

}  // namespace pecheck::classify
