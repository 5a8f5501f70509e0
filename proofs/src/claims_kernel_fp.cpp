// Bit-precise float32 (PROOF-FP-*, PROOF-FMA-*): the kernels' per-pair arithmetic from their
// shared source (src/kernels/shared/rope_arith.hpp), instantiated with SymFloat, equals the
// spec's float32 evaluation for all inputs; the FMA variant of the worked example
// (examples/proof_kernel) does not, and its difference is bounded in ULPs away from
// cancellation and unbounded under cancellation.
#include <bit>
#include <cmath>
#include <cstdio>

#include "my_rope_arith.hpp"  // examples/proof_kernel: the worked example
#include "kernels/shared/rope_arith.hpp"
#include "oracle/format.hpp"
#include "proofs/kernel_check.hpp"

namespace pecheck::proofs {

namespace {
std::string hexf(float v) {
  char b[64];
  std::snprintf(b, sizeof b, "%a (%.9g)", static_cast<double>(v), static_cast<double>(v));
  return b;
}
bool same_datum(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}
// The exact real value of xa*c -+ xb*s: each product is exact in binary128 (48 bits), and so
// is their sum unless the exponents differ by more than ~65, where the rounding error is far
// below a binary32 ulp of the result.
void exact_value(float xa, float xb, float c, float s, bool is_a, double& hi, double& lo) {
  const __float128 p = static_cast<__float128>(xa) * c, q = static_cast<__float128>(xb) * s;
  const __float128 pb = static_cast<__float128>(xb) * c, qa = static_cast<__float128>(xa) * s;
  const __float128 v = is_a ? p - q : pb + qa;
  hi = static_cast<double>(v);
  lo = static_cast<double>(v - static_cast<__float128>(hi));
}
}  // namespace

ClaimResult check_rotation(const RotationUnderTest& r) {
  auto c = start(r.name, r.clause, active_mutation() == Mutation::None ? "kernel" : "mutation",
                 r.expected, r.description);
  const SymFloat xa = SymFloat::var("xa", Sort::f32()), xb = SymFloat::var("xb", Sort::f32());
  const SymFloat cs = SymFloat::var("c", Sort::f32()), sn = SymFloat::var("s", Sort::f32());
  SymFloat ya, yb;
  {
    MutationScope clean(Mutation::None);  // the spec side is never mutated
    spec_rotate(xa, xb, cs, sn, ya, yb);
  }
  Query q;
  q.name = r.name;
  // Proofs compare IEEE data exactly (NaN = NaN, +0 != -0); the realistic counterexample
  // search of the claims meant to fail asks for a numeric difference (fp.eq: +0 == -0).
  if (r.realistic) {
    // y_a only: y_b has the same structure, and one lane keeps the search within budget.
    q.claim = fp_bin(Op::FpEq, r.ya, ya.term());
  } else {
    q.claim = t_and({fp_same(r.ya, ya.term()), fp_same(r.yb, yb.term())});
  }
  q.time_limit_s = 20;
  q.ieee_normalize = r.ieee_normalize;
  if (r.ieee_normalize) c.notes.push_back("uses the rewrite lemmas of kernel.ieee-lemmas");
  if (r.realistic) {
    const Term one = fp_lit(1.0f), minus_one = fp_lit(-1.0f);
    (void)one;
    (void)minus_one;
    for (const SymFloat* v : {&xa, &xb, &cs, &sn}) q.assumptions.push_back(fp_finite(v->term()));
    for (const Term& y : {r.ya, ya.term()}) q.assumptions.push_back(fp_finite(y));
    c.notes.push_back("counterexample search on y_a, restricted to finite inputs and results");
  }
  auto concrete = r.concrete;
  const bool numeric = r.realistic;
  auto replay = [concrete, numeric](const Model& m) {
    Replay rp;
    const float a = m.f32("xa"), b = m.f32("xb"), cc = m.f32("c"), ss = m.f32("s");
    float ka = 0, kb = 0, sa = 0, sb = 0;
    concrete(a, b, cc, ss, ka, kb);
    {
      MutationScope clean(Mutation::None);
      spec_rotate(a, b, cc, ss, sa, sb);
    }
    auto differ = [numeric](float x, float y) { return numeric ? x != y : !same_datum(x, y); };
    const bool lane_a = differ(ka, sa);
    rp.confirmed = lane_a || differ(kb, sb);
    const float got = lane_a ? ka : kb, want = lane_a ? sa : sb;
    double hi = 0, lo = 0;
    exact_value(a, b, cc, ss, lane_a, hi, lo);
    auto& cx = rp.cx;
    cx.clause = "ABI-ROPE-2";
    cx.kind = "mismatch";
    cx.function = "pec_rope_f32";
    const double ulps = oracle::ulp_distance(got, want, oracle::Format::F32).ulps;
    rp.message = std::string(lane_a ? "y_a" : "y_b") + ": kernel " + hexf(got) + " but spec " +
                 hexf(want) + " (" + std::to_string(ulps) + " ulp apart) at xa=" + hexf(a) +
                 ", xb=" + hexf(b) + ", cos=" + hexf(cc) + ", sin=" + hexf(ss);
    cx.message = rp.message;
    cx.args = {{"n_tokens", std::int64_t{1}}, {"n_heads", std::int64_t{1}},
               {"head_dim", std::int64_t{2}}, {"rotary_dim", std::int64_t{2}},
               {"layout", std::string("neox")}};
    cx.inputs = {{"x", {2}, {a, b}}, {"cos_sin", {2}, {cc, ss}}};
    report::WorstElement w;
    w.output = "y";
    w.index = {lane_a ? 0 : 1};
    w.index_names = {"lane"};
    w.flat_index = lane_a ? 0 : 1;
    w.expected = want;
    w.actual = got;
    w.abs_error = std::fabs(static_cast<double>(got) - (hi + lo));
    w.ulps = std::isfinite(hi) ? oracle::ulp_error(got, hi, lo, oracle::Format::F32) : 0;
    cx.worst = w;
    cx.notes.push_back("replayed on hardware float arithmetic; exact value " +
                       std::to_string(hi) + " (binary128), spec result error " +
                       std::to_string(std::isfinite(hi) ? oracle::ulp_error(want, hi, lo, oracle::Format::F32) : 0) +
                       " ulp, kernel result error " + std::to_string(w.ulps) + " ulp");
    return rp;
  };
  add_query(c, q, replay);
  if (c.counterexample) c.counterexample->reproduce = "pecheck prove --only " + r.name;
  finish(c);
  return c;
}

namespace {

ClaimResult kernel_rotate() {
  return prove_rope_rotation(
      "kernel.rope-rotate-f32",
      [](const auto& xa, const auto& xb, const auto& c, const auto& s, auto& ya, auto& yb) {
        kernels::rope_rotate(xa, xb, c, s, ya, yb);
      },
      Answer::Proved, "ABI-ROPE-2, ROPE-ROT-1, PROOF-FP-1");
}

// The GPTJ vector form: lane a = x*c + x_swapped*(-s), lane b = x*c + x_swapped*(+s).
ClaimResult kernel_interleaved() {
  return prove_rope_rotation(
      "kernel.rope-rotate-interleaved-f32",
      [](const auto& xa, const auto& xb, const auto& c, const auto& s, auto& ya, auto& yb) {
        ya = kernels::rope_rotate_interleaved(xa, xb, c, -s);
        yb = kernels::rope_rotate_interleaved(xb, xa, c, s);
      },
      Answer::Proved, "ABI-ROPE-2, ROPE-ROT-1, PROOF-FP-2", true);
}

ClaimResult fma_differs() {
  return prove_rope_rotation(
      "kernel.fma-differs",
      [](const auto& xa, const auto& xb, const auto& c, const auto& s, auto& ya, auto& yb) {
        my_kernel::my_rotate_fma(xa, xb, c, s, ya, yb);
      },
      Answer::Counterexample, "PROOF-FMA-1");
}

ClaimResult example_rotate() {
  return prove_rope_rotation(
      "example.my-rotate-f32",
      [](const auto& xa, const auto& xb, const auto& c, const auto& s, auto& ya, auto& yb) {
        my_kernel::my_rotate(xa, xb, c, s, ya, yb);
      },
      Answer::Proved, "ABI-ROPE-2, ROPE-ROT-1, PROOF-FP-1");
}

// PROOF-FP-3: the rewrite rules of ieee_normalize, for all binary32 inputs.
ClaimResult ieee_lemmas() {
  auto c = start("kernel.ieee-lemmas", "PROOF-FP-3", "kernel", Answer::Proved,
                 "a*(-b) = -(a*b), a+(-b) = a-b, a-(-b) = a+b, -(-a) = a in binary32 (RNE)");
  const Term a = fp_var("a", Sort::f32()), b = fp_var("b", Sort::f32());
  const Term nb = fp_un(Op::FpNeg, b);
  const std::pair<const char*, Term> lemmas[] = {
      {"mul-neg", fp_same(fp_bin(Op::FpMul, a, nb), fp_un(Op::FpNeg, fp_bin(Op::FpMul, a, b)))},
      {"add-neg", fp_same(fp_bin(Op::FpAdd, a, nb), fp_bin(Op::FpSub, a, b))},
      {"sub-neg", fp_same(fp_bin(Op::FpSub, a, nb), fp_bin(Op::FpAdd, a, b))},
      {"neg-neg", fp_same(fp_un(Op::FpNeg, fp_un(Op::FpNeg, a)), a)}};
  for (auto& [name, claim] : lemmas) {
    Query q;
    q.name = std::string("kernel.ieee-lemmas.") + name;
    q.claim = claim;
    q.time_limit_s = 20;
    add_query(c, q);
  }
  c.notes.push_back("commutativity of fp.add / fp.mul (Z3's canonical operand order) is IEEE 754");
  finish(c);
  return c;
}

// PROOF-FMA-2, in the standard model of binary32 rounding (fl(x) = x(1 + d), |d| <= u = 2^-24,
// valid for results in the normal range): with X = xa*c exact, P = fl(X), Q = fl(xb*s),
//   ref = fl(P - Q) = (X(1 + d1) - Q)(1 + d2),   fma = fl(X - Q) = (X - Q)(1 + d3).
// When X and Q have opposite signs (or one is 0) the subtraction does not cancel, and then
// |fma - ref| <= 4u |ref| < 4 ulp(ref). (yb = xb*c + xa*s is the same with Q -> -Q.)
ClaimResult fma_ulp_bound() {
  auto c = start("kernel.fma-ulp-bound", "PROOF-FMA-2", "kernel", Answer::Proved,
                 "without cancellation, FMA and non-FMA rotation differ by < 4 ulp");
  const Term X = var("X", Sort::real()), Q = var("Q", Sort::real());
  const Term d1 = var("d1", Sort::real()), d2 = var("d2", Sort::real()), d3 = var("d3", Sort::real());
  const Term u = real_lit(1, 1 << 24), one = real_lit(1);
  Query q;
  q.name = "kernel.fma-ulp-bound";
  for (const Term& d : {d1, d2, d3}) {
    q.assumptions.push_back(le(neg(u), d));
    q.assumptions.push_back(le(d, u));
  }
  q.assumptions.push_back(le(mul(X, Q), real_lit(0)));
  const Term ref = mul(sub(mul(X, add(one, d1)), Q), add(one, d2));
  const Term fma = mul(sub(X, Q), add(one, d3));
  const Term diff = sub(fma, ref);
  const Term bound = mul(real_lit(4, 1 << 24), ref);
  q.claim = le(mul(diff, diff), mul(bound, bound));
  q.time_limit_s = 20;
  add_query(c, q);
  c.notes.push_back("standard rounding model (normal range); ulp(r) >= u|r| turns 4u|ref| into 4 ulp");
  finish(c);
  return c;
}

// PROOF-FMA-3: under cancellation no ULP bound exists: the spec's result is exactly 0 while
// the FMA result is not (bit-precise, cvc5; replayed with fmaf).
ClaimResult fma_cancellation() {
  auto c = start("kernel.fma-cancellation", "PROOF-FMA-3", "kernel", Answer::Counterexample,
                 "with cancellation the FMA result is non-zero where the spec's is 0");
  const SymFloat xa = SymFloat::var("xa", Sort::f32()), xb = SymFloat::var("xb", Sort::f32());
  const SymFloat cs = SymFloat::var("c", Sort::f32()), sn = SymFloat::var("s", Sort::f32());
  SymFloat ya, yb, fa, fb;
  spec_rotate(xa, xb, cs, sn, ya, yb);
  my_kernel::my_rotate_fma(xa, xb, cs, sn, fa, fb);
  Query q;
  q.name = "kernel.fma-cancellation";
  for (const SymFloat* v : {&xa, &xb}) q.assumptions.push_back(fp_finite(v->term()));
  for (const SymFloat* v : {&cs, &sn}) {
    q.assumptions.push_back(fp_bin(Op::FpLeq, fp_lit(-1.0f), v->term()));
    q.assumptions.push_back(fp_bin(Op::FpLeq, v->term(), fp_lit(1.0f)));
  }
  q.claim = implies(fp_un(Op::FpIsZero, ya.term()), fp_un(Op::FpIsZero, fa.term()));
  q.time_limit_s = 20;
  add_query(c, q, [](const Model& m) {
    Replay rp;
    const float a = m.f32("xa"), b = m.f32("xb"), cc = m.f32("c"), ss = m.f32("s");
    float sa, sb, fa2, fb2;
    spec_rotate(a, b, cc, ss, sa, sb);
    my_kernel::my_rotate_fma(a, b, cc, ss, fa2, fb2);
    rp.confirmed = sa == 0.0f && fa2 != 0.0f && std::isfinite(fa2);
    rp.message = "spec y_a = " + hexf(sa) + " but FMA y_a = " + hexf(fa2) + " at xa=" + hexf(a) +
                 ", xb=" + hexf(b) + ", cos=" + hexf(cc) + ", sin=" + hexf(ss) +
                 ": no ULP bound holds under cancellation";
    rp.cx.clause = "PROOF-FMA-3";
    rp.cx.kind = "mismatch";
    rp.cx.message = rp.message;
    rp.cx.function = "pec_rope_f32";
    rp.cx.inputs = {{"x", {2}, {a, b}}, {"cos_sin", {2}, {cc, ss}}};
    rp.cx.reproduce = "pecheck prove --only kernel.fma-cancellation";
    return rp;
  });
  finish(c);
  return c;
}

}  // namespace

void add_kernel_fp_claims(std::vector<Claim>& out) {
  out.push_back({"kernel.rope-rotate-f32", "PROOF-FP-1", "kernel", Answer::Proved, kernel_rotate});
  out.push_back({"kernel.ieee-lemmas", "PROOF-FP-3", "kernel", Answer::Proved, ieee_lemmas});
  out.push_back({"kernel.rope-rotate-interleaved-f32", "PROOF-FP-2", "kernel", Answer::Proved,
                 kernel_interleaved});
  out.push_back({"example.my-rotate-f32", "PROOF-FP-1", "kernel", Answer::Proved, example_rotate});
  out.push_back({"kernel.fma-differs", "PROOF-FMA-1", "kernel", Answer::Counterexample, fma_differs});
  out.push_back({"kernel.fma-ulp-bound", "PROOF-FMA-2", "kernel", Answer::Proved, fma_ulp_bound});
  out.push_back({"kernel.fma-cancellation", "PROOF-FMA-3", "kernel", Answer::Counterexample,
                 fma_cancellation});
}

}  // namespace pecheck::proofs
