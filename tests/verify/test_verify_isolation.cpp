// Isolation (spec/abi.md ABI-GEN-4..7): a kernel that crashes, aborts, hangs, writes out of
// bounds, leaves output unwritten or is nondeterministic becomes a counterexample with its
// (shrunk) input; the test process itself survives every one of them.
#include <csignal>

#include "verify_test_util.hpp"

using pecheck::report::CheckStatus;
using testk::Bug;

// Clause: ABI-GEN-7
TEST(VerifyIsolation, CrashIsACounterexampleShrunkToTheFirstCrashingShape) {
  const auto r = vt::run_with(Bug::CrashFrom3Tokens, vt::options({"rope.oracle"}));
  const auto& c = vt::check(r, "rope.oracle");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  const auto& cx = *c.counterexample;
  EXPECT_EQ(cx.kind, "crash");
  EXPECT_EQ(cx.clause, "ABI-GEN-7");
  ASSERT_TRUE(cx.signal.has_value());
  EXPECT_EQ(*cx.signal, SIGSEGV);
  EXPECT_EQ(vt::int_arg(cx, "n_tokens"), 3);  // the kernel crashes from 3 tokens on
  EXPECT_EQ(vt::int_arg(cx, "n_heads"), 1);
  EXPECT_EQ(vt::int_arg(cx, "head_dim"), 2);
  EXPECT_EQ(r.exit_status(), 1);
}

// Clause: ABI-GEN-7
TEST(VerifyIsolation, AbortIsACounterexample) {
  const auto r = vt::run_with(Bug::AbortFrom2Heads, vt::options({"rope.inplace"}));
  const auto& cx = *vt::check(r, "rope.inplace").counterexample;
  EXPECT_EQ(cx.kind, "crash");
  EXPECT_EQ(*cx.signal, SIGABRT);
  EXPECT_EQ(vt::int_arg(cx, "n_heads"), 2);
  EXPECT_EQ(vt::int_arg(cx, "n_tokens"), 0);
}

// Clause: ABI-GEN-7
TEST(VerifyIsolation, HangIsKilledAndReported) {
  const auto r = vt::run_with(Bug::HangFrom2Heads, vt::options({"rope.determinism"}));
  const auto& c = vt::check(r, "rope.determinism");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  EXPECT_EQ(c.counterexample->kind, "hang");
  EXPECT_EQ(c.counterexample->clause, "ABI-GEN-7");
  EXPECT_EQ(vt::int_arg(*c.counterexample, "n_heads"), 2);
  EXPECT_NE(c.counterexample->message.find("did not return"), std::string::npos);
}

// Clause: ABI-GEN-7
// Hang candidates are shrunk under a shorter probe limit; the reported case must hang under the
// configured 1 s limit: a kernel that takes 0.4 s for 2 heads and hangs from 3 shrinks to 3
// heads, not to 2 (which only the probe would have called a hang).
TEST(VerifyIsolation, ShrunkHangIsConfirmedUnderTheConfiguredLimit) {
  auto o = vt::options({"rope.determinism"});
  o.call_timeout_seconds = 1.0;  // the 0.4 s calls finish under it, not under the 0.25 s probe
  const auto r = vt::run_with(Bug::SlowThenHang, o);
  const auto& c = vt::check(r, "rope.determinism");
  ASSERT_EQ(c.status, CheckStatus::Fail) << c.reason;
  EXPECT_EQ(c.counterexample->kind, "hang");
  EXPECT_EQ(vt::int_arg(*c.counterexample, "n_heads"), 3);
  // The message gives the measured time of the confirming call: at least the 1 s limit.
  EXPECT_NE(c.counterexample->message.find("did not return within 1"), std::string::npos) << c.counterexample->message;
}

// Clause: ABI-GEN-4
TEST(VerifyIsolation, WriteAfterTheOutputHitsTheGuardZone) {
  const auto r = vt::run_with(Bug::WritePastEnd, vt::options({"rope.bounds"}));
  const auto& c = vt::check(r, "rope.bounds");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  EXPECT_EQ(c.counterexample->kind, "out-of-bounds");
  EXPECT_EQ(c.counterexample->clause, "ABI-GEN-4");
  EXPECT_EQ(vt::int_arg(*c.counterexample, "n_tokens"), 2);
  EXPECT_NE(c.counterexample->message.find("1 floats after the last element"), std::string::npos)
      << c.counterexample->message;
}

// Clause: ABI-GEN-4
TEST(VerifyIsolation, WriteIntoAnInputIsDetected) {
  const auto r = vt::run_with(Bug::WriteInput, vt::options({"rope.bounds"}));
  const auto& c = vt::check(r, "rope.bounds");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  EXPECT_EQ(c.counterexample->kind, "wrote-input");
  EXPECT_NE(c.counterexample->message.find("positions"), std::string::npos);
  EXPECT_EQ(vt::int_arg(*c.counterexample, "n_tokens"), 1);
}

// Clause: ABI-GEN-5
TEST(VerifyIsolation, UnwrittenOutputElementIsFoundThroughThePoison) {
  const auto r = vt::run_with(Bug::SkipLastElement, vt::options({"rope.written"}));
  const auto& c = vt::check(r, "rope.written");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  const auto& cx = *c.counterexample;
  EXPECT_EQ(cx.kind, "unwritten");
  EXPECT_EQ(cx.clause, "ABI-GEN-5");
  ASSERT_TRUE(cx.worst.has_value());
  const auto n = vt::int_arg(cx, "n_tokens") * vt::int_arg(cx, "n_heads") * vt::int_arg(cx, "head_dim");
  EXPECT_EQ(cx.worst->flat_index, n - 1);
  EXPECT_EQ(n, 2);  // shrunk to one token, one head, two lanes
}

// Clause: ABI-GEN-6
TEST(VerifyIsolation, NondeterminismIsCaught) {
  const auto r = vt::run_with(Bug::Nondeterministic, vt::options({"rope.determinism"}));
  const auto& c = vt::check(r, "rope.determinism");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  EXPECT_EQ(c.counterexample->kind, "nondeterministic");
  EXPECT_EQ(c.counterexample->clause, "ABI-GEN-6");
  EXPECT_EQ(c.counterexample->worst->flat_index, 0);
}

// Clause: ABI-GEN-2
TEST(VerifyIsolation, NonZeroReturnForAValidCallIsACounterexample) {
  const auto r = vt::run_with(Bug::ReturnsOne, vt::options({"rope.oracle"}));
  const auto& cx = *vt::check(r, "rope.oracle").counterexample;
  EXPECT_EQ(cx.kind, "nonzero-return");
  EXPECT_EQ(cx.clause, "ABI-GEN-2");
  EXPECT_EQ(*cx.return_code, 1);
  EXPECT_EQ(vt::int_arg(cx, "n_tokens"), 0);
}

TEST(VerifyIsolation, InProcessModeRunsTheSameChecks) {
  auto o = vt::options({"rope.oracle", "alibi.oracle"}, 0.2);
  o.isolate = false;
  const auto r = vt::run_with(Bug::None, o);
  EXPECT_TRUE(r.passed());
  EXPECT_GT(vt::check(r, "rope.oracle").cases, 0);
  EXPECT_GT(vt::check(r, "alibi.oracle").cases, 0);
}

TEST(VerifyIsolation, KernelOutputOnStdoutIsRedirectedToStderr) {
  // pecheck's stdout may carry a JSON document (--format json): a chatty kernel must not break it.
  testing::internal::CaptureStdout();
  const auto r = vt::run_with(Bug::PrintsToStdout, vt::options({"rope.oracle"}, 0.05));
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(out.find("kernel-noise"), std::string::npos);
}

// Clause: ABI-GEN-4
TEST(VerifyIsolation, WriteBeforeTheOutputHitsTheLeadingGuardZone) {
  const auto r = vt::run_with(Bug::WriteBeforeStart, vt::options({"t5.bounds"}));
  const auto& c = vt::check(r, "t5.bounds");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  EXPECT_EQ(c.counterexample->kind, "out-of-bounds");
  EXPECT_NE(c.counterexample->message.find("3 floats before the first element"), std::string::npos)
      << c.counterexample->message;
  EXPECT_EQ(vt::int_arg(*c.counterexample, "n_q"), 2);
  EXPECT_EQ(vt::int_arg(*c.counterexample, "n_k"), 1);
  EXPECT_EQ(vt::int_arg(*c.counterexample, "n_heads"), 1);
}
