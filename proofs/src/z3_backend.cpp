// Z3 back end: translates term.hpp terms to Z3 (C++ API plus the C API for floating point).
#include <z3++.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "solver_internal.hpp"

namespace pecheck::proofs {
namespace {

class Z3Translator {
 public:
  Z3Translator(z3::context& ctx, bool canonical) : ctx_(ctx), canonical_(canonical) {}

  z3::sort sort(const Sort& s) {
    switch (s.kind) {
      case Sort::Kind::Bool: return ctx_.bool_sort();
      case Sort::Kind::Int: return ctx_.int_sort();
      case Sort::Kind::Real: return ctx_.real_sort();
      case Sort::Kind::BV: return ctx_.bv_sort(s.a);
      case Sort::Kind::FP: return z3::sort(ctx_, Z3_mk_fpa_sort(ctx_, s.a, s.b));
    }
    throw std::logic_error("sort");
  }

  z3::expr operator()(const NodePtr& n) {
    auto it = memo_.find(n.get());
    if (it != memo_.end()) return it->second;
    z3::expr e = build(*n);
    memo_.emplace(n.get(), e);
    keep_.push_back(n);
    return e;
  }

  const std::unordered_map<std::string, z3::expr>& vars() const { return vars_; }

 private:
  z3::expr wrap(Z3_ast a) {
    ctx_.check_error();
    return z3::expr(ctx_, a);
  }

  z3::expr build(const Node& n) {
    std::vector<z3::expr> k;
    std::vector<const Node*> kn;
    for (auto& c : n.kids) kn.push_back(c.get());
    const bool comm = canonical_ && (n.op == Op::FpAdd || n.op == Op::FpMul || n.op == Op::FpFma);
    if (comm && kn[0]->hash > kn[1]->hash) {
      std::vector<NodePtr> kids = n.kids;
      std::swap(kids[0], kids[1]);
      for (auto& c : kids) k.push_back((*this)(c));
    } else {
      for (auto& c : n.kids) k.push_back((*this)(c));
    }
    Z3_ast rne = nullptr;
    if (n.op >= Op::FpAdd && n.op <= Op::FpFma) rne = Z3_mk_fpa_rne(ctx_);
    switch (n.op) {
      case Op::Var: {
        z3::expr v = ctx_.constant(n.name.c_str(), sort(n.sort));
        vars_.emplace(n.name, v);
        return v;
      }
      case Op::Lit:
        switch (n.sort.kind) {
          case Sort::Kind::Bool: return ctx_.bool_val(n.i0 != 0);
          case Sort::Kind::Int: return ctx_.int_val(static_cast<int64_t>(n.i0));
          case Sort::Kind::Real: return ctx_.real_val(n.name.c_str());
          case Sort::Kind::BV: return ctx_.bv_val(static_cast<uint64_t>(n.i0), n.sort.a);
          default: throw std::logic_error("literal sort");
        }
      case Op::Apply: {
        z3::sort_vector dom(ctx_);
        for (auto& c : n.kids) dom.push_back(sort(c->sort));
        z3::func_decl f = ctx_.function(n.name.c_str(), dom, sort(n.sort));
        z3::expr_vector args(ctx_);
        for (auto& e : k) args.push_back(e);
        return f(args);
      }
      case Op::Not: return !k[0];
      case Op::And: { z3::expr_vector v(ctx_); for (auto& e : k) v.push_back(e); return z3::mk_and(v); }
      case Op::Or: { z3::expr_vector v(ctx_); for (auto& e : k) v.push_back(e); return z3::mk_or(v); }
      case Op::Implies: return z3::implies(k[0], k[1]);
      case Op::Eq: return k[0] == k[1];
      case Op::Ite: return z3::ite(k[0], k[1], k[2]);
      case Op::Add: return k[0] + k[1];
      case Op::Sub: return k[0] - k[1];
      case Op::Mul: return k[0] * k[1];
      case Op::Neg: return -k[0];
      case Op::ToReal: return z3::to_real(k[0]);
      case Op::IntDiv: return k[0] / k[1];  // Int / Int is SMT-LIB div
      case Op::Le: return k[0] <= k[1];
      case Op::Lt: return k[0] < k[1];
      case Op::BvAdd: return k[0] + k[1];
      case Op::BvSub: return k[0] - k[1];
      case Op::BvMul: return k[0] * k[1];
      case Op::BvNeg: return -k[0];
      case Op::BvSDiv: return k[0] / k[1];
      case Op::BvSRem: return z3::srem(k[0], k[1]);
      case Op::BvUDiv: return z3::udiv(k[0], k[1]);
      case Op::BvURem: return z3::urem(k[0], k[1]);
      case Op::BvSlt: return k[0] < k[1];
      case Op::BvSle: return k[0] <= k[1];
      case Op::BvUlt: return z3::ult(k[0], k[1]);
      case Op::BvUle: return z3::ule(k[0], k[1]);
      case Op::BvSExt: return z3::sext(k[0], static_cast<unsigned>(n.i0));
      case Op::BvZExt: return z3::zext(k[0], static_cast<unsigned>(n.i0));
      case Op::BvExtract:
        return k[0].extract(static_cast<unsigned>(n.i0), static_cast<unsigned>(n.i1));
      case Op::FpFromBits: return wrap(Z3_mk_fpa_to_fp_bv(ctx_, k[0], sort(n.sort)));
      case Op::FpAdd: return wrap(Z3_mk_fpa_add(ctx_, rne, k[0], k[1]));
      case Op::FpSub: return wrap(Z3_mk_fpa_sub(ctx_, rne, k[0], k[1]));
      case Op::FpMul: return wrap(Z3_mk_fpa_mul(ctx_, rne, k[0], k[1]));
      case Op::FpFma: return wrap(Z3_mk_fpa_fma(ctx_, rne, k[0], k[1], k[2]));
      case Op::FpNeg: return wrap(Z3_mk_fpa_neg(ctx_, k[0]));
      case Op::FpIsNaN: return wrap(Z3_mk_fpa_is_nan(ctx_, k[0]));
      case Op::FpIsInf: return wrap(Z3_mk_fpa_is_infinite(ctx_, k[0]));
      case Op::FpIsZero: return wrap(Z3_mk_fpa_is_zero(ctx_, k[0]));
      case Op::FpIsNeg: return wrap(Z3_mk_fpa_is_negative(ctx_, k[0]));
      case Op::FpLeq: return wrap(Z3_mk_fpa_leq(ctx_, k[0], k[1]));
      case Op::FpLt: return wrap(Z3_mk_fpa_lt(ctx_, k[0], k[1]));
      case Op::FpEq: return wrap(Z3_mk_fpa_eq(ctx_, k[0], k[1]));
      case Op::FpToFp:
        return wrap(Z3_mk_fpa_to_fp_float(ctx_, Z3_mk_fpa_rne(ctx_), k[0], sort(n.sort)));
      case Op::FpFromSBv:
        return wrap(Z3_mk_fpa_to_fp_signed(ctx_, Z3_mk_fpa_rne(ctx_), k[0], sort(n.sort)));
    }
    throw std::logic_error("unknown op");
  }

  z3::context& ctx_;
  bool canonical_;
  std::unordered_map<const Node*, z3::expr> memo_;
  std::vector<NodePtr> keep_;
  std::unordered_map<std::string, z3::expr> vars_;
};

std::string numeral_text(const z3::expr& v) {
  if (v.is_numeral()) return Z3_get_numeral_string(v.ctx(), v);
  if (v.is_algebraic()) return v.get_decimal_string(30);
  return v.to_string();
}

}  // namespace

SolverRun run_z3(const Query& q) {
  SolverRun run;
  run.backend = Backend::Z3;
  if (uses_fma(q)) {
    run.reason = "skipped: fp.fma is known unsound in Z3 4.8.12 (cvc5 decides FMA queries)";
    return run;
  }
  run.ran = true;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    z3::context ctx;
    z3::solver s = q.z3_smt_core ? z3::tactic(ctx, "smt").mk_solver() : z3::solver(ctx);
    z3::params p(ctx);
    p.set("timeout", static_cast<unsigned>(q.time_limit_s * 1000));
    s.set(p);
    Z3Translator tr(ctx, q.z3_canonical_commutative);
    for (auto& a : q.assumptions) s.add(tr(a.ptr()));
    s.add(!tr(q.claim.ptr()));
    std::vector<std::pair<std::string, z3::expr>> watch;
    for (auto& [label, t] : q.watch) watch.emplace_back(label, tr(t.ptr()));
    // Z3's own timeout is not always honoured inside nlsat: a watchdog interrupts the context
    // shortly after the limit, so a query can never hang the run.
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    std::thread watchdog([&] {
      std::unique_lock<std::mutex> lk(mu);
      const auto limit = std::chrono::duration<double>(q.time_limit_s * 1.05 + 0.5);
      if (!cv.wait_for(lk, limit, [&] { return done; })) ctx.interrupt();
    });
    z3::check_result r = z3::unknown;
    try {
      r = s.check();
    } catch (...) {
      { std::lock_guard<std::mutex> lk(mu); done = true; }
      cv.notify_all();
      watchdog.join();
      throw;
    }
    { std::lock_guard<std::mutex> lk(mu); done = true; }
    cv.notify_all();
    watchdog.join();
    if (r == z3::unsat) {
      run.answer = Answer::Proved;
    } else if (r == z3::sat) {
      run.answer = Answer::Counterexample;
      z3::model m = s.get_model();
      Model out;
      for (auto& [name, e] : tr.vars()) {
        Value v;
        z3::expr val = m.eval(e, true);
        const z3::sort so = e.get_sort();
        if (so.is_bool()) {
          v.sort = Sort::boolean();
          v.boolean = val.is_true();
        } else if (so.is_bv()) {
          v.sort = Sort::bv(so.bv_size());
          v.bits = val.get_numeral_uint64();
        } else {
          v.sort = so.is_int() ? Sort::integer() : Sort::real();
          v.text = numeral_text(val);
        }
        out.vars.emplace(name, v);
      }
      for (auto& [label, e] : watch) out.watched.emplace(label, numeral_text(m.eval(e, true)));
      run.model = std::move(out);
    } else {
      const std::string why = s.reason_unknown();
      const bool timeout = why.find("timeout") != std::string::npos ||
                           why.find("canceled") != std::string::npos;
      run.answer = timeout ? Answer::Timeout : Answer::Unknown;
      run.reason = timeout ? "time limit reached (" + why + ")" : why;
    }
  } catch (const z3::exception& e) {
    run.answer = Answer::Error;
    run.reason = std::string("z3: ") + e.msg();
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (run.answer == Answer::Unknown && run.seconds >= q.time_limit_s * 0.98) {
    run.answer = Answer::Timeout;
  }
  return run;
}

bool z3_maybe_sat(const std::vector<Term>& conditions, double time_limit_s) {
  try {
    z3::context ctx;
    z3::solver s(ctx);
    z3::params p(ctx);
    p.set("timeout", static_cast<unsigned>(time_limit_s * 1000));
    s.set(p);
    Z3Translator tr(ctx, true);
    for (auto& c : conditions) s.add(tr(c.ptr()));
    return s.check() != z3::unsat;
  } catch (const z3::exception&) {
    return true;
  }
}

namespace {
struct Feasibility {
  z3::context ctx;
  z3::solver solver{ctx};
  Z3Translator tr{ctx, true};
};
}  // namespace

std::function<bool(const std::vector<Term>&)> z3_feasibility(const std::vector<Term>& base,
                                                             double time_limit_s) {
  auto f = std::make_shared<Feasibility>();
  z3::params p(f->ctx);
  p.set("timeout", static_cast<unsigned>(time_limit_s * 1000));
  f->solver.set(p);
  for (auto& b : base) f->solver.add(f->tr(b.ptr()));
  return [f](const std::vector<Term>& conditions) {
    try {
      f->solver.push();
      for (auto& c : conditions) f->solver.add(f->tr(c.ptr()));
      const bool maybe = f->solver.check() != z3::unsat;
      f->solver.pop();
      return maybe;
    } catch (const z3::exception&) {
      return true;
    }
  };
}

std::string solver_version_z3() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  Z3_get_version(&a, &b, &c, &d);
  return "Z3 " + std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(c);
}

}  // namespace pecheck::proofs
