// Pairing and index maps over 64-bit bit-vectors (ROPE-PAIR-1..3, ROPE-ARG-1..2): the
// kernels' rope_pair and rope_lane_freq (src/kernels/shared/rope_arith.hpp), instantiated
// with SymInt, equal the spec's NEOX and GPT-J maps for every head_dim and rotary_dim up to
// 2^16, form a partition of [0, rotary_dim) into pairs (so lanes rotary_dim.. pass through
// untouched), are inverse to each other, and never overflow.
#include "kernels/shared/rope_arith.hpp"
#include "proofs/claims.hpp"
#include "symbolic_run.hpp"

namespace pecheck::proofs {
namespace {

ClaimResult pairing(std::int32_t layout) {
  const std::string lname = layout == 0 ? "neox" : "gptj";
  auto c = start("rope.pairing-" + lname,
                 std::string(layout == 0 ? "ROPE-PAIR-1" : "ROPE-PAIR-2") +
                     ", ROPE-PAIR-3, ROPE-ARG-1, ROPE-ARG-2",
                 "rope", Answer::Proved,
                 "kernels' rope_pair / rope_lane_freq equal the spec's " + lname +
                     " map and partition [0, rotary_dim), head_dim <= 2^16");
  const SymInt rd = SymInt::var("rotary_dim"), hd = SymInt::var("head_dim");
  const SymInt i = SymInt::var("i"), j = SymInt::var("j"), lane = SymInt::var("lane");
  const Term two = bv64(2);
  const Term half = bv_bin(Op::BvSDiv, rd.term(), two);
  std::vector<Term> pre = {
      in_bv_range(hd.term(), 2, (std::int64_t{1} << 16) + 1),
      in_bv_range(rd.term(), 2, (std::int64_t{1} << 16) + 1),
      bv_bin(Op::BvSle, rd.term(), hd.term()),
      eq(bv_bin(Op::BvSRem, rd.term(), two), bv64(0)),
      in_bv_range(i.term(), 0, std::int64_t{1} << 16), bv_bin(Op::BvSlt, i.term(), half),
      in_bv_range(j.term(), 0, std::int64_t{1} << 16), bv_bin(Op::BvSlt, j.term(), half),
      in_bv_range(lane.term(), 0, std::int64_t{1} << 16), bv_bin(Op::BvSlt, lane.term(), rd.term())};
  ObligationScope scope;
  const auto pi = kernels::rope_pair<SymInt>(layout, rd, i);
  const auto pj = kernels::rope_pair<SymInt>(layout, rd, j);
  // The spec's maps, written from spec/rope.md directly on bit-vectors.
  const Term sa = layout == 0 ? i.term() : bv_bin(Op::BvMul, two, i.term());
  const Term sb = layout == 0 ? bv_bin(Op::BvAdd, i.term(), half)
                              : bv_bin(Op::BvAdd, bv_bin(Op::BvMul, two, i.term()), bv64(1));
  auto q = [&](const std::string& n, Term claim, std::vector<Term> extra = {}) {
    Query qq;
    qq.name = c.name + "." + n;
    qq.assumptions = pre;
    qq.assumptions.insert(qq.assumptions.end(), extra.begin(), extra.end());
    qq.claim = std::move(claim);
    qq.time_limit_s = 20;
    if (n == "no-overflow") qq.primary = Backend::Z3;
    return qq;
  };
  add_query(c, q("spec-map", t_and({eq(pi.a.term(), sa), eq(pi.b.term(), sb)})));
  add_query(c, q("in-rotary-range",
                 t_and({bv_bin(Op::BvSle, bv64(0), pi.a.term()),
                        bv_bin(Op::BvSlt, pi.a.term(), pi.b.term()),
                        bv_bin(Op::BvSlt, pi.b.term(), rd.term())})));
  const Term a1 = pi.a.term(), b1 = pi.b.term(), a2 = pj.a.term(), b2 = pj.b.term();
  add_query(c, q("disjoint",
                 t_not(t_or({eq(a1, a2), eq(a1, b2), eq(b1, a2), eq(b1, b2)})),
                 {t_not(eq(i.term(), j.term()))}));
  // Covering: every lane < rotary_dim is a lane of the pair rope_lane_freq names.
  const Explored inv = run_symbolic(pre, [&] {
    bool is_a = false;
    const SymInt f = kernels::rope_lane_freq<SymInt>(layout, rd, lane, is_a);
    const auto p = kernels::rope_pair<SymInt>(layout, rd, f);
    const Term in_range = t_and({bv_bin(Op::BvSle, bv64(0), f.term()), bv_bin(Op::BvSlt, f.term(), half)});
    return SymBool(t_and({in_range, eq(is_a ? p.a.term() : p.b.term(), lane.term())}));
  });
  add_query(c, q("covers", inv.value));
  auto obligations = scope.obligations();
  obligations.insert(obligations.end(), inv.obligations.begin(), inv.obligations.end());
  add_query(c, q("no-overflow", obligations_hold(obligations)));
  finish(c);
  return c;
}

}  // namespace

void add_index_claims(std::vector<Claim>& out) {
  out.push_back({"rope.pairing-neox", "ROPE-PAIR-1", "rope", Answer::Proved, [] { return pairing(0); }});
  out.push_back({"rope.pairing-gptj", "ROPE-PAIR-2", "rope", Answer::Proved, [] { return pairing(1); }});
}

}  // namespace pecheck::proofs
