// A small, solver-independent term language: the one vocabulary in which every proof query is
// written. Terms are built here (no solver header is needed), then translated by the Z3 and the
// cvc5 back ends (z3_backend.cpp, cvc5_backend.cpp), so the same formula goes to both solvers.
//
// Sorts: Bool, Int, Real, bit-vectors of width w, IEEE binary formats (eb, sb). Floating-point
// variables are always created from a bit-vector variable (fp_var), so every model reports
// exact IEEE bits and every counterexample replays bit-exactly.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pecheck::proofs {

struct Sort {
  enum class Kind : std::uint8_t { Bool, Int, Real, BV, FP };
  Kind kind = Kind::Bool;
  std::uint32_t a = 0;  // BV: width; FP: exponent bits
  std::uint32_t b = 0;  // FP: significand bits (with the hidden bit)
  static Sort boolean() { return {Kind::Bool, 0, 0}; }
  static Sort integer() { return {Kind::Int, 0, 0}; }
  static Sort real() { return {Kind::Real, 0, 0}; }
  static Sort bv(std::uint32_t w) { return {Kind::BV, w, 0}; }
  static Sort fp(std::uint32_t eb, std::uint32_t sb) { return {Kind::FP, eb, sb}; }
  static Sort f32() { return fp(8, 24); }
  static Sort f64() { return fp(11, 53); }
  friend bool operator==(const Sort&, const Sort&) = default;
};

enum class Op : std::uint8_t {
  Var, Lit, Apply,                           // variable, literal, uninterpreted function
  Not, And, Or, Implies, Eq, Ite,            // core (Eq on FP is IEEE identity, NaN == NaN)
  Add, Sub, Mul, Neg, Le, Lt, ToReal,        // Int / Real (ToReal: Int -> Real)
  IntDiv,                                    // Int: SMT-LIB div (floor for b > 0)
  BvAdd, BvSub, BvMul, BvNeg, BvSDiv, BvSRem, BvUDiv, BvURem,
  BvSlt, BvSle, BvUlt, BvUle, BvSExt, BvZExt, BvExtract,
  FpFromBits, FpAdd, FpSub, FpMul, FpFma, FpNeg, FpIsNaN, FpIsInf, FpIsZero, FpIsNeg,
  FpLeq, FpLt, FpEq, FpToFp, FpFromSBv,      // FpEq: IEEE equality (fp.eq); FpToFp: RNE convert
};

struct Node;
using NodePtr = std::shared_ptr<const Node>;

struct Node {
  Op op;
  Sort sort;
  std::vector<NodePtr> kids;
  std::string name;       // Var / Apply: symbol; Lit of Real: "num/den"
  std::int64_t i0 = 0;    // Lit Bool/Int/BV value (BV: bits as uint64); Extract hi; Ext count
  std::int64_t i1 = 0;    // Extract lo
  std::uint64_t hash = 0; // structural hash (used to order commutative operands for Z3)
};

// A term: a shared, immutable node. Cheap to copy.
class Term {
 public:
  Term() = default;
  explicit Term(NodePtr n) : n_(std::move(n)) {}
  const Node& node() const { return *n_; }
  const Node* get() const { return n_.get(); }
  const NodePtr& ptr() const { return n_; }
  const Sort& sort() const { return n_->sort; }
  bool valid() const { return n_ != nullptr; }

 private:
  NodePtr n_;
};

Term mk(Op op, Sort sort, std::vector<Term> kids, std::string name = {}, std::int64_t i0 = 0,
        std::int64_t i1 = 0);

// Leaves.
Term var(const std::string& name, Sort s);
Term bool_lit(bool v);
Term int_lit(std::int64_t v);
Term real_lit(std::int64_t num, std::int64_t den = 1);
Term bv_lit(std::uint32_t width, std::uint64_t bits);
Term fp_var(const std::string& name, Sort fp_sort);  // FpFromBits(var name: BV(eb+sb))
Term fp_lit(float v);
Term fp_lit(double v);
Term apply(const std::string& fn, Sort result, std::vector<Term> args);

// Logic.
Term t_not(Term a);
Term t_and(std::vector<Term> xs);
Term t_or(std::vector<Term> xs);
Term implies(Term a, Term b);
Term eq(Term a, Term b);
Term ite(Term c, Term a, Term b);

// Int / Real arithmetic.
Term add(Term a, Term b);
Term sub(Term a, Term b);
Term mul(Term a, Term b);
Term neg(Term a);
Term le(Term a, Term b);
Term lt(Term a, Term b);
Term to_real(Term a);
// SMT-LIB integer division (div): for b > 0 the floor of a/b, which equals C++'s truncating
// a / b when a >= 0. Undefined (unconstrained) for b == 0.
Term int_div(Term a, Term b);

// Bit-vectors (signed operations follow C++'s int64 semantics: truncating division).
Term bv_bin(Op op, Term a, Term b);
Term bv_sext(Term a, std::uint32_t extra);
Term bv_zext(Term a, std::uint32_t extra);
Term bv_extract(Term a, std::uint32_t hi, std::uint32_t lo);

// IEEE floating point, round-to-nearest-even.
Term fp_bin(Op op, Term a, Term b);            // FpAdd, FpSub, FpMul, FpLeq, FpLt, FpEq
Term fp_fma(Term a, Term b, Term c);           // a*b + c, one rounding
Term fp_un(Op op, Term a);                     // FpNeg, FpIsNaN, FpIsInf, FpIsZero, FpIsNeg
Term fp_convert(Term a, Sort to);              // FP -> FP (RNE)
Term fp_from_sbv(Term a, Sort to);             // signed BV -> FP (RNE)

// "a and b are the same IEEE datum": both NaN, or identical (so +0 != -0).
Term fp_same(Term a, Term b);
// a is neither NaN nor infinite.
Term fp_finite(Term a);

// Rewrites with three IEEE 754 identities (round-to-nearest-even, one NaN as in SMT-LIB):
//   a * (-b) = -(a * b)    (-a) * b = -(a * b)    a + (-b) = a - b    (-a) + b = b - a
//   a - (-b) = a + b       -(-a) = a
// Each is proved for binary32 by the claim kernel.ieee-lemmas (cvc5 and Z3) before a query
// that uses this rewriting is reported proved.
Term ieee_normalize(const Term& t);

// Renders a term in SMT-LIB-like syntax (for debugging and reports; truncated when long).
std::string to_string(const Term& t, std::size_t max_chars = 400);

}  // namespace pecheck::proofs
