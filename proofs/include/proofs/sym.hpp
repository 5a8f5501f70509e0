// Symbolic number types: the kernels' shared arithmetic (src/kernels/shared/*.hpp), written once
// and templated on the number type, is instantiated with these so that the solver sees exactly
// the operations the kernels execute — never a hand-retyped copy.
//
//   SymFloat  IEEE binary32 / binary64 term: + - * unary-, comparisons, and `ffma` (found by
//             argument-dependent lookup from the kernels' unqualified `ffma(a, b, c)` calls).
//   SymReal   exact real arithmetic (ffma(a, b, c) = a*b + c exactly).
//   SymInt    C++ int64_t as a 64-bit bit-vector: + - * / % unary-, comparisons. Every
//             operation also records a proof obligation "this does not overflow" (signed
//             overflow is undefined behaviour in C++), collected by an ObligationScope.
//   SymIdx    a C++ integer type of a given range (int32_t, uint32_t, int64_t) over the SMT
//             Int sort, i.e. mathematical integers: + - * / and comparisons. Every + - *
//             records the obligation "the exact result lies in [min, max] of the type", and /
//             records "a >= 0 and b > 0" (then C++'s truncating a / b equals SMT-LIB div).
//             When all obligations hold the machine operations equal the integer ones, so a
//             proof about SymIdx values is a proof about the kernel's — no bit-blasting of
//             64-bit products and quotients (unsigned wrap-around is an obligation too).
//   SymBool   a Boolean term. Converting it to `bool` (an `if` or `?:` in the kernel source)
//             asks the active PathExplorer which branch to take: the source is executed once
//             per feasible path and the results are merged with the path conditions.
//
// Mutations (the mutation test, PROOF-MUT-*): a MutationScope makes the symbolic instantiation
// deliberately wrong in one place, so a proof that can fail is seen to fail.
#pragma once

#include <climits>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "proofs/term.hpp"

namespace pecheck::proofs {

enum class Mutation { None, SignFlip, SwappedPair, WrongFreqExponent };
const char* to_string(Mutation m);

// The mutation active on this thread (None outside a MutationScope).
Mutation active_mutation();
class MutationScope {
 public:
  explicit MutationScope(Mutation m);
  ~MutationScope();
  MutationScope(const MutationScope&) = delete;
  MutationScope& operator=(const MutationScope&) = delete;

 private:
  Mutation saved_;
};

// ---------------------------------------------------------------------------------------------
// Path exploration: a symbolic branch condition converted to bool.

class PathExplorer {
 public:
  // feasible(conditions): false only when the conjunction is unsatisfiable.
  using Feasible = std::function<bool(const std::vector<Term>&)>;
  PathExplorer(std::vector<Term> preconditions, Feasible feasible, std::size_t max_paths = 4096);

  // Runs `body` once per feasible path; returns each path's condition with body's result.
  template <class F>
  auto explore(F&& body) -> std::vector<std::pair<Term, decltype(body())>> {
    std::vector<std::pair<Term, decltype(body())>> out;
    work_ = {{}};
    while (!work_.empty()) {
      forced_ = std::move(work_.back());
      work_.pop_back();
      begin_path();
      auto r = body();
      out.emplace_back(path_condition(), std::move(r));
      end_path();
      if (out.size() > max_paths_) throw std::runtime_error("path explosion in symbolic execution");
    }
    return out;
  }

  bool decide(const Term& cond);  // called by SymBool::operator bool
  std::size_t feasibility_checks() const { return checks_; }

 private:
  void begin_path();
  void end_path();
  Term path_condition() const;

  std::vector<Term> pre_;
  Feasible feasible_;
  std::size_t max_paths_;
  std::vector<std::vector<bool>> work_;
  std::vector<bool> forced_, taken_;
  std::vector<Term> pc_;
  std::size_t checks_ = 0;
  PathExplorer* saved_ = nullptr;
};

// ---------------------------------------------------------------------------------------------

class SymBool {
 public:
  explicit SymBool(Term t) : t_(std::move(t)) {}
  SymBool(bool b) : t_(bool_lit(b)) {}  // NOLINT: literals mix with symbolic conditions
  const Term& term() const { return t_; }
  operator bool() const;  // NOLINT: a branch in the instantiated source (see PathExplorer)
  friend SymBool operator!(const SymBool& a) { return SymBool(t_not(a.t_)); }
  friend SymBool operator|(const SymBool& a, const SymBool& b) { return SymBool(t_or({a.t_, b.t_})); }
  friend SymBool operator&(const SymBool& a, const SymBool& b) { return SymBool(t_and({a.t_, b.t_})); }

 private:
  Term t_;
};

// ---------------------------------------------------------------------------------------------

class SymFloat {
 public:
  explicit SymFloat(Term t);
  SymFloat() : SymFloat(fp_lit(0.0)) {}
  const Term& term() const { return t_; }
  static SymFloat var(const std::string& name, Sort s) { return SymFloat(fp_var(name, s)); }

  friend SymFloat operator+(const SymFloat& a, const SymFloat& b);
  friend SymFloat operator-(const SymFloat& a, const SymFloat& b);
  friend SymFloat operator*(const SymFloat& a, const SymFloat& b);
  friend SymFloat operator-(const SymFloat& a);
  friend SymFloat ffma(const SymFloat& a, const SymFloat& b, const SymFloat& c);
  // Literals take the operand's format, and must be exact in it (else std::logic_error).
  friend SymFloat operator+(const SymFloat& a, double b) { return a + a.lit(b); }
  friend SymFloat operator+(double a, const SymFloat& b) { return b.lit(a) + b; }
  friend SymFloat operator-(const SymFloat& a, double b) { return a - a.lit(b); }
  friend SymFloat operator-(double a, const SymFloat& b) { return b.lit(a) - b; }
  friend SymFloat operator*(const SymFloat& a, double b) { return a * a.lit(b); }
  friend SymFloat operator*(double a, const SymFloat& b) { return b.lit(a) * b; }
  friend SymBool operator<(const SymFloat& a, double b) { return SymBool(fp_bin(Op::FpLt, a.t_, a.lit(b).t_)); }
  friend SymBool operator==(const SymFloat& a, double b) { return SymBool(fp_bin(Op::FpEq, a.t_, a.lit(b).t_)); }

  SymFloat lit(double v) const;

 private:
  Term t_;
};

// ---------------------------------------------------------------------------------------------

class SymReal {
 public:
  explicit SymReal(Term t) : t_(std::move(t)) {}
  SymReal(std::int64_t v) : t_(real_lit(v)) {}  // NOLINT: integer literals in the source
  SymReal() : SymReal(std::int64_t{0}) {}
  const Term& term() const { return t_; }
  static SymReal var(const std::string& name) { return SymReal(proofs::var(name, Sort::real())); }

  friend SymReal operator+(const SymReal& a, const SymReal& b) { return SymReal(add(a.t_, b.t_)); }
  friend SymReal operator-(const SymReal& a, const SymReal& b) { return SymReal(sub(a.t_, b.t_)); }
  friend SymReal operator*(const SymReal& a, const SymReal& b) { return SymReal(mul(a.t_, b.t_)); }
  friend SymReal operator-(const SymReal& a) { return SymReal(neg(a.t_)); }
  // In exact arithmetic a fused multiply-add is a*b + c.
  friend SymReal ffma(const SymReal& a, const SymReal& b, const SymReal& c) { return a * b + c; }

 private:
  Term t_;
};

// ---------------------------------------------------------------------------------------------

// Obligations recorded by SymInt operations while a scope is active (innermost scope wins).
class ObligationScope {
 public:
  ObligationScope();
  ~ObligationScope();
  ObligationScope(const ObligationScope&) = delete;
  ObligationScope& operator=(const ObligationScope&) = delete;
  struct Obligation {
    std::string what;  // "add", "mul", ...
    Term holds;        // must be true (under the path condition) for the operation to be defined
    Term path;         // the path condition when it was recorded (true outside exploration)
  };
  const std::vector<Obligation>& obligations() const { return list_; }
  static void record(const char* what, Term holds);

 private:
  std::vector<Obligation> list_;
  ObligationScope* saved_;
};

class SymInt {
 public:
  explicit SymInt(Term t);
  SymInt(std::int64_t v) : t_(bv_lit(64, static_cast<std::uint64_t>(v))) {}  // NOLINT
  SymInt(int v) : SymInt(static_cast<std::int64_t>(v)) {}                    // NOLINT
  SymInt() : SymInt(std::int64_t{0}) {}
  const Term& term() const { return t_; }
  static SymInt var(const std::string& name) { return SymInt(proofs::var(name, Sort::bv(64))); }

  friend SymInt operator+(const SymInt& a, const SymInt& b);
  friend SymInt operator-(const SymInt& a, const SymInt& b);
  friend SymInt operator*(const SymInt& a, const SymInt& b);
  friend SymInt operator/(const SymInt& a, const SymInt& b);
  friend SymInt operator%(const SymInt& a, const SymInt& b);
  friend SymInt operator-(const SymInt& a);
  friend SymBool operator<(const SymInt& a, const SymInt& b) { return SymBool(bv_bin(Op::BvSlt, a.t_, b.t_)); }
  friend SymBool operator<=(const SymInt& a, const SymInt& b) { return SymBool(bv_bin(Op::BvSle, a.t_, b.t_)); }
  friend SymBool operator>(const SymInt& a, const SymInt& b) { return b < a; }
  friend SymBool operator>=(const SymInt& a, const SymInt& b) { return b <= a; }
  friend SymBool operator==(const SymInt& a, const SymInt& b) { return SymBool(eq(a.t_, b.t_)); }
  friend SymBool operator!=(const SymInt& a, const SymInt& b) { return !(a == b); }

 private:
  Term t_;
};

// ---------------------------------------------------------------------------------------------

// The value range of an emulated C++ integer type.
struct IntRange {
  std::string name;  // "int64_t", "uint32_t", ...
  std::int64_t min = 0, max = 0;
  friend bool operator==(const IntRange&, const IntRange&) = default;
  static IntRange int32() { return {"int32_t", INT32_MIN, INT32_MAX}; }
  static IntRange uint32() { return {"uint32_t", 0, UINT32_MAX}; }
  static IntRange int64() { return {"int64_t", INT64_MIN, INT64_MAX}; }
};

class SymIdx {
 public:
  SymIdx(Term t, IntRange r);
  const Term& term() const { return t_; }
  const IntRange& range() const { return r_; }
  static SymIdx var(const std::string& name, IntRange r) {
    return SymIdx(proofs::var(name, Sort::integer()), std::move(r));
  }
  // min <= this term <= max (what a variable of the type satisfies).
  Term in_range() const;

  friend SymIdx operator+(const SymIdx& a, const SymIdx& b);
  friend SymIdx operator-(const SymIdx& a, const SymIdx& b);
  friend SymIdx operator*(const SymIdx& a, const SymIdx& b);
  friend SymIdx operator/(const SymIdx& a, const SymIdx& b);
  friend SymBool operator<(const SymIdx& a, const SymIdx& b) { return SymBool(lt(a.t_, b.t_)); }
  friend SymBool operator<=(const SymIdx& a, const SymIdx& b) { return SymBool(le(a.t_, b.t_)); }
  friend SymBool operator>(const SymIdx& a, const SymIdx& b) { return b < a; }
  friend SymBool operator>=(const SymIdx& a, const SymIdx& b) { return b <= a; }
  friend SymBool operator==(const SymIdx& a, const SymIdx& b) { return SymBool(eq(a.t_, b.t_)); }

 private:
  Term t_;
  IntRange r_;
};

// Merges per-path results into one term: ite(pc_1, r_1, ite(pc_2, r_2, ... r_n)).
Term merge_paths(const std::vector<std::pair<Term, Term>>& paths);

}  // namespace pecheck::proofs
