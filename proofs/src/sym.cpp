#include "proofs/sym.hpp"

#include <bit>
#include <cmath>

namespace pecheck::proofs {
namespace {
thread_local Mutation g_mutation = Mutation::None;
thread_local PathExplorer* g_explorer = nullptr;
thread_local ObligationScope* g_obligations = nullptr;
thread_local std::vector<Term>* g_path = nullptr;  // current path condition, for obligations
}  // namespace

const char* to_string(Mutation m) {
  switch (m) {
    case Mutation::None: return "none";
    case Mutation::SignFlip: return "sign-flip";
    case Mutation::SwappedPair: return "swapped-pair";
    case Mutation::WrongFreqExponent: return "wrong-frequency-exponent";
  }
  return "?";
}

Mutation active_mutation() { return g_mutation; }
MutationScope::MutationScope(Mutation m) : saved_(g_mutation) { g_mutation = m; }
MutationScope::~MutationScope() { g_mutation = saved_; }

// --- PathExplorer ---------------------------------------------------------------------------

PathExplorer::PathExplorer(std::vector<Term> preconditions, Feasible feasible,
                           std::size_t max_paths)
    : pre_(std::move(preconditions)), feasible_(std::move(feasible)), max_paths_(max_paths) {}

void PathExplorer::begin_path() {
  taken_.clear();
  pc_.clear();
  saved_ = g_explorer;
  g_explorer = this;
  g_path = &pc_;
}

void PathExplorer::end_path() {
  g_explorer = saved_;
  g_path = nullptr;
}

Term PathExplorer::path_condition() const { return t_and(pc_); }

bool PathExplorer::decide(const Term& cond) {
  const std::size_t k = taken_.size();
  bool v;
  if (k < forced_.size()) {
    v = forced_[k];
  } else {
    auto with = [&](const Term& c) {
      std::vector<Term> all = pre_;
      all.insert(all.end(), pc_.begin(), pc_.end());
      all.push_back(c);
      ++checks_;
      return feasible_(all);
    };
    const bool t_ok = with(cond);
    const bool f_ok = with(t_not(cond));
    if (t_ok && f_ok) {
      std::vector<bool> other = taken_;
      other.push_back(false);
      work_.push_back(std::move(other));
      v = true;
    } else {
      v = t_ok || !f_ok;
    }
  }
  taken_.push_back(v);
  pc_.push_back(v ? cond : t_not(cond));
  return v;
}

SymBool::operator bool() const {
  if (!g_explorer) {
    throw std::logic_error("symbolic branch outside a PathExplorer: " + to_string(t_, 120));
  }
  return g_explorer->decide(t_);
}

Term merge_paths(const std::vector<std::pair<Term, Term>>& paths) {
  if (paths.empty()) throw std::logic_error("merge_paths: no path");
  Term out = paths.back().second;
  for (std::size_t i = paths.size() - 1; i-- > 0;) out = ite(paths[i].first, paths[i].second, out);
  return out;
}

// --- SymFloat -------------------------------------------------------------------------------

SymFloat::SymFloat(Term t) : t_(std::move(t)) {
  if (t_.sort().kind != Sort::Kind::FP) throw std::logic_error("SymFloat of a non-FP term");
}

SymFloat SymFloat::lit(double v) const {
  if (t_.sort() == Sort::f64()) return SymFloat(fp_lit(v));
  const float f = static_cast<float>(v);
  if (t_.sort() != Sort::f32() || (static_cast<double>(f) != v && !std::isnan(v))) {
    throw std::logic_error("literal not exact in the operand's format");
  }
  return SymFloat(fp_lit(f));
}

SymFloat operator+(const SymFloat& a, const SymFloat& b) {
  return SymFloat(fp_bin(Op::FpAdd, a.t_, b.t_));
}
SymFloat operator-(const SymFloat& a, const SymFloat& b) {
  // PROOF-MUT-1: the sign flip turns a subtraction into an addition.
  if (active_mutation() == Mutation::SignFlip) return SymFloat(fp_bin(Op::FpAdd, a.t_, b.t_));
  return SymFloat(fp_bin(Op::FpSub, a.t_, b.t_));
}
SymFloat operator*(const SymFloat& a, const SymFloat& b) {
  return SymFloat(fp_bin(Op::FpMul, a.t_, b.t_));
}
SymFloat operator-(const SymFloat& a) { return SymFloat(fp_un(Op::FpNeg, a.t_)); }
SymFloat ffma(const SymFloat& a, const SymFloat& b, const SymFloat& c) {
  return SymFloat(fp_fma(a.t_, b.t_, c.t_));
}

// --- SymInt ---------------------------------------------------------------------------------

ObligationScope::ObligationScope() : saved_(g_obligations) { g_obligations = this; }
ObligationScope::~ObligationScope() { g_obligations = saved_; }

void ObligationScope::record(const char* what, Term holds) {
  if (!g_obligations) return;
  Term path = g_path ? t_and(*g_path) : bool_lit(true);
  g_obligations->list_.push_back({what, std::move(holds), std::move(path)});
}

SymInt::SymInt(Term t) : t_(std::move(t)) {
  if (t_.sort() != Sort::bv(64)) throw std::logic_error("SymInt of a non-64-bit term");
}

namespace {
// The exact result of a 64-bit operation computed in `w` bits equals the sign-extension of
// the 64-bit result: no signed overflow.
Term fits(Op op, const Term& a, const Term& b, std::uint32_t w) {
  const Term wide = bv_bin(op, bv_sext(a, w - 64), bv_sext(b, w - 64));
  return eq(wide, bv_sext(bv_bin(op, a, b), w - 64));
}
}  // namespace

SymInt operator+(const SymInt& a, const SymInt& b) {
  ObligationScope::record("add", fits(Op::BvAdd, a.t_, b.t_, 65));
  return SymInt(bv_bin(Op::BvAdd, a.t_, b.t_));
}
SymInt operator-(const SymInt& a, const SymInt& b) {
  ObligationScope::record("sub", fits(Op::BvSub, a.t_, b.t_, 65));
  return SymInt(bv_bin(Op::BvSub, a.t_, b.t_));
}
SymInt operator*(const SymInt& a, const SymInt& b) {
  ObligationScope::record("mul", fits(Op::BvMul, a.t_, b.t_, 128));
  return SymInt(bv_bin(Op::BvMul, a.t_, b.t_));
}
namespace {
Term division_defined(const Term& a, const Term& b) {
  const Term min = bv_lit(64, std::uint64_t{1} << 63);
  const Term minus1 = bv_lit(64, ~std::uint64_t{0});
  return t_and({t_not(eq(b, bv_lit(64, 0))), t_not(t_and({eq(a, min), eq(b, minus1)}))});
}
}  // namespace
SymInt operator/(const SymInt& a, const SymInt& b) {
  ObligationScope::record("div", division_defined(a.t_, b.t_));
  return SymInt(bv_bin(Op::BvSDiv, a.t_, b.t_));
}
SymInt operator%(const SymInt& a, const SymInt& b) {
  ObligationScope::record("rem", division_defined(a.t_, b.t_));
  return SymInt(bv_bin(Op::BvSRem, a.t_, b.t_));
}
SymInt operator-(const SymInt& a) {
  ObligationScope::record("neg", t_not(eq(a.t_, bv_lit(64, std::uint64_t{1} << 63))));
  return SymInt(mk(Op::BvNeg, Sort::bv(64), {a.t_}));
}

// --- SymIdx ---------------------------------------------------------------------------------

SymIdx::SymIdx(Term t, IntRange r) : t_(std::move(t)), r_(std::move(r)) {
  if (t_.sort() != Sort::integer()) throw std::logic_error("SymIdx of a non-Int term");
  if (r_.min > r_.max) throw std::logic_error("SymIdx: empty range");
}

Term SymIdx::in_range() const {
  return t_and({le(int_lit(r_.min), t_), le(t_, int_lit(r_.max))});
}

namespace {
const IntRange& same_type(const SymIdx& a, const SymIdx& b) {
  if (!(a.range() == b.range())) {
    throw std::logic_error("SymIdx: operands of different types (" + a.range().name + ", " +
                           b.range().name + ")");
  }
  return a.range();
}
// The exact result lies in the type's range: the machine operation equals the integer one.
SymIdx ranged(const char* what, Term exact, const IntRange& r) {
  SymIdx out(std::move(exact), r);
  ObligationScope::record(what, out.in_range());
  return out;
}
}  // namespace

SymIdx operator+(const SymIdx& a, const SymIdx& b) {
  return ranged("add", add(a.t_, b.t_), same_type(a, b));
}
SymIdx operator-(const SymIdx& a, const SymIdx& b) {
  return ranged("sub", sub(a.t_, b.t_), same_type(a, b));
}
SymIdx operator*(const SymIdx& a, const SymIdx& b) {
  return ranged("mul", mul(a.t_, b.t_), same_type(a, b));
}
SymIdx operator/(const SymIdx& a, const SymIdx& b) {
  const IntRange& r = same_type(a, b);
  // a >= 0, b > 0: defined, and C++'s truncation toward zero equals div's floor; the quotient
  // lies in [0, a], so inside the type.
  ObligationScope::record("div", t_and({le(int_lit(0), a.t_), lt(int_lit(0), b.t_)}));
  return SymIdx(int_div(a.t_, b.t_), r);
}

}  // namespace pecheck::proofs
