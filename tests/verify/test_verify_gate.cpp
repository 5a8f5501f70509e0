// Issue 20 (part B): a gate that rejects by default only for harm shown, and that sees what a
// single isolated call cannot show: reads past an input (guard pages), state kept between calls,
// nondeterministic failures (bounded shrinking).
#include <gtest/gtest.h>

#include <string>

#include "verify/verify.hpp"
#include "verify_test_util.hpp"

namespace {

using pecheck::report::CheckStatus;
using testk::Bug;

std::string plugin(const std::string& name) {
  return std::string(PECHECK_VERIFY_PLUGINS) + "/lib" + name + ".so";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

bool any_note(const pecheck::report::Counterexample& cx, const std::string& part) {
  for (const auto& n : cx.notes)
    if (has(n, part)) return true;
  return false;
}

// Every check that ran passed, and at least one ran.
void expect_all_pass(const pecheck::VerifyResult& r) {
  int ran = 0;
  for (const auto& c : r.checks) {
    if (c.status == CheckStatus::Skipped) continue;
    ++ran;
    EXPECT_EQ(c.status, CheckStatus::Pass) << c.name << ": " << (c.counterexample ? c.counterexample->message : c.reason);
  }
  EXPECT_GT(ran, 0);
}

// Clause: ABI-GEN-8 ABI-T5-1
// Finding 3: T5 kernels that take num_buckets and max_distance on trust but never index outside
// the table (HF's float32 log and the log ratio in double, both clamped into the table) pass by
// default; --strict still reports the accepted invalid calls.
TEST(VerifyGate, T5KernelsThatTrustTheBucketArgumentsPassByDefaultAndFailStrict) {
  for (const char* p : {"t5_hf_f32", "t5_log_double"}) {
    SCOPED_TRACE(p);
    expect_all_pass(pecheck::verify_library(plugin(p), vt::options({"t5"})));
    auto o = vt::options({"t5.reject.buckets"});
    o.strict = true;
    const auto s = pecheck::verify_library(plugin(p), o);
    const auto& c = vt::check(s, "t5.reject.buckets");
    ASSERT_EQ(c.status, CheckStatus::Fail);
    EXPECT_EQ(c.counterexample->kind, "accepted-invalid");
    EXPECT_TRUE(any_note(*c.counterexample, "tier B"));
  }
}

// Clause: ABI-GEN-8 ABI-GEN-4 ABI-T5-1
// ... while HF's formula without the lower clamp reads before the table on a non-empty invalid
// call: harm shown, a default failure whose witness keeps elements (never the empty call).
TEST(VerifyGate, T5KernelReadingBeforeTheTableFailsByDefaultOnANonEmptyCall) {
  const auto r = pecheck::verify_library(plugin("t5_no_lower_clamp"), vt::options({"t5.reject.buckets"}, 1.0));
  const auto& c = vt::check(r, "t5.reject.buckets");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  const auto& cx = *c.counterexample;
  EXPECT_GE(vt::int_arg(cx, "n_q"), 1);
  EXPECT_GE(vt::int_arg(cx, "n_k"), 1);
  EXPECT_TRUE(has(cx.message, "SIGSEGV")) << cx.message;
  // Near the table the fault is at its guard page and says so; a bucket far below it may fault
  // elsewhere (still a crash on an invalid call).
  if (cx.kind == "out-of-bounds-read") {
    EXPECT_TRUE(has(cx.message, "before its first element")) << cx.message;
  }
}

// Clause: ABI-GEN-8 ABI-VIEW-1
// Finding 3: a vLLM-style query+key kernel that trusts its strides passes by default (a view
// with any strides stays inside the buffer it spans); --strict fails it under ABI-VIEW-1 with
// the layouts the strides miss, never a false "overlap".
TEST(VerifyGate, QkKernelThatTrustsItsStridesPassesByDefaultAndFailsStrict) {
  expect_all_pass(pecheck::verify_library(plugin("rope_qk_trusts_strides"), vt::options({"rope_qk.bf16"})));
  auto o = vt::options({"rope_qk.bf16.reject.strides"});
  o.strict = true;
  const auto s = pecheck::verify_library(plugin("rope_qk_trusts_strides"), o);
  const auto& c = vt::check(s, "rope_qk.bf16.reject.strides");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  EXPECT_EQ(c.clause, "ABI-VIEW-1");
  EXPECT_EQ(c.counterexample->clause, "ABI-VIEW-1");
  EXPECT_TRUE(has(c.counterexample->message, "fit neither layout")) << c.counterexample->message;
}

// Clause: ABI-GEN-8 ABI-ROPE-1
// Tier A by harm: a kernel that rotates lanes past the head when rotary_dim > head_dim fails by
// default on a non-empty call; one that accepts the call and touches nothing passes by default
// and fails under --strict.
TEST(VerifyGate, RotaryRangeFailsByDefaultOnlyWhenTheKernelTouchesMemoryOutside) {
  const auto h = vt::run_with(Bug::TrustsRotaryRange, vt::options({"rope.reject.rotary-range"}));
  const auto& c = vt::check(h, "rope.reject.rotary-range");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  EXPECT_GE(vt::int_arg(*c.counterexample, "n_tokens"), 1);
  const auto quiet = vt::run_with(Bug::NoValidation, vt::options({"rope.reject.rotary-range"}));
  EXPECT_EQ(vt::check(quiet, "rope.reject.rotary-range").status, CheckStatus::Pass);
  auto o = vt::options({"rope.reject.rotary-range"});
  o.strict = true;
  const auto s = vt::run_with(Bug::NoValidation, o);
  EXPECT_EQ(vt::check(s, "rope.reject.rotary-range").status, CheckStatus::Fail);
}

// Clause: ABI-GEN-4
// Finding 4: a read one float past x (ggml's pass-through lanes copied in pairs at an odd
// head_dim - rotary_dim) faults at the guard page after x and is reported with its offset.
TEST(VerifyGate, ReadOneFloatPastTheInputFailsWithTheOffset) {
  const auto r = vt::run_with(Bug::OverReadPairCopy, vt::options({"rope.bounds"}, 1.0));
  const auto& c = vt::check(r, "rope.bounds");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  const auto& cx = *c.counterexample;
  EXPECT_EQ(cx.clause, "ABI-GEN-4");
  EXPECT_EQ(cx.kind, "out-of-bounds-read");
  EXPECT_TRUE(has(cx.message, "read x[")) << cx.message;
  EXPECT_TRUE(has(cx.message, "1 float after the last")) << cx.message;
  // The correct kernel never faults at a guard page.
  expect_all_pass(vt::run_with(Bug::None, vt::options({"rope.bounds", "rope.oracle", "t5.bounds", "learned"})));
}

// Clause: ABI-GEN-6
// Finding 13: a nondeterministic failure is shrunk with a fixed, small number of attempts and
// reported as nondeterministic.
TEST(VerifyGate, NondeterministicFailureIsShrunkBoundedlyAndSaysSo) {
  const auto r = vt::run_with(Bug::Nondeterministic, vt::options({"rope.determinism"}));
  const auto& c = vt::check(r, "rope.determinism");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  EXPECT_TRUE(any_note(*c.counterexample, "nondeterministic"));
  EXPECT_LE(c.counterexample->shrink_steps, 24);
}

// Clause: ABI-ALIBI-3 PREC-SOFTMAX-1
// Finding 5 (part): a softmax shift failure shows expected and actual values that differ (the
// row constant is kept in double, not rounded back onto the actual value).
TEST(VerifyGate, SoftmaxShiftFailureShowsDifferentExpectedAndActual) {
  auto o = vt::options({"alibi.shift"}, 1.0);
  o.contract = "softmax";
  o.max_position = 2147483647;
  const auto r = vt::run_with(Bug::AlibiKeyOnly, o);
  const auto& c = vt::check(r, "alibi.shift");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  ASSERT_TRUE(c.counterexample->worst.has_value());
  EXPECT_NE(c.counterexample->worst->expected, c.counterexample->worst->actual);
  EXPECT_GT(c.counterexample->worst->abs_error, 0);
}

}  // namespace
