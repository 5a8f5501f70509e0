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

std::size_t sz(std::int64_t n) { return static_cast<std::size_t>(n < 0 ? 0 : n); }

bool below(const CaseCommon& c) { return (c.placement & 1) != 0; }
std::size_t align_of(const CaseCommon& c) { return (c.placement & 2) != 0 ? storage_bytes(c.storage) : 64; }
std::uint32_t poison_of(const CaseCommon& c, const RunMode& m) { return poison_bits(c.storage, m.alt_poison); }

}  // namespace

bool RunResult::guards_ok() const { return guard_violation == kIntact; }

const void* CallInputs::tensor(Arena& a, const std::string& name, const std::vector<float>& v, Storage s,
                               const std::string& null_field, std::size_t align) {
  if (null_field == name) return nullptr;
  const std::vector<unsigned char> enc = encode(cs(v), s);
  return bytes(a, name, enc.data(), enc.size(), align, storage_bytes(s),
               s == Storage::F32 ? std::string("float") : std::string(storage_name(s)) + " element");
}

const std::int64_t* CallInputs::ints(Arena& a, const std::string& name, std::vector<std::int64_t> v,
                                     const std::string& null_field) {
  if (null_field == name) return nullptr;
  return static_cast<const std::int64_t*>(bytes(a, name, v.data(), v.size() * sizeof(std::int64_t), 64, 8, "int64"));
}

const void* CallInputs::bytes(Arena& a, const std::string& name, const void* p, std::size_t n, std::size_t align,
                              std::size_t elem, const std::string& unit) {
  void* q = a.allocate_input(n, align, name, elem, unit);
  if (n > 0) std::memcpy(q, p, n);
  const auto* b = static_cast<const unsigned char*>(p);
  saved_.push_back({name, q, std::vector<unsigned char>(b, b + n)});
  return q;
}

std::string CallInputs::changed() const {
  for (const auto& f : saved_) {
    if (!f.bytes.empty() && std::memcmp(f.p, f.bytes.data(), f.bytes.size()) != 0) return f.name;
  }
  if (args_ && std::memcmp(args_, args_copy_.data(), args_copy_.size()) != 0) return "args";
  return "";
}

RunResult finish_call(const CallOutcome& o, const GuardedOutput& out, const CallInputs& in, std::uint32_t poison,
                      bool output_null, const std::vector<float>* init) {
  RunResult r;
  r.outcome = o;
  r.storage = out.storage;
  r.poison = poison;
  r.out = out.values();
  r.out_bits = out.all_bits();
  if (init) {
    r.unchanged = true;
    for (std::size_t i = 0; i < r.out_bits.size() && i < init->size(); ++i) {
      r.unchanged = r.unchanged && r.out_bits[i] == to_storage((*init)[i], out.storage);
    }
  } else {
    r.unchanged = out.count_bits(poison) == out.size;
  }
  r.guard_violation = out.first_guard_violation();
  r.input_changed = in.changed();
  if (!output_null && !init) {
    for (std::size_t i = 0; i < r.out_bits.size(); ++i) {
      if (r.out_bits[i] == poison) {
        if (r.first_unwritten < 0) r.first_unwritten = static_cast<std::int64_t>(i);
        ++r.unwritten;
      }
    }
  }
  return r;
}

std::vector<std::int64_t> shifted(const std::vector<std::int64_t>& p, std::int64_t s) {
  std::vector<std::int64_t> q(p);
  for (auto& e : q) e += s;
  return q;
}

std::string placement_note(std::int32_t placement) {
  std::string s;
  if ((placement & 3) != 0) {
    s = std::string("the output buffer was placed ") + ((placement & 1) ? "below" : "above") + " its inputs" +
        ((placement & 2) ? ", adjacent (no gap before its guard zone)" : "") + " in memory";
  }
  if (const GuardSide g = guard_side_of(placement); g != GuardSide::None) {
    s += std::string(s.empty() ? "" : "; ") + "each input array lay against an inaccessible guard page " +
         (g == GuardSide::After ? "after its last element" : "before its first element");
  }
  return s;
}

RunResult run_case(Executor& ex, const RopeCase& c, const RunMode& m) {
  Arena& a = ex.arena();
  a.reset();
  a.set_guard_side(guard_side_of(c.placement));
  CallInputs in;
  const Storage st = c.storage;
  const std::uint32_t poison = poison_of(c, m);
  pec_rope_args args{c.n_tokens, c.n_heads, c.head_dim, c.rotary_dim, c.layout, c.theta_base,
                     c.position_scale, nullptr, nullptr};
  args.positions = in.ints(a, "positions", shifted(c.positions, m.shift), c.null_field);
  if (c.has_inv_freq) args.inv_freq = static_cast<const float*>(in.tensor(a, "inv_freq", c.inv_freq, Storage::F32, c.null_field));
  const auto& xv = m.keys ? c.k : c.x;
  const std::size_t n = sz(output_size(c));
  GuardedOutput out;
  const void* x = nullptr;
  std::vector<float> init;
  if (m.in_place) {
    init = xv;
    init.resize(n, 0.0f);
    out = a.output_from(cs(init), 64, st);
    x = out.data;
  } else if (below(c)) {  // y below x in memory (a kernel may compare the pointers)
    out = a.output(n, poison, 64, st);
    x = in.tensor(a, "x", xv, st, c.null_field, align_of(c));
  } else {
    x = in.tensor(a, "x", xv, st, c.null_field);
    out = a.output(n, poison, align_of(c), st);
  }
  void* y = c.null_field == "y" ? nullptr : out.data;
  if (c.null_field == "x" && m.in_place) x = nullptr;
  const auto* ap = in.args(a, args);
  const CallOutcome o = ex.call(fn_of(Family::Rope, st), ap, x, y);
  if (m.in_place) return finish_call(o, out, in, poison, true, &init);
  return finish_call(o, out, in, poison, y == nullptr);
}

RunResult run_case(Executor& ex, const AlibiCase& c, const RunMode& m) {
  Arena& a = ex.arena();
  a.reset();
  a.set_guard_side(guard_side_of(c.placement));
  CallInputs in;
  const Storage st = c.storage;
  pec_alibi_args args{c.n_heads, c.n_q, c.n_k, c.mode, nullptr, nullptr};
  std::vector<float> init = c.scores;
  init.resize(sz(output_size(c)), 0.0f);
  if (m.zero_scores) std::fill(init.begin(), init.end(), 0.0f);
  GuardedOutput out;
  if (below(c)) out = a.output_from(cs(init), 64, st);
  args.q_pos = in.ints(a, "q_pos", shifted(c.q_pos, m.shift), c.null_field);
  args.k_pos = in.ints(a, "k_pos", shifted(c.k_pos, m.shift), c.null_field);
  if (!below(c)) out = a.output_from(cs(init), align_of(c), st);
  void* y = c.null_field == "scores" ? nullptr : out.data;
  const auto* ap = in.args(a, args);
  const CallOutcome o = ex.call(fn_of(Family::Alibi, st), ap, nullptr, y);
  return finish_call(o, out, in, poison_of(c, m), true, &init);  // scores are read-write: nothing is poisoned
}

RunResult run_case(Executor& ex, const T5Case& c, const RunMode& m) {
  Arena& a = ex.arena();
  a.reset();
  a.set_guard_side(guard_side_of(c.placement));
  CallInputs in;
  const Storage st = c.storage;
  const std::uint32_t poison = poison_of(c, m);
  GuardedOutput out;
  if (below(c)) out = a.output(sz(output_size(c)), poison, 64, st);
  const std::int64_t* q = in.ints(a, "q_pos", shifted(c.q_pos, m.shift), c.null_field);
  const std::int64_t* k = in.ints(a, "k_pos", shifted(c.k_pos, m.shift), c.null_field);
  const void* table = in.tensor(a, "table", c.table, st, c.null_field);
  if (!below(c)) out = a.output(sz(output_size(c)), poison, align_of(c), st);
  void* y = c.null_field == "bias" ? nullptr : out.data;
  const void* ap;
  if (st == Storage::F32) {
    ap = in.args(a, pec_t5_args{c.n_heads, c.n_q, c.n_k, c.num_buckets, c.max_distance, c.bidirectional, q, k,
                                static_cast<const float*>(table)});
  } else {
    ap = in.args(a, pec_t5_args16{c.n_heads, c.n_q, c.n_k, c.num_buckets, c.max_distance, c.bidirectional, q, k,
                                  static_cast<const std::uint16_t*>(table)});
  }
  const CallOutcome o = ex.call(fn_of(Family::T5, st), ap, nullptr, y);
  return finish_call(o, out, in, poison, y == nullptr);
}

RunResult run_case(Executor& ex, const SinusoidalCase& c, const RunMode& m) {
  Arena& a = ex.arena();
  a.reset();
  a.set_guard_side(guard_side_of(c.placement));
  CallInputs in;
  const Storage st = c.storage;
  const std::uint32_t poison = poison_of(c, m);
  pec_sinusoidal_args args{c.n_tokens, c.d_model, c.base, nullptr};
  GuardedOutput out;
  if (below(c)) out = a.output(sz(output_size(c)), poison, 64, st);
  args.positions = in.ints(a, "positions", shifted(c.positions, m.shift), c.null_field);
  if (!below(c)) out = a.output(sz(output_size(c)), poison, align_of(c), st);
  void* y = c.null_field == "out" ? nullptr : out.data;
  const auto* ap = in.args(a, args);
  const CallOutcome o = ex.call(fn_of(Family::Sinusoidal, st), ap, nullptr, y);
  return finish_call(o, out, in, poison, y == nullptr);
}

RunResult run_case(Executor& ex, const LearnedCase& c, const RunMode& m) {
  Arena& a = ex.arena();
  a.reset();
  a.set_guard_side(guard_side_of(c.placement));
  CallInputs in;
  const Storage st = c.storage;
  const std::uint32_t poison = poison_of(c, m);
  GuardedOutput out;
  if (below(c)) out = a.output(sz(output_size(c)), poison, 64, st);
  const std::int64_t* pos = in.ints(a, "positions", shifted(c.positions, m.shift), c.null_field);
  const void* table = in.tensor(a, "table", c.table, st, c.null_field);
  if (!below(c)) out = a.output(sz(output_size(c)), poison, align_of(c), st);
  void* y = c.null_field == "out" ? nullptr : out.data;
  const void* ap;
  if (st == Storage::F32) {
    ap = in.args(a, pec_learned_args{c.n_tokens, c.d_model, c.max_positions, pos, static_cast<const float*>(table)});
  } else {
    ap = in.args(a, pec_learned_args16{c.n_tokens, c.d_model, c.max_positions, pos,
                                       static_cast<const std::uint16_t*>(table)});
  }
  const CallOutcome o = ex.call(fn_of(Family::Learned, st), ap, nullptr, y);
  return finish_call(o, out, in, poison, y == nullptr);
}

}  // namespace pecheck::verifier
