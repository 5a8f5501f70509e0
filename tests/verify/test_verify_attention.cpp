// The attention family's pure parts (src/verify/attention/): the oracle against closed forms
// (ABI-ATTN-2, PREC-ATTN-6), the convention facts the oracle must encode (window inclusivity,
// key-only ALiBi = symmetric + a constant per row on the causal region, empty rows), the
// generators (every valid case valid, every invalid case breaking the rule it was built for,
// with its tier), and the declared-domain rules (ABI-DOM-4).
#include <gtest/gtest.h>

#include <cmath>

#include "verify/attention/cases.hpp"
#include "verify/attention/oracle.hpp"

namespace pecheck::verifier {
namespace {

AttnCase one_row(std::int64_t n_keys) {
  AttnCase c;
  c.q_len = {1}, c.k_len = {n_keys};
  c.q_pos = {n_keys - 1};
  for (std::int64_t j = 0; j < n_keys; ++j) c.k_pos.push_back(j);
  c.head_dim = 2, c.head_dim_v = 2, c.scale = 1.0;
  c.q = {1.0f, 0.5f};
  c.k.assign(static_cast<std::size_t>(2 * n_keys), 0.0f);
  c.v.clear();
  for (std::int64_t j = 0; j < n_keys; ++j) c.v.push_back(static_cast<float>(j)), c.v.push_back(1.0f);
  c.slopes = {0.5f};
  return c;
}

TEST(AttentionOracle, OneKeyGivesItsValueAndItsScore) {  // ABI-ATTN-2, PREC-ATTN-2
  AttnCase c = one_row(1);
  c.k = {2.0f, -1.0f};  // score 1*2 + 0.5*-1 = 1.5
  c.v = {3.0f, -7.0f};
  const AttnExact e = attention_exact(c, 0, AttnClass::Eager);
  EXPECT_EQ(e.out[0], 3.0);
  EXPECT_EQ(e.out[1], -7.0);
  EXPECT_NEAR(e.lse[0], 1.5, 1e-15);
  EXPECT_GT(e.out_bound[0], 0.0);
  EXPECT_LT(e.out_bound[0], 1e-5);
}

TEST(AttentionOracle, EqualScoresAverageTheValues) {  // PREC-ATTN-3, PREC-ATTN-5
  const AttnExact e = attention_exact(one_row(4), 0, AttnClass::Online);  // k = 0: every score 0
  EXPECT_NEAR(e.out[0], (0 + 1 + 2 + 3) / 4.0, 1e-15);
  EXPECT_NEAR(e.out[1], 1.0, 1e-15);
  EXPECT_NEAR(e.lse[0], std::log(4.0), 1e-15);
}

TEST(AttentionOracle, WindowIsInclusiveOfWindowLeft) {  // ABI-ATTN-3: window_left + 1 keys
  AttnCase c = one_row(4);  // query at 3, keys 0..3
  c.window_left = 1;        // keys 2 and 3 visible
  const AttnExact e = attention_exact(c, 0, AttnClass::Eager);
  EXPECT_NEAR(e.out[0], 2.5, 1e-15);
  EXPECT_TRUE(attn_visible(c, 3, 2));
  EXPECT_FALSE(attn_visible(c, 3, 1));
}

TEST(AttentionOracle, EmptyRowIsZeroWithMinusInfinityLse) {  // PREC-ATTN-5
  AttnCase c = one_row(2);
  c.q_pos = {5}, c.k_pos = {7, 8};
  c.causal = 1;
  const AttnExact e = attention_exact(c, 0, AttnClass::Eager);
  EXPECT_TRUE(e.empty[0]);
  EXPECT_EQ(e.out[0], 0.0);
  EXPECT_TRUE(std::isinf(e.lse[0]) && e.lse[0] < 0);
}

TEST(AttentionOracle, KeyOnlyAlibiEqualsSymmetricOnTheCausalRegion) {  // ABI-ATTN-3, PREC-ATTN-1
  AttnCase c = one_row(6);
  c.encoding = PEC_ATTN_ALIBI;
  c.causal = 1;
  c.q_pos = {40}, c.k_pos = {3, 10, 20, 33, 39, 40};
  c.alibi_form = PEC_ATTN_ALIBI_SYMMETRIC;
  const AttnExact sym = attention_exact(c, 0, AttnClass::Eager);
  c.alibi_form = PEC_ATTN_ALIBI_KEY_ONLY;
  const AttnExact key = attention_exact(c, 0, AttnClass::Eager);
  c.alibi_form = PEC_ATTN_ALIBI_SIGNED;
  const AttnExact sgn = attention_exact(c, 0, AttnClass::Eager);
  for (std::size_t i = 0; i < sym.out.size(); ++i) {
    EXPECT_NEAR(sym.out[i], key.out[i], 1e-14);
    EXPECT_NEAR(sym.out[i], sgn.out[i], 1e-14);
  }
  EXPECT_NEAR(key.lse[0] - sym.lse[0], 0.5 * 40, 1e-9);  // the per-row constant slope * q_pos
  EXPECT_GT(key.out_bound[0], sym.out_bound[0]);          // the key-only form is charged its magnitude
}

TEST(AttentionOracle, ShiftLeavesTheExactOutputUnchanged) {  // ABI-ATTN-4, PREC-ATTN-7, PREC-ATTN-6
  Rng r(7);
  for (int i = 0; i < 30; ++i) {
    AttnCase c = gen_attention(r, GenParams{1 << 20, Storage::F32});
    const AttnExact a = attention_exact(c, 0, AttnClass::Online), b = attention_exact(c, 1000, AttnClass::Online);
    for (std::size_t k = 0; k < a.out.size(); ++k)
      ASSERT_NEAR(a.out[k], b.out[k], 1e-9 * (1 + a.weight_sum[k])) << "case " << i << " encoding " << c.encoding;
  }
}

// PREC-ATTN-4: the 16-bit class is wider than online (P rounded), online wider than eager
// (running max, rescaling); each stays a small multiple of the row's yardstick.
TEST(AttentionOracle, ClassesNest) {
  Rng r(19);
  for (int i = 0; i < 20; ++i) {
    AttnCase c = gen_attention(r, GenParams{1 << 16, Storage::BF16});
    c.storage = Storage::BF16;
    fit_storage(c);
    const AttnExact e = attention_exact(c, 0, AttnClass::Eager), o = attention_exact(c, 0, AttnClass::Online),
                    p = attention_exact(c, 0, AttnClass::P16);
    for (std::size_t k = 0; k < e.out.size(); ++k) {
      if (e.empty[k / static_cast<std::size_t>(c.head_dim_v)]) continue;
      ASSERT_LE(e.out_bound[k], o.out_bound[k]);
      ASSERT_LT(o.out_bound[k], p.out_bound[k]);
      ASSERT_GE(p.out_bound[k], 0x1p-8 * e.weight_sum[k]);  // at least u_s of the yardstick
    }
  }
}

TEST(AttentionGen, ValidCasesAreValidAndInvalidOnesBreakTheirRule) {  // ABI-ATTN-1, ABI-GEN-8
  Rng r(11);
  for (int i = 0; i < 200; ++i) {
    const AttnCase c = gen_attention(r, GenParams{(std::int64_t{1} << 31) - 1, Storage::F32});
    ASSERT_EQ(invalid_reason(c), "") << i;
    ASSERT_EQ(c.q.size(), static_cast<std::size_t>(c.total_q() * c.n_q_heads * c.head_dim));
    ASSERT_EQ(c.v.size(), static_cast<std::size_t>(c.total_k() * c.n_kv_heads * c.head_dim_v));
  }
  for (const auto& req : reject_requirements_attention()) {
    for (int b : req.branches) {
      for (int i = 0; i < 10; ++i) {
        const AttnCase c = gen_attention_invalid(r, GenParams{}, b);
        EXPECT_EQ(invalid_requirement(c), req.id) << "branch " << b << ": " << invalid_reason(c);
      }
    }
    const bool tier_a = req.id == "heads" || req.id == "lengths" || req.id == "rotary-range" || req.id == "buckets";
    EXPECT_EQ(req.safety, tier_a) << req.id;
  }
}

TEST(AttentionGen, HeadsIncludeNonPowersOfTwoAndDecodeHasManyKeys) {
  Rng r(3);
  bool odd = false, decode = false, q_longer = false;
  for (int i = 0; i < 300; ++i) {
    const AttnCase c = gen_attention(r, GenParams{});
    odd |= (c.n_q_heads & (c.n_q_heads - 1)) != 0;
    for (std::size_t s = 0; s < c.q_len.size(); ++s) {
      decode |= c.q_len[s] == 1 && c.k_len[s] >= 100;
      q_longer |= c.q_len[s] > c.k_len[s];
    }
  }
  EXPECT_TRUE(odd);
  EXPECT_TRUE(decode);
  EXPECT_TRUE(q_longer);
}

TEST(AttentionDomain, AlignmentsGivePositionsFromLengths) {  // ABI-DOM-4
  const Domain d = parse_domain("attention.positions=bottom-right");
  EXPECT_EQ(d.attn_alignment, 1);
  Rng r(5);
  for (int i = 0; i < 50; ++i) {
    AttnCase c = gen_attention(r, GenParams{});
    constrain(d, c, r);
    EXPECT_TRUE(inside(d, c));
    std::size_t q0 = 0, k0 = 0;
    for (std::size_t s = 0; s < c.q_len.size(); ++s) {
      ASSERT_LE(c.q_len[s], c.k_len[s]);
      for (std::int64_t j = 0; j < c.k_len[s]; ++j) EXPECT_EQ(c.k_pos[k0 + static_cast<std::size_t>(j)], j);
      for (std::int64_t t = 0; t < c.q_len[s]; ++t)
        EXPECT_EQ(c.q_pos[q0 + static_cast<std::size_t>(t)], c.k_len[s] - c.q_len[s] + t);
      q0 += static_cast<std::size_t>(c.q_len[s]), k0 += static_cast<std::size_t>(c.k_len[s]);
    }
  }
  EXPECT_THROW(parse_domain("attention.positions=middle"), std::exception);
  EXPECT_THROW(parse_domain("attention.colour=red"), std::exception);
}

}  // namespace
}  // namespace pecheck::verifier
