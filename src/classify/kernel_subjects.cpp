// Subjects backed by a kernel library's exported functions (kernel_subjects.hpp).
#include "classify/kernel_subjects.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>

#include "classify/generators.hpp"
#include "classify/kernel_subjects_impl.hpp"
#include "core/error.hpp"
#include "oracle/budget.hpp"
#include "reference/tolerance.hpp"
#include "verify/gen/domain.hpp"
#include "verify/isolation/storage.hpp"
#include "verify/isolation/worker.hpp"

namespace pecheck::classify {

using verifier::Fn;

namespace {

using namespace kernel_detail;

// One call through the executor with every buffer in the arena; returns the output.
template <class Args>
std::vector<float> call(State& st, Fn fn, Args args, const std::vector<float>& x, std::size_t n_out,
                        std::span<const std::int64_t> pos_a, std::span<const std::int64_t> pos_b,
                        const std::vector<float>& table, const std::vector<float>& init) {
  verifier::Arena& a = st.ex.arena();
  a.reset();
  const std::int64_t* pa = a.copy(pos_a);
  const std::int64_t* pb = pos_b.empty() ? nullptr : a.copy(pos_b);
  const float* tb = table.empty() ? nullptr : a.copy(std::span<const float>(table));
  const float* xp = x.empty() ? nullptr : a.copy(std::span<const float>(x));
  float* y = static_cast<float*>(a.allocate(std::max<std::size_t>(1, n_out) * sizeof(float)));
  for (std::size_t i = 0; i < n_out; ++i) y[i] = i < init.size() ? init[i] : 0.0f;
  if constexpr (std::is_same_v<Args, pec_rope_args>) {
    args.positions = pa;
  } else if constexpr (std::is_same_v<Args, pec_alibi_args> || std::is_same_v<Args, pec_t5_args>) {
    args.q_pos = pa;
    args.k_pos = pb;
    if constexpr (std::is_same_v<Args, pec_t5_args>) args.table = tb;
  } else if constexpr (std::is_same_v<Args, pec_learned_args>) {
    args.positions = pa;
    args.table = tb;
  } else {
    args.positions = pa;
  }
  const Args* ap = a.put(args);
  const verifier::CallOutcome o = st.ex.call(fn, ap, xp, y);
  if (!o.ok()) call_failed(fn, o);
  return {y, y + n_out};
}

float signed_unit(Rng& r) { return static_cast<float>(r.uniform(-1.0, 1.0)); }

// ---- RoPE: <y_q(m), y_k(n)> from one call with two tokens -------------------------------------

Subject rope_subject(const std::shared_ptr<State>& st) {
  Subject s;
  s.name = "kernel:pec_rope_f32";
  s.family = "rope";
  const verifier::Domain& d = st->domain;
  s.max_position = verifier::max_position_for(d, "rope", st->opt.max_position) + 1;
  s.instance = [st](std::uint64_t seed) {
    Rng r(seed);
    const verifier::Domain& dom = st->domain;
    pec_rope_args args{};
    args.n_tokens = 2;
    args.n_heads = 1;
    args.head_dim = pick(r, dom.rope_head_dims, 2, 128, true);
    std::vector<std::int64_t> rot = dom.rope_rotary_dims;
    std::erase_if(rot, [&](std::int64_t v) { return v > args.head_dim; });
    args.rotary_dim = dom.rope_full_rotary || r.coin(2) ? args.head_dim
                      : rot.empty()                    ? 2 * r.range(1, args.head_dim / 2)
                                                       : rot[static_cast<std::size_t>(r.range(0, static_cast<std::int64_t>(rot.size()) - 1))];
    if (!dom.rope_layouts.empty()) {
      args.layout = dom.rope_layouts[static_cast<std::size_t>(r.range(0, static_cast<std::int64_t>(dom.rope_layouts.size()) - 1))];
    } else {
      args.layout = static_cast<std::int32_t>(r.range(0, 1));
    }
    args.theta_base = r.coin(2) ? 10000.0 : 500000.0;
    args.position_scale = 1.0;
    args.inv_freq = nullptr;
    auto make = [&r, &args]() {
      std::vector<float> v(static_cast<std::size_t>(2 * args.head_dim));
      for (auto& e : v) e = signed_unit(r);
      return v;
    };
    const auto content = std::make_shared<std::vector<float>>(make());
    const auto other = std::make_shared<std::vector<float>>(make());
    const oracle::Budget* row = &oracle::budget("rope", oracle::Format::F32, st->opt.rope_class);
    Instance in;
    in.config = fmt::format("head_dim={} rotary_dim={} layout={} theta_base={} (q, k float32 in [-1, 1])",
                            args.head_dim, args.rotary_dim, args.layout == 0 ? "neox" : "gptj", args.theta_base);
    auto scorer = [st, args, row](std::shared_ptr<std::vector<float>> qk) {
      return [st, args, row, qk](std::int64_t m, std::int64_t n) {
        const std::int64_t pos[2] = {m, n};
        const std::size_t D = static_cast<std::size_t>(args.head_dim);
        const auto y = call(*st, Fn::Rope, args, *qk, 2 * D, pos, {}, {}, {});
        double v = 0;
        for (std::size_t l = 0; l < D; ++l) v += static_cast<double>(y[l]) * y[D + l];
        // The float32 score contract (PREC-SCORE-1) of the chosen class for this pair.
        const std::int64_t half = args.rotary_dim / 2;
        std::vector<double> q(static_cast<std::size_t>(args.rotary_dim)), k(q.size()), tm(half), tn(half), lf(half);
        for (std::int64_t i = 0; i < half; ++i) {
          const std::size_t a = static_cast<std::size_t>(args.layout == 0 ? i : 2 * i);
          const std::size_t b = static_cast<std::size_t>(args.layout == 0 ? i + half : 2 * i + 1);
          q[i] = (*qk)[a], q[i + half] = (*qk)[b];
          k[i] = (*qk)[D + a], k[i + half] = (*qk)[D + b];
          const double f = std::pow(args.theta_base, -2.0 * static_cast<double>(i) / static_cast<double>(args.rotary_dim));
          tm[i] = static_cast<double>(m) * f, tn[i] = static_cast<double>(n) * f;
          lf[i] = std::fabs(std::log(f));
        }
        double bound = oracle::rope_score_bound(*row, q, k, tm, tn, lf);
        // Pass-through lanes enter the dot product exactly as the inputs (products in double).
        return Score{v, magnitude_for(bound)};
      };
    };
    in.score = scorer(content);
    in.score_other_content = scorer(other);
    return in;
  };
  return s;
}

// ---- Biases: c + bias(m, n) ---------------------------------------------------------------------

// One subject per mode: a symmetric and a causal bias are different claims (abs-offset, offset).
Subject alibi_subject(const std::shared_ptr<State>& st, std::int32_t mode) {
  Subject s;
  s.name = std::string("kernel:pec_alibi_bias_f32:") + (mode == 0 ? "symmetric" : "causal");
  s.family = "alibi";
  s.max_position = verifier::max_position_for(st->domain, "alibi", st->opt.max_position) + 1;
  s.instance = [st, mode](std::uint64_t seed) {
    Rng r(seed);
    pec_alibi_args args{};
    args.n_heads = r.range(1, 16);
    args.n_q = args.n_k = 1;
    args.mode = mode;
    const std::int64_t head = r.range(0, args.n_heads - 1);
    const double c1 = r.uniform(-1, 1), c2 = r.uniform(-1, 1);
    const oracle::Budget* row = &oracle::budget("alibi", oracle::Format::F32, "field");
    Instance in;
    in.config = fmt::format("n_heads={} head={} mode={}", args.n_heads, head, args.mode == 0 ? "symmetric" : "causal");
    auto scorer = [st, args, head, row](double content) {
      return [st, args, head, row, content](std::int64_t m, std::int64_t n) {
        pec_alibi_args a = args;
        const std::int64_t qp[1] = {m}, kp[1] = {n};
        const auto y = call(*st, Fn::Alibi, a, {}, static_cast<std::size_t>(a.n_heads), qp, kp, {}, {});
        const double bias = y[static_cast<std::size_t>(head)];
        // The bias budget with the largest slope power of the head count (PREC-ALIBI-3), plus
        // half an ulp of the score it is added to.
        const double e = row->bound({std::fabs(bias), 0.0, 2.0 * static_cast<double>(a.n_heads)}) +
                         std::ldexp(std::fabs(bias), -24);
        return Score{content + bias, magnitude_for(std::isfinite(bias) ? e : 0.0)};
      };
    };
    in.score = scorer(c1);
    in.score_other_content = scorer(c2);
    return in;
  };
  return s;
}

// One subject per direction mode (bidirectional buckets are signed, causal ones are not).
Subject t5_subject(const std::shared_ptr<State>& st, std::int32_t bidirectional) {
  Subject s;
  s.name = std::string("kernel:pec_t5_bias_f32:") + (bidirectional ? "bidirectional" : "causal");
  s.family = "t5";
  s.max_position = verifier::max_position_for(st->domain, "t5", st->opt.max_position) + 1;
  s.instance = [st, bidirectional](std::uint64_t seed) {
    Rng r(seed);
    const verifier::Domain& dom = st->domain;
    pec_t5_args args{};
    args.n_heads = r.range(1, 4);
    args.n_q = args.n_k = 1;
    args.bidirectional = bidirectional;
    args.num_buckets = dom.t5_num_buckets.empty() ? 32 : dom.t5_num_buckets[0];
    args.max_distance = dom.t5_max_distance.empty() ? 128 : dom.t5_max_distance[0];
    const std::int64_t head = r.range(0, args.n_heads - 1);
    auto table = std::make_shared<std::vector<float>>(static_cast<std::size_t>(args.num_buckets * args.n_heads));
    for (auto& e : *table) e = signed_unit(r);
    const double c1 = r.uniform(-1, 1), c2 = r.uniform(-1, 1);
    Instance in;
    in.config = fmt::format("n_heads={} head={} num_buckets={} max_distance={} bidirectional={} (random table)",
                            args.n_heads, head, args.num_buckets, args.max_distance, args.bidirectional);
    auto scorer = [st, args, head, table](double content) {
      return [st, args, head, table, content](std::int64_t m, std::int64_t n) {
        const std::int64_t qp[1] = {m}, kp[1] = {n};
        const auto y = call(*st, Fn::T5, args, {}, static_cast<std::size_t>(args.n_heads), qp, kp, *table, {});
        // Table entries are copied bit-exactly (ABI-T5-2): the only error is the sum's rounding,
        // formed here in double (none).
        return Score{content + y[static_cast<std::size_t>(head)], 0.0};
      };
    };
    in.score = scorer(c1);
    in.score_other_content = scorer(c2);
    return in;
  };
  return s;
}

// ---- Absolute tables: <Wq (xq + P[m]), Wk (xk + P[n])> ---------------------------------------

struct Projected {
  std::int64_t d = 0, h = 0;
  std::vector<double> wq, wk, xq, xk;  // wq, wk: [h][d]
};

Projected make_projected(Rng& r, std::int64_t d, std::int64_t h) {
  Projected p;
  p.d = d, p.h = h;
  auto fill = [&r](std::vector<double>& v, std::size_t n) {
    v.resize(n);
    for (auto& e : v) e = r.uniform(-1, 1);
  };
  fill(p.wq, static_cast<std::size_t>(d * h));
  fill(p.wk, static_cast<std::size_t>(d * h));
  fill(p.xq, static_cast<std::size_t>(d));
  fill(p.xk, static_cast<std::size_t>(d));
  return p;
}

// The score and its bound for rows P[m], P[n] each within `e` per element of the exact rows:
// |ds| <= |Wq|_F |Wk|_F (e sqrt(d) (|xq + Pm| + |xk + Pn|) + e^2 d) + the double evaluation's own
// error (the MODEL-TOL-1 magnitude of the exact parts).
Score projected_score(const Projected& p, std::span<const float> pm, std::span<const float> pn, double e) {
  std::vector<double> a(static_cast<std::size_t>(p.d)), b(a.size());
  double na = 0, nb = 0;
  for (std::int64_t i = 0; i < p.d; ++i) {
    a[i] = p.xq[i] + pm[static_cast<std::size_t>(i)];
    b[i] = p.xk[i] + pn[static_cast<std::size_t>(i)];
    na += a[i] * a[i], nb += b[i] * b[i];
  }
  double v = 0, fq = 0, fk = 0;
  for (std::int64_t j = 0; j < p.h; ++j) {
    double qa = 0, kb = 0;
    for (std::int64_t i = 0; i < p.d; ++i) {
      qa += p.wq[j * p.d + i] * a[i];
      kb += p.wk[j * p.d + i] * b[i];
    }
    v += qa * kb;
  }
  for (double w : p.wq) fq += w * w;
  for (double w : p.wk) fk += w * w;
  fq = std::sqrt(fq), fk = std::sqrt(fk), na = std::sqrt(na), nb = std::sqrt(nb);
  const double sd = std::sqrt(static_cast<double>(p.d));
  const double bound = fq * fk * (e * sd * (na + nb) + e * e * static_cast<double>(p.d));
  const double dims = static_cast<double>(p.d + p.h + 2);
  return Score{v, magnitude_for(bound) + dims * fq * fk * na * nb};
}

Subject sinusoidal_subject(const std::shared_ptr<State>& st) {
  Subject s;
  s.name = "kernel:pec_sinusoidal_f32";
  s.family = "sinusoidal";
  s.max_position = verifier::max_position_for(st->domain, "sinusoidal", st->opt.max_position) + 1;
  s.instance = [st](std::uint64_t seed) {
    Rng r(seed);
    pec_sinusoidal_args args{};
    args.n_tokens = 2;
    args.d_model = pick(r, st->domain.sin_d_model, 4, 64, true);
    args.base = 10000.0;
    const auto md = std::make_shared<Projected>(make_projected(r, args.d_model, r.range(2, 8)));
    const auto other = std::make_shared<Projected>(*md);
    for (auto& e : other->xq) e = r.uniform(-1, 1);
    for (auto& e : other->xk) e = r.uniform(-1, 1);
    const oracle::Budget* row = &oracle::budget("sinusoidal", oracle::Format::F32, "field");
    Instance in;
    in.config = fmt::format("d_model={} base=10000 head_dim={} (random Wq, Wk, embeddings)", args.d_model, md->h);
    auto scorer = [st, args, row](std::shared_ptr<Projected> p) {
      return [st, args, row, p](std::int64_t m, std::int64_t n) {
        const std::int64_t pos[2] = {m, n};
        const std::size_t D = static_cast<std::size_t>(args.d_model);
        const auto y = call(*st, Fn::Sinusoidal, args, {}, 2 * D, pos, {}, {}, {});
        // Per-element contract at the larger angle (frequency 1 at pair 0), largest pair index.
        const double theta = static_cast<double>(std::max(m, n));
        const double L = std::log(args.base);
        const double e = row->bound({1.0, theta, static_cast<double>(D / 2), L});
        return projected_score(*p, std::span<const float>(y).first(D), std::span<const float>(y).subspan(D), e);
      };
    };
    in.score = scorer(md);
    in.score_other_content = scorer(other);
    return in;
  };
  return s;
}

Subject learned_subject(const std::shared_ptr<State>& st) {
  Subject s;
  s.name = "kernel:pec_learned_f32";
  s.family = "learned";
  static constexpr std::int64_t kTable = 4096;
  s.max_position = std::min<std::int64_t>(kTable, st->opt.max_position + 1);
  s.instance = [st](std::uint64_t seed) {
    Rng r(seed);
    pec_learned_args args{};
    args.n_tokens = 2;
    args.d_model = r.range(2, 16);
    args.max_positions = kTable;
    auto table = std::make_shared<std::vector<float>>(static_cast<std::size_t>(kTable * args.d_model));
    for (auto& e : *table) e = signed_unit(r);
    const auto md = std::make_shared<Projected>(make_projected(r, args.d_model, r.range(2, 8)));
    const auto other = std::make_shared<Projected>(*md);
    for (auto& e : other->xq) e = r.uniform(-1, 1);
    for (auto& e : other->xk) e = r.uniform(-1, 1);
    Instance in;
    in.config = fmt::format("d_model={} max_positions={} head_dim={} (random table, Wq, Wk, embeddings)",
                            args.d_model, kTable, md->h);
    auto scorer = [st, args, table](std::shared_ptr<Projected> p) {
      return [st, args, table, p](std::int64_t m, std::int64_t n) {
        const std::int64_t pos[2] = {m, n};
        const std::size_t D = static_cast<std::size_t>(args.d_model);
        const auto y = call(*st, Fn::Learned, args, {}, 2 * D, pos, {}, *table, {});
        return projected_score(*p, std::span<const float>(y).first(D), std::span<const float>(y).subspan(D), 0.0);
      };
    };
    in.score = scorer(md);
    in.score_other_content = scorer(other);
    return in;
  };
  return s;
}

}  // namespace

KernelSubjects::KernelSubjects(const std::string& library_path, const KernelSubjectOptions& o) {
  verifier::check_library_file(library_path);
  verifier::ExecutorConfig cfg;
  cfg.call_timeout_s = o.call_timeout_seconds;
  cfg.arena_bytes = std::size_t{64} << 20;
  state_ = std::make_shared<State>(library_path, cfg, o);
  const verifier::LibraryInfo info = state_->ex.probe();
  if (info.mask == 0) {
    throw UsageError("kernel library " + library_path + " exports no pec_* function (see spec/pecheck_kernel.h)");
  }
  state_->mask = info.mask;
  if (!info.domain.empty()) state_->domain = verifier::parse_domain(info.domain, "pec_domain()");
  // Attention: one subject per encoding inside and ALiBi form / T5 direction, within the declared
  // ones. A kernel that derives positions from the lengths (ABI-DOM-4) has none to shift.
  auto add_attention = [this](Fn fn) {
    const verifier::Domain& d = state_->domain;
    if (d.attn_alignment != 0) {
      not_measured_.push_back(std::string(verifier::symbol(fn)) + " (declares attention.positions " +
                              (d.attn_alignment == 1 ? "bottom-right" : "top-left") +
                              ": its positions come from the lengths, there are none to shift)");
      return;
    }
    auto allowed = [](const std::vector<std::int32_t>& v, std::int32_t x) {
      return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
    };
    for (std::int32_t e : {PEC_ATTN_NONE, PEC_ATTN_ROPE, PEC_ATTN_ALIBI, PEC_ATTN_T5}) {
      if (!allowed(d.attn_encodings, e)) continue;
      std::vector<std::int32_t> variants{0};
      if (e == PEC_ATTN_ALIBI) variants = {PEC_ATTN_ALIBI_SYMMETRIC, PEC_ATTN_ALIBI_SIGNED, PEC_ATTN_ALIBI_KEY_ONLY};
      if (e == PEC_ATTN_T5) variants = {1, 0};
      for (std::int32_t v : variants) {
        if (e == PEC_ATTN_ALIBI && !allowed(d.attn_alibi_forms, v)) continue;
        subjects_.push_back(attention_subject(state_, verifier::storage(fn), e, v));
      }
    }
  };
  for (int i = 0; i < verifier::kFnCount; ++i) {
    if (!(info.mask & (1u << i))) continue;
    const Fn fn = verifier::kAllFns[static_cast<std::size_t>(i)];
    switch (fn) {
      case Fn::Rope: subjects_.push_back(rope_subject(state_)); break;
      case Fn::Alibi:
        for (std::int32_t m : {0, 1}) {
          const auto& ms = state_->domain.alibi_modes;
          if (ms.empty() || std::find(ms.begin(), ms.end(), m) != ms.end()) subjects_.push_back(alibi_subject(state_, m));
        }
        break;
      case Fn::T5:
        for (std::int32_t b : {1, 0}) {
          const auto& bs = state_->domain.t5_bidirectional;
          if (bs.empty() || std::find(bs.begin(), bs.end(), b) != bs.end()) subjects_.push_back(t5_subject(state_, b));
        }
        break;
      case Fn::Sinusoidal: subjects_.push_back(sinusoidal_subject(state_)); break;
      case Fn::Learned: subjects_.push_back(learned_subject(state_)); break;
      case Fn::RopeQkF32:
      case Fn::RopeQkBf16:
      case Fn::RopeQkF16:
        subjects_.push_back(rope_qk_subject(state_, verifier::storage(fn)));
        break;
      case Fn::MropeF32:
      case Fn::MropeBf16:
      case Fn::MropeF16:
        for (std::int32_t l : {0, 1}) {
          const auto& ls = state_->domain.mrope_layouts;
          if (ls.empty() || std::find(ls.begin(), ls.end(), l) != ls.end())
            subjects_.push_back(mrope_subject(state_, verifier::storage(fn), l));
        }
        break;
      case Fn::RopeCachedF32:
      case Fn::RopeCachedBf16:
      case Fn::RopeCachedF16:
        subjects_.push_back(rope_cached_subject(state_, verifier::storage(fn)));
        break;
      case Fn::RopeCacheF32:
      case Fn::RopeCacheBf16:
      case Fn::RopeCacheF16:
        // Measured through the cached rotation of its storage type (it builds that subject's cache).
        if (!state_->exports(verifier::fn_of(verifier::Family::RopeCached, verifier::storage(fn))))
          not_measured_.push_back(std::string(verifier::symbol(fn)));
        break;
      case Fn::AttentionF32:
      case Fn::AttentionBf16:
      case Fn::AttentionF16: add_attention(fn); break;
      default: not_measured_.push_back(std::string(verifier::symbol(fn))); break;
    }
  }
  if (subjects_.empty()) {
    std::string why;
    for (const auto& f : not_measured_) why += (why.empty() ? " (not measured: " : "; ") + f;
    throw UsageError("kernel library " + library_path + " exports no function classify can measure" +
                     (why.empty() ? "" : why + ")"));
  }
}

KernelSubjects::~KernelSubjects() = default;

}  // namespace pecheck::classify
