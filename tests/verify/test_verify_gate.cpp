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

// Clause: ABI-GEN-6
// Finding 14 (transformers #25306): a kernel that keeps its frequencies across calls, keyed on
// the longest position seen but not on theta_base, is right on every isolated call; the
// .stateless check's sequence (the call, a longer call with another base, another call, the
// call again) in one worker shows it, and the counterexample names the sequence. The correct
// kernel passes the same sequence.
TEST(VerifyGate, StateKeptBetweenCallsFailsTheStatelessCheckWithItsCallSequence) {
  const auto r = vt::run_with(Bug::BaseCacheKept, vt::options({"rope.stateless", "rope.oracle"}, 1.0));
  // The oracle's cases run one after another in a worker, so the kept state shows there too; the
  // failing call, made again first in a fresh worker, passes: the failure is reported as
  // history-dependent (ABI-GEN-6), not as a wrong formula of the kernel.
  const auto& o = vt::check(r, "rope.oracle");
  ASSERT_EQ(o.status, CheckStatus::Fail);
  EXPECT_EQ(o.counterexample->clause, "ABI-GEN-6");
  EXPECT_EQ(o.counterexample->kind, "stateful");
  EXPECT_TRUE(has(o.counterexample->message, "made first in a fresh worker process passes")) << o.counterexample->message;
  EXPECT_TRUE(any_note(*o.counterexample, "as first judged: ABI-ROPE-2"));
  const auto& c = vt::check(r, "rope.stateless");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  const auto& cx = *c.counterexample;
  EXPECT_EQ(cx.clause, "ABI-GEN-6");
  EXPECT_EQ(cx.kind, "stateful");
  EXPECT_TRUE(any_note(cx, "call sequence in one worker process")) << cx.message;
  EXPECT_GE(vt::int_arg(cx, "rotary_dim"), 4);  // pair 0's frequency does not depend on the base
  expect_all_pass(vt::run_with(Bug::None, vt::options({"rope.stateless"}, 1.0)));
}

// Clause: ABI-ROPE-2
// Finding 12 (vllm#51049): a kernel whose multi-head path, taken from 10,240 token-heads on,
// rotates heads 1..3 of every group of four from the group's first head passes every check of
// ordinary size and fails rope.large, whose witness stays above the gate (shrinking stops where
// the failure does); the correct kernel passes rope.large.
TEST(VerifyGate, SizeGatedPathFailsTheProductionSizeCheck) {
  const auto r = vt::run_with(Bug::SizeGatedHeads, vt::options({"rope.large", "rope.oracle"}, 1.0));
  EXPECT_EQ(vt::check(r, "rope.oracle").status, CheckStatus::Pass);
  const auto& c = vt::check(r, "rope.large");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  const auto& cx = *c.counterexample;
  EXPECT_EQ(cx.clause, "ABI-ROPE-2");
  EXPECT_GE(vt::int_arg(cx, "n_tokens") * vt::int_arg(cx, "n_heads"), 10240);
  ASSERT_TRUE(cx.worst.has_value());
  EXPECT_GE(cx.worst->index.at(1) % 4, 1) << "the wrong heads are 1..3 of a group of four";
  expect_all_pass(vt::run_with(Bug::None, vt::options({"rope.large"}, 1.0)));
}

// Clause: ABI-ALIBI-2 ABI-T5-2 ABI-LEARN-2
// Finding 12, the other families: every function has a .large check. An ALiBi kernel whose
// "tiled" path (from 32,768 elements) gives head h the slope of head h % 8 passes alibi.oracle
// and fails alibi.large on a many-head case; the correct kernels pass every .large check.
TEST(VerifyGate, EveryFamilyHasAProductionSizeCheck) {
  const auto r = vt::run_with(Bug::AlibiTiledSlopes, vt::options({"alibi.large", "alibi.oracle"}, 1.0));
  EXPECT_EQ(vt::check(r, "alibi.oracle").status, CheckStatus::Pass);
  const auto& c = vt::check(r, "alibi.large");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  const auto& cx = *c.counterexample;
  EXPECT_EQ(cx.clause, "ABI-ALIBI-2");
  EXPECT_GE(vt::int_arg(cx, "n_heads") * vt::int_arg(cx, "n_q") * vt::int_arg(cx, "n_k"), 32768);
  EXPECT_GT(vt::int_arg(cx, "n_heads"), 8);
  ASSERT_TRUE(cx.worst.has_value());
  EXPECT_GE(cx.worst->index.at(0), 8) << "heads 0..7 keep their slopes";
  const auto ok = vt::run_with(Bug::None, vt::options({".large"}, 1.0));
  expect_all_pass(ok);
  for (const char* name : {"rope.large", "alibi.large", "t5.large", "learned.large"}) {
    const auto& l = vt::check(ok, name);
    EXPECT_EQ(l.cases, 2) << name;
    EXPECT_GE(l.elements, 2 * 32768) << name;  // two production-size calls, judged in full
  }
}

}  // namespace

