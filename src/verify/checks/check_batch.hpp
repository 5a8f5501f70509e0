// Batch invariance (spec/abi.md ABI-BATCH-1, contracts.md PREC-STORE-1) as a template any family
// uses: the output for a unit of the batch (a token of RoPE, sinusoidal, learned, the query+key
// functions; a query row of ALiBi and T5) must not depend, bit for bit, on the other units of the
// call, their number or the unit's place among them.
//
// The check generates a batch case, calls the function on it, then on sub-batches of it: for every
// count m in {1, 7, 8, 9, 15, 16, 17, 31, 33} below the batch's size N (counts that end SIMD main
// loops and remainders of widths 4, 8, 16 differently) and for m = N itself, the units
// N-1-((o + j) mod N), j < m (reverse order from an offset o = 5m mod N: each unit at another
// place, among other neighbours). Each unit's output bits are compared with the batch call's. The
// sub-batches are a function of the case alone, so a failing case shrinks like any other.
//
// A family provides (BatchHooks):
//   units(c)            how many units the case has (n_tokens, n_q)
//   select(c, pick)     the case holding units pick[0], pick[1], ... of c, in that order (their
//                       inputs and positions; a pick may repeat a unit); every other field equal
//   unit_bits(c, r, u)  the raw output bits (RunResult::out_bits, and a second output's bits for
//                       the query+key functions) of unit u of the call r of case c, in a fixed
//                       order; poisoned (unwritten) elements are skipped by the caller through
//                       `poisoned`
//   locate(c, u, k)     the report location of element k of unit u's bits
//   run(ctx, c)         the call (run_case(ctx.ex, c) for the version 1 families)
//   poisoned(r, bits)   whether a bit pattern is the call's poison (default: r.poison)
// and a generator of valid cases; make_batch_check grows a generated case to at least
// kBatchMinUnits units with select() (repeating units) when the generator made fewer.
// Other families (rope_qk, rope_cached) use it the same way: make_batch_check<QkCase>(fn, gen, hooks).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "verify/checks/check_impl.hpp"

namespace pecheck::verifier {

inline constexpr std::int64_t kBatchCounts[] = {1, 7, 8, 9, 15, 16, 17, 31, 33};
inline constexpr std::int64_t kBatchMinUnits = 10;

template <class Case>
struct BatchHooks {
  std::string unit;  // "token", "query row"
  std::function<std::int64_t(const Case&)> units;
  std::function<Case(const Case&, const std::vector<std::int64_t>&)> select;
  std::function<std::vector<std::uint32_t>(const Case&, const RunResult&, std::int64_t)> unit_bits;
  std::function<report::WorstElement(const Case&, std::int64_t, std::size_t)> locate;
  std::function<RunResult(Ctx&, const Case&)> run;
  std::function<bool(const RunResult&, std::uint32_t)> poisoned;
};

// The sub-batches of a batch of n units (above).
inline std::vector<std::vector<std::int64_t>> batch_picks(std::int64_t n) {
  std::vector<std::vector<std::int64_t>> out;
  if (n <= 0) return out;
  std::vector<std::int64_t> counts;
  for (std::int64_t m : kBatchCounts) {
    if (m < n) counts.push_back(m);
  }
  counts.push_back(n);
  for (std::int64_t m : counts) {
    const std::int64_t o = (5 * m) % n;
    std::vector<std::int64_t> pick(static_cast<std::size_t>(m));
    for (std::int64_t j = 0; j < m; ++j) pick[static_cast<std::size_t>(j)] = n - 1 - (o + j) % n;
    out.push_back(std::move(pick));
  }
  return out;
}

template <class Case>
std::optional<Failure> eval_batch(Ctx& ctx, const Case& c, Fn fn, const BatchHooks<Case>& h) {
  const std::int64_t n = h.units(c);
  const RunResult whole = h.run(ctx, c);
  if (auto f = call_failure(fn, whole)) return f;
  const auto poisoned = [&](const RunResult& r, std::uint32_t b) { return h.poisoned ? h.poisoned(r, b) : b == r.poison; };
  for (const auto& pick : batch_picks(n)) {
    Case sub = h.select(c, pick);
    const RunResult part = h.run(ctx, sub);
    if (auto f = call_failure(fn, part)) return f;
    for (std::size_t j = 0; j < pick.size(); ++j) {
      const auto a = h.unit_bits(c, whole, pick[j]);
      const auto b = h.unit_bits(sub, part, static_cast<std::int64_t>(j));
      for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) {
        if (a[k] == b[k] || poisoned(whole, a[k]) || poisoned(part, b[k])) continue;
        Failure f;
        f.clause = "ABI-BATCH-1";
        f.kind = "batch-variant";
        f.worst = h.locate(c, pick[j], k);
        f.worst->expected = from_storage(a[k], c.storage);
        f.worst->actual = from_storage(b[k], c.storage);
        f.worst->abs_error = std::fabs(static_cast<double>(f.worst->actual) - f.worst->expected);
        f.message = std::string(symbol(fn)) + ": " + h.unit + " " + std::to_string(pick[j]) + " of a call with " +
                    std::to_string(n) + " " + h.unit + "s and " + h.unit + " " + std::to_string(j) + " of a call with " +
                    std::to_string(pick.size()) + " (the same inputs and positions) differ in output element " +
                    std::to_string(k) + " of that " + h.unit;
        f.notes.push_back("expected = the element in the call on the whole batch, actual = in the call on the "
                          "sub-batch (" + h.unit + "s " + std::to_string(pick.front()) + ", " +
                          (pick.size() > 1 ? std::to_string(pick[1]) + ", ... in that order)" : "only)"));
        f.notes.push_back("batch invariance is checked under --strict (or --only ...batch): an output within its "
                          "accuracy class passes the default run (spec/abi.md ABI-BATCH-1)");
        return f;
      }
    }
  }
  if (ctx.record) ctx.elements += static_cast<std::int64_t>(whole.out_bits.size());
  return std::nullopt;
}

// The batch check `<prefix>.batch` of function `fn`: strict-only, run by --strict or by an --only
// selector naming `.batch`.
template <class Case>
AnyCheck make_batch_check(Fn fn, std::function<Case(Rng&, const GenParams&)> gen, BatchHooks<Case> hooks,
                          std::int64_t cases = 30) {
  auto grow = [gen, hooks](Rng& r, const GenParams& p) {
    Case c = gen(r, p);
    for (int tries = 0; hooks.units(c) == 0 && tries < 16; ++tries) c = gen(r, p);
    const std::int64_t n = hooks.units(c);
    if (n > 0 && n < kBatchMinUnits) {
      const std::int64_t want = r.pick(kBatchCounts) + kBatchMinUnits;  // 11 .. 43 units
      std::vector<std::int64_t> pick(static_cast<std::size_t>(want));
      for (std::int64_t j = 0; j < want; ++j) pick[static_cast<std::size_t>(j)] = r.range(0, n - 1);
      c = hooks.select(c, pick);
    }
    return c;
  };
  CheckDef<Case> def{check_prefix(fn) + ".batch", "ABI-BATCH-1",
                     "[--strict] each " + hooks.unit + "'s output is bit-identical whatever the other " + hooks.unit +
                         "s of the call, their number and its place among them",
                     fn, cases, grow,
                     [fn, hooks](Ctx& ctx, const Case& c) { return eval_batch<Case>(ctx, c, fn, hooks); }};
  AnyCheck a = make_check<Case>(std::move(def));
  a.strict_only = true;
  a.opt_in_part = ".batch";
  a.skip_reason = "batch invariance (spec/abi.md ABI-BATCH-1): run with --strict, or --only " + check_prefix(fn) + ".batch";
  return a;
}

}  // namespace pecheck::verifier
