// The built-in subjects of `pecheck classify`: every encoding and variant of spec/ as a score
// function of a random model instance, built on the reference score model in double.
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <string>

#include "classify/engine.hpp"
#include "classify/generators.hpp"
#include "reference/score_model.hpp"

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
    in.score = [fn, md](std::int64_t m, std::int64_t n) { return fn(*md, m, n); };
    auto other = std::make_shared<Model>(with_other_content(*md, r));
    in.score_other_content = [fn, other](std::int64_t m, std::int64_t n) {
      return fn(*other, m, n);
    };
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
    in.score = [fn, md](std::int64_t m, std::int64_t n) { return fn(*md, m, n); };
    auto other = std::make_shared<Model>(with_other_content(*md, r));
    in.score_other_content = [fn, other](std::int64_t m, std::int64_t n) {
      return fn(*other, m, n);
    };
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
    in.score = [fn, md](std::int64_t m, std::int64_t n) { return fn(*md, m, n); };
    auto other = std::make_shared<Model>(with_other_content(*md, r));
    in.score_other_content = [fn, other](std::int64_t m, std::int64_t n) {
      return fn(*other, m, n);
    };
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
    in.score = [fn, md](std::int64_t m, std::int64_t n) { return fn(*md, m, n); };
    auto other = std::make_shared<Model>(with_other_content(*md, r));
    in.score_other_content = [fn, other](std::int64_t m, std::int64_t n) {
      return fn(*other, m, n);
    };
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
    in.score = [fn, md](std::int64_t m, std::int64_t n) { return fn(*md, m, n); };
    auto other = std::make_shared<Model>(with_other_content(*md, r));
    in.score_other_content = [fn, other](std::int64_t m, std::int64_t n) {
      return fn(*other, m, n);
    };
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
  return v;
}

}  // namespace pecheck::classify
