#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <unordered_set>

#include "solver_internal.hpp"

namespace pecheck::proofs {

std::string_view to_string(Answer a) {
  switch (a) {
    case Answer::Proved: return "proved";
    case Answer::Counterexample: return "counterexample";
    case Answer::Unknown: return "unknown";
    case Answer::Timeout: return "timeout";
    case Answer::Error: return "error";
  }
  return "error";
}

Verdict to_verdict(Answer a) {
  switch (a) {
    case Answer::Proved: return Verdict::Pass;
    case Answer::Counterexample: return Verdict::Counterexample;
    case Answer::Unknown: return Verdict::Unknown;
    case Answer::Timeout: return Verdict::Timeout;
    case Answer::Error: return Verdict::Error;
  }
  return Verdict::Error;
}

std::string_view to_string(Backend b) { return b == Backend::Z3 ? "z3" : "cvc5"; }

std::string solver_version(Backend b) {
  return b == Backend::Z3 ? solver_version_z3() : solver_version_cvc5();
}

SolverRun run_backend(Backend b, const Query& q) { return b == Backend::Z3 ? run_z3(q) : run_cvc5(q); }

namespace {
// Parses "p", "-p", "p/q", or a decimal (Z3 algebraic numbers end in '?').
double parse_rational(const std::string& text) {
  std::string t = text;
  if (!t.empty() && t.back() == '?') t.pop_back();
  // cvc5 may print (- p) or (/ p q).
  std::string clean;
  for (char c : t) if (c != '(' && c != ')') clean += c;
  std::istringstream is(clean);
  std::string a, b, c;
  is >> a >> b >> c;
  if (a == "-") return -parse_rational(b + (c.empty() ? "" : " " + c));
  if (a == "/") return std::strtod(b.c_str(), nullptr) / std::strtod(c.c_str(), nullptr);
  const auto slash = a.find('/');
  if (slash != std::string::npos) {
    return std::strtod(a.substr(0, slash).c_str(), nullptr) /
           std::strtod(a.substr(slash + 1).c_str(), nullptr);
  }
  return std::strtod(a.c_str(), nullptr);
}
}  // namespace

double Value::to_double() const {
  switch (sort.kind) {
    case Sort::Kind::Bool: return boolean ? 1 : 0;
    case Sort::Kind::BV: return static_cast<double>(bits);
    default: return parse_rational(text);
  }
}

double Model::real(const std::string& name) const { return vars.at(name).to_double(); }
std::uint64_t Model::bits(const std::string& name) const { return vars.at(name).bits; }
std::int64_t Model::int64(const std::string& name) const {
  return static_cast<std::int64_t>(vars.at(name).bits);
}
float Model::f32(const std::string& name) const {
  const std::uint32_t b = static_cast<std::uint32_t>(vars.at(name).bits);
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

std::string Model::describe() const {
  std::ostringstream os;
  bool first = true;
  for (auto& [name, v] : vars) {
    if (!first) os << ", ";
    first = false;
    os << name << "=";
    if (v.sort.kind == Sort::Kind::Bool) os << (v.boolean ? "true" : "false");
    else if (v.sort.kind == Sort::Kind::BV) os << "#x" << std::hex << v.bits << std::dec;
    else os << v.text;
  }
  return os.str();
}

namespace {
bool any_node(const Query& q, const std::function<bool(const Node&)>& pred) {
  std::unordered_set<const Node*> seen;
  std::vector<const Node*> stack;
  for (auto& a : q.assumptions) stack.push_back(a.get());
  if (q.claim.valid()) stack.push_back(q.claim.get());
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    if (pred(*n)) return true;
    for (auto& k : n->kids) stack.push_back(k.get());
  }
  return false;
}
}  // namespace

bool uses_fp(const Query& q) {
  return any_node(q, [](const Node& n) { return n.sort.kind == Sort::Kind::FP; });
}
bool uses_bv(const Query& q) {
  return any_node(q, [](const Node& n) { return n.sort.kind == Sort::Kind::BV; });
}
bool uses_fma(const Query& q) {
  return any_node(q, [](const Node& n) { return n.op == Op::FpFma; });
}

}  // namespace pecheck::proofs
