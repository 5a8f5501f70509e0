#include "proofs/term.hpp"

#include <bit>
#include <functional>
#include <stdexcept>
#include <unordered_map>

namespace pecheck::proofs {
namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

void require(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("proofs term: ") + what);
}

bool is(const Term& t, Sort::Kind k) { return t.sort().kind == k; }

}  // namespace

Term mk(Op op, Sort sort, std::vector<Term> kids, std::string name, std::int64_t i0,
        std::int64_t i1) {
  auto n = std::make_shared<Node>();
  n->op = op;
  n->sort = sort;
  n->name = std::move(name);
  n->i0 = i0;
  n->i1 = i1;
  std::uint64_t h = mix(static_cast<std::uint64_t>(op), static_cast<std::uint64_t>(sort.kind));
  h = mix(h, sort.a);
  h = mix(h, sort.b);
  h = mix(h, std::hash<std::string>{}(n->name));
  h = mix(h, static_cast<std::uint64_t>(i0));
  h = mix(h, static_cast<std::uint64_t>(i1));
  for (auto& k : kids) {
    require(k.valid(), "empty operand");
    h = mix(h, k.node().hash);
    n->kids.push_back(k.ptr());
  }
  n->hash = h;
  return Term(std::move(n));
}

Term var(const std::string& name, Sort s) { return mk(Op::Var, s, {}, name); }
Term bool_lit(bool v) { return mk(Op::Lit, Sort::boolean(), {}, {}, v ? 1 : 0); }
Term int_lit(std::int64_t v) { return mk(Op::Lit, Sort::integer(), {}, {}, v); }
Term real_lit(std::int64_t num, std::int64_t den) {
  require(den > 0, "real literal with den <= 0");
  return mk(Op::Lit, Sort::real(), {}, std::to_string(num) + "/" + std::to_string(den));
}
Term bv_lit(std::uint32_t width, std::uint64_t bits) {
  require(width >= 1 && width <= 64, "bit-vector literal width");
  if (width < 64) bits &= (std::uint64_t{1} << width) - 1;
  return mk(Op::Lit, Sort::bv(width), {}, {}, static_cast<std::int64_t>(bits));
}
Term fp_var(const std::string& name, Sort s) {
  require(s.kind == Sort::Kind::FP, "fp_var needs an FP sort");
  return mk(Op::FpFromBits, s, {var(name, Sort::bv(s.a + s.b))});
}
Term fp_lit(float v) {
  return mk(Op::FpFromBits, Sort::f32(), {bv_lit(32, std::bit_cast<std::uint32_t>(v))});
}
Term fp_lit(double v) {
  return mk(Op::FpFromBits, Sort::f64(), {bv_lit(64, std::bit_cast<std::uint64_t>(v))});
}
Term apply(const std::string& fn, Sort result, std::vector<Term> args) {
  return mk(Op::Apply, result, std::move(args), fn);
}

Term t_not(Term a) {
  require(is(a, Sort::Kind::Bool), "not of non-Bool");
  return mk(Op::Not, Sort::boolean(), {a});
}
Term t_and(std::vector<Term> xs) {
  if (xs.empty()) return bool_lit(true);
  if (xs.size() == 1) return xs[0];
  return mk(Op::And, Sort::boolean(), std::move(xs));
}
Term t_or(std::vector<Term> xs) {
  if (xs.empty()) return bool_lit(false);
  if (xs.size() == 1) return xs[0];
  return mk(Op::Or, Sort::boolean(), std::move(xs));
}
Term implies(Term a, Term b) { return mk(Op::Implies, Sort::boolean(), {a, b}); }
Term eq(Term a, Term b) {
  require(a.sort() == b.sort(), "= of different sorts");
  return mk(Op::Eq, Sort::boolean(), {a, b});
}
Term ite(Term c, Term a, Term b) {
  require(is(c, Sort::Kind::Bool) && a.sort() == b.sort(), "ite sorts");
  return mk(Op::Ite, a.sort(), {c, a, b});
}

namespace {
Term arith(Op op, Term a, Term b) {
  require(a.sort() == b.sort() && (is(a, Sort::Kind::Int) || is(a, Sort::Kind::Real)),
          "arithmetic sorts");
  return mk(op, a.sort(), {a, b});
}
}  // namespace
Term add(Term a, Term b) { return arith(Op::Add, a, b); }
Term sub(Term a, Term b) { return arith(Op::Sub, a, b); }
Term mul(Term a, Term b) { return arith(Op::Mul, a, b); }
Term neg(Term a) { return mk(Op::Neg, a.sort(), {a}); }
Term le(Term a, Term b) {
  arith(Op::Le, a, b);
  return mk(Op::Le, Sort::boolean(), {a, b});
}
Term int_div(Term a, Term b) {
  require(is(a, Sort::Kind::Int) && is(b, Sort::Kind::Int), "int_div of non-Int");
  return mk(Op::IntDiv, Sort::integer(), {a, b});
}
Term to_real(Term a) {
  require(is(a, Sort::Kind::Int), "to_real of non-Int");
  return mk(Op::ToReal, Sort::real(), {a});
}
Term lt(Term a, Term b) {
  arith(Op::Lt, a, b);
  return mk(Op::Lt, Sort::boolean(), {a, b});
}

Term bv_bin(Op op, Term a, Term b) {
  require(is(a, Sort::Kind::BV) && a.sort() == b.sort(), "bit-vector sorts");
  const bool pred = op == Op::BvSlt || op == Op::BvSle || op == Op::BvUlt || op == Op::BvUle;
  return mk(op, pred ? Sort::boolean() : a.sort(), {a, b});
}
Term bv_sext(Term a, std::uint32_t extra) {
  require(is(a, Sort::Kind::BV), "sext of non-BV");
  return mk(Op::BvSExt, Sort::bv(a.sort().a + extra), {a}, {}, extra);
}
Term bv_zext(Term a, std::uint32_t extra) {
  require(is(a, Sort::Kind::BV), "zext of non-BV");
  return mk(Op::BvZExt, Sort::bv(a.sort().a + extra), {a}, {}, extra);
}
Term bv_extract(Term a, std::uint32_t hi, std::uint32_t lo) {
  require(is(a, Sort::Kind::BV) && hi >= lo && hi < a.sort().a, "extract bounds");
  return mk(Op::BvExtract, Sort::bv(hi - lo + 1), {a}, {}, hi, lo);
}

Term fp_bin(Op op, Term a, Term b) {
  require(is(a, Sort::Kind::FP) && a.sort() == b.sort(), "floating-point sorts");
  const bool pred = op == Op::FpLeq || op == Op::FpLt || op == Op::FpEq;
  return mk(op, pred ? Sort::boolean() : a.sort(), {a, b});
}
Term fp_fma(Term a, Term b, Term c) {
  require(is(a, Sort::Kind::FP) && a.sort() == b.sort() && a.sort() == c.sort(), "fma sorts");
  return mk(Op::FpFma, a.sort(), {a, b, c});
}
Term fp_un(Op op, Term a) {
  require(is(a, Sort::Kind::FP), "floating-point operand");
  return mk(op, op == Op::FpNeg ? a.sort() : Sort::boolean(), {a});
}
Term fp_convert(Term a, Sort to) {
  require(is(a, Sort::Kind::FP) && to.kind == Sort::Kind::FP, "fp conversion sorts");
  return mk(Op::FpToFp, to, {a});
}
Term fp_from_sbv(Term a, Sort to) {
  require(is(a, Sort::Kind::BV) && to.kind == Sort::Kind::FP, "sbv conversion sorts");
  return mk(Op::FpFromSBv, to, {a});
}
Term fp_same(Term a, Term b) {
  return t_or({t_and({fp_un(Op::FpIsNaN, a), fp_un(Op::FpIsNaN, b)}), eq(a, b)});
}
Term fp_finite(Term a) {
  return t_not(t_or({fp_un(Op::FpIsNaN, a), fp_un(Op::FpIsInf, a)}));
}

namespace {
// The memo keeps each key's term alive (first), so a freed temporary's address can never be
// reused by another node while the map holds a stale entry for it.
using NormMemo = std::unordered_map<const Node*, std::pair<Term, Term>>;
Term normalize(const Term& t, NormMemo& memo) {
  auto it = memo.find(t.get());
  if (it != memo.end()) return it->second.second;
  const Node& n = t.node();
  std::vector<Term> k;
  for (auto& c : n.kids) k.push_back(normalize(Term(c), memo));
  auto is_neg = [](const Term& x) { return x.node().op == Op::FpNeg; };
  auto inner = [](const Term& x) { return Term(x.node().kids[0]); };
  Term out;
  if (n.op == Op::FpMul && is_neg(k[0]) && !is_neg(k[1])) {
    out = fp_un(Op::FpNeg, normalize(fp_bin(Op::FpMul, inner(k[0]), k[1]), memo));
  } else if (n.op == Op::FpMul && is_neg(k[1]) && !is_neg(k[0])) {
    out = fp_un(Op::FpNeg, normalize(fp_bin(Op::FpMul, k[0], inner(k[1])), memo));
  } else if (n.op == Op::FpAdd && is_neg(k[1])) {
    out = normalize(fp_bin(Op::FpSub, k[0], inner(k[1])), memo);
  } else if (n.op == Op::FpAdd && is_neg(k[0])) {
    out = normalize(fp_bin(Op::FpSub, k[1], inner(k[0])), memo);
  } else if (n.op == Op::FpSub && is_neg(k[1])) {
    out = normalize(fp_bin(Op::FpAdd, k[0], inner(k[1])), memo);
  } else if (n.op == Op::FpNeg && is_neg(k[0])) {
    out = inner(k[0]);
  } else if (n.kids.empty()) {
    out = t;
  } else {
    out = mk(n.op, n.sort, std::move(k), n.name, n.i0, n.i1);
  }
  memo.emplace(t.get(), std::make_pair(t, out));
  return out;
}
}  // namespace

Term ieee_normalize(const Term& t) {
  NormMemo memo;
  return normalize(t, memo);
}

namespace {
const char* op_name(Op op) {
  switch (op) {
    case Op::Var: return "var";       case Op::Lit: return "lit";       case Op::Apply: return "app";
    case Op::Not: return "not";       case Op::And: return "and";       case Op::Or: return "or";
    case Op::Implies: return "=>";    case Op::Eq: return "=";          case Op::Ite: return "ite";
    case Op::Add: return "+";         case Op::Sub: return "-";         case Op::Mul: return "*";
    case Op::Neg: return "neg";       case Op::ToReal: return "to_real"; case Op::IntDiv: return "div";       case Op::Le: return "<=";         case Op::Lt: return "<";
    case Op::BvAdd: return "bvadd";   case Op::BvSub: return "bvsub";   case Op::BvMul: return "bvmul";
    case Op::BvNeg: return "bvneg";   case Op::BvSDiv: return "bvsdiv"; case Op::BvSRem: return "bvsrem";
    case Op::BvUDiv: return "bvudiv"; case Op::BvURem: return "bvurem"; case Op::BvSlt: return "bvslt";
    case Op::BvSle: return "bvsle";   case Op::BvUlt: return "bvult";   case Op::BvUle: return "bvule";
    case Op::BvSExt: return "sext";   case Op::BvZExt: return "zext";   case Op::BvExtract: return "extract";
    case Op::FpFromBits: return "to_fp"; case Op::FpAdd: return "fp.add"; case Op::FpSub: return "fp.sub";
    case Op::FpMul: return "fp.mul";  case Op::FpFma: return "fp.fma";  case Op::FpNeg: return "fp.neg";
    case Op::FpIsNaN: return "fp.isNaN"; case Op::FpIsInf: return "fp.isInfinite";
    case Op::FpIsZero: return "fp.isZero"; case Op::FpIsNeg: return "fp.isNegative";
    case Op::FpLeq: return "fp.leq";  case Op::FpLt: return "fp.lt";    case Op::FpEq: return "fp.eq";
    case Op::FpToFp: return "to_fp_fp"; case Op::FpFromSBv: return "to_fp_sbv";
  }
  return "?";
}

void render(const Node& n, std::string& out, std::size_t max) {
  if (out.size() > max) return;
  if (n.op == Op::Var) { out += n.name; return; }
  if (n.op == Op::Lit) {
    if (n.sort.kind == Sort::Kind::Real) out += n.name;
    else if (n.sort.kind == Sort::Kind::Bool) out += n.i0 ? "true" : "false";
    else out += std::to_string(n.i0);
    return;
  }
  out += "(";
  out += n.op == Op::Apply ? n.name : op_name(n.op);
  for (auto& k : n.kids) {
    out += " ";
    render(*k, out, max);
  }
  out += ")";
}
}  // namespace

std::string to_string(const Term& t, std::size_t max_chars) {
  std::string out;
  render(t.node(), out, max_chars);
  if (out.size() > max_chars) out = out.substr(0, max_chars) + "...";
  return out;
}

}  // namespace pecheck::proofs
