// A corpus entry back into the case it describes: the inverse of describe() (verify/v1/describe.cpp),
// with every field checked so that a hand-edited or hostile file can neither crash pecheck nor
// make it allocate without bound. A case meant for a check that takes valid calls must be valid
// (spec/abi.md domains) with every array of exactly the length its dimensions imply; a case for
// a `.reject` check may break the domain, as generated rejection cases do.
#include "verify/corpus/corpus_cases.hpp"

#include <limits>
#include <optional>
#include <map>

#include "core/error.hpp"
#include "verify/isolation/kernel_table.hpp"

namespace pecheck::verifier {

namespace {

using report::Arg;
using report::ArgValue;
using report::Tensor;

class Fields {
 public:
  explicit Fields(const CorpusEntry& e) : e_(e) {
    for (const auto& a : e.args) args_[a.name] = &a.value;
    for (const auto& t : e.inputs) tensors_[t.name] = &t;
  }

  [[noreturn]] void fail(const std::string& why) const {
    throw UsageError("corpus file " + e_.source + " (" + e_.check + "): " + why);
  }

  std::int64_t integer(const std::string& name, std::int64_t lo, std::int64_t hi) {
    const ArgValue* v = take(name);
    if (v == nullptr) fail("argument '" + name + "' is missing");
    const auto* i = std::get_if<std::int64_t>(v);
    if (i == nullptr) fail("argument '" + name + "' must be an int");
    if (*i < lo || *i > hi) fail("argument '" + name + "' = " + std::to_string(*i) + " is outside what pecheck replays");
    return *i;
  }

  double real(const std::string& name) {
    const ArgValue* v = take(name);
    if (v == nullptr) fail("argument '" + name + "' is missing");
    if (const auto* d = std::get_if<double>(v)) return *d;
    if (const auto* i = std::get_if<std::int64_t>(v)) return static_cast<double>(*i);
    fail("argument '" + name + "' must be a real");
  }

  // An array argument: `null` (returns false, the array is passed as NULL) or ints.
  bool ints(const std::string& name, std::vector<std::int64_t>& out) {
    const ArgValue* v = take(name);
    if (v == nullptr) fail("argument '" + name + "' is missing");
    if (std::holds_alternative<std::monostate>(*v)) return false;
    const auto* p = std::get_if<std::vector<std::int64_t>>(v);
    if (p == nullptr) fail("argument '" + name + "' must be ints or null");
    out = *p;
    return true;
  }

  bool floats(const std::string& name, std::vector<float>& out) {
    const ArgValue* v = take(name);
    if (v == nullptr) fail("argument '" + name + "' is missing");
    if (std::holds_alternative<std::monostate>(*v)) return false;
    const auto* p = std::get_if<std::vector<double>>(v);
    if (p == nullptr) fail("argument '" + name + "' must be reals or null");
    out.clear();
    for (double d : *p) {
      const float f = static_cast<float>(d);
      if (d == d && static_cast<double>(f) != d) fail("argument '" + name + "' holds a value that is not a float");
      out.push_back(f);
    }
    return true;
  }

  bool tensor(const std::string& name, std::vector<float>& out) {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) return false;
    out = it->second->values;
    tensors_.erase(it);
    return true;
  }

  void common(CaseCommon& c) {
    if (has("shift")) c.shift = integer("shift", -(std::int64_t{1} << 32), std::int64_t{1} << 32);
    if (const ArgValue* v = take("null_argument")) {
      const auto* s = std::get_if<std::string>(v);
      if (s == nullptr || s->empty() || s->size() > 32) fail("argument 'null_argument' must name an array");
      c.null_field = *s;
    }
    if (const ArgValue* v = take("generator")) {
      if (const auto* s = std::get_if<std::string>(v)) c.note = *s;
    }
  }

  // Nothing may be left over: an unknown field is a file for another pecheck or a typo.
  void done() const {
    if (!args_.empty()) fail("unknown argument '" + args_.begin()->first + "'");
    if (!tensors_.empty()) fail("unknown tensor '" + tensors_.begin()->first + "'");
  }

  bool has(const std::string& name) const { return args_.count(name) != 0; }

 private:
  const ArgValue* take(const std::string& name) {
    auto it = args_.find(name);
    if (it == args_.end()) return nullptr;
    const ArgValue* v = it->second;
    args_.erase(it);
    return v;
  }

  const CorpusEntry& e_;
  std::map<std::string, const ArgValue*> args_;
  std::map<std::string, const Tensor*> tensors_;
};

// Dimensions that multiply into buffer sizes stay within 2^20 (so no product overflows); the
// others (rotary_dim, max_distance) within 2^40. Generated cases, valid or not, stay far inside.
constexpr std::int64_t kDim = std::int64_t{1} << 20;
constexpr std::int64_t kBig = std::int64_t{1} << 40;
constexpr std::int64_t kMaxElems = static_cast<std::int64_t>(kCorpusMaxElements);

// a*b*c with saturation at kMaxElems + 1 (dimensions may be negative in rejection cases).
std::int64_t product(std::initializer_list<std::int64_t> dims) {
  std::int64_t p = 1;
  for (std::int64_t d : dims) {
    if (d <= 0) return 0;
    if (d > kMaxElems || p > kMaxElems / d) return kMaxElems + 1;
    p *= d;
  }
  return p;
}

void need_size(Fields& f, const char* name, std::size_t have, std::int64_t want) {
  if (static_cast<std::int64_t>(have) != want) {
    f.fail(std::string("'") + name + "' has " + std::to_string(have) + " entries, the arguments imply " +
           std::to_string(want));
  }
}

// Rejection checks take invalid calls: "<scheme>.reject.<rule>" (and the pre-split "<scheme>.reject").
bool is_reject_check(const std::string& check) {
  return check.ends_with(".reject") || check.find(".reject.") != std::string::npos;
}

template <class Case>
void finish(Fields& f, const Case& c, const std::string& check) {
  f.done();
  if (output_size(c) > kMaxElems) f.fail("the output would exceed " + std::to_string(kMaxElems) + " elements");
  if (!is_reject_check(check)) {
    if (const std::string why = invalid_reason(c); !why.empty()) {
      f.fail("the call is invalid (" + why + ") but check " + check + " takes valid calls");
    }
  }
}

bool valid_for(const std::string& check) { return !is_reject_check(check); }

}  // namespace

void case_from_entry(const CorpusEntry& e, RopeCase& c) {
  Fields f(e);
  c = RopeCase{};
  c.n_tokens = f.integer("n_tokens", -kDim, kDim);
  c.n_heads = f.integer("n_heads", -kDim, kDim);
  c.head_dim = f.integer("head_dim", -kDim, kDim);
  c.rotary_dim = f.integer("rotary_dim", -kBig, kBig);
  c.layout = static_cast<std::int32_t>(f.integer("layout", INT32_MIN, INT32_MAX));
  c.theta_base = f.real("theta_base");
  c.position_scale = f.real("position_scale");
  f.ints("positions", c.positions);
  c.has_inv_freq = f.floats("inv_freq", c.inv_freq);
  f.common(c);
  f.tensor("x", c.x);
  f.tensor("k", c.k);
  if (valid_for(e.check)) {
    const std::int64_t n = product({c.n_tokens, c.n_heads, c.head_dim});
    need_size(f, "positions", c.positions.size(), c.n_tokens);
    need_size(f, "x", c.x.size(), n);
    if (!c.k.empty() || e.check == "rope.shift") need_size(f, "k", c.k.size(), n);
    if (c.has_inv_freq) need_size(f, "inv_freq", c.inv_freq.size(), c.rotary_dim / 2);
  }
  finish(f, c, e.check);
}

void case_from_entry(const CorpusEntry& e, AlibiCase& c) {
  Fields f(e);
  c = AlibiCase{};
  c.n_heads = f.integer("n_heads", -kDim, kDim);
  c.n_q = f.integer("n_q", -kDim, kDim);
  c.n_k = f.integer("n_k", -kDim, kDim);
  c.mode = static_cast<std::int32_t>(f.integer("mode", INT32_MIN, INT32_MAX));
  f.ints("q_pos", c.q_pos);
  f.ints("k_pos", c.k_pos);
  f.common(c);
  f.tensor("scores", c.scores);
  if (valid_for(e.check)) {
    need_size(f, "q_pos", c.q_pos.size(), c.n_q);
    need_size(f, "k_pos", c.k_pos.size(), c.n_k);
    need_size(f, "scores", c.scores.size(), product({c.n_heads, c.n_q, c.n_k}));
  }
  finish(f, c, e.check);
}

void case_from_entry(const CorpusEntry& e, T5Case& c) {
  Fields f(e);
  c = T5Case{};
  c.n_heads = f.integer("n_heads", -kDim, kDim);
  c.n_q = f.integer("n_q", -kDim, kDim);
  c.n_k = f.integer("n_k", -kDim, kDim);
  c.num_buckets = f.integer("num_buckets", -kDim, kDim);
  c.max_distance = f.integer("max_distance", -kBig, kBig);
  c.bidirectional = static_cast<std::int32_t>(f.integer("bidirectional", INT32_MIN, INT32_MAX));
  f.ints("q_pos", c.q_pos);
  f.ints("k_pos", c.k_pos);
  f.common(c);
  f.tensor("table", c.table);
  if (valid_for(e.check)) {
    need_size(f, "q_pos", c.q_pos.size(), c.n_q);
    need_size(f, "k_pos", c.k_pos.size(), c.n_k);
    need_size(f, "table", c.table.size(), product({c.num_buckets, c.n_heads}));
  }
  finish(f, c, e.check);
}

void case_from_entry(const CorpusEntry& e, SinusoidalCase& c) {
  Fields f(e);
  c = SinusoidalCase{};
  c.n_tokens = f.integer("n_tokens", -kDim, kDim);
  c.d_model = f.integer("d_model", -kDim, kDim);
  c.base = f.real("base");
  f.ints("positions", c.positions);
  f.common(c);
  if (valid_for(e.check)) need_size(f, "positions", c.positions.size(), c.n_tokens);
  finish(f, c, e.check);
}

void case_from_entry(const CorpusEntry& e, LearnedCase& c) {
  Fields f(e);
  c = LearnedCase{};
  c.n_tokens = f.integer("n_tokens", -kDim, kDim);
  c.d_model = f.integer("d_model", -kDim, kDim);
  c.max_positions = f.integer("max_positions", -kDim, kDim);
  f.ints("positions", c.positions);
  f.common(c);
  f.tensor("table", c.table);
  if (valid_for(e.check)) {
    need_size(f, "positions", c.positions.size(), c.n_tokens);
    need_size(f, "table", c.table.size(), product({c.max_positions, c.d_model}));
  }
  finish(f, c, e.check);
}

}  // namespace pecheck::verifier

namespace pecheck::verifier {

void validate_entry(const CorpusEntry& e) {
  const auto dot = e.check.find('.');
  const std::string s = e.check.substr(0, dot);
  // The function is the scheme's, in the storage type the check name carries ("rope.bf16.oracle":
  // pec_rope_bf16; "rope.oracle": pec_rope_f32).
  Storage st = Storage::F32;
  if (dot != std::string::npos) {
    const auto dot2 = e.check.find('.', dot + 1);
    const std::string part = e.check.substr(dot + 1, dot2 == std::string::npos ? std::string::npos : dot2 - dot - 1);
    for (Storage cand : {Storage::BF16, Storage::F16}) {
      if (part == storage_name(cand)) st = cand;
    }
  }
  const std::optional<Family> fam = s == "rope" ? std::optional(Family::Rope) : s == "alibi" ? std::optional(Family::Alibi)
                                    : s == "t5" ? std::optional(Family::T5)
                                    : s == "sinusoidal" ? std::optional(Family::Sinusoidal)
                                    : s == "learned" ? std::optional(Family::Learned) : std::nullopt;
  if (!fam || dot == std::string::npos) {
    throw UsageError("corpus file " + e.source + ": unknown check '" + e.check + "'");
  }
  const std::string fn(symbol(fn_of(*fam, st)));
  if (e.function != fn) {
    throw UsageError("corpus file " + e.source + ": check " + e.check + " is about " + fn + ", not '" + e.function + "'");
  }
  if (s == "rope") {
    RopeCase c;
    case_from_entry(e, c);
  } else if (s == "alibi") {
    AlibiCase c;
    case_from_entry(e, c);
  } else if (s == "t5") {
    T5Case c;
    case_from_entry(e, c);
  } else if (s == "sinusoidal") {
    SinusoidalCase c;
    case_from_entry(e, c);
  } else {
    LearnedCase c;
    case_from_entry(e, c);
  }
}

namespace {
template <class Case>
std::string requirement_of(const CorpusEntry& e) {
  Case c;
  case_from_entry(e, c);
  return invalid_requirement(c);
}
}  // namespace

// Corpus files written before the rejection requirements were split (check "<scheme>.reject")
// name the requirement check their case breaks: "<scheme>.reject.<requirement>".
std::string current_check_name(const CorpusEntry& e) {
  const auto dot = e.check.find('.');
  if (dot == std::string::npos || e.check.substr(dot) != ".reject") return e.check;
  const std::string s = e.check.substr(0, dot);
  const std::string req = s == "rope"         ? requirement_of<RopeCase>(e)
                          : s == "alibi"      ? requirement_of<AlibiCase>(e)
                          : s == "t5"         ? requirement_of<T5Case>(e)
                          : s == "sinusoidal" ? requirement_of<SinusoidalCase>(e)
                          : s == "learned"    ? requirement_of<LearnedCase>(e)
                                              : std::string();
  if (req.empty()) throw UsageError("corpus file " + e.source + ": check " + e.check + " holds a valid call");
  return s + ".reject." + req;
}

}  // namespace pecheck::verifier
