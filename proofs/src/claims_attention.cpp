// Attention (spec/abi.md ABI-ATTN-*, spec/proofs.md PROOF-ATTN-*) in real arithmetic, each query
// on Z3 and cvc5:
//   - the online-softmax merge: two partial states (max, row sum, accumulator) rescaled to the
//     larger maximum and added give the softmax of the union (FlashAttention-2's identity);
//   - key-only ALiBi (slope * k) equals the symmetric form (-slope |q - k|) plus a constant per
//     row on the causal region (k <= q);
//   - a constant per row added to every score leaves the softmax weights unchanged.
// exp is not a theory symbol: each exp(x) is a positive real variable, and the one property of
// exp the identities need, exp(a) exp(b) = exp(a + b), is stated as an assumption about those
// variables (r_A = exp(m_A - m), E_A = exp(-m_A), E = exp(-m): r_A E_A = E).
#include <string>

#include "proofs/claims.hpp"

namespace pecheck::proofs {
namespace {

Term rv(const std::string& n) { return var(n, Sort::real()); }
Term pos(const Term& x) { return lt(real_lit(0), x); }

Query query(const std::string& name, std::vector<Term> pre, Term claim) {
  Query q;
  q.name = name;
  q.assumptions = std::move(pre);
  q.claim = std::move(claim);
  q.time_limit_s = 20;
  return q;
}

// Keys 1, 2 in part A (running max m_A), keys 3, 4 in part B (m_B), merged at m. X_j = exp(x_j),
// E_A = exp(-m_A), E_B = exp(-m_B), E = exp(-m), r_A = exp(m_A - m), r_B = exp(m_B - m).
ClaimResult online_merge() {
  auto c = start("attention.online-merge", "PROOF-ATTN-1, PREC-ATTN-3", "attention", Answer::Proved,
                 "merging two partial softmax states (max, sum, accumulator), each rescaled by exp(m_part - m), "
                 "gives the softmax-weighted sum of the union: acc / l = sum X_j v_j / sum X_j");
  std::vector<Term> pre;
  Term X[4], V[4];
  for (int j = 0; j < 4; ++j) {
    X[j] = rv("X" + std::to_string(j + 1)), V[j] = rv("v" + std::to_string(j + 1));
    pre.push_back(pos(X[j]));
  }
  const Term EA = rv("E_A"), EB = rv("E_B"), E = rv("E"), rA = rv("r_A"), rB = rv("r_B");
  for (const Term& t : {EA, EB, E, rA, rB}) pre.push_back(pos(t));
  pre.push_back(eq(mul(rA, EA), E));  // exp(m_A - m) exp(-m_A) = exp(-m)
  pre.push_back(eq(mul(rB, EB), E));
  // Partial states: l = sum exp(x_j - m_part), acc = sum exp(x_j - m_part) v_j.
  const Term lA = mul(add(X[0], X[1]), EA), lB = mul(add(X[2], X[3]), EB);
  const Term aA = mul(add(mul(X[0], V[0]), mul(X[1], V[1])), EA);
  const Term aB = mul(add(mul(X[2], V[2]), mul(X[3], V[3])), EB);
  const Term l = add(mul(lA, rA), mul(lB, rB)), acc = add(mul(aA, rA), mul(aB, rB));
  const Term sumX = add(add(X[0], X[1]), add(X[2], X[3]));
  const Term sumXv = add(add(mul(X[0], V[0]), mul(X[1], V[1])), add(mul(X[2], V[2]), mul(X[3], V[3])));
  // acc / l = sumXv / sumX, without division (l, sumX > 0).
  add_query(c, query("attention.online-merge.ratio", pre, eq(mul(acc, sumX), mul(l, sumXv))));
  add_query(c, query("attention.online-merge.sum-positive", pre, pos(l)));
  finish(c);
  return c;
}

ClaimResult alibi_key_only() {
  auto c = start("attention.alibi-key-only", "PROOF-ATTN-2, ABI-ATTN-3", "attention", Answer::Proved,
                 "on the causal region (k <= q), slope * k - (-slope |q - k|) = slope * q for every key: key-only ALiBi "
                 "is the symmetric form plus a constant per row");
  const Term s = rv("slope"), q = rv("q"), k1 = rv("k1"), k2 = rv("k2");
  const std::vector<Term> pre = {le(k1, q), le(k2, q)};
  auto diff = [&](const Term& k) {
    const Term dist = ite(le(k, q), sub(q, k), sub(k, q));  // |q - k|
    return sub(mul(s, k), neg(mul(s, dist)));
  };
  add_query(c, query("attention.alibi-key-only.constant", pre, t_and({eq(diff(k1), diff(k2)), eq(diff(k1), mul(s, q))})));
  finish(c);
  return c;
}

ClaimResult row_constant() {
  auto c = start("attention.row-constant", "PROOF-ATTN-3, ABI-ATTN-3", "attention", Answer::Proved,
                 "adding one constant c to every score of a row leaves each softmax weight unchanged: "
                 "exp(x_j + c) / sum exp(x_i + c) = exp(x_j) / sum exp(x_i)");
  std::vector<Term> pre;
  Term X[3];
  for (int j = 0; j < 3; ++j) X[j] = rv("X" + std::to_string(j + 1)), pre.push_back(pos(X[j]));
  const Term C = rv("C");  // exp(c)
  pre.push_back(pos(C));
  const Term sum = add(add(X[0], X[1]), X[2]);
  const Term sumC = add(add(mul(X[0], C), mul(X[1], C)), mul(X[2], C));
  std::vector<Term> same;
  for (int j = 0; j < 3; ++j) same.push_back(eq(mul(mul(X[j], C), sum), mul(X[j], sumC)));
  add_query(c, query("attention.row-constant.weights", pre, t_and(same)));
  finish(c);
  return c;
}

}  // namespace

void add_attention_claims(std::vector<Claim>& out) {
  out.push_back({"attention.online-merge", "PROOF-ATTN-1", "attention", Answer::Proved, online_merge});
  out.push_back({"attention.alibi-key-only", "PROOF-ATTN-2", "attention", Answer::Proved, alibi_key_only});
  out.push_back({"attention.row-constant", "PROOF-ATTN-3", "attention", Answer::Proved, row_constant});
}

}  // namespace pecheck::proofs
