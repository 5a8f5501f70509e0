// The RoPE family (spec/rope.md, "The RoPE family"): the rotation identity lifted to LongRoPE's
// rescaled frequencies f_i / lambda_i within one factor table and, per axis, to M-RoPE's (t, h, w)
// positions; Llama 4's chunk mask and attention temperature as solver counterexamples replayed
// on the reference (src/reference/rope_family.hpp). As in claims_rope.cpp, cos and sin are
// uninterpreted and the per-pair relative identity is the lemma rope.relative-pair; the angle
// the kernels form is rope_angle_dd instantiated in exact arithmetic.
// Clause: PROOF-LIFT-2 (the lifted identities), PROOF-WIT-1 (the replayed counterexamples)
#include <cmath>
#include <cstdio>

#include "kernels/shared/rope_arith.hpp"
#include "reference/rope_family.hpp"
#include "rope_model.hpp"

namespace pecheck::proofs {
namespace {

using namespace rope_model;

constexpr std::int64_t kPosEnd = std::int64_t{1} << 31;

Term ivar(const std::string& n) { return var(n, Sort::integer()); }
Term rvar(const std::string& n) { return var(n, Sort::real()); }
Term in_range(const Term& p, std::int64_t bound) {
  return t_and({le(int_lit(0), p), lt(p, int_lit(bound))});
}
Term max1(const Term& a, const Term& b) { return add(ite(le(a, b), b, a), int_lit(1)); }

// The angle difference A(n) - A(m) of one pair with frequency f (kernels' angle, exact).
Term angle_diff(const Term& m, const Term& n, const SymReal& s, const Term& f) {
  const SymReal fm(f);
  const Term an = kernel_angle(SymReal(to_real(n)), s, fm, SymReal(std::int64_t{0})).term();
  const Term am = kernel_angle(SymReal(to_real(m)), s, fm, SymReal(std::int64_t{0})).term();
  return sub(an, am);
}

// Equal angle differences give equal scores with a factor `tau` on cos and sin (the lemma (3) of
// rope_model.hpp, with the family's attention factor).
Query congruence(const std::string& name, const Term& tau) {
  Query q;
  q.name = name;
  const Term a1 = rvar("a1"), a2 = rvar("a2"), a3 = rvar("a3"), a4 = rvar("a4");
  const Term d1 = sub(a2, a1), d2 = sub(a4, a3);
  q.assumptions.push_back(eq(d1, d2));
  const SymReal q0 = SymReal::var("q0"), q1 = SymReal::var("q1");
  const SymReal k0 = SymReal::var("k0"), k1 = SymReal::var("k1");
  auto rel = [&](const Term& d) {
    const SymReal t(tau);
    SymReal ka, kb;
    kernels::rope_rotate(k0, k1, t * SymReal(cos_of(d)), t * SymReal(sin_of(d)), ka, kb);
    return (q0 * ka + q1 * kb).term();
  };
  q.claim = eq(rel(d1), rel(d2));
  return q;
}

// ---- LongRoPE (ROPE-LONG-1, -2, -4) ---------------------------------------------------------

// f = f_base(i) / lambda(L), lambda = long table if L > L0 else short table; positions < 2^31.
struct LongRopeTerms {
  Term m = ivar("m"), n = ivar("n"), t = ivar("t"), l0 = ivar("L0");
  SymReal s = SymReal::var("s");
  Term f_base = rvar("f_base"), lam_short = rvar("lambda_short"), lam_long = rvar("lambda_long");
  std::vector<Term> pre;
  Term freq(const Term& len) const {
    return mul(f_base, apply("recip", Sort::real(), {ite(lt(l0, len), lam_long, lam_short)}));
  }
  LongRopeTerms() {
    for (const Term& p : {m, n, add(m, t), add(n, t)}) pre.push_back(in_range(p, kPosEnd));
    pre.push_back(le(int_lit(2), l0));
    pre.push_back(lt(real_lit(0), s.term()));
    pre.push_back(lt(real_lit(0), lam_short));
    pre.push_back(lt(real_lit(0), lam_long));
  }
};

ClaimResult longrope_within_table() {
  auto c =
      start("rope.shift.longrope", "ROPE-LONG-4, ROPE-LONG-1, ROPE-LONG-3", "rope", Answer::Proved,
            "score(m,n) = score(m+t,n+t) for one pair with f_i/lambda_i when both pairs use "
            "the same factor table (any tables, any L0)");
  const LongRopeTerms v;
  Query q;
  q.name = "rope.shift.longrope.angle-offset";
  q.assumptions = v.pre;
  const Term l1 = max1(v.m, v.n), l2 = max1(add(v.m, v.t), add(v.n, v.t));
  q.assumptions.push_back(eq(lt(v.l0, l1), lt(v.l0, l2)));  // the same table (ROPE-LONG-2)
  q.claim = eq(angle_diff(v.m, v.n, v.s, v.freq(l1)),
               angle_diff(add(v.m, v.t), add(v.n, v.t), v.s, v.freq(l2)));
  if (add_query(c, q) == Answer::Proved) {
    c.notes.push_back("uses lemma rope.relative-pair (proved by its own claim)");
    add_query(c, congruence("rope.shift.longrope.congruence", rvar("longrope_attention_factor")));
  }
  finish(c);
  return c;
}

// The replay of a switch-crossing model: rotary_dim 2 (f_base = 1), tables {1} and {2}, L0 from
// the model, q = k = (1, 0): score = a^2 cos((n - m) / lambda) in long double.
Replay replay_longrope(const Model& md) {
  Replay rp;
  const auto m = static_cast<std::int64_t>(md.real("m"));
  const auto n = static_cast<std::int64_t>(md.real("n"));
  const auto t = static_cast<std::int64_t>(md.real("t"));
  reference::LongRopeConfig cfg;
  cfg.head_dim = cfg.rotary_dim = 2;
  cfg.short_factor = {1.0};
  cfg.long_factor = {2.0};
  cfg.original_max_position_embeddings = static_cast<std::int64_t>(md.real("L0"));
  cfg.max_position_embeddings = 4 * cfg.original_max_position_embeddings;
  auto score = [&](std::int64_t a, std::int64_t b) {
    const long double f = reference::longrope_inv_freq<long double>(cfg, std::max(a, b) + 1)[0];
    const long double at = reference::longrope_attention_factor<long double>(cfg);
    return at * at * std::cos(static_cast<long double>(b - a) * f);
  };
  const long double a = score(m, n), b = score(m + t, n + t);
  rp.confirmed = std::fabs(a - b) > 0x1p-30L;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "score(m=%lld, n=%lld) = %.12Lg (%s table) but score(m+t=%lld, n+t=%lld) = %.12Lg "
                "(%s table); original_max %lld, short_factor {1}, long_factor {2}",
                static_cast<long long>(m), static_cast<long long>(n), a,
                reference::longrope_uses_long(cfg, std::max(m, n) + 1) ? "long" : "short",
                static_cast<long long>(m + t), static_cast<long long>(n + t), b,
                reference::longrope_uses_long(cfg, std::max(m, n) + t + 1) ? "long" : "short",
                static_cast<long long>(cfg.original_max_position_embeddings));
  rp.message = buf;
  rp.cx.clause = "ROPE-LONG-4";
  rp.cx.kind = "property";
  rp.cx.message = rp.message;
  rp.cx.function = "reference::score_longrope";
  rp.cx.args = {{"rotary_dim", std::int64_t{2}},
                {"original_max_position_embeddings", cfg.original_max_position_embeddings},
                {"positions", std::vector<std::int64_t>{m, n}},
                {"shifted_positions", std::vector<std::int64_t>{m + t, n + t}}};
  rp.cx.reproduce = "pecheck prove --only rope.shift.longrope-switch";
  return rp;
}

ClaimResult longrope_switch() {
  auto c = start("rope.shift.longrope-switch", "ROPE-LONG-4, ROPE-LONG-2", "rope",
                 Answer::Counterexample,
                 "across the switch LongRoPE's score is NOT shift-invariant (solver model, "
                 "replayed)");
  LongRopeTerms v;
  Query q;
  q.name = "rope.shift.longrope-switch.angle-offset";
  q.assumptions = v.pre;
  // concrete tables for the replay: f_base = 1, lambda_short = 1, lambda_long = 2, L0 <= 2^12
  q.assumptions.push_back(eq(v.f_base, real_lit(1)));
  q.assumptions.push_back(eq(v.lam_short, real_lit(1)));
  q.assumptions.push_back(eq(v.lam_long, real_lit(2)));
  q.assumptions.push_back(eq(v.s.term(), real_lit(1)));
  q.assumptions.push_back(le(v.l0, int_lit(1 << 12)));
  for (const Term& p : {v.m, v.n, add(v.m, v.t), add(v.n, v.t)})
    q.assumptions.push_back(lt(p, int_lit(1 << 13)));
  for (const Term& lam : {v.lam_short, v.lam_long})
    q.assumptions.push_back(eq(mul(lam, apply("recip", Sort::real(), {lam})), real_lit(1)));
  const Term l1 = max1(v.m, v.n), l2 = max1(add(v.m, v.t), add(v.n, v.t));
  // the offset must be non-zero (at offset 0 both scores are a^2)
  q.assumptions.push_back(t_not(eq(v.m, v.n)));
  q.claim = eq(angle_diff(v.m, v.n, v.s, v.freq(l1)),
               angle_diff(add(v.m, v.t), add(v.n, v.t), v.s, v.freq(l2)));
  add_query(c, q, replay_longrope);
  finish(c);
  return c;
}

// ---- M-RoPE (ROPE-MROPE-1, -6) --------------------------------------------------------------

ClaimResult mrope_per_axis() {
  auto c = start("rope.shift.mrope", "ROPE-MROPE-6, ROPE-MROPE-1", "rope", Answer::Proved,
                 "per axis: pair i's angle difference at (m+c, n+c) equals that at (m, n) for a "
                 "shift vector c, for each of the three axes pair i may use (so for every "
                 "layout); then per pair and summed (PROOF-LIFT-1)");
  const char* axes[3] = {"t", "h", "w"};
  std::vector<Term> m, n, sh;
  for (const char* a : axes) {
    m.push_back(ivar(std::string("m_") + a));
    n.push_back(ivar(std::string("n_") + a));
    sh.push_back(ivar(std::string("c_") + a));
  }
  const SymReal s = SymReal::var("s");
  const Term f = apply("f_mrope", Sort::real(), {to_real(ivar("i"))});  // base^(-2i/d)
  bool all = true;
  // axis(i) takes one of three values: one query per value covers every assignment (sectioned,
  // interleaved, or any other), each pair reading only its own axis's positions.
  for (int ax = 0; ax < 3; ++ax) {
    Query q;
    q.name = std::string("rope.shift.mrope.angle-offset.") + axes[ax];
    for (int a = 0; a < 3; ++a)
      for (const Term& p : {m[a], n[a], add(m[a], sh[a]), add(n[a], sh[a])})
        q.assumptions.push_back(in_range(p, kPosEnd));
    q.assumptions.push_back(lt(real_lit(0), s.term()));
    q.claim = eq(angle_diff(m[ax], n[ax], s, f),
                 angle_diff(add(m[ax], sh[ax]), add(n[ax], sh[ax]), s, f));
    all = add_query(c, q) == Answer::Proved && all;
  }
  if (all) {
    c.notes.push_back("uses lemma rope.relative-pair and the induction of rope.lift-head-dim "
                      "(each pair's term is shift-invariant under the vector shift)");
    add_query(c, congruence("rope.shift.mrope.congruence", real_lit(1)));
  }
  finish(c);
  return c;
}

// ---- Llama 4 (ROPE-L4-2, -3, -5, -6) --------------------------------------------------------

constexpr std::int64_t kChunk = 8192;

Term visible(const Term& m, const Term& n, const Term& chunk) {
  return t_and({le(n, m), eq(int_div(m, chunk), int_div(n, chunk))});
}

ClaimResult chunk_mask_within() {
  auto c = start("rope.llama4.chunk-mask-within", "ROPE-L4-5, ROPE-L4-2", "rope", Answer::Proved,
                 "a shift that keeps whether m and n share a chunk keeps the chunked mask (any "
                 "chunk size); the visible scores are RoPE's, offset-only (rope.shift.llama3)");
  Query q;
  q.name = "rope.llama4.chunk-mask-within";
  const Term m = ivar("m"), n = ivar("n"), t = ivar("t"), C = ivar("C");
  for (const Term& p : {m, n, add(m, t), add(n, t)}) q.assumptions.push_back(in_range(p, kPosEnd));
  q.assumptions.push_back(le(int_lit(1), C));
  const Term same1 = eq(int_div(m, C), int_div(n, C));
  const Term same2 = eq(int_div(add(m, t), C), int_div(add(n, t), C));
  q.assumptions.push_back(eq(same1, same2));
  q.claim = eq(visible(m, n, C), visible(add(m, t), add(n, t), C));
  add_query(c, q);
  finish(c);
  return c;
}

Replay replay_chunk(const Model& md) {
  Replay rp;
  const auto m = static_cast<std::int64_t>(md.real("m"));
  const auto n = static_cast<std::int64_t>(md.real("n"));
  const auto t = static_cast<std::int64_t>(md.real("t"));
  reference::Llama4Config cfg;  // attention_chunk_size 8192
  const bool v1 = reference::llama4_key_visible(cfg, true, m, n);
  const bool v2 = reference::llama4_key_visible(cfg, true, m + t, n + t);
  rp.confirmed = v1 != v2;
  char buf[300];
  std::snprintf(buf, sizeof buf,
                "offset %lld: key %lld %s from query %lld, but key %lld %s from query %lld "
                "(chunk size %lld: chunks %lld,%lld vs %lld,%lld)",
                static_cast<long long>(n - m), static_cast<long long>(n), v1 ? "visible" : "masked",
                static_cast<long long>(m), static_cast<long long>(n + t), v2 ? "visible" : "masked",
                static_cast<long long>(m + t), static_cast<long long>(kChunk),
                static_cast<long long>(m / kChunk), static_cast<long long>(n / kChunk),
                static_cast<long long>((m + t) / kChunk), static_cast<long long>((n + t) / kChunk));
  rp.message = buf;
  rp.cx.clause = "ROPE-L4-5";
  rp.cx.kind = "property";
  rp.cx.message = rp.message;
  rp.cx.function = "reference::llama4_key_visible";
  rp.cx.args = {{"attention_chunk_size", kChunk},
                {"positions", std::vector<std::int64_t>{m, n}},
                {"shifted_positions", std::vector<std::int64_t>{m + t, n + t}}};
  rp.cx.reproduce = "pecheck prove --only rope.llama4.chunk-shift";
  return rp;
}

ClaimResult chunk_shift() {
  auto c = start("rope.llama4.chunk-shift", "ROPE-L4-5, ROPE-L4-2", "rope", Answer::Counterexample,
                 "the chunked mask is NOT shift-invariant: the same offset, different chunk "
                 "membership (solver model, replayed on the reference mask)");
  Query q;
  q.name = "rope.llama4.chunk-shift";
  const Term m = ivar("m"), n = ivar("n"), t = ivar("t");
  for (const Term& p : {m, n, add(m, t), add(n, t)}) q.assumptions.push_back(in_range(p, kPosEnd));
  q.claim = eq(visible(m, n, int_lit(kChunk)), visible(add(m, t), add(n, t), int_lit(kChunk)));
  add_query(c, q, replay_chunk);
  finish(c);
  return c;
}

Replay replay_temperature(const Model& md) {
  Replay rp;
  const auto m = static_cast<std::int64_t>(md.real("m"));
  const auto t = static_cast<std::int64_t>(md.real("t"));
  reference::Llama4Config cfg;  // floor_scale 8192, attn_scale 0.1
  const long double a = reference::llama4_attn_temperature<long double>(cfg, m);
  const long double b = reference::llama4_attn_temperature<long double>(cfg, m + t);
  // q = k = (1, 0): the NoPE layer's score is tau(m) * 1 (ROPE-L4-6)
  rp.confirmed = std::fabs(a - b) > 0x1p-30L;
  char buf[300];
  std::snprintf(buf, sizeof buf,
                "NoPE-layer score at query %lld is tau = %.12Lg but at query %lld (same key "
                "offset) tau = %.12Lg (floor_scale 8192, attn_scale 0.1)",
                static_cast<long long>(m), a, static_cast<long long>(m + t), b);
  rp.message = buf;
  rp.cx.clause = "ROPE-L4-6";
  rp.cx.kind = "property";
  rp.cx.message = rp.message;
  rp.cx.function = "reference::llama4_attn_temperature";
  rp.cx.args = {{"floor_scale", 8192.0},
                {"attn_scale", 0.1},
                {"positions", std::vector<std::int64_t>{m, m + t}}};
  rp.cx.reproduce = "pecheck prove --only rope.llama4.temperature-shift";
  return rp;
}

ClaimResult temperature_shift() {
  auto c =
      start("rope.llama4.temperature-shift", "ROPE-L4-6, ROPE-L4-3", "rope", Answer::Counterexample,
            "the temperature's step floor((m+1)/floor_scale) is NOT shift-invariant, so "
            "neither is the NoPE layer's score (solver model, replayed on the reference)");
  Query q;
  q.name = "rope.llama4.temperature-shift";
  const Term m = ivar("m"), t = ivar("t");
  for (const Term& p : {m, add(m, t)}) q.assumptions.push_back(in_range(p, kPosEnd));
  // tau = ln(k + 1) * attn_scale + 1 is strictly increasing in k = floor((p+1)/8192) for
  // attn_scale > 0, so the temperature is shift-invariant iff k is.
  q.claim = eq(int_div(add(m, int_lit(1)), int_lit(8192)),
               int_div(add(add(m, t), int_lit(1)), int_lit(8192)));
  add_query(c, q, replay_temperature);
  finish(c);
  return c;
}

}  // namespace

void add_family_claims(std::vector<Claim>& out) {
  out.push_back(
      {"rope.shift.longrope", "ROPE-LONG-4", "rope", Answer::Proved, longrope_within_table});
  out.push_back({"rope.shift.longrope-switch", "ROPE-LONG-4", "rope", Answer::Counterexample,
                 longrope_switch});
  out.push_back({"rope.shift.mrope", "ROPE-MROPE-6", "rope", Answer::Proved, mrope_per_axis});
  out.push_back(
      {"rope.llama4.chunk-mask-within", "ROPE-L4-5", "rope", Answer::Proved, chunk_mask_within});
  out.push_back(
      {"rope.llama4.chunk-shift", "ROPE-L4-5", "rope", Answer::Counterexample, chunk_shift});
  out.push_back({"rope.llama4.temperature-shift", "ROPE-L4-6", "rope", Answer::Counterexample,
                 temperature_shift});
}

}  // namespace pecheck::proofs
