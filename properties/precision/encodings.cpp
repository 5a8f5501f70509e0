// ALiBi, T5 and sinusoidal precision properties against the oracle (spec/contracts.md).
// Clause: PREC-ALIBI-1, PREC-ALIBI-2, PREC-T5-1, PREC-SIN-1, PREC-SIN-2, PREC-VAR-1, PREC-VAR-2
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <iostream>

#include "gen.hpp"
#include "oracle/budget.hpp"
#include "oracle/oracle.hpp"
#include "precision/precision.hpp"
#include "precision/variants.hpp"
#include "reference/alibi.hpp"
#include "reference/sinusoidal.hpp"

namespace po = pecheck::oracle;
namespace pp = pecheck::precision;
namespace ref = pecheck::reference;

// The float and double ALiBi references: slope pow(T(2), -num/p), bias -slope * T(d).
RC_GTEST_PROP(PrecisionAlibi, ReferencesWithinContract, ()) {
  const std::int64_t n = *rc::gen::inRange<std::int64_t>(1, 65);
  const std::int64_t h = *rc::gen::inRange<std::int64_t>(0, n);
  const std::int64_t q = *pecheck::prop::position(), k = *pecheck::prop::position();
  const auto ex = po::alibi_bias(n, h, q, k, PEC_ALIBI_SYMMETRIC);
  const float yf = ref::alibi_bias<float>(ref::AlibiMode::Symmetric, ref::alibi_slope<float>(n, h), q, k);
  const double yd = ref::alibi_bias<double>(ref::AlibiMode::Symmetric, ref::alibi_slope<double>(n, h), q, k);
  const po::BudgetInputs in{std::fabs(ex.exact.hi), 0.0};
  RC_ASSERT(po::budget("alibi", "f32").units(std::fabs((yf - ex.exact.hi) - ex.exact.lo), in) <= 1.0);
  RC_ASSERT(po::budget("alibi", "f64").units(std::fabs((yd - ex.exact.hi) - ex.exact.lo), in) <= 1.0);
}

RC_GTEST_PROP(PrecisionAlibi, HonestVariantsWithinBudgetInEveryFormat, ()) {
  pp::SweepOptions o;
  o.scheme = "alibi";
  o.dtype = *rc::gen::element(po::Format::F32, po::Format::BF16, po::Format::F16, po::Format::F64);
  const std::int64_t d = *pecheck::prop::position();
  for (const auto& v : pp::variants("alibi")) {
    if (!v.degraded) RC_ASSERT(pp::measure(v, o, d).max_units <= 1.0);
  }
}

// bf16 slopes are off by ~2^-9 relative at distance 1 already (for non-power-of-two slopes);
// fp16 distances are exact up to 2048 and first round at 2049.
TEST(PrecisionAlibi, DegradedVariantsViolateTheF32Contract) {
  pp::SweepOptions o;
  o.scheme = "alibi";
  const struct {
    const char* name;
    std::int64_t expected_first;
  } cases[] = {{"bf16_slope", 1}, {"fp16_distance", 2049}};
  for (const auto& c : cases) {
    const auto first = pp::first_exceeding_dense(pp::variant("alibi", c.name), o, 0, 4096);
    ASSERT_TRUE(first.has_value()) << c.name;
    std::cout << "[ degraded ] alibi f32 " << c.name << " first exceeds its budget at distance " << *first << "\n";
    EXPECT_EQ(*first, c.expected_first) << c.name;
  }
}

// T5: float evaluations of the bucket formula give the exact bucket, or its neighbour only
// where the oracle flags the offset ambiguous (PREC-T5-1).
RC_GTEST_PROP(PrecisionT5, FloatBucketIsExactOrTheFlaggedNeighbour, ()) {
  const std::int64_t nb = *rc::gen::element<std::int64_t>(8, 16, 32, 64, 128, 256);
  const std::int64_t md = *rc::gen::element<std::int64_t>(20, 128, 512, 1024, 4096);
  const bool bidir = *rc::gen::arbitrary<bool>();
  const std::int64_t ex_min = bidir ? nb / 4 : nb / 2;
  RC_PRE(md > ex_min);
  const std::int64_t rel = *pecheck::prop::position() * (*rc::gen::arbitrary<bool>() ? 1 : -1);
  const auto e = po::t5_bucket(rel, nb, md, bidir);
  for (const auto& v : pp::variants("t5")) {
    for (auto dt : {po::Format::F32, po::Format::F64}) {
      const std::int64_t got = pp::t5_variant(v, dt, rel, nb, md, bidir);
      RC_ASSERT(got == e.bucket || (e.ambiguous && got == e.alternative));
    }
  }
}

// Every offset of the shared vectors' ambiguous cases really is decided by rounding: a float
// implementation may give either bucket there, and the oracle says so.
TEST(PrecisionT5, ExactIntegerOffsetsAreFlaggedAmbiguous) {
  const auto b = po::t5_bucket(-16, 32, 128, true);  // 8 * ln(2)/ln(16) * ... = integer 2
  EXPECT_TRUE(b.on_integer);
  EXPECT_TRUE(b.ambiguous);
  EXPECT_EQ(b.alternative, b.bucket - 1);
}

// The float and double sinusoidal references (interleaved) within contract.
RC_GTEST_PROP(PrecisionSinusoidal, ReferencesWithinContract, ()) {
  ref::SinusoidalConfig c;
  c.d_model = *rc::gen::element<std::int64_t>(2, 8, 64, 96, 512);
  c.base = *pecheck::prop::base();
  const std::int64_t p = *pecheck::prop::position();
  const auto pf = ref::sinusoidal_encode<float>(c, p);
  const auto pd = ref::sinusoidal_encode<double>(c, p);
  for (std::int64_t lane = 0; lane < c.d_model; ++lane) {
    const auto ex = po::sinusoidal(p, c.d_model, c.base, lane);
    const auto th = po::rope_angle({p, 1.0, po::RopeFrequency::power(c.base, lane / 2, c.d_model)});
    const po::BudgetInputs in{1.0, std::fabs(th.angle.hi)};
    const auto l = static_cast<std::size_t>(lane);
    RC_ASSERT(po::budget("sinusoidal", "f32").units(std::fabs((pf[l] - ex.exact.hi) - ex.exact.lo), in) <= 1.0);
    RC_ASSERT(po::budget("sinusoidal", "f64").units(std::fabs((pd[l] - ex.exact.hi) - ex.exact.lo), in) <= 1.0);
  }
}

RC_GTEST_PROP(PrecisionSinusoidal, HonestVariantsWithinBudget, ()) {
  pp::SweepOptions o;
  o.scheme = "sinusoidal";
  o.dtype = *rc::gen::element(po::Format::F32, po::Format::BF16, po::Format::F16);
  const std::int64_t p = *pecheck::prop::position();
  for (const auto& v : pp::variants("sinusoidal")) {
    if (!v.degraded) RC_ASSERT(pp::measure(v, o, p).max_units <= 1.0);
  }
}

TEST(PrecisionSinusoidal, DegradedVariantsViolateTheF32Contract) {
  pp::SweepOptions o;
  o.scheme = "sinusoidal";
  const struct {
    const char* name;
    std::int64_t expected_first;
  } cases[] = {{"bf16_inv_freq", 1}, {"fp16_positions", 2049}};
  for (const auto& c : cases) {
    const auto first = pp::first_exceeding_dense(pp::variant("sinusoidal", c.name), o, 0, 4096);
    ASSERT_TRUE(first.has_value()) << c.name;
    std::cout << "[ degraded ] sinusoidal f32 " << c.name << " first exceeds its budget at position " << *first << "\n";
    EXPECT_EQ(*first, c.expected_first) << c.name;
  }
}
