// ALiBi and T5 (spec/alibi.md, spec/t5.md, spec/abi.md) over 64-bit bit-vectors, positions in
// [0, 2^31) (ALIBI-ARG-2, T5-ARG-4): the offset computations cannot overflow, the biases
// depend only on the offset, and the T5 bucket — the kernels' own t5_bucket, instantiated with
// SymInt and the logarithm replaced by the kernels' integer thresholds — stays in
// [0, num_buckets) and is monotone in the distance. A separate claim connects the thresholds
// to the logarithmic formula through any monotone function (t5.log-thresholds).
#include <chrono>
#include <string>
#include <unordered_map>

#include "kernels/shared/t5_arith.hpp"
#include "proofs/claims.hpp"
#include "symbolic_run.hpp"

namespace pecheck::proofs {
namespace {

constexpr std::int64_t kPosEnd = std::int64_t{1} << 31;

// q, k and the shift t with q, k, q+t, k+t all in [0, 2^31).
struct Positions {
  SymInt q = SymInt::var("q"), k = SymInt::var("k"), t = SymInt::var("t");
  std::vector<Term> pre;
  Positions() {
    pre = {in_bv_range(q.term(), 0, kPosEnd), in_bv_range(k.term(), 0, kPosEnd),
           in_bv_range(t.term(), -kPosEnd, kPosEnd),
           in_bv_range(bv_bin(Op::BvAdd, q.term(), t.term()), 0, kPosEnd),
           in_bv_range(bv_bin(Op::BvAdd, k.term(), t.term()), 0, kPosEnd)};
  }
};

Query query(const std::string& name, std::vector<Term> pre, Term claim, double limit = 20) {
  Query q;
  // Overflow obligations (65- and 128-bit arithmetic) are Z3's strength; the rest cvc5's.
  if (name.find("no-overflow") != std::string::npos) q.primary = Backend::Z3;
  q.name = name;
  q.assumptions = std::move(pre);
  q.claim = std::move(claim);
  q.time_limit_s = limit;
  return q;
}

ClaimResult alibi_offset() {
  auto c = start("alibi.offset-only", "ALIBI-SHIFT-1, ALIBI-ARG-2, ABI-ALIBI-3", "alibi",
                 Answer::Proved,
                 "d = q - k and the causal mask k > q are unchanged by a common shift; no "
                 "int64 overflow for positions in [0, 2^31)");
  Positions p;
  ObligationScope scope;
  const SymInt d1 = p.q - p.k;
  const SymInt qt = p.q + p.t, kt = p.k + p.t;
  const SymInt d2 = qt - kt;
  // The kernels pass d (as a double) and the mask to alibi_apply (src/kernels/shared/
  // alibi_arith.hpp), whose result depends on its arguments only.
  const Term mask1 = bv_bin(Op::BvSlt, p.q.term(), p.k.term());
  const Term mask2 = bv_bin(Op::BvSlt, qt.term(), kt.term());
  add_query(c, query("alibi.no-overflow", p.pre, obligations_hold(scope.obligations())));
  add_query(c, query("alibi.offset", p.pre,
                     t_and({eq(d1.term(), d2.term()), eq(mask1, mask2)})));
  // |d| < 2^31 converts to double exactly: different offsets stay different doubles.
  const Term dd = SymInt::var("d2").term();
  add_query(c, query("alibi.offset-exact-in-double",
                     {in_bv_range(d1.term(), -kPosEnd, kPosEnd), in_bv_range(dd, -kPosEnd, kPosEnd),
                      t_not(eq(d1.term(), dd))},
                     t_not(eq(fp_from_sbv(d1.term(), Sort::f64()), fp_from_sbv(dd, Sort::f64())))));
  finish(c);
  return c;
}

// t[x := by]: every occurrence of the variable x (a leaf) replaced by the term `by`. Shared
// subterms are rewritten once (the merged path terms are DAGs).
Term substitute(const Term& t, const std::string& x, const Term& by) {
  std::unordered_map<const Node*, Term> memo;
  auto go = [&](auto& self, const Term& u) -> Term {
    const Node& n = u.node();
    if (n.op == Op::Var) return n.name == x ? by : u;
    if (n.kids.empty()) return u;
    if (auto it = memo.find(u.get()); it != memo.end()) return it->second;
    std::vector<Term> kids;
    kids.reserve(n.kids.size());
    bool changed = false;
    for (const auto& k : n.kids) {
      kids.push_back(self(self, Term(k)));
      changed = changed || kids.back().get() != k.get();
    }
    Term out = changed ? mk(n.op, n.sort, std::move(kids), n.name, n.i0, n.i1) : u;
    memo.emplace(u.get(), out);
    return out;
  };
  return go(go, t);
}

struct T5Case {
  std::int64_t num_buckets;
  bool bidirectional;
  std::string name() const {
    return std::string(bidirectional ? "bidirectional-" : "causal-") + std::to_string(num_buckets);
  }
};

ClaimResult t5_bucket_claim(const T5Case& tc) {
  auto c = start("t5.bucket." + tc.name(), "T5-BUCKET-5, T5-BUCKET-6, T5-SHIFT-1, T5-ARG-4",
                 "t5", Answer::Proved,
                 "kernels' t5_bucket: in [0, num_buckets), monotone in distance, a function of "
                 "k - q only, no overflow (num_buckets " + std::to_string(tc.num_buckets) + ")");
  const kernels::T5Shape shape = kernels::t5_shape<std::int64_t>(tc.num_buckets, tc.bidirectional);
  // Thresholds: any non-decreasing integers in (max_exact, max_distance], max_distance <= 2^31
  // (T5-ARG-2): the host's table is one such sequence, so the proof covers every max_distance.
  std::vector<SymInt> thr;
  std::vector<Term> pre;
  const SymInt md = SymInt::var("max_distance");
  pre.push_back(bv_bin(Op::BvSlt, bv64(shape.max_exact), md.term()));
  pre.push_back(bv_bin(Op::BvSle, md.term(), bv64(kPosEnd)));
  for (std::int64_t j = 0; j < shape.n_thresholds; ++j) {
    thr.push_back(SymInt::var("thr" + std::to_string(j)));
    const Term lo = j == 0 ? bv64(shape.max_exact) : thr[static_cast<std::size_t>(j - 1)].term();
    pre.push_back(j == 0 ? bv_bin(Op::BvSlt, lo, thr.back().term())
                         : bv_bin(Op::BvSle, lo, thr.back().term()));
    pre.push_back(bv_bin(Op::BvSle, thr.back().term(), md.term()));
  }
  // t5_bucket is symbolically executed ONCE, on a fresh variable rel with the range every
  // argument below has, (-2^31, 2^31): the merged result (and each obligation) is then a term in
  // rel that equals the kernel's result for every rel in that range, and is instantiated by
  // substitution for k - q, (k + t) - (q + t), r1 and r2 (query rel-range: each lies in the
  // range). Four explorations of the same code were most of the claim's time (18 of 33 s with
  // 32 causal buckets).
  const SymInt rel = SymInt::var("rel");
  auto in_rel_range = [](const Term& x) { return in_bv_range(x, -kPosEnd + 1, kPosEnd); };
  const auto t_explore = std::chrono::steady_clock::now();
  std::vector<Term> explore_pre = pre;
  explore_pre.push_back(in_rel_range(rel.term()));
  const Explored e = run_symbolic(explore_pre, [&] {
    return kernels::t5_bucket<SymInt>(rel, tc.bidirectional, shape, thr.data());
  });
  auto at = [&](const SymInt& arg) { return substitute(e.value, "rel", arg.term()); };
  auto obligations_at = [&](const SymInt& arg) {
    std::vector<ObligationScope::Obligation> out;
    for (const auto& o : e.obligations) {
      out.push_back({o.what, substitute(o.holds, "rel", arg.term()),
                     substitute(o.path, "rel", arg.term())});
    }
    return out;
  };
  Positions p;
  std::vector<Term> pos_pre = pre;
  pos_pre.insert(pos_pre.end(), p.pre.begin(), p.pre.end());
  ObligationScope rel_scope;
  const SymInt rel1 = p.k - p.q;                 // T5-REL-1: key - query
  const SymInt rel2 = (p.k + p.t) - (p.q + p.t);
  const Term b1 = at(rel1), b2 = at(rel2);
  auto obligations = rel_scope.obligations();
  for (const SymInt* r : {&rel1, &rel2}) {
    const auto o = obligations_at(*r);
    obligations.insert(obligations.end(), o.begin(), o.end());
  }
  c.notes.push_back("symbolic execution of t5_bucket: " + std::to_string(e.paths) + " paths, " +
                    std::to_string(std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - t_explore).count()) + " s");
  add_query(c, query(c.name + ".rel-range", pos_pre,
                     t_and({in_rel_range(rel1.term()), in_rel_range(rel2.term())})));
  add_query(c, query(c.name + ".no-overflow", pos_pre, obligations_hold(obligations)));
  add_query(c, query(c.name + ".range", pos_pre, in_bv_range(b1, 0, tc.num_buckets)));
  add_query(c, query(c.name + ".shift", pos_pre, eq(b1, b2)));
  // Monotone (T5-BUCKET-6): r1, r2 in the same direction, |r1| <= |r2|.
  const SymInt r1 = SymInt::var("r1"), r2 = SymInt::var("r2");
  const std::vector<Term> rr = {in_rel_range(r1.term()), in_rel_range(r2.term())};
  const Term m1 = at(r1), m2 = at(r2);
  auto absv = [](const Term& x) {
    return ite(bv_bin(Op::BvSlt, x, bv64(0)), mk(Op::BvNeg, Sort::bv(64), {x}), x);
  };
  auto pos = [](const Term& x) { return bv_bin(Op::BvSlt, bv64(0), x); };
  std::vector<Term> mono_pre = pre;
  mono_pre.insert(mono_pre.end(), rr.begin(), rr.end());
  mono_pre.push_back(eq(pos(r1.term()), pos(r2.term())));
  mono_pre.push_back(bv_bin(Op::BvSle, absv(r1.term()), absv(r2.term())));
  add_query(c, query(c.name + ".monotone", mono_pre, bv_bin(Op::BvSle, m1, m2)));
  finish(c);
  return c;
}

// T5-BUCKET-3: the logarithmic term L(n) = floor(ln(n/e)/ln(M/e) * (nb - e)) is a
// non-decreasing function of n with L(e) = 0. For ANY such function (uninterpreted, with
// monotonicity instantiated where used) and thr_v = the least n with L(n) >= v, the bucket
// computed from thresholds equals e + min(L(n), nb - e - 1), the clamped formula. So the
// kernels' threshold form is the spec's formula, whatever the float rounding of ln does to L
// (as long as it stays monotone, which the host's exact computation of thresholds ensures).
ClaimResult t5_log_thresholds() {
  auto c = start("t5.log-thresholds", "T5-BUCKET-3", "t5", Answer::Proved,
                 "threshold counting equals the clamped log formula for any monotone L");
  for (const T5Case& tc : {T5Case{32, true}, T5Case{16, false}, T5Case{32, false}}) {
    const kernels::T5Shape s = kernels::t5_shape<std::int64_t>(tc.num_buckets, tc.bidirectional);
    const Term n = SymInt::var("n").term();
    auto L = [](const Term& x) { return apply("L", Sort::bv(64), {x}); };
    auto le64 = [](const Term& a, const Term& b) { return bv_bin(Op::BvSle, a, b); };
    auto mono = [&](const Term& a, const Term& b) { return implies(le64(a, b), le64(L(a), L(b))); };
    const Term e = bv64(s.max_exact);
    std::vector<Term> pre = {le64(e, n), bv_bin(Op::BvSlt, n, bv64(kPosEnd)), eq(L(e), bv64(0)),
                             mono(e, n)};
    Term count = bv64(0);
    for (std::int64_t v = 1; v <= s.n_thresholds; ++v) {
      const Term th = SymInt::var("thr" + std::to_string(v)).term();
      const Term below = bv_bin(Op::BvSub, th, bv64(1));
      pre.push_back(bv_bin(Op::BvSlt, e, th));
      pre.push_back(bv_bin(Op::BvSle, th, bv64(kPosEnd)));
      pre.push_back(le64(bv64(v), L(th)));                           // L(thr_v) >= v
      pre.push_back(bv_bin(Op::BvSlt, L(below), bv64(v)));           // least such n
      for (const Term& x : {th, below}) {
        pre.push_back(mono(n, x));
        pre.push_back(mono(x, n));
      }
      count = bv_bin(Op::BvAdd, count, ite(le64(th, n), bv64(1), bv64(0)));
    }
    const Term cap = bv64(s.n_thresholds);
    const Term clamped = ite(bv_bin(Op::BvSlt, L(n), cap), L(n), cap);
    add_query(c, query("t5.log-thresholds." + tc.name(), pre, eq(count, clamped)));
  }
  finish(c);
  return c;
}

}  // namespace

void add_bias_claims(std::vector<Claim>& out) {
  out.push_back({"alibi.offset-only", "ALIBI-SHIFT-1", "alibi", Answer::Proved, alibi_offset});
  // T5's encoder (32 buckets, bidirectional) and decoder (32 buckets, causal: 15 thresholds,
  // about 15 s alone since t5_bucket is explored once and substituted; 33 s before). The causal
  // 16-bucket claim that stood in for the decoder (same code path, 7 thresholds, ~12 s) is left
  // out to keep `pecheck prove` near a minute on two cores: T5Case{16, false} adds it back.
  for (const T5Case& tc : {T5Case{32, true}, T5Case{32, false}}) {
    out.push_back({"t5.bucket." + tc.name(), "T5-BUCKET-5", "t5", Answer::Proved,
                   [tc] { return t5_bucket_claim(tc); }});
  }
  out.push_back({"t5.log-thresholds", "T5-BUCKET-3", "t5", Answer::Proved, t5_log_thresholds});
}

}  // namespace pecheck::proofs
