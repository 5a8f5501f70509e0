// Statelessness (spec/abi.md ABI-GEN-6): the same call gives the same bits whatever calls came
// before it in the same process. A kernel that keeps a cache across calls (transformers #25306:
// a dynamic-NTK cos/sin cache rebuilt with a scaled base for a long request and reused by later
// short ones) is right on every isolated call; only a sequence shows it. The check runs, in one
// fresh worker: (1) the case; (2) another valid case of other shape; (3) the same shape as (1) at
// positions near the run's maximum with other parameters (RoPE's theta_base x 8 and
// position_scale, ALiBi/T5 positions); (4) the case again, and compares (4) with (1) bit for bit.
// (3) comes last before (4) so that a cache keyed on the shape and grown by length (rebuilt for
// another rotary_dim, kept for a shorter call) still holds (3)'s values when (4) runs.
#pragma once

#include <algorithm>
#include <sstream>
#include <string>
#include <variant>

#include "verify/checks/check.hpp"

namespace pecheck::verifier {

namespace stateless {

// The check's own cases keep their positions in the lowest eighth of the range, so that the call
// between can go beyond them (a cache keyed on length is rebuilt only by a longer call).
inline void shorten(std::vector<std::int64_t>& pos, std::int64_t max_position) {
  const std::int64_t span = std::max<std::int64_t>(max_position / 8, 1);
  for (auto& p : pos) p %= span;
}
inline void shorten(RopeCase& c, std::int64_t m) { shorten(c.positions, m); }
inline void shorten(AlibiCase& c, std::int64_t m) { shorten(c.q_pos, m), shorten(c.k_pos, m); }
inline void shorten(T5Case& c, std::int64_t m) { shorten(c.q_pos, m), shorten(c.k_pos, m); }
inline void shorten(SinusoidalCase& c, std::int64_t m) { shorten(c.positions, m); }
inline void shorten(LearnedCase&, std::int64_t) {}

// Makes a case one whose result a kept state would change: a RoPE case with at least one
// token, a pair whose frequency depends on theta_base (rotary_dim >= 4 where head_dim allows;
// pair 0's frequency is base^0 = 1 whatever the base) and, in three cases of four, no inv_freq
// table (a kernel that takes the table does not derive anything from the base). Other families
// are used as generated.
inline void prepare(RopeCase& c, Rng& r) {
  if (c.n_tokens == 0) {
    c.n_tokens = 1;
    c.positions.assign(1, 0);
    c.x.resize(static_cast<std::size_t>(c.n_heads * c.head_dim));
    for (auto& v : c.x) v = static_cast<float>(r.signed_unit());
  }
  if (c.rotary_dim < 4 && c.head_dim >= 4) c.rotary_dim = 4;
  if (c.has_inv_freq && !r.chance(25)) {
    c.has_inv_freq = false;
    c.inv_freq.clear();
    c.note.clear();
  }
}
template <class Case>
void prepare(Case&, Rng&) {}

inline void spread(std::vector<std::int64_t>& pos, std::int64_t max_position) {
  const std::int64_t top = std::max<std::int64_t>(max_position, 0);  // inclusive (GenParams)
  for (std::size_t i = 0; i < pos.size(); ++i)
    pos[i] = std::max<std::int64_t>(top - static_cast<std::int64_t>(i) * 7, 0);
}

// The same shape at large positions, other scalar parameters (still valid).
inline void stretch(RopeCase& c, std::int64_t max_position) {
  spread(c.positions, max_position);
  c.theta_base *= 8;
  c.position_scale = c.position_scale == 1.0 ? 0.5 : 1.0;
  for (auto& f : c.inv_freq) f *= 0.5f;  // a table cached by length, too
}
inline void stretch(AlibiCase& c, std::int64_t max_position) {
  spread(c.q_pos, max_position);
  spread(c.k_pos, max_position);
}
inline void stretch(T5Case& c, std::int64_t max_position) {
  spread(c.q_pos, max_position);
  spread(c.k_pos, max_position / 2);
}
inline void stretch(SinusoidalCase& c, std::int64_t max_position) {
  spread(c.positions, max_position);
  c.base *= 8;
}
inline void stretch(LearnedCase& c, std::int64_t) {  // positions stay inside the table
  for (auto& p : c.positions) p = std::max<std::int64_t>(c.max_positions - 1 - p, 0);
}

// "n_tokens 3, n_heads 2, head_dim 8, theta_base 80000, positions up to 131071".
template <class Case>
std::string brief(const Case& c) {
  std::vector<report::Arg> args;
  std::vector<report::Tensor> in;
  describe(c, args, in);
  std::ostringstream s;
  bool first = true;
  for (const auto& a : args) {
    std::string v;
    if (const auto* i = std::get_if<std::int64_t>(&a.value)) v = std::to_string(*i);
    else if (const auto* d = std::get_if<double>(&a.value)) {
      std::ostringstream t;
      t << *d;
      v = t.str();
    } else if (const auto* p = std::get_if<std::vector<std::int64_t>>(&a.value)) {
      if (p->empty()) continue;
      v = "up to " + std::to_string(*std::max_element(p->begin(), p->end()));
    } else if (const auto* n = std::get_if<std::string>(&a.value)) {
      v = *n;
    } else {
      continue;
    }
    s << (first ? "" : ", ") << a.name << " " << v;
    first = false;
  }
  return s.str();
}

}  // namespace stateless

template <class Case>
CheckDef<Case> make_stateless_check(Fn fn, std::function<Case(Rng&, const GenParams&)> gen) {
  const std::string sym(symbol(fn)), prefix = check_prefix(fn), sch(scheme(fn));
  return {
      prefix + ".stateless", "ABI-GEN-6",
      "the same call gives the same bits after other calls in the same process (larger positions, other "
      "shapes and parameters between)",
      fn, 3,
      [gen](Rng& r, const GenParams& p) {
        Case c = gen(r, p);
        stateless::prepare(c, r);
        stateless::shorten(c, p.max_position);
        return c;
      },
      [fn, sym, sch, gen](Ctx& ctx, const Case& c) -> std::optional<Failure> {
        ctx.ex.recycle();  // (1) runs first in a fresh worker: an isolated call
        const RunResult a = run_case(ctx.ex, c);
        if (auto f = call_failure(fn, a)) return f;
        const std::int64_t maxp =
            ctx.domain ? max_position_for(*ctx.domain, sch, ctx.opt.max_position) : ctx.opt.max_position;
        Case big = c;
        stateless::stretch(big, maxp);
        Rng r = Rng::for_case(ctx.opt.seed, "stateless-other", static_cast<std::uint64_t>(ctx.case_index));
        Case other = gen(r, GenParams{maxp, c.storage});
        if (ctx.domain) constrain(*ctx.domain, other, r);
        other.storage = c.storage;
        fit_storage(other);
        // The calls between are not judged here (their values are the other checks' job), only
        // whether they change what the repeated call gives.
        run_case(ctx.ex, other);
        run_case(ctx.ex, big);
        const RunResult b = run_case(ctx.ex, c);
        if (auto f = call_failure(fn, b)) return f;
        for (std::size_t i = 0; i < a.out.size() && i < b.out.size(); ++i) {
          if (a.out_bits[i] == b.out_bits[i]) continue;
          Failure f;
          f.clause = "ABI-GEN-6";
          f.kind = "stateful";
          f.message = sym + " gave other bits for the same call repeated after other calls in the same process";
          f.worst = locate(c, static_cast<std::int64_t>(i));
          f.worst->expected = a.out[i];
          f.worst->actual = b.out[i];
          f.notes.push_back("call sequence in one worker process: (1) this call -> expected; (2) " +
                            stateless::brief(other) + "; (3) " + stateless::brief(big) +
                            "; (4) this call again -> actual");
          f.notes.push_back("each call alone is judged by the other checks; a kernel that keeps state (a cache keyed "
                            "on part of its arguments) gives a later call the earlier call's values");
          return f;
        }
        return std::nullopt;
      }};
}

}  // namespace pecheck::verifier
