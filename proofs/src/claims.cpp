// The verdict rules of spec/proofs.md. Clause: PROOF-SOLVER-1 (closed answers, cvc5 for floating
// point, no Z3 for fp.fma, disagreement is an error), PROOF-SOLVER-2 (models must replay).
#include "proofs/claims.hpp"

#include <chrono>

namespace pecheck::proofs {

namespace {
constexpr double kCrossCheckLimitS = 2.0;  // the second solver, once the primary has decided
}  // namespace

QueryRecord run_query(const Query& original) {
  Query q = original;
  if (q.ieee_normalize) {
    for (auto& a : q.assumptions) a = ieee_normalize(a);
    q.claim = ieee_normalize(q.claim);
  }
  QueryRecord rec;
  rec.name = q.name;
  const bool fp = uses_fp(q);
  // The primary solver gets the query's full time limit: cvc5 for floating point (its FP
  // solver is the trusted one here), Z3 otherwise (its nlsat decides the real-arithmetic
  // identities). The second solver always runs too, as a cross-check, with a shorter limit
  // once the primary has decided, so that all proofs together stay within two minutes.
  const Backend primary = q.primary ? *q.primary : (fp || uses_bv(q)) ? Backend::Cvc5 : Backend::Z3;
  const Backend second = primary == Backend::Z3 ? Backend::Cvc5 : Backend::Z3;
  rec.runs.push_back(run_backend(primary, q));
  Query q2 = q;
  const bool decided = rec.runs[0].answer == Answer::Proved ||
                       rec.runs[0].answer == Answer::Counterexample;
  if (decided && q2.time_limit_s > kCrossCheckLimitS) q2.time_limit_s = kCrossCheckLimitS;
  rec.runs.push_back(run_backend(second, q2));
  bool proved = false, cvc5_proved = false, sat = false, timeout = false, error = false;
  std::string why;
  for (auto& r : rec.runs) {
    if (!r.ran) continue;
    if (r.answer == Answer::Proved) {
      proved = true;
      if (r.backend == Backend::Cvc5) cvc5_proved = true;
    }
    if (r.answer == Answer::Counterexample) sat = true;
    if (r.answer == Answer::Timeout) timeout = true;
    if (r.answer == Answer::Error) error = true;
    if (!r.reason.empty()) why += std::string(to_string(r.backend)) + ": " + r.reason + "; ";
  }
  if (proved && sat) {
    rec.answer = Answer::Error;
    rec.reason = "solvers disagree (one proved, one found a model)";
  } else if (sat) {
    rec.answer = Answer::Counterexample;
  } else if (proved && (!fp || cvc5_proved)) {
    rec.answer = Answer::Proved;
  } else if (proved) {
    rec.answer = Answer::Unknown;
    rec.reason = "z3 proved a floating-point query but cvc5 did not confirm it: " + why;
  } else if (error) {
    rec.answer = Answer::Error;
    rec.reason = why;
  } else {
    rec.answer = timeout ? Answer::Timeout : Answer::Unknown;
    rec.reason = why;
  }
  return rec;
}

Answer add_query(ClaimResult& c, const Query& q, const ReplayFn& replay) {
  QueryRecord rec = run_query(q);
  if (rec.answer == Answer::Counterexample) {
    bool confirmed = false;
    std::string last;
    for (auto& r : rec.runs) {
      if (!r.model || confirmed) continue;
      if (!replay) {
        last = "no concrete replay for this query";
        break;
      }
      Replay rp = replay(*r.model);
      last = rp.message;
      if (rp.confirmed) {
        confirmed = true;
        c.counterexample = rp.cx;
        c.reason = "[" + q.name + ", model from " + std::string(to_string(r.backend)) + "] " +
                   rp.message;
      }
    }
    if (!confirmed) {
      rec.answer = Answer::Unknown;
      rec.reason = "solver model did not replay concretely: " + last;
    }
  }
  const Answer a = rec.answer;
  c.queries.push_back(std::move(rec));
  return a;
}

void finish(ClaimResult& c) {
  bool all_proved = !c.queries.empty();
  bool cx = false, err = false, to = false;
  std::string why;
  for (auto& q : c.queries) {
    if (q.answer != Answer::Proved) all_proved = false;
    if (q.answer == Answer::Counterexample) cx = true;
    if (q.answer == Answer::Error) err = true;
    if (q.answer == Answer::Timeout) to = true;
    if (q.answer != Answer::Proved && q.answer != Answer::Counterexample && !q.reason.empty()) {
      why += q.name + ": " + q.reason + " ";
    }
  }
  if (cx) c.verdict = Answer::Counterexample;
  else if (all_proved) c.verdict = Answer::Proved;
  else if (err) c.verdict = Answer::Error;
  else if (to) c.verdict = Answer::Timeout;
  else c.verdict = Answer::Unknown;
  if (c.verdict != Answer::Counterexample && c.verdict != Answer::Proved) c.reason = why;
}

ClaimResult start(const std::string& name, const std::string& clause, const std::string& scheme,
                  Answer expected, const std::string& description) {
  ClaimResult c;
  c.name = name;
  c.clause = clause;
  c.scheme = scheme;
  c.expected = expected;
  c.description = description;
  return c;
}

ClaimResult run_claim(const Claim& claim) {
  const auto t0 = std::chrono::steady_clock::now();
  ClaimResult r;
  try {
    r = claim.run();
  } catch (const std::exception& e) {
    r = start(claim.name, claim.clause, claim.scheme, claim.expected, "");
    r.verdict = Answer::Error;
    r.reason = std::string("the claim could not run: ") + e.what();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void add_attention_claims(std::vector<Claim>& out);  // claims_attention.cpp (issue 23)

std::vector<Claim> all_claims() {
  std::vector<Claim> out;
  add_rope_claims(out);
  add_family_claims(out);
  add_attention_claims(out);
  add_sinusoidal_claims(out);
  add_bias_claims(out);
  add_index_claims(out);
  add_grid_claims(out);
  add_kernel_fp_claims(out);
  add_mutation_claims(out);
  return out;
}

}  // namespace pecheck::proofs
