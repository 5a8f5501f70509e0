// cvc5 back end: translates term.hpp terms with the cvc5 1.0.3 C++ API.
#include <cvc5/cvc5.h>

#include <chrono>
#include <sstream>
#include <unordered_map>

#include "solver_internal.hpp"

namespace pecheck::proofs {
namespace {

using cvc5::Kind;

class Cvc5Translator {
 public:
  explicit Cvc5Translator(cvc5::Solver& s) : s_(s) {
    rne_ = s_.mkRoundingMode(cvc5::RoundingMode::ROUND_NEAREST_TIES_TO_EVEN);
  }

  cvc5::Sort sort(const Sort& s) {
    switch (s.kind) {
      case Sort::Kind::Bool: return s_.getBooleanSort();
      case Sort::Kind::Int: return s_.getIntegerSort();
      case Sort::Kind::Real: return s_.getRealSort();
      case Sort::Kind::BV: return s_.mkBitVectorSort(s.a);
      case Sort::Kind::FP: return s_.mkFloatingPointSort(s.a, s.b);
    }
    throw std::logic_error("sort");
  }

  cvc5::Term operator()(const NodePtr& n) {
    auto it = memo_.find(n.get());
    if (it != memo_.end()) return it->second;
    cvc5::Term t = build(*n);
    memo_.emplace(n.get(), t);
    keep_.push_back(n);
    return t;
  }

  const std::unordered_map<std::string, std::pair<cvc5::Term, Sort>>& vars() const { return vars_; }

 private:
  cvc5::Term op(Kind k, std::vector<cvc5::Term> args) { return s_.mkTerm(k, args); }
  cvc5::Term rop(Kind k, std::vector<cvc5::Term> args) {
    args.insert(args.begin(), rne_);
    return s_.mkTerm(k, args);
  }

  cvc5::Term build(const Node& n) {
    std::vector<cvc5::Term> k;
    for (auto& c : n.kids) k.push_back((*this)(c));
    switch (n.op) {
      case Op::Var: {
        auto it = vars_.find(n.name);
        if (it != vars_.end()) return it->second.first;
        cvc5::Term v = s_.mkConst(sort(n.sort), n.name);
        vars_.emplace(n.name, std::make_pair(v, n.sort));
        return v;
      }
      case Op::Lit:
        switch (n.sort.kind) {
          case Sort::Kind::Bool: return s_.mkBoolean(n.i0 != 0);
          case Sort::Kind::Int: return s_.mkInteger(n.i0);
          case Sort::Kind::Real: return s_.mkReal(n.name);
          case Sort::Kind::BV: return s_.mkBitVector(n.sort.a, static_cast<uint64_t>(n.i0));
          default: throw std::logic_error("literal sort");
        }
      case Op::Apply: {
        auto it = funs_.find(n.name);
        if (it == funs_.end()) {
          std::vector<cvc5::Sort> dom;
          for (auto& c : n.kids) dom.push_back(sort(c->sort));
          cvc5::Term f = s_.mkConst(s_.mkFunctionSort(dom, sort(n.sort)), n.name);
          it = funs_.emplace(n.name, f).first;
        }
        k.insert(k.begin(), it->second);
        return op(Kind::APPLY_UF, k);
      }
      case Op::Not: return op(Kind::NOT, k);
      case Op::And: return op(Kind::AND, k);
      case Op::Or: return op(Kind::OR, k);
      case Op::Implies: return op(Kind::IMPLIES, k);
      case Op::Eq: return op(Kind::EQUAL, k);
      case Op::Ite: return op(Kind::ITE, k);
      case Op::Add: return op(Kind::ADD, k);
      case Op::Sub: return op(Kind::SUB, k);
      case Op::Mul: return op(Kind::MULT, k);
      case Op::Neg: return op(Kind::NEG, k);
      case Op::ToReal: return op(Kind::TO_REAL, k);
      case Op::IntDiv: return op(Kind::INTS_DIVISION, k);
      case Op::Le: return op(Kind::LEQ, k);
      case Op::Lt: return op(Kind::LT, k);
      case Op::BvAdd: return op(Kind::BITVECTOR_ADD, k);
      case Op::BvSub: return op(Kind::BITVECTOR_SUB, k);
      case Op::BvMul: return op(Kind::BITVECTOR_MULT, k);
      case Op::BvNeg: return op(Kind::BITVECTOR_NEG, k);
      case Op::BvSDiv: return op(Kind::BITVECTOR_SDIV, k);
      case Op::BvSRem: return op(Kind::BITVECTOR_SREM, k);
      case Op::BvUDiv: return op(Kind::BITVECTOR_UDIV, k);
      case Op::BvURem: return op(Kind::BITVECTOR_UREM, k);
      case Op::BvSlt: return op(Kind::BITVECTOR_SLT, k);
      case Op::BvSle: return op(Kind::BITVECTOR_SLE, k);
      case Op::BvUlt: return op(Kind::BITVECTOR_ULT, k);
      case Op::BvUle: return op(Kind::BITVECTOR_ULE, k);
      case Op::BvSExt:
        return s_.mkTerm(s_.mkOp(Kind::BITVECTOR_SIGN_EXTEND, {static_cast<uint32_t>(n.i0)}), k);
      case Op::BvZExt:
        return s_.mkTerm(s_.mkOp(Kind::BITVECTOR_ZERO_EXTEND, {static_cast<uint32_t>(n.i0)}), k);
      case Op::BvExtract:
        return s_.mkTerm(s_.mkOp(Kind::BITVECTOR_EXTRACT, {static_cast<uint32_t>(n.i0),
                                                           static_cast<uint32_t>(n.i1)}), k);
      case Op::FpFromBits:
        return s_.mkTerm(s_.mkOp(Kind::FLOATINGPOINT_TO_FP_FROM_IEEE_BV, {n.sort.a, n.sort.b}), k);
      case Op::FpAdd: return rop(Kind::FLOATINGPOINT_ADD, k);
      case Op::FpSub: return rop(Kind::FLOATINGPOINT_SUB, k);
      case Op::FpMul: return rop(Kind::FLOATINGPOINT_MULT, k);
      case Op::FpFma: return rop(Kind::FLOATINGPOINT_FMA, k);
      case Op::FpNeg: return op(Kind::FLOATINGPOINT_NEG, k);
      case Op::FpIsNaN: return op(Kind::FLOATINGPOINT_IS_NAN, k);
      case Op::FpIsInf: return op(Kind::FLOATINGPOINT_IS_INF, k);
      case Op::FpIsZero: return op(Kind::FLOATINGPOINT_IS_ZERO, k);
      case Op::FpIsNeg: return op(Kind::FLOATINGPOINT_IS_NEG, k);
      case Op::FpLeq: return op(Kind::FLOATINGPOINT_LEQ, k);
      case Op::FpLt: return op(Kind::FLOATINGPOINT_LT, k);
      case Op::FpEq: return op(Kind::FLOATINGPOINT_EQ, k);
      case Op::FpToFp:
        k.insert(k.begin(), rne_);
        return s_.mkTerm(s_.mkOp(Kind::FLOATINGPOINT_TO_FP_FROM_FP, {n.sort.a, n.sort.b}), k);
      case Op::FpFromSBv:
        k.insert(k.begin(), rne_);
        return s_.mkTerm(s_.mkOp(Kind::FLOATINGPOINT_TO_FP_FROM_SBV, {n.sort.a, n.sort.b}), k);
    }
    throw std::logic_error("unknown op");
  }

  cvc5::Solver& s_;
  cvc5::Term rne_;
  std::unordered_map<const Node*, cvc5::Term> memo_;
  std::vector<NodePtr> keep_;
  std::unordered_map<std::string, std::pair<cvc5::Term, Sort>> vars_;
  std::unordered_map<std::string, cvc5::Term> funs_;
};

std::string value_text(const cvc5::Term& v) {
  if (v.isIntegerValue()) return v.getIntegerValue();
  if (v.isRealValue()) return v.getRealValue();
  return v.toString();
}

}  // namespace

SolverRun run_cvc5(const Query& q) {
  SolverRun run;
  run.backend = Backend::Cvc5;
  run.ran = true;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    cvc5::Solver s;
    s.setOption("produce-models", "true");
    s.setOption("tlimit-per", std::to_string(static_cast<long>(q.time_limit_s * 1000)));
    s.setLogic("ALL");
    Cvc5Translator tr(s);
    for (auto& a : q.assumptions) s.assertFormula(tr(a.ptr()));
    s.assertFormula(s.mkTerm(Kind::NOT, {tr(q.claim.ptr())}));
    std::vector<std::pair<std::string, cvc5::Term>> watch;
    for (auto& [label, t] : q.watch) watch.emplace_back(label, tr(t.ptr()));
    const cvc5::Result r = s.checkSat();
    if (r.isUnsat()) {
      run.answer = Answer::Proved;
    } else if (r.isSat()) {
      run.answer = Answer::Counterexample;
      Model out;
      for (auto& [name, tv] : tr.vars()) {
        Value v;
        v.sort = tv.second;
        const cvc5::Term val = s.getValue(tv.first);
        if (v.sort.kind == Sort::Kind::Bool) v.boolean = val.getBooleanValue();
        else if (v.sort.kind == Sort::Kind::BV) v.bits = std::stoull(val.getBitVectorValue(10));
        else v.text = value_text(val);
        out.vars.emplace(name, v);
      }
      for (auto& [label, t] : watch) out.watched.emplace(label, value_text(s.getValue(t)));
      run.model = std::move(out);
    } else {
      const auto why = r.getUnknownExplanation();
      std::ostringstream os;
      os << why;
      const bool timeout = why == cvc5::UnknownExplanation::TIMEOUT ||
                           why == cvc5::UnknownExplanation::RESOURCEOUT;
      run.answer = timeout ? Answer::Timeout : Answer::Unknown;
      run.reason = timeout ? "time limit reached" : "cvc5: " + os.str();
    }
  } catch (const std::exception& e) {
    run.answer = Answer::Error;
    run.reason = std::string("cvc5: ") + e.what();
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

std::string solver_version_cvc5() {
  cvc5::Solver s;
  return "cvc5 " + s.getVersion();
}

}  // namespace pecheck::proofs
