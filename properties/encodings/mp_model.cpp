// The one translation unit of properties/encodings that instantiates the reference in
// 100-digit MPFR (Boost.Multiprecision, expression templates off so Eigen can hold it).
#include "mp_model.hpp"

#include <boost/multiprecision/eigen.hpp>
#include <boost/multiprecision/mpfr.hpp>

#include "classify/generators.hpp"
#include "reference/score_family.hpp"
#include "reference/tolerance.hpp"

namespace pecheck::props {

namespace {

namespace bmp = boost::multiprecision;
using MP = bmp::number<bmp::mpfr_float_backend<100>, bmp::et_off>;
using reference::Mat;
using reference::Projection;
using reference::Vec;

struct MpModel {
  Projection<MP> proj;
  Vec<MP> xq, xk;
};

MpModel make_model(const ModelDraw& d, std::int64_t head_dim) {
  classify::Rng r(d.seed);
  MpModel m;
  m.proj.w_q.resize(d.d_model, head_dim);
  m.proj.w_k.resize(d.d_model, head_dim);
  m.xq.resize(d.d_model);
  m.xk.resize(d.d_model);
  for (auto* a : {&m.proj.w_q, &m.proj.w_k})
    for (Eigen::Index i = 0; i < a->size(); ++i) a->data()[i] = MP(r.uniform(-1.0, 1.0));
  for (auto* a : {&m.xq, &m.xk})
    for (Eigen::Index i = 0; i < a->size(); ++i) a->data()[i] = MP(r.uniform(-1.0, 1.0));
  using std::sqrt;
  m.proj.scale = MP(1) / sqrt(MP(head_dim));
  return m;
}

MP norm(const Mat<MP>& a) {
  using std::sqrt;
  MP s = 0;
  for (Eigen::Index i = 0; i < a.size(); ++i) s += a.data()[i] * a.data()[i];
  return sqrt(s);
}
MP norm(const Vec<MP>& a) {
  using std::sqrt;
  MP s = 0;
  for (Eigen::Index i = 0; i < a.size(); ++i) s += a(i) * a(i);
  return sqrt(s);
}

// MODEL-TOL-1's magnitude of one score.
MP magnitude(const MpModel& md, const Vec<MP>& xq, const Vec<MP>& xk, const MP& a, const MP& phi,
             const MP& bias) {
  using bmp::isfinite;
  using std::abs;
  const MP D = MP(md.proj.w_q.rows() + md.proj.w_q.cols());
  return abs(md.proj.scale) * a * a * (phi + D + MP(2)) * norm(md.proj.w_q) * norm(xq) *
             norm(md.proj.w_k) * norm(xk) +
         (isfinite(bias) ? abs(bias) : MP(0));
}

struct Val {
  MP v, mag;
};

MpCompare compare(const Val& x, const Val& y) {
  using bmp::isinf;
  using std::abs;
  MpCompare c;
  c.a = static_cast<double>(x.v);
  c.b = static_cast<double>(y.v);
  c.tol = static_cast<double>(reference::shift_tolerance<MP>(x.mag + y.mag));
  if (isinf(x.v) || isinf(y.v)) {
    c.diff = x.v == y.v ? 0.0 : std::numeric_limits<double>::infinity();
  } else {
    // diff in MP first, then rounded up to double only through the comparison below
    const MP d = abs(x.v - y.v);
    const MP t = reference::shift_tolerance<MP>(x.mag + y.mag);
    c.diff = static_cast<double>(d);
    if (d <= t && c.diff > c.tol) c.diff = c.tol;  // keep agree() exact despite rounding
    if (d > t && c.diff <= c.tol) c.diff = std::nextafter(c.tol, 1.0);
  }
  return c;
}

Val rope_val(const reference::RopeConfig& cfg, const MpModel& md, std::int64_t m, std::int64_t n) {
  const MP v = reference::score_rope<MP>(cfg, md.proj, md.xq, md.xk, m, n);
  const auto f = reference::rope_inv_freq<MP>(cfg, std::max(m, n) + 1);
  MP fmax = 0;
  for (const auto& x : f)
    if (x > fmax) fmax = x;
  const MP phi = MP(std::max(m, n)) * MP(cfg.position_scale) * fmax;
  return {v, magnitude(md, md.xq, md.xk, reference::rope_attention_factor<MP>(cfg), phi, MP(0))};
}

}  // namespace

MpCompare mp_rope_shift(const reference::RopeConfig& cfg, const ModelDraw& d, std::int64_t m,
                        std::int64_t n, std::int64_t c) {
  const MpModel md = make_model(d, cfg.head_dim);
  return compare(rope_val(cfg, md, m, n), rope_val(cfg, md, m + c, n + c));
}

MpCompare mp_sinusoidal_shift(const reference::SinusoidalConfig& cfg, const ModelDraw& d,
                              std::int64_t m, std::int64_t n, std::int64_t c) {
  ModelDraw dd = d;
  dd.d_model = cfg.d_model;
  const MpModel md = make_model(dd, d.head_dim);
  auto val = [&](std::int64_t a, std::int64_t b) {
    const Vec<MP> pa = reference::detail::to_vec(reference::sinusoidal_encode<MP>(cfg, a));
    const Vec<MP> pb = reference::detail::to_vec(reference::sinusoidal_encode<MP>(cfg, b));
    const MP v = reference::score_sinusoidal<MP>(cfg, md.proj, md.xq, md.xk, a, b);
    return Val{v, magnitude(md, md.xq + pa, md.xk + pb, MP(1), MP(std::max(a, b)), MP(0))};
  };
  return compare(val(m, n), val(m + c, n + c));
}

MpCompare mp_t5_shift(const reference::T5Config& cfg, const ModelDraw& d, std::int64_t h,
                      std::int64_t m, std::int64_t n, std::int64_t c) {
  const MpModel md = make_model(d, d.head_dim);
  classify::Rng r(d.seed ^ 0x75ull);
  std::vector<MP> table(static_cast<std::size_t>(cfg.num_buckets * cfg.n_heads));
  for (auto& t : table) t = MP(r.uniform(-4.0, 4.0));
  auto val = [&](std::int64_t a, std::int64_t b) {
    const std::span<const MP> t(table);
    const MP bias = reference::t5_bias<MP>(cfg, t, h, a, b);
    return Val{reference::score_t5<MP>(cfg, t, h, md.proj, md.xq, md.xk, a, b),
               magnitude(md, md.xq, md.xk, MP(1), MP(0), bias)};
  };
  return compare(val(m, n), val(m + c, n + c));
}

MpCompare mp_alibi_shift(reference::AlibiMode mode, std::int64_t n_heads, std::int64_t h,
                         const ModelDraw& d, std::int64_t m, std::int64_t n, std::int64_t c) {
  const MpModel md = make_model(d, d.head_dim);
  const MP slope = reference::alibi_slope<MP>(n_heads, h);
  auto val = [&](std::int64_t a, std::int64_t b) {
    const MP bias = reference::alibi_bias<MP>(mode, slope, a, b);
    return Val{reference::score_alibi<MP>(mode, slope, md.proj, md.xq, md.xk, a, b),
               magnitude(md, md.xq, md.xk, MP(1), MP(0), bias)};
  };
  return compare(val(m, n), val(m + c, n + c));
}

MpCompare mp_sinusoidal_dot_shift(const reference::SinusoidalConfig& cfg, std::int64_t m,
                                  std::int64_t n, std::int64_t c) {
  auto val = [&](std::int64_t a, std::int64_t b) {
    const auto pa = reference::sinusoidal_encode<MP>(cfg, a);
    const auto pb = reference::sinusoidal_encode<MP>(cfg, b);
    MP s = 0;
    for (std::size_t i = 0; i < pa.size(); ++i) s += pa[i] * pb[i];
    // magnitude: |p| = sqrt(d/2) each, angles up to max(a, b)
    const MP phi = MP(std::max(a, b));
    return Val{s, (phi + MP(cfg.d_model) + MP(2)) * MP(cfg.d_model) / MP(2)};
  };
  return compare(val(m, n), val(m + c, n + c));
}

MpCompare mp_alibi_softmax_row(reference::AlibiMode mode, std::int64_t n_heads, std::int64_t h,
                               const ModelDraw& d, std::int64_t m,
                               const std::vector<std::int64_t>& keys, std::int64_t c) {
  using std::abs;
  using std::exp;
  const MpModel md = make_model(d, d.head_dim);
  const MP slope = reference::alibi_slope<MP>(n_heads, h);
  std::vector<MP> za, zb;
  MP t = 0;
  for (std::int64_t k : keys) {
    const MP a = reference::score_alibi<MP>(mode, slope, md.proj, md.xq, md.xk, m, k);
    const MP b = reference::score_alibi<MP>(mode, slope, md.proj, md.xq, md.xk, m + c, k + c);
    const MP mag =
        magnitude(md, md.xq, md.xk, MP(1), MP(0), a) + magnitude(md, md.xq, md.xk, MP(1), MP(0), b);
    const MP tk = reference::shift_tolerance<MP>(mag);
    if (tk > t) t = tk;
    za.push_back(a);
    zb.push_back(b);
  }
  auto softmax = [](std::vector<MP>& z) {
    MP mx = z[0];
    for (const auto& e : z)
      if (e > mx) mx = e;
    MP s = 0;
    for (auto& e : z) s += (e = exp(e - mx));
    for (auto& e : z) e /= s;
  };
  softmax(za);
  softmax(zb);
  MpCompare out;
  const MP pt = reference::softmax_tolerance<MP>(t);
  out.tol = static_cast<double>(pt);
  MP worst = -1;
  for (std::size_t j = 0; j < za.size(); ++j) {
    const MP dj = abs(za[j] - zb[j]);
    if (dj > worst) {
      worst = dj;
      out.a = static_cast<double>(za[j]);
      out.b = static_cast<double>(zb[j]);
    }
  }
  out.diff = static_cast<double>(worst);
  if (worst <= pt && out.diff > out.tol) out.diff = out.tol;
  if (worst > pt && out.diff <= out.tol) out.diff = std::nextafter(out.tol, 1.0);
  return out;
}

std::vector<double> mp_rope_inv_freq(const reference::RopeConfig& cfg, std::int64_t seq_len) {
  const auto f = reference::rope_inv_freq<MP>(cfg, seq_len);
  std::vector<double> out;
  for (const auto& x : f) out.push_back(static_cast<double>(x));
  return out;
}

double mp_rope_attention_factor(const reference::RopeConfig& cfg) {
  return static_cast<double>(reference::rope_attention_factor<MP>(cfg));
}

namespace {
MP max_of(const std::vector<MP>& f) {
  MP m = 0;
  for (const auto& x : f)
    if (x > m) m = x;
  return m;
}
}  // namespace

MpCompare mp_longrope_shift(const reference::LongRopeConfig& cfg, const ModelDraw& d,
                            std::int64_t m, std::int64_t n, std::int64_t c) {
  const MpModel md = make_model(d, cfg.head_dim);
  const MP a = reference::longrope_attention_factor<MP>(cfg);
  auto val = [&](std::int64_t x, std::int64_t y) {
    const auto f = reference::longrope_inv_freq<MP>(cfg, std::max(x, y) + 1);
    const MP phi = MP(std::max(x, y)) * MP(cfg.position_scale) * max_of(f);
    return Val{reference::score_longrope<MP>(cfg, md.proj, md.xq, md.xk, x, y),
               magnitude(md, md.xq, md.xk, a, phi, MP(0))};
  };
  return compare(val(m, n), val(m + c, n + c));
}

MpCompare mp_llama4_rope_shift(const reference::Llama4Config& cfg, const ModelDraw& d,
                               std::int64_t m, std::int64_t n, std::int64_t c) {
  const MpModel md = make_model(d, cfg.rope.head_dim);
  const auto f = reference::rope_inv_freq<MP>(cfg.rope);
  auto val = [&](std::int64_t x, std::int64_t y) {
    const MP phi = MP(std::max(x, y)) * MP(cfg.rope.position_scale) * max_of(f);
    const MP v = reference::score_llama4<MP>(cfg, true, md.proj, md.xq, md.xk, x, y);
    if (!cfg.use_qk_norm) return Val{v, magnitude(md, md.xq, md.xk, MP(1), phi, MP(0))};
    // ROPE-L4-4: norm product head_dim, D + head_dim
    using std::abs;
    const MP hd = MP(cfg.rope.head_dim);
    const MP D = MP(md.proj.w_q.rows()) + MP(2) * hd;
    return Val{v, abs(md.proj.scale) * (phi + D + MP(2)) * hd};
  };
  return compare(val(m, n), val(m + c, n + c));
}

MpCompare mp_mrope_shift(const reference::MropeConfig& cfg, const ModelDraw& d,
                         const reference::MropePosition& m, const reference::MropePosition& n,
                         const reference::MropePosition& c) {
  const MpModel md = make_model(d, cfg.head_dim);
  const auto f = reference::mrope_inv_freq<MP>(cfg);
  auto add = [](const reference::MropePosition& p, const reference::MropePosition& q) {
    return reference::MropePosition{p.t + q.t, p.h + q.h, p.w + q.w};
  };
  auto val = [&](const reference::MropePosition& x, const reference::MropePosition& y) {
    std::int64_t top = 0;
    for (int a = 0; a < 3; ++a) top = std::max({top, x.axis(a), y.axis(a)});
    const MP phi = MP(top) * MP(cfg.position_scale) * max_of(f);
    return Val{reference::score_mrope<MP>(cfg, md.proj, md.xq, md.xk, x, y),
               magnitude(md, md.xq, md.xk, MP(1), phi, MP(0))};
  };
  return compare(val(m, n), val(add(m, c), add(n, c)));
}

MpCompare mp_mla_shift(const reference::MlaConfig& cfg, const ModelDraw& d, std::int64_t m,
                       std::int64_t n, std::int64_t c) {
  MpModel md = make_model(d, cfg.qk_head_dim());
  md.proj.scale = reference::mla_softmax_scale<MP>(cfg);  // the scale the score uses
  const auto f = reference::rope_inv_freq<MP>(cfg.rope);
  MP a = reference::rope_attention_factor<MP>(cfg.rope);
  if (a < MP(1)) a = MP(1);  // the non-rotary part carries no factor
  auto val = [&](std::int64_t x, std::int64_t y) {
    const MP phi = MP(std::max(x, y)) * MP(cfg.rope.position_scale) * max_of(f);
    return Val{reference::score_mla<MP>(cfg, md.proj, md.xq, md.xk, x, y),
               magnitude(md, md.xq, md.xk, a, phi, MP(0))};
  };
  return compare(val(m, n), val(m + c, n + c));
}

std::vector<double> mp_longrope_inv_freq(const reference::LongRopeConfig& cfg,
                                         std::int64_t seq_len) {
  std::vector<double> out;
  for (const auto& x : reference::longrope_inv_freq<MP>(cfg, seq_len))
    out.push_back(static_cast<double>(x));
  return out;
}

double mp_rope_attn_factor(const reference::AttnFactorConfig& cfg) {
  return static_cast<double>(reference::rope_attn_factor<MP>(cfg));
}

}  // namespace pecheck::props
