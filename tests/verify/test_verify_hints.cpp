// The failure hints of the v1 RoPE, ALiBi and T5 checks (src/verify/v1/hints_rope.hpp,
// hints_bias.hpp; issue 22), matcher by matcher on hand-made outputs: each wrong assumption's
// exact output gets its hint, and an output that is wrong in some other way (a small error, a
// position no matcher names, a scaled value) gets none. The example kernels that show each bug
// are run end to end in tests/e2e/test_e2e_console.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "verify/v1/hints_bias.hpp"
#include "verify/v1/hints_rope.hpp"

namespace pecheck::verifier {
namespace {

bool any_has(const std::vector<std::string>& hs, const std::string& part) {
  for (const auto& h : hs)
    if (h.starts_with("hint: ") && h.find(part) != std::string::npos) return true;
  return false;
}

std::string joined(const std::vector<std::string>& hs) {
  std::string s;
  for (const auto& h : hs) s += h + "\n";
  return s.empty() ? "(no hint)" : s;
}

RunResult result_of(const std::vector<double>& v, Storage st = Storage::F32) {
  RunResult r;
  r.storage = st;
  for (double e : v) {
    const std::uint32_t b = to_storage(e, st);
    r.out_bits.push_back(b);
    r.out.push_back(static_cast<float>(e));
  }
  return r;
}

RopeCase rope_case(std::int32_t layout, std::int64_t D, std::int64_t R, std::int64_t p) {
  RopeCase c;
  c.n_tokens = 1, c.n_heads = 2, c.head_dim = D, c.rotary_dim = R, c.layout = layout;
  c.positions = {p};
  for (std::int64_t i = 0; i < c.n_heads * D; ++i) c.x.push_back(0.25f * static_cast<float>((i * 7) % 11) - 1.0f);
  return c;
}

std::vector<double> exact(const RopeCase& c, std::int32_t layout, std::int64_t R, std::int64_t p) {
  return hints::rope_token_exact(c, 0, layout, R, p);
}

TEST(RopeHints, OtherPairingIsNamed) {
  for (std::int32_t layout : {PEC_ROPE_NEOX, PEC_ROPE_GPTJ}) {
    const RopeCase c = rope_case(layout, 8, 8, 3);
    const auto hs = hints::rope_oracle_hints(c, result_of(exact(c, 1 - layout, 8, 3)), 0);
    EXPECT_TRUE(any_has(hs, layout == PEC_ROPE_NEOX ? "GPT-J pairing" : "NeoX pairing")) << joined(hs);
  }
}

TEST(RopeHints, PositionRoundedTo16BitsOrWrappedIsNamed) {
  const RopeCase c = rope_case(PEC_ROPE_NEOX, 4, 4, 4099);  // bf16: 4096, fp16: 4100
  auto hs = hints::rope_oracle_hints(c, result_of(exact(c, PEC_ROPE_NEOX, 4, 4096)), 0);
  EXPECT_TRUE(any_has(hs, "position 4096 instead of 4099 (4099 rounded to bf16)")) << joined(hs);
  hs = hints::rope_oracle_hints(c, result_of(exact(c, PEC_ROPE_NEOX, 4, 4100)), 0);
  EXPECT_TRUE(any_has(hs, "position 4100 instead of 4099 (4099 rounded to fp16 or 4099 + 1)")) << joined(hs);
  const RopeCase w = rope_case(PEC_ROPE_GPTJ, 4, 4, 40000);
  hs = hints::rope_oracle_hints(w, result_of(exact(w, PEC_ROPE_GPTJ, 4, 40000 - 65536)), 0);
  EXPECT_TRUE(any_has(hs, "(40000 wrapped to int16)")) << joined(hs);
  // fp16's infinity: every rotated lane NaN from 65520 on.
  const RopeCase o = rope_case(PEC_ROPE_GPTJ, 4, 4, 70000);
  hs = hints::rope_oracle_hints(o, result_of(std::vector<double>(8, NAN)), 0);
  EXPECT_TRUE(any_has(hs, "rounds to infinity in fp16")) << joined(hs);
}

TEST(RopeHints, OtherWrongOutputsGetNoHint) {
  const RopeCase c = rope_case(PEC_ROPE_NEOX, 8, 8, 4099);
  // A position no matcher names, an imprecise rotation (1e-3 relative), a scaled one.
  std::vector<double> near = exact(c, PEC_ROPE_NEOX, 8, 4099), scaled = near;
  for (auto& v : near) v *= 1 + 1e-3;
  for (auto& v : scaled) v *= 2;
  for (const auto& out : {exact(c, PEC_ROPE_NEOX, 8, 4000), near, scaled}) {
    const auto hs = hints::rope_oracle_hints(c, result_of(out), 0);
    EXPECT_TRUE(hs.empty()) << joined(hs);
  }
  // NaN below fp16's range is no fp16 overflow.
  const RopeCase s = rope_case(PEC_ROPE_GPTJ, 4, 4, 60000);
  const auto hs = hints::rope_oracle_hints(s, result_of(std::vector<double>(8, NAN)), 0);
  EXPECT_FALSE(any_has(hs, "fp16")) << joined(hs);
}

TEST(RopeHints, NeverWrittenElementsAreNamed) {
  const RopeCase c = rope_case(PEC_ROPE_NEOX, 4, 4, 5);
  RunResult r = result_of(exact(c, PEC_ROPE_NEOX, 4, 5));
  r.unwritten = 2, r.first_unwritten = 6;
  const auto hs = hints::rope_oracle_hints(c, r, 0);
  EXPECT_TRUE(any_has(hs, "2 element(s) of y (first: token 0, head 1, lane 2) still hold pecheck's poison")) << joined(hs);
}

TEST(RopeHints, PartialRotaryDroppedOrIgnoredIsNamed) {
  const RopeCase c = rope_case(PEC_ROPE_GPTJ, 8, 4, 9);
  std::vector<double> zeroed = exact(c, PEC_ROPE_GPTJ, 4, 9);
  for (std::int64_t h = 0; h < 2; ++h)
    for (std::int64_t l = 4; l < 8; ++l) zeroed[static_cast<std::size_t>(h * 8 + l)] = 0;
  auto hs = hints::rope_passthrough_hints(c, result_of(zeroed), 0);
  EXPECT_TRUE(any_has(hs, "is 0: the kernel zeroes the pass-through lanes")) << joined(hs);
  hs = hints::rope_passthrough_hints(c, result_of(exact(c, PEC_ROPE_GPTJ, 8, 9)), 0);
  EXPECT_TRUE(any_has(hs, "equal the rotation with rotary_dim=head_dim=8")) << joined(hs);
  // Negative: the tail doubled (neither zeroed nor rotated).
  std::vector<double> doubled = exact(c, PEC_ROPE_GPTJ, 4, 9);
  for (std::int64_t h = 0; h < 2; ++h)
    for (std::int64_t l = 4; l < 8; ++l) doubled[static_cast<std::size_t>(h * 8 + l)] *= 2;
  hs = hints::rope_passthrough_hints(c, result_of(doubled), 0);
  EXPECT_TRUE(hs.empty()) << joined(hs);
}

// ---- ALiBi ---------------------------------------------------------------------------------------

struct AlibiFixture {
  AlibiCase c;
  std::vector<double> ref;
  explicit AlibiFixture(std::int64_t heads, std::int32_t mode = PEC_ALIBI_SYMMETRIC) {
    c.n_heads = heads, c.n_q = 2, c.n_k = 3, c.mode = mode;
    c.q_pos = {5, 9}, c.k_pos = {1, 5, 8};
    for (std::int64_t i = 0; i < heads * 6; ++i) c.scores.push_back(0.5f * static_cast<float>(i % 3));
    ref = out([&](std::int64_t h, std::int64_t d) { return -slope(h) * static_cast<double>(d < 0 ? -d : d); });
  }
  double slope(std::int64_t h) const { return oracle::alibi_slope(c.n_heads, h).exact.hi; }
  template <class F>
  std::vector<double> out(F bias) const {
    std::vector<double> v;
    for (std::int64_t h = 0; h < c.n_heads; ++h)
      for (std::int64_t i = 0; i < c.n_q; ++i)
        for (std::int64_t j = 0; j < c.n_k; ++j) {
          const std::int64_t d = c.q_pos[static_cast<std::size_t>(i)] - c.k_pos[static_cast<std::size_t>(j)];
          const double s = c.scores[static_cast<std::size_t>((h * c.n_q + i) * c.n_k + j)];
          v.push_back(c.mode == PEC_ALIBI_CAUSAL && d < 0 ? -INFINITY : s + bias(h, d));
        }
    return v;
  }
  // The first element where `o` and ref differ (the failing element).
  std::int64_t first_diff(const std::vector<double>& o) const {
    for (std::size_t i = 0; i < o.size(); ++i)
      if (std::fabs(o[i] - ref[i]) > 1e-3) return static_cast<std::int64_t>(i);
    return -1;
  }
  std::vector<std::string> hints_of(const std::vector<double>& o) const {
    return hints::alibi_hints(c, result_of(o), ref, first_diff(o));
  }
};

TEST(AlibiHints, PowerOfTwoSlopesSignAndSignedDistanceAreNamed) {
  const AlibiFixture f(3);
  const auto dist = [](std::int64_t d) { return static_cast<double>(d < 0 ? -d : d); };
  auto hs = f.hints_of(f.out([&](std::int64_t h, std::int64_t d) { return -std::exp2(-8.0 * (h + 1) / 3) * dist(d); }));
  EXPECT_TRUE(any_has(hs, "power-of-two slope formula applied to n_heads=3")) << joined(hs);
  hs = f.hints_of(f.out([&](std::int64_t h, std::int64_t d) { return f.slope(h) * dist(d); }));
  EXPECT_TRUE(any_has(hs, "its sign is flipped")) << joined(hs);
  hs = f.hints_of(f.out([&](std::int64_t h, std::int64_t d) { return -f.slope(h) * static_cast<double>(d); }));
  EXPECT_TRUE(any_has(hs, "-slope (q - k) without the absolute value")) << joined(hs);
  hs = f.hints_of(f.out([&](std::int64_t h, std::int64_t d) { return f.slope(h) * static_cast<double>(d); }));
  EXPECT_TRUE(any_has(hs, "-slope (k - q) without the absolute value")) << joined(hs);
}

TEST(AlibiHints, OtherWrongBiasesGetNoHint) {
  for (std::int64_t heads : {3, 4}) {
    const AlibiFixture f(heads);
    const auto dist = [](std::int64_t d) { return static_cast<double>(d < 0 ? -d : d); };
    // A slope 1 % off, and a distance one too large.
    auto hs = f.hints_of(f.out([&](std::int64_t h, std::int64_t d) { return -1.01 * f.slope(h) * dist(d); }));
    EXPECT_TRUE(hs.empty()) << joined(hs);
    hs = f.hints_of(f.out([&](std::int64_t h, std::int64_t d) { return -f.slope(h) * (dist(d) + 1); }));
    EXPECT_TRUE(hs.empty()) << joined(hs);
  }
  // Causal: the mask missing is no sign or slope bug.
  AlibiFixture f(3, PEC_ALIBI_CAUSAL);
  std::vector<double> o = f.ref;
  for (auto& v : o)
    if (std::isinf(v)) v = 0;
  const auto hs = hints::alibi_hints(f.c, result_of(o), f.ref, 1);
  EXPECT_TRUE(hs.empty()) << joined(hs);
}

// ---- T5 ------------------------------------------------------------------------------------------

T5Case t5_case(std::int32_t bidirectional) {
  T5Case c;
  c.n_heads = 2, c.n_q = 2, c.num_buckets = 32, c.max_distance = 128, c.bidirectional = bidirectional;
  c.q_pos = {40, 300};
  for (std::int64_t k = 0; k < 400; k += 3) c.k_pos.push_back(k);
  c.n_k = static_cast<std::int64_t>(c.k_pos.size());
  for (std::int64_t i = 0; i < c.num_buckets * c.n_heads; ++i) c.table.push_back(static_cast<float>(i) + 0.5f);
  return c;
}

template <class B>
RunResult t5_out(const T5Case& c, B bucket_of) {
  std::vector<double> v(static_cast<std::size_t>(c.n_heads * c.n_q * c.n_k));
  for (std::int64_t h = 0; h < c.n_heads; ++h)
    for (std::int64_t i = 0; i < c.n_q; ++i)
      for (std::int64_t j = 0; j < c.n_k; ++j)
        v[static_cast<std::size_t>((h * c.n_q + i) * c.n_k + j)] =
            c.table[static_cast<std::size_t>(bucket_of(c.k_pos[static_cast<std::size_t>(j)] - c.q_pos[static_cast<std::size_t>(i)]) * c.n_heads + h)];
  return result_of(v);
}

TEST(T5Hints, NegatedRelativePositionBidirectionalFlagAndMaxDistanceAreNamed) {
  for (std::int32_t bi : {0, 1}) {
    const T5Case c = t5_case(bi);
    const auto bucket = [&](std::int64_t rel, std::int64_t md, bool b) { return oracle::t5_bucket(rel, 32, md, b).bucket; };
    auto hs = hints::t5_hints(c, t5_out(c, [&](std::int64_t rel) { return bucket(-rel, 128, bi != 0); }));
    EXPECT_TRUE(any_has(hs, "the relative position is negated")) << joined(hs);
    hs = hints::t5_hints(c, t5_out(c, [&](std::int64_t rel) { return bucket(rel, 128, bi == 0); }));
    EXPECT_TRUE(any_has(hs, "bidirectional flag is inverted or ignored")) << joined(hs);
    for (std::int64_t md : {127, 129}) {
      hs = hints::t5_hints(c, t5_out(c, [&](std::int64_t rel) { return bucket(rel, md, bi != 0); }));
      EXPECT_TRUE(any_has(hs, "max_distance=" + std::to_string(md) + " instead of 128")) << joined(hs);
    }
    // Negative: one bucket too high past the exact range (no matcher's assumption).
    hs = hints::t5_hints(c, t5_out(c, [&](std::int64_t rel) {
                           const std::int64_t b = bucket(rel, 128, bi != 0);
                           return b == 20 ? 21 : b;
                         }));
    EXPECT_TRUE(hs.empty()) << joined(hs);
  }
}

}  // namespace
}  // namespace pecheck::verifier
