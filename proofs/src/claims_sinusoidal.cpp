// Sinusoidal (spec/sinusoidal.md): the raw dot product p_m . p_n is a function of n - m
// (SIN-DOT-1, a trigonometric identity, per frequency, so in both layouts), while the
// projected score with the encodings added to the inputs is not (SIN-AXIS-2): the solver's
// model becomes a counterexample report in the verify format, replayed in long double.
#include <cmath>
#include <cstdio>

#include "kernels/shared/rope_angle.hpp"
#include "rope_model.hpp"

namespace pecheck::proofs {
namespace {

// "x" + std::to_string(i) without operator+(const char*, string&&), which trips a GCC 12
// -Wrestrict false positive.
std::string indexed(const char* prefix, int i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}
using rope_model::cos_of;
using rope_model::sin_of;

Term ivar(const std::string& n) { return var(n, Sort::integer()); }
Term in_range(const Term& p, std::int64_t bound) {
  return t_and({le(int_lit(0), p), lt(p, int_lit(bound))});
}

ClaimResult dot_offset() {
  auto c = start("sinusoidal.dot-offset", "SIN-DOT-1", "sinusoidal", Answer::Proved,
                 "p_m . p_n depends only on n - m (per frequency: sin a sin b + cos a cos b)");
  const Term a = var("a", Sort::real()), b = var("b", Sort::real());
  Query q1;
  q1.name = "sinusoidal.dot-offset.identity";
  q1.assumptions = rope_model::trig_axioms(a, b);
  q1.claim = eq(add(mul(sin_of(a), sin_of(b)), mul(cos_of(a), cos_of(b))), cos_of(sub(b, a)));
  add_query(c, q1);
  // The angle is pos * f (the kernels' rope_angle_dd with position_scale 1, exact
  // arithmetic); its difference is offset-only for every position in [0, 2^31).
  Query q2;
  q2.name = "sinusoidal.dot-offset.angle-offset";
  const Term m = ivar("m"), n = ivar("n"), t = ivar("t");
  for (const Term& p : {m, n, add(m, t), add(n, t)}) q2.assumptions.push_back(in_range(p, std::int64_t{1} << 31));
  const SymReal f(apply("f_sinusoidal", Sort::real(),
                        {var("i", Sort::real()), var("base", Sort::real()), var("d_model", Sort::real())}));
  auto angle = [&](const Term& p) {
    return rope_model::kernel_angle(SymReal(to_real(p)), SymReal(std::int64_t{1}), f,
                                    SymReal(std::int64_t{0})).term();
  };
  q2.claim = eq(sub(angle(n), angle(m)), sub(angle(add(n, t)), angle(add(m, t))));
  add_query(c, q2);
  Query q3;
  q3.name = "sinusoidal.dot-offset.congruence";
  const Term d1 = var("d1", Sort::real()), d2 = var("d2", Sort::real());
  q3.assumptions = {eq(d1, d2)};
  q3.claim = eq(cos_of(d1), cos_of(d2));
  add_query(c, q3);
  finish(c);
  return c;
}

// Replay bound: long double cos/sin of angles < 2^12 and 2x2 products of values <= 8 have
// absolute error < 2^-50; a score difference above 2^-20 is real.
constexpr long double kReplayAbs = 0x1p-20L;

struct Projected {
  float x[2], y[2], w[4];
  std::int64_t m, n, t;
  long double score(std::int64_t pm, std::int64_t pn) const {
    const long double u[2] = {x[0] + std::sin(static_cast<long double>(pm)),
                              x[1] + std::cos(static_cast<long double>(pm))};
    const long double v[2] = {y[0] + std::sin(static_cast<long double>(pn)),
                              y[1] + std::cos(static_cast<long double>(pn))};
    long double s = 0;
    for (int r = 0; r < 2; ++r)
      for (int k = 0; k < 2; ++k) s += u[r] * w[2 * r + k] * v[k];
    return s;
  }
};

Replay replay_projected(const Model& md) {
  Projected p{};
  for (int i = 0; i < 2; ++i) {
    p.x[i] = static_cast<float>(md.real(indexed("x", i)));
    p.y[i] = static_cast<float>(md.real(indexed("y", i)));
  }
  for (int i = 0; i < 4; ++i) p.w[i] = static_cast<float>(md.real(indexed("w", i)));
  p.m = 0;
  p.n = 1;
  p.t = 1;
  const long double a = p.score(p.m, p.n), b = p.score(p.m + p.t, p.n + p.t);
  Replay rp;
  rp.confirmed = std::fabs(a - b) > kReplayAbs;
  char buf[300];
  std::snprintf(buf, sizeof buf,
                "projected score s(m=%lld, n=%lld) = %.12Lg but s(%lld, %lld) = %.12Lg: same "
                "offset, different scores (d_model 2)",
                static_cast<long long>(p.m), static_cast<long long>(p.n), a,
                static_cast<long long>(p.m + p.t), static_cast<long long>(p.n + p.t), b);
  rp.message = buf;
  auto& cx = rp.cx;
  cx.clause = "SIN-AXIS-2";
  cx.kind = "property";
  cx.message = rp.message;
  cx.function = "pec_sinusoidal_f32";
  cx.args = {{"n_tokens", std::int64_t{2}}, {"d_model", std::int64_t{2}}, {"base", 10000.0},
             {"positions", std::vector<std::int64_t>{p.m, p.n}},
             {"shifted_positions", std::vector<std::int64_t>{p.m + p.t, p.n + p.t}}};
  cx.inputs = {{"x_query", {2}, {p.x[0], p.x[1]}},
               {"x_key", {2}, {p.y[0], p.y[1]}},
               {"W_q_W_kT", {2, 2}, {p.w[0], p.w[1], p.w[2], p.w[3]}}};
  cx.notes.push_back("score = (x_query + p_m) W (x_key + p_n)^T with W = W_q W_k^T "
                     "(MODEL-SCORE-1); evaluated in long double with the real sin and cos");
  cx.reproduce = "pecheck prove --only sinusoidal.projected-absolute";
  return rp;
}

ClaimResult projected() {
  auto c = start("sinusoidal.projected-absolute", "SIN-AXIS-2, MODEL-SCORE-1", "sinusoidal",
                 Answer::Counterexample,
                 "the projected score with encodings added to the inputs is NOT offset-only");
  Query q;
  q.name = "sinusoidal.projected-absolute";
  // Positions: the solver picks the inputs for the smallest case, m = 0, n = 1, shift 1
  // (integers; keeping them symbolic makes Z3's mixed integer/nonlinear search diverge).
  const Term mt = int_lit(1), nt = int_lit(2);
  std::vector<Term> x, y, w;
  auto bounded = [&](const std::string& name) {
    Term v = var(name, Sort::real());
    q.assumptions.push_back(le(real_lit(-4), v));
    q.assumptions.push_back(le(v, real_lit(4)));
    return v;
  };
  for (int i = 0; i < 2; ++i) x.push_back(bounded(indexed("x", i)));
  for (int i = 0; i < 2; ++i) y.push_back(bounded(indexed("y", i)));
  for (int i = 0; i < 4; ++i) w.push_back(bounded(indexed("w", i)));
  // d_model = 2: one frequency, f_0 = base^0 = 1, p_pos = (sin pos, cos pos) (SIN-LAYOUT-1).
  // The positions are literals, so cos(pos) and sin(pos) are plain variables constrained by
  // cos^2 + sin^2 = 1 (a pure nonlinear real problem, which Z3's nlsat decides).
  (void)mt;
  (void)nt;
  auto score = [&](std::int64_t pm, std::int64_t pn) {
    auto trig = [&](const char* fn, std::int64_t pos) {
      return var(std::string(fn) + "_" + std::to_string(pos), Sort::real());
    };
    for (std::int64_t pos : {pm, pn}) {
      q.assumptions.push_back(eq(add(mul(trig("cos", pos), trig("cos", pos)),
                                     mul(trig("sin", pos), trig("sin", pos))), real_lit(1)));
    }
    const Term u[2] = {add(x[0], trig("sin", pm)), add(x[1], trig("cos", pm))};
    const Term v[2] = {add(y[0], trig("sin", pn)), add(y[1], trig("cos", pn))};
    Term s = real_lit(0);
    for (int r = 0; r < 2; ++r)
      for (int k = 0; k < 2; ++k) s = add(s, mul(mul(u[r], w[2 * r + k]), v[k]));
    return s;
  };
  const Term s1 = score(0, 1), s2 = score(1, 2);
  q.claim = eq(s1, s2);
  q.watch = {{"s(m,n)", s1}, {"s(m+t,n+t)", s2}};
  q.time_limit_s = 10;
  add_query(c, q, replay_projected);
  finish(c);
  return c;
}

}  // namespace

void add_sinusoidal_claims(std::vector<Claim>& out) {
  out.push_back({"sinusoidal.dot-offset", "SIN-DOT-1", "sinusoidal", Answer::Proved, dot_offset});
  out.push_back({"sinusoidal.projected-absolute", "SIN-AXIS-2", "sinusoidal",
                 Answer::Counterexample, projected});
}

}  // namespace pecheck::proofs
