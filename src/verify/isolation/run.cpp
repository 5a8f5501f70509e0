#include "verify/isolation/run.hpp"

#include <cstring>
#include <limits>
#include <span>

namespace pecheck::verifier {

namespace {

constexpr std::int64_t kIntact = std::numeric_limits<std::int64_t>::min();

template <class T>
std::span<const T> cs(const std::vector<T>& v) {
  return {v.data(), v.size()};
}

// Inputs placed in the arena, remembered so that a write into them is detected (ABI-GEN-4).
struct Inputs {
  struct F { std::string name; const float* p; const std::vector<float>* v; };
  struct I { std::string name; const std::int64_t* p; std::vector<std::int64_t> v; };
  std::vector<F> floats;
  std::vector<I> ints;
  const void* args = nullptr;
  std::vector<unsigned char> args_copy;

  const float* put(Arena& a, const std::string& name, const std::vector<float>& v, const std::string& null_field,
                   std::size_t align = 64) {
    if (null_field == name) return nullptr;
    const float* p = a.copy(cs(v), align);
    floats.push_back({name, p, &v});
    return p;
  }
  const std::int64_t* put(Arena& a, const std::string& name, std::vector<std::int64_t> v, const std::string& null_field) {
    if (null_field == name) return nullptr;
    const std::int64_t* p = a.copy(cs(v));
    ints.push_back({name, p, std::move(v)});
    return p;
  }
  template <class A>
  const A* put_args(Arena& a, const A& value) {
    const A* p = a.put(value);
    args = p;
    args_copy.assign(reinterpret_cast<const unsigned char*>(&value),
                     reinterpret_cast<const unsigned char*>(&value) + sizeof(A));
    return p;
  }
  std::string changed() const {
    for (const auto& f : floats) {
      if (!same_bits(f.p, cs(*f.v))) return f.name;
    }
    for (const auto& i : ints) {
      if (!same_bits(i.p, cs(i.v))) return i.name;
    }
    if (args && std::memcmp(args, args_copy.data(), args_copy.size()) != 0) return "args";
    return "";
  }
};

RunResult finish(const CallOutcome& o, const GuardedOutput& out, const Inputs& in, std::uint32_t poison,
                 bool output_null, const std::vector<float>* init = nullptr) {
  RunResult r;
  r.outcome = o;
  r.out = out.values();
  r.unchanged = init ? same_bits(r.out.data(), cs(*init)) : out.count_bits(poison) == out.size;
  r.guard_violation = out.first_guard_violation();
  r.input_changed = in.changed();
  if (!output_null) {
    for (std::size_t i = 0; i < r.out.size(); ++i) {
      if (float_bits(r.out[i]) == poison) {
        if (r.first_unwritten < 0) r.first_unwritten = static_cast<std::int64_t>(i);
        ++r.unwritten;
      }
    }
  }
  return r;
}

std::size_t sz(std::int64_t n) { return static_cast<std::size_t>(n < 0 ? 0 : n); }

bool below(const CaseCommon& c) { return (c.placement & 1) != 0; }
std::size_t align_of(const CaseCommon& c) { return (c.placement & 2) != 0 ? 4 : 64; }

}  // namespace

bool RunResult::guards_ok() const { return guard_violation == kIntact; }

std::vector<std::int64_t> shifted(const std::vector<std::int64_t>& p, std::int64_t s) {
  std::vector<std::int64_t> q(p);
  for (auto& e : q) e += s;
  return q;
}

std::string placement_note(std::int32_t placement) {
  if (placement == 0) return "";
  return std::string("the output buffer was placed ") + ((placement & 1) ? "below" : "above") + " its inputs" +
         ((placement & 2) ? ", adjacent (no gap before its guard zone)" : "") + " in memory";
}

RunResult run_case(Executor& ex, const RopeCase& c, const RunMode& m) {
  Arena& a = ex.arena();
  a.reset();
  Inputs in;
  pec_rope_args args{c.n_tokens, c.n_heads, c.head_dim, c.rotary_dim, c.layout, c.theta_base,
                     c.position_scale, nullptr, nullptr};
  args.positions = in.put(a, "positions", shifted(c.positions, m.shift), c.null_field);
  if (c.has_inv_freq) args.inv_freq = in.put(a, "inv_freq", c.inv_freq, c.null_field);
  const auto& xv = m.keys ? c.k : c.x;
  const std::size_t n = sz(output_size(c));
  GuardedOutput out;
  const float* x = nullptr;
  if (m.in_place) {
    out = a.output_from(cs(xv));
    x = out.data;
  } else if (below(c)) {  // y below x in memory (a kernel may compare the pointers)
    out = a.output(n, m.poison);
    x = in.put(a, "x", xv, c.null_field, align_of(c));
  } else {
    x = in.put(a, "x", xv, c.null_field);
    out = a.output(n, m.poison, align_of(c));
  }
  float* y = c.null_field == "y" ? nullptr : out.data;
  if (c.null_field == "x" && m.in_place) x = nullptr;
  const auto* ap = in.put_args(a, args);
  const CallOutcome o = ex.call(Fn::Rope, ap, x, y);
  if (m.in_place) {
    std::vector<float> init(xv);
    init.resize(n, 0.0f);
    return finish(o, out, in, m.poison, true, &init);
  }
  return finish(o, out, in, m.poison, y == nullptr);
}

RunResult run_case(Executor& ex, const AlibiCase& c, const RunMode& m) {
  Arena& a = ex.arena();
  a.reset();
  Inputs in;
  pec_alibi_args args{c.n_heads, c.n_q, c.n_k, c.mode, nullptr, nullptr};
  std::vector<float> init = c.scores;
  init.resize(sz(output_size(c)), 0.0f);
  if (m.zero_scores) std::fill(init.begin(), init.end(), 0.0f);
  GuardedOutput out;
  if (below(c)) out = a.output_from(cs(init));
  args.q_pos = in.put(a, "q_pos", shifted(c.q_pos, m.shift), c.null_field);
  args.k_pos = in.put(a, "k_pos", shifted(c.k_pos, m.shift), c.null_field);
  if (!below(c)) out = a.output_from(cs(init), align_of(c));
  float* y = c.null_field == "scores" ? nullptr : out.data;
  const auto* ap = in.put_args(a, args);
  const CallOutcome o = ex.call(Fn::Alibi, ap, nullptr, y);
  return finish(o, out, in, m.poison, true, &init);  // scores are read-write: nothing is poisoned
}

RunResult run_case(Executor& ex, const T5Case& c, const RunMode& m) {
  Arena& a = ex.arena();
  a.reset();
  Inputs in;
  pec_t5_args args{c.n_heads, c.n_q, c.n_k, c.num_buckets, c.max_distance, c.bidirectional,
                   nullptr, nullptr, nullptr};
  GuardedOutput out;
  if (below(c)) out = a.output(sz(output_size(c)), m.poison);
  args.q_pos = in.put(a, "q_pos", shifted(c.q_pos, m.shift), c.null_field);
  args.k_pos = in.put(a, "k_pos", shifted(c.k_pos, m.shift), c.null_field);
  args.table = in.put(a, "table", c.table, c.null_field);
  if (!below(c)) out = a.output(sz(output_size(c)), m.poison, align_of(c));
  float* y = c.null_field == "bias" ? nullptr : out.data;
  const auto* ap = in.put_args(a, args);
  const CallOutcome o = ex.call(Fn::T5, ap, nullptr, y);
  return finish(o, out, in, m.poison, y == nullptr);
}

RunResult run_case(Executor& ex, const SinusoidalCase& c, const RunMode& m) {
  Arena& a = ex.arena();
  a.reset();
  Inputs in;
  pec_sinusoidal_args args{c.n_tokens, c.d_model, c.base, nullptr};
  GuardedOutput out;
  if (below(c)) out = a.output(sz(output_size(c)), m.poison);
  args.positions = in.put(a, "positions", shifted(c.positions, m.shift), c.null_field);
  if (!below(c)) out = a.output(sz(output_size(c)), m.poison, align_of(c));
  float* y = c.null_field == "out" ? nullptr : out.data;
  const auto* ap = in.put_args(a, args);
  const CallOutcome o = ex.call(Fn::Sinusoidal, ap, nullptr, y);
  return finish(o, out, in, m.poison, y == nullptr);
}

RunResult run_case(Executor& ex, const LearnedCase& c, const RunMode& m) {
  Arena& a = ex.arena();
  a.reset();
  Inputs in;
  pec_learned_args args{c.n_tokens, c.d_model, c.max_positions, nullptr, nullptr};
  GuardedOutput out;
  if (below(c)) out = a.output(sz(output_size(c)), m.poison);
  args.positions = in.put(a, "positions", shifted(c.positions, m.shift), c.null_field);
  args.table = in.put(a, "table", c.table, c.null_field);
  if (!below(c)) out = a.output(sz(output_size(c)), m.poison, align_of(c));
  float* y = c.null_field == "out" ? nullptr : out.data;
  const auto* ap = in.put_args(a, args);
  const CallOutcome o = ex.call(Fn::Learned, ap, nullptr, y);
  return finish(o, out, in, m.poison, y == nullptr);
}

}  // namespace pecheck::verifier
