// RoPE in real arithmetic (spec/rope.md): the relative identity per pair (ROPE-REL-1), its
// lifting to every head_dim by induction over the pairs, and shift invariance of the score
// for every scaling variant whose angle is position x a per-frequency constant
// (ROPE-SCALE-REL-1); dynamic NTK is not (ROPE-SCALE-DYN-2) and gives a replayed
// counterexample. cos and sin are uninterpreted; the only facts about them are
// cos^2 + sin^2 = 1 and the angle-difference formulas, instantiated where they are used.
#include <cmath>

#include "kernels/shared/rope_angle.hpp"
#include "kernels/shared/rope_arith.hpp"
#include "reference/rope.hpp"
#include "rope_model.hpp"

namespace pecheck::proofs {
namespace rope_model {

Term cos_of(const Term& x) { return apply("cos", Sort::real(), {x}); }
Term sin_of(const Term& x) { return apply("sin", Sort::real(), {x}); }

std::vector<Term> trig_axioms(const Term& a, const Term& b) {
  auto pyth = [](const Term& x) {
    return eq(add(mul(cos_of(x), cos_of(x)), mul(sin_of(x), sin_of(x))), real_lit(1));
  };
  const Term d = sub(b, a);
  return {pyth(a), pyth(b),
          eq(cos_of(d), add(mul(cos_of(b), cos_of(a)), mul(sin_of(b), sin_of(a)))),
          eq(sin_of(d), sub(mul(sin_of(b), cos_of(a)), mul(cos_of(b), sin_of(a))))};
}

SymReal kernel_angle(const SymReal& position, const SymReal& scale, const SymReal& f_hi,
                     const SymReal& f_lo) {
  SymReal hi, lo;
  kernels::rope_angle_dd(position, scale, f_hi, f_lo, hi, lo);
  return hi + lo;
}

SymReal pair_score(const Term& am, const Term& an, const SymReal& q0, const SymReal& q1,
                   const SymReal& k0, const SymReal& k1) {
  SymReal qa, qb, ka, kb;
  kernels::rope_rotate(q0, q1, SymReal(cos_of(am)), SymReal(sin_of(am)), qa, qb);
  kernels::rope_rotate(k0, k1, SymReal(cos_of(an)), SymReal(sin_of(an)), ka, kb);
  return qa * ka + qb * kb;
}

std::vector<Variant> variants() {
  return {
      {"none", "ROPE-FREQ-1", {"base", "d"}, false, false},
      {"linear", "ROPE-SCALE-LINEAR-1", {"base", "d", "factor"}, false, false},
      {"ntk", "ROPE-SCALE-NTK-1", {"base", "d", "factor"}, false, false},
      {"yarn", "ROPE-SCALE-YARN-1", {"base", "d", "factor", "orig_max", "beta_fast", "beta_slow"},
       false, true},
      {"llama3", "ROPE-SCALE-LLAMA3-1", {"base", "d", "factor", "orig_max", "alpha", "beta"},
       false, false},
      {"dynamic-ntk", "ROPE-SCALE-DYN-2", {}, true, false},
  };
}

namespace {
Term ivar(const std::string& n) { return var(n, Sort::integer()); }
Term in_range(const Term& p, std::int64_t bound) {
  return t_and({le(int_lit(0), p), lt(p, int_lit(bound))});
}
}  // namespace

Query angle_offset_query(const Variant& v, std::int64_t bound) {
  Query q;
  q.name = "rope.shift." + v.name + ".angle-offset";
  const Term m = ivar("m"), n = ivar("n"), t = ivar("t");
  const Term mt = add(m, t), nt = add(n, t);
  for (const Term& p : {m, n, mt, nt}) q.assumptions.push_back(in_range(p, bound));
  const SymReal s = SymReal::var("s");
  q.assumptions.push_back(lt(real_lit(0), s.term()));
  if (bound < (std::int64_t{1} << 31)) q.assumptions.push_back(le(s.term(), real_lit(4)));
  // The frequency: f = F_variant(i, params...) (+ the length L for dynamic NTK).
  auto freq = [&](const Term& len) {
    if (v.depends_on_length) {
      return apply("f_dynamic_ntk", Sort::real(),
                   {real_lit(kDynFreqIndex), real_lit(10000), real_lit(kDynRotaryDim),
                    real_lit(static_cast<std::int64_t>(kDynFactor)), to_real(len)});
    }
    std::vector<Term> args{var("i", Sort::real())};
    for (auto& p : v.params) args.push_back(var(p, Sort::real()));
    return apply("f_" + v.name, Sort::real(), args);
  };
  auto length = [](const Term& a, const Term& b) { return add(ite(le(a, b), b, a), int_lit(1)); };
  const Term f1 = freq(length(m, n)), f2 = freq(length(mt, nt));
  if (v.depends_on_length) {
    // ROPE-SCALE-DYN-1: for L <= L0 the base (so f) is the unscaled one.
    const Term l0 = int_lit(kDynOriginalMax);
    for (const Term& len : {length(m, n), length(mt, nt)}) {
      q.assumptions.push_back(implies(le(len, l0), eq(freq(len), freq(l0))));
    }
  }
  // WrongFreqExponent (PROOF-MUT-3): the key uses f * r, the next exponent's frequency.
  const bool wrong = active_mutation() == Mutation::WrongFreqExponent;
  const Term r = var("r", Sort::real());
  if (wrong) {
    q.assumptions.push_back(lt(real_lit(0), r));
    q.assumptions.push_back(lt(r, real_lit(1)));
    q.assumptions.push_back(lt(real_lit(0), f1));
  }
  auto angle = [&](const Term& pos, const Term& f, bool key) {
    const SymReal fk = (key && wrong) ? SymReal(mul(f, r)) : SymReal(f);
    return kernel_angle(SymReal(to_real(pos)), s, fk, SymReal(std::int64_t{0})).term();
  };
  const Term d1 = sub(angle(n, f1, true), angle(m, f1, false));
  const Term d2 = sub(angle(nt, f2, true), angle(mt, f2, false));
  q.claim = eq(d1, d2);
  q.watch = {{"angle difference at (m,n)", d1}, {"angle difference at (m+t,n+t)", d2}};
  return q;
}

Query congruence_query(const Variant& v) {
  Query q;
  q.name = "rope.shift." + v.name + ".congruence";
  const Term a1 = var("a1", Sort::real()), a2 = var("a2", Sort::real());
  const Term a3 = var("a3", Sort::real()), a4 = var("a4", Sort::real());
  const Term d1 = sub(a2, a1), d2 = sub(a4, a3);
  q.assumptions.push_back(eq(d1, d2));  // lemma (1)
  const SymReal q0 = SymReal::var("q0"), q1 = SymReal::var("q1");
  const SymReal k0 = SymReal::var("k0"), k1 = SymReal::var("k1");
  auto rel = [&](const Term& d) {
    SymReal c(cos_of(d)), s(sin_of(d));
    if (v.temperature) {
      // ROPE-SCALE-YARN-2: cos and sin carry the attention factor (a constant of the config).
      const SymReal tau(apply("yarn_attention_factor", Sort::real(), {var("factor", Sort::real())}));
      c = tau * c;
      s = tau * s;
    }
    SymReal ka, kb;
    kernels::rope_rotate(k0, k1, c, s, ka, kb);
    return (q0 * ka + q1 * kb).term();
  };
  q.claim = eq(rel(d1), rel(d2));
  return q;
}

namespace {
// Replay tolerance: long double (64-bit significand) evaluation of cos/sin of angles below
// 2^14 and of a 2-term dot product has absolute error below 2^-48 |q||k|; a difference above
// 2^-30 |q||k| is a real difference, not rounding.
constexpr long double kReplayRel = 0x1p-30L;

long double score_ld(long double am, long double an, const float q[2], const float k[2]) {
  const long double qa = q[0] * std::cos(am) - q[1] * std::sin(am);
  const long double qb = q[1] * std::cos(am) + q[0] * std::sin(am);
  const long double ka = k[0] * std::cos(an) - k[1] * std::sin(an);
  const long double kb = k[1] * std::cos(an) + k[0] * std::sin(an);
  return qa * ka + qb * kb;
}
}  // namespace

Replay replay_shift(const Variant& v, const Model& md) {
  Replay rp;
  const std::int64_t m = static_cast<std::int64_t>(md.real("m"));
  const std::int64_t n = static_cast<std::int64_t>(md.real("n"));
  const std::int64_t t = static_cast<std::int64_t>(md.real("t"));
  const float q[2] = {1.0f, 0.0f};
  const float k[2] = {1.0f, 0.0f};
  const long double s = static_cast<float>(md.real("s"));
  reference::RopeConfig cfg;
  cfg.head_dim = cfg.rotary_dim = kDynRotaryDim;
  if (v.depends_on_length) {
    cfg.scaling.kind = reference::RopeScaling::DynamicNtk;
    cfg.scaling.factor = kDynFactor;
    cfg.scaling.original_max_positions = kDynOriginalMax;
  }
  const std::int64_t i = kDynFreqIndex;
  auto f_at = [&](std::int64_t len, std::int64_t idx) {
    return reference::rope_inv_freq<long double>(cfg, len)[static_cast<std::size_t>(idx)];
  };
  const std::int64_t l1 = std::max(m, n) + 1, l2 = std::max(m + t, n + t) + 1;
  const bool wrong = active_mutation() == Mutation::WrongFreqExponent;
  const long double fq1 = f_at(l1, i), fq2 = f_at(l2, i);
  const long double fk1 = wrong ? f_at(l1, i + 1) : fq1, fk2 = wrong ? f_at(l2, i + 1) : fq2;
  const long double a = score_ld(m * s * fq1, n * s * fk1, q, k);
  const long double b = score_ld((m + t) * s * fq2, (n + t) * s * fk2, q, k);
  const long double mag = std::hypot(q[0], q[1]) * std::hypot(k[0], k[1]);
  rp.confirmed = std::fabs(a - b) > kReplayRel * mag && mag > 0;
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "score(m=%lld, n=%lld) = %.12Lg but score(m+t=%lld, n+t=%lld) = %.12Lg "
                "(difference %.3Lg; %s, i=%lld, base 10000, rotary_dim %lld)",
                static_cast<long long>(m), static_cast<long long>(n), a,
                static_cast<long long>(m + t), static_cast<long long>(n + t), b, a - b,
                wrong ? "key uses the next frequency exponent" : v.name.c_str(),
                static_cast<long long>(i), static_cast<long long>(kDynRotaryDim));
  rp.message = buf;
  auto& cx = rp.cx;
  cx.clause = wrong ? "ROPE-REL-1" : v.clause;
  cx.kind = "property";
  cx.message = rp.message;
  cx.function = "pec_rope_f32";
  cx.args = {{"n_tokens", std::int64_t{2}}, {"n_heads", std::int64_t{1}},
             {"head_dim", kDynRotaryDim}, {"rotary_dim", kDynRotaryDim},
             {"layout", std::string("neox")}, {"theta_base", 10000.0},
             {"position_scale", static_cast<double>(s)},
             {"positions", std::vector<std::int64_t>{m, n}},
             {"shifted_positions", std::vector<std::int64_t>{m + t, n + t}}};
  cx.inputs = {{"q_pair", {2}, {q[0], q[1]}}, {"k_pair", {2}, {k[0], k[1]}}};
  cx.reproduce = "pecheck prove --only rope.shift." + v.name;
  if (v.depends_on_length) {
    cx.notes.push_back("dynamic NTK factor " + std::to_string(kDynFactor) +
                       ", original_max_positions " + std::to_string(kDynOriginalMax) +
                       ", sequence lengths " + std::to_string(l1) + " and " + std::to_string(l2));
  }
  return rp;
}

}  // namespace rope_model

namespace {
using namespace rope_model;

// ROPE-ANGLE-1: the kernels' double-double angle steps are exact in real arithmetic, so the
// angle is position * scale * (f_hi + f_lo): linear in the position.
ClaimResult angle_exact() {
  auto c = start("rope.angle-linear", "ROPE-ANGLE-1", "rope", Answer::Proved,
                 "the kernels' angle (rope_angle_dd, exact arithmetic) is position*scale*f");
  const SymReal p = SymReal::var("p"), s = SymReal::var("s"), fh = SymReal::var("f_hi"),
                fl = SymReal::var("f_lo");
  Query q;
  q.name = "rope.angle-linear";
  q.claim = eq(kernel_angle(p, s, fh, fl).term(), (p * s * (fh + fl)).term());
  add_query(c, q);
  finish(c);
  return c;
}

// ROPE-REL-1 for one pair, every angle a (query) and b (key).
ClaimResult relative_pair() {
  auto c = start("rope.relative-pair", "ROPE-REL-1", "rope", Answer::Proved,
                 "<R(a)q, R(b)k> = <q, R(b-a)k> for one pair (cos, sin uninterpreted)");
  const Term a = var("a", Sort::real()), b = var("b", Sort::real());
  const SymReal q0 = SymReal::var("q0"), q1 = SymReal::var("q1");
  const SymReal k0 = SymReal::var("k0"), k1 = SymReal::var("k1");
  const Term d = sub(b, a);
  SymReal ka, kb;
  kernels::rope_rotate(k0, k1, SymReal(cos_of(d)), SymReal(sin_of(d)), ka, kb);
  Query q;
  q.name = "rope.relative-pair";
  q.assumptions = trig_axioms(a, b);
  q.claim = eq(pair_score(a, b, q0, q1, k0, k1).term(), (q0 * ka + q1 * kb).term());
  add_query(c, q);
  finish(c);
  return c;
}

// ROPE-REL-1 lifted to every head_dim (PROOF-LIFT-1): score = passthrough + sum over pairs j of P_j, with
// the pairs a partition of [0, rotary_dim) (rope.pairing-* claims). Induction over j:
// base S(0) = passthrough (no position), step S(j+1) = S(j) + P_j with P_j shift-invariant.
ClaimResult lift() {
  auto c = start("rope.lift-head-dim", "ROPE-REL-1, ROPE-PAIR-3", "rope", Answer::Proved,
                 "shift invariance of the whole head by induction over the pairs (any head_dim)");
  const Term j = var("j", Sort::integer());
  const Term m = var("m", Sort::real()), n = var("n", Sort::real()), t = var("t", Sort::real());
  auto S = [&](const Term& k, const Term& x, const Term& y) {
    return apply("S", Sort::real(), {k, x, y});
  };
  auto P = [&](const Term& k, const Term& x, const Term& y) {
    return apply("P", Sort::real(), {k, x, y});
  };
  const Term pt = var("passthrough", Sort::real());
  const Term mt = add(m, t), nt = add(n, t);
  Query base;
  base.name = "rope.lift.base";
  base.assumptions = {eq(S(int_lit(0), m, n), pt), eq(S(int_lit(0), mt, nt), pt)};
  base.claim = eq(S(int_lit(0), m, n), S(int_lit(0), mt, nt));
  add_query(c, base);
  Query step;
  step.name = "rope.lift.step";
  const Term j1 = add(j, int_lit(1));
  step.assumptions = {le(int_lit(0), j),
                      eq(S(j, m, n), S(j, mt, nt)),               // induction hypothesis
                      eq(P(j, m, n), P(j, mt, nt)),               // the per-pair lemma
                      eq(S(j1, m, n), add(S(j, m, n), P(j, m, n))),
                      eq(S(j1, mt, nt), add(S(j, mt, nt), P(j, mt, nt)))};
  step.claim = eq(S(j1, m, n), S(j1, mt, nt));
  add_query(c, step);
  finish(c);
  return c;
}

// The premise of ROPE-SCALE-REL-1 on the reference: f_i does not depend on the sequence
// length (checked by evaluation at lengths 1 .. 2^31 - 1; the identity itself is proved).
std::string frequency_premise(const std::string& name, bool& independent) {
  reference::RopeConfig cfg;
  cfg.head_dim = cfg.rotary_dim = 64;
  auto& sc = cfg.scaling;
  sc.factor = 4;
  sc.original_max_positions = 4096;
  if (name == "linear") sc.kind = reference::RopeScaling::Linear;
  if (name == "ntk") sc.kind = reference::RopeScaling::Ntk;
  if (name == "yarn") sc.kind = reference::RopeScaling::Yarn;
  if (name == "llama3") sc.kind = reference::RopeScaling::Llama3;
  if (name == "dynamic-ntk") sc.kind = reference::RopeScaling::DynamicNtk;
  const auto f0 = reference::rope_inv_freq<double>(cfg, 1);
  independent = true;
  for (std::int64_t len : {std::int64_t{4096}, std::int64_t{4097}, std::int64_t{1} << 20,
                           (std::int64_t{1} << 31) - 1}) {
    if (reference::rope_inv_freq<double>(cfg, len) != f0) independent = false;
  }
  return std::string("premise (reference rope_inv_freq, rotary_dim 64, factor 4, L0 4096): ") +
         (independent ? "f_i identical for sequence lengths 1, 4096, 4097, 2^20, 2^31-1"
                      : "f_i changes with the sequence length");
}

ClaimResult shift(const Variant& v) {
  const bool dyn = v.depends_on_length;
  auto c = start("rope.shift." + v.name, v.clause + ", ROPE-SCALE-REL-1", "rope",
                 dyn ? Answer::Counterexample : Answer::Proved,
                 dyn ? "dynamic NTK's score is NOT shift-invariant (solver model, replayed)"
                     : "score(m,n) = score(m+t,n+t) for one pair under the " + v.name +
                           " frequencies");
  bool independent = false;
  c.notes.push_back(frequency_premise(v.name, independent));
  if (independent == dyn) {
    c.verdict = Answer::Error;
    c.reason = "the reference's frequencies contradict the variant's model: " + c.notes.back();
    return c;
  }
  const std::int64_t bound = dyn ? std::int64_t{1} << 12 : std::int64_t{1} << 31;
  const Answer a = add_query(c, angle_offset_query(v, bound),
                             [v](const Model& m) { return replay_shift(v, m); });
  if (a == Answer::Proved) {
    c.notes.push_back("uses lemma rope.relative-pair (proved by its own claim)");
    add_query(c, congruence_query(v));
  }
  finish(c);
  return c;
}

}  // namespace

void add_rope_claims(std::vector<Claim>& out) {
  out.push_back({"rope.angle-linear", "ROPE-ANGLE-1", "rope", Answer::Proved, angle_exact});
  out.push_back({"rope.relative-pair", "ROPE-REL-1", "rope", Answer::Proved, relative_pair});
  out.push_back({"rope.lift-head-dim", "ROPE-REL-1", "rope", Answer::Proved, lift});
  for (const auto& v : variants()) {
    out.push_back({"rope.shift." + v.name, v.clause, "rope",
                   v.depends_on_length ? Answer::Counterexample : Answer::Proved,
                   [v] { return shift(v); }});
  }
}

}  // namespace pecheck::proofs
