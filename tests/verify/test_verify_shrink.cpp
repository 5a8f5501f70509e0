// Shrinking and determinism: a failure is reduced to the smallest case that still fails (fewest
// tokens and heads, smallest dimensions, smallest positions), deterministically; the same seed
// gives the same result, and shards partition the cases.
#include "report/json.hpp"
#include "verify/v1/cases.hpp"
#include "verify/gen/rng.hpp"
#include "verify_test_util.hpp"

using pecheck::report::CheckStatus;
using testk::Bug;

// Clause: ABI-ROPE-2
TEST(VerifyShrink, ThresholdBugShrinksToTheThresholdItself) {
  // The kernel leaves tokens at positions >= 1000 unrotated: the minimal counterexample is one
  // token, one head, two lanes, at position exactly 1000.
  const auto r = vt::run_with(Bug::IdentityFrom1000, vt::options({"rope.oracle"}));
  const auto& c = vt::check(r, "rope.oracle");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  const auto& cx = *c.counterexample;
  EXPECT_EQ(vt::int_arg(cx, "n_tokens"), 1);
  EXPECT_EQ(vt::int_arg(cx, "n_heads"), 1);
  EXPECT_EQ(vt::int_arg(cx, "head_dim"), 2);
  EXPECT_EQ(vt::int_arg(cx, "rotary_dim"), 2);
  EXPECT_EQ(vt::ints_arg(cx, "positions"), std::vector<std::int64_t>{1000});
  EXPECT_GT(cx.shrink_steps, 0);
  ASSERT_TRUE(cx.worst.has_value());
  EXPECT_EQ(cx.worst->position, 1000);
  ASSERT_EQ(cx.inputs.size(), 1u);
  EXPECT_EQ(cx.inputs[0].name, "x");
  EXPECT_EQ(cx.inputs[0].values.size(), 2u);
}

// Clause: ABI-ROPE-2 ABI-GEN-7
TEST(VerifyShrink, SameSeedSameCounterexample) {
  auto o = vt::options({"rope.oracle", "rope.shift"});
  o.seed = 12345;
  const auto a = vt::run_with(Bug::Bf16Position, o);
  const auto b = vt::run_with(Bug::Bf16Position, o);
  for (const char* name : {"rope.oracle", "rope.shift"}) {
    const auto& ca = vt::check(a, name);
    const auto& cb = vt::check(b, name);
    ASSERT_EQ(ca.status, CheckStatus::Fail);
    EXPECT_EQ(ca.cases, cb.cases);
    EXPECT_EQ(pecheck::report::to_json(*ca.counterexample).dump(), pecheck::report::to_json(*cb.counterexample).dump());
    EXPECT_NE(ca.counterexample->reproduce.find("--seed 12345"), std::string::npos);
  }
}

TEST(VerifyShrink, SameSeedSamePassingRun) {
  auto o = vt::options({"t5", "alibi.oracle"}, 0.2);
  o.seed = 7;
  const auto a = vt::run_with(Bug::None, o);
  const auto b = vt::run_with(Bug::None, o);
  ASSERT_EQ(a.checks.size(), b.checks.size());
  for (std::size_t i = 0; i < a.checks.size(); ++i) {
    EXPECT_EQ(a.checks[i].status, b.checks[i].status);
    EXPECT_EQ(a.checks[i].cases, b.checks[i].cases);
    EXPECT_EQ(a.checks[i].elements, b.checks[i].elements) << a.checks[i].name;
  }
}

TEST(VerifyShrink, CasesAreAFunctionOfSeedCheckAndIndex) {
  using namespace pecheck::verifier;
  const GenParams p;
  auto r1 = Rng::for_case(3, "rope.oracle", 17), r2 = Rng::for_case(3, "rope.oracle", 17);
  const RopeCase a = gen_rope(r1, p), b = gen_rope(r2, p);
  EXPECT_EQ(a.positions, b.positions);
  EXPECT_EQ(a.x, b.x);
  auto r3 = Rng::for_case(3, "rope.oracle", 18);
  const RopeCase c = gen_rope(r3, p);
  EXPECT_FALSE(c.positions == a.positions && c.x == a.x && c.head_dim == a.head_dim);
}

TEST(VerifyShrink, ShardsPartitionTheCases) {
  auto o = vt::options({"learned", "t5.oracle"}, 0.5);
  const auto whole = vt::run_with(Bug::None, o);
  std::int64_t sum_learned = 0, sum_t5 = 0;
  for (std::int64_t i = 0; i < 3; ++i) {
    auto s = o;
    s.shard_index = i;
    s.shard_count = 3;
    const auto part = vt::run_with(Bug::None, s);
    sum_learned += vt::check(part, "learned.lookup").cases;
    sum_t5 += vt::check(part, "t5.oracle").cases;
  }
  EXPECT_EQ(sum_learned, vt::check(whole, "learned.lookup").cases);
  EXPECT_EQ(sum_t5, vt::check(whole, "t5.oracle").cases);
}

// The generators cover the space the issue names: both layouts, partial rotary, zero tokens,
// counts that are not multiples of 8, positions near the maximum, given inv_freq tables,
// position_scale != 1, non-power-of-two heads, T5 offsets beyond max_distance both ways.
TEST(VerifyShrink, GeneratorsReachTheBuggyCorners) {
  using namespace pecheck::verifier;
  GenParams p;
  bool neox = false, gptj = false, partial = false, zero = false, odd = false, near_max = false, table = false,
       scale = false, npot = false, t5_far_pos = false, t5_far_neg = false;
  for (std::uint64_t i = 0; i < 400; ++i) {
    auto r = Rng::for_case(0, "coverage", i);
    const RopeCase c = gen_rope(r, p);
    neox |= c.layout == 0, gptj |= c.layout == 1, partial |= c.rotary_dim < c.head_dim;
    zero |= c.n_tokens == 0, odd |= c.n_tokens % 8 != 0 && c.n_tokens > 8, table |= c.has_inv_freq;
    scale |= c.position_scale != 1.0, npot |= (c.n_heads & (c.n_heads - 1)) != 0;
    for (auto q : c.positions) near_max |= q >= p.max_position - 64;
    const T5Case t = gen_t5(r, p);
    for (auto q : t.q_pos)
      for (auto k : t.k_pos) t5_far_pos |= k - q > t.max_distance, t5_far_neg |= q - k > t.max_distance;
  }
  EXPECT_TRUE(neox && gptj && partial && zero && odd && near_max && table && scale && npot);
  EXPECT_TRUE(t5_far_pos && t5_far_neg);
}
