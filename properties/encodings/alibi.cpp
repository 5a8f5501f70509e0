// ALiBi properties (spec/alibi.md): slopes for any head count, shift invariance of the
// symmetric and causal forms, and BLOOM's key-only form: logits move, softmax rows do not.
#include "reference/alibi.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "gen.hpp"
#include "mp_model.hpp"
#include "reference/tolerance.hpp"

namespace pecheck::props {
namespace {

using reference::AlibiMode;

rc::Gen<std::int64_t> heads() {
  return from_rng<std::int64_t>([](Rng& r) { return classify::gen_heads(r); },
                                classify::shrink_heads);
}

// Clause: ALIBI-SLOPE-1, ALIBI-SLOPE-2, ALIBI-SLOPE-3 — the documented sequence: geometric first
// p slopes with ratio 2^(-8/p), extra heads equal to the odd-indexed slopes of 2p heads, all in
// [2^-8, 2^(-4/p)], strictly decreasing for powers of two. Exact comparisons: every step is a
// power of two with a dyadic exponent evaluated once by pow in double (correctly rounded at
// these arguments is not assumed: equal formulas give equal bits).
RC_GTEST_PROP(Alibi, SlopesFollowTheDocumentedSequence, ()) {
  const std::int64_t n = *heads();
  const auto s = reference::alibi_slopes<double>(n);
  const std::int64_t p = reference::alibi_pow2_floor(n);
  RC_ASSERT(p <= n && 2 * p > n);
  for (std::int64_t h = 0; h < n; ++h) {
    RC_ASSERT(s[h] >= std::ldexp(1.0, -8) && s[h] <= std::pow(2.0, -4.0 / static_cast<double>(p)));
    if (h < p)
      RC_ASSERT(s[h] == std::pow(2.0, -8.0 * static_cast<double>(h + 1) / static_cast<double>(p)));
    if (h >= p)
      RC_ASSERT(s[h] == reference::alibi_slope<double>(
                            2 * p, 2 * (h - p)));  // index 2(h-p) of 2p heads: 2^(-8(2(h-p)+1)/2p)
    if (h > 0 && h < p) RC_ASSERT(s[h] < s[h - 1]);
  }
}

// Clause: ALIBI-SHIFT-1, ALIBI-MODE-1, ALIBI-MODE-2, ALIBI-AXIS-2 — symmetric and causal scores
// are unchanged by a common shift (100-digit MPFR; the difference is exactly 0).
RC_GTEST_PROP(Alibi, SymmetricAndCausalScoresDependOnlyOnOffset, ()) {
  const AlibiMode mode = *rc::gen::element(AlibiMode::Symmetric, AlibiMode::Causal);
  const std::int64_t n = *heads();
  const std::int64_t h = *rc::gen::inRange<std::int64_t>(0, n);
  const ShiftCase s = *shift_case(reference::kAlibiMaxPosition);
  ModelDraw md;
  md.seed = *model_seed();
  const MpCompare r = mp_alibi_shift(mode, n, h, md, s.m, s.n, s.c);
  RC_LOG() << reference::to_string(mode) << " heads=" << n << " h=" << h << " " << s << " " << r
           << "\n";
  RC_ASSERT(r.diff == 0.0);
}

// Clause: ALIBI-MODE-3, ALIBI-SOFTMAX-1 — BLOOM key-only: the logits move under a shift (witness)
// while the softmax of every row over keys at or before the query does not (MODEL-TOL-2).
TEST(Alibi, BloomKeyOnlyLogitsMoveWitness) {
  const bool found = expect_witness(
      "BLOOM key-only logits are shift-invariant (expected to FAIL with a witness)", [] {
        const std::int64_t n = *heads();
        const std::int64_t h = *rc::gen::inRange<std::int64_t>(0, n);
        ShiftCase s = *shift_case(reference::kAlibiMaxPosition);
        RC_PRE(s.n <= s.m);  // unmasked key
        ModelDraw md;
        md.seed = *model_seed();
        const MpCompare r = mp_alibi_shift(AlibiMode::BloomKeyOnly, n, h, md, s.m, s.n, s.c);
        RC_LOG() << "heads=" << n << " h=" << h << " " << s << " " << r << "\n";
        RC_ASSERT(r.agree());
      });
  EXPECT_TRUE(found)
      << "BLOOM key-only logits looked shift-invariant, contradicting ALIBI-SOFTMAX-1";
}

RC_GTEST_PROP(Alibi, BloomKeyOnlySoftmaxRowsAreShiftInvariant, ()) {
  const std::int64_t n = *heads();
  const std::int64_t h = *rc::gen::inRange<std::int64_t>(0, n);
  const std::int64_t m = *position(reference::kAlibiMaxPosition);
  const std::int64_t nkeys = *rc::gen::inRange<std::int64_t>(1, 9);
  std::vector<std::int64_t> keys;
  for (std::int64_t j = 0; j < nkeys; ++j)
    keys.push_back(*rc::gen::inRange<std::int64_t>(0, m + 1));
  keys.push_back(m);
  const std::int64_t lowest = *std::min_element(keys.begin(), keys.end());
  const std::int64_t c = *from_rng<std::int64_t>(
      [&](Rng& r) { return classify::gen_shift(r, lowest, m, reference::kAlibiMaxPosition); },
      [](std::int64_t) { return std::vector<std::int64_t>{}; });
  RC_PRE(c != 0);
  ModelDraw md;
  md.seed = *model_seed();
  const MpCompare r = mp_alibi_softmax_row(AlibiMode::BloomKeyOnly, n, h, md, m, keys, c);
  RC_LOG() << "heads=" << n << " h=" << h << " m=" << m << " shift=" << c << " " << r << "\n";
  RC_ASSERT(r.agree());
}

// Clause: ALIBI-MODE-3 — key-only bias = causal bias + slope * q (per-row constant), exactly in
// integers scaled by a power-of-two slope of a power-of-two head count (all terms exact).
RC_GTEST_PROP(Alibi, BloomKeyOnlyIsCausalPlusRowConstant, ()) {
  const std::int64_t n = std::int64_t{1} << *rc::gen::inRange(0, 4);  // slopes 2^-k, exact products
  const std::int64_t h = *rc::gen::inRange<std::int64_t>(0, n);
  const double slope = reference::alibi_slope<double>(n, h);
  const std::int64_t q = *position(std::int64_t{1} << 30);
  const std::int64_t k = *rc::gen::inRange<std::int64_t>(0, q + 1);
  const double causal = reference::alibi_bias<double>(AlibiMode::Causal, slope, q, k);
  const double key_only = reference::alibi_bias<double>(AlibiMode::BloomKeyOnly, slope, q, k);
  RC_ASSERT(key_only == causal + slope * static_cast<double>(q));
  RC_ASSERT(std::isinf(reference::alibi_bias<double>(AlibiMode::BloomKeyOnly, slope, q, q + 1)));
  RC_ASSERT(std::isinf(reference::alibi_bias<double>(AlibiMode::Causal, slope, q, q + 1)));
  RC_ASSERT(reference::alibi_bias<double>(AlibiMode::Symmetric, slope, q, k) ==
            reference::alibi_bias<double>(AlibiMode::Symmetric, slope, k, q));
}

// Clause: ALIBI-ARG-1, ALIBI-ARG-2, ALIBI-ARG-3 — invalid head counts, heads and positions throw.
RC_GTEST_PROP(Alibi, InvalidArgumentsThrow, ()) {
  const int which = *rc::gen::inRange(0, 4);
  if (which == 0)
    RC_ASSERT_THROWS_AS(
        reference::alibi_slopes<double>(*rc::gen::element<std::int64_t>(0, -1, -64)),
        InvalidArgument);
  if (which == 1) {
    const std::int64_t n = *heads();
    RC_ASSERT_THROWS_AS(
        reference::alibi_slope<double>(n, *rc::gen::element<std::int64_t>(-1, n, n + 5)),
        InvalidArgument);
  }
  if (which == 2) {
    const std::int64_t bad =
        *rc::gen::element<std::int64_t>(-1, reference::kAlibiMaxPosition, INT64_MIN);
    RC_ASSERT_THROWS_AS(reference::alibi_bias<double>(AlibiMode::Symmetric, 0.5, bad, 0),
                        InvalidArgument);
  }
  if (which == 3)
    RC_ASSERT_THROWS_AS(reference::alibi_bias<double>(static_cast<AlibiMode>(7), 0.5, 1, 0),
                        InvalidArgument);
}

}  // namespace
}  // namespace pecheck::props
