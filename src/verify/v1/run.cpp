#include "verify/v1/run.hpp"

#include <span>

namespace pecheck::verifier {

namespace {

template <class T>
std::span<const T> cs(const std::vector<T>& v) {
  return {v.data(), v.size()};
}

std::size_t sz(std::int64_t n) { return static_cast<std::size_t>(n < 0 ? 0 : n); }

bool below(const CaseCommon& c) { return (c.placement & 1) != 0; }
std::size_t align_of(const CaseCommon& c) { return (c.placement & 2) != 0 ? storage_bytes(c.storage) : 64; }
std::uint32_t poison_of(const CaseCommon& c, const RunMode& m) { return poison_bits(c.storage, m.alt_poison); }

}  // namespace

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
