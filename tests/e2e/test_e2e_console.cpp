// Issue 22's walk-through, end to end: the README's first kernel (pec_rope_qk_bf16) passes, and
// each of the bugs a new user plants fails with a console block that makes the cause obvious --
// the shrunk case's inputs, the failing element's indices, named enums and, where the cause is
// recognisable, the hint that names it (src/verify/checks/hints_qk.hpp, one matcher per test).
// Examples: examples/buggy/user_rope_qk_bf16.c (one library per bug), rope_attn_twice.cpp.
#include <string>

#include "e2e.hpp"

namespace pecheck::e2e {
namespace {

struct Console {
  int exit_code = -1;
  std::string out;
};

Console verify(const std::string& lib, std::vector<std::string> extra) {
  TempDir tmp;
  VerifyRun r = run_verify(example_lib(lib), tmp, std::move(extra));
  // Numbers that contradict themselves (issue 22, "Why" item 3) never appear, whatever failed.
  for (const char* bad : {"moved by nan", "nan ULP", "nan ulp", "inf x", "(0 ULP", "0 x budget", "inf ulp"}) {
    EXPECT_EQ(r.proc.out.find(bad), std::string::npos) << lib << ": '" << bad << "' in\n" << r.proc.out;
  }
  return {r.proc.exit_code, r.proc.out};
}

void expect_has(const Console& c, const std::string& s) { EXPECT_NE(c.out.find(s), std::string::npos) << s << "\n" << c.out; }

TEST(Console, ReadmeKernelPasses) {
  const Console c = verify("user_rope_ok", {"--seed", "0"});
  EXPECT_EQ(c.exit_code, 0) << c.out;
  expect_has(c, "verdict: pass");
  // A pass's worst element shows the exact expected value, not one already rounded to bf16:
  // the two differ wherever the error is not 0 (issue 22: "expected 133120 actual 133120").
  const auto p = c.out.find("worst: ");
  ASSERT_NE(p, std::string::npos) << c.out;
  const std::string w = c.out.substr(p, c.out.find('\n', p) - p);
  const auto e = w.find("expected "), a = w.find(" actual ");
  ASSERT_TRUE(e != std::string::npos && a != std::string::npos) << w;
  EXPECT_NE(w.substr(e + 9, a - e - 9), w.substr(a + 8)) << w;
}

TEST(Console, GptjPairingForNeoxIsNamed) {
  const Console c = verify("user_gptj", {"--only", "rope_qk.bf16.oracle"});
  EXPECT_EQ(c.exit_code, 1) << c.out;
  expect_has(c, "layout=neox");
  expect_has(c, "inputs: q=[");
  expect_has(c, "[token=0, head=0, lane=");
  expect_has(c, "hint: q_out and k_out equal the rotation with the GPT-J pairing");
  EXPECT_EQ(c.out.find("layout=0"), std::string::npos) << c.out;
}

TEST(Console, Bf16PositionsAreNamed) {
  const Console c = verify("user_bf16_pos", {"--only", "rope_qk.bf16.oracle"});
  EXPECT_EQ(c.exit_code, 1) << c.out;
  expect_has(c, "(the position rounded to bf16) instead of");
}

TEST(Console, AttentionFactorOnTheKeyOnlyIsNamed) {
  const Console c = verify("user_attn_key", {"--only", "rope_qk.bf16.oracle"});
  EXPECT_EQ(c.exit_code, 1) << c.out;
  // The shrunk case has zero key inputs: the hint says what the query shows and why k is silent.
  expect_has(c, "hint: attn_factor=");
  expect_has(c, "not applied to q (q_out is the unscaled rotation");
}

TEST(Console, AttentionFactorTwiceIsNamed) {
  const Console c = verify("rope_attn_twice", {"--only", "rope_qk.oracle"});
  EXPECT_EQ(c.exit_code, 1) << c.out;
  // The shrunk case has zero query inputs (the bug shows on the key alone), and the hint says so.
  expect_has(c, "hint: attn_factor=");
  expect_has(c, "applied twice to k (q's inputs are zero here)");
}

TEST(Console, NeverWrittenElementsAreNamedAsPecheckPoison) {
  const Console c = verify("user_last_token", {"--only", "rope_qk.bf16.oracle"});
  EXPECT_EQ(c.exit_code, 1) << c.out;
  expect_has(c, "still hold pecheck's poison NaN (0x7fa5)");
}

TEST(Console, NanReadFromAGapIsNamed) {
  // Every check of the function: a shift check of such a case must say "is NaN", not "moved by
  // nan under a shift of 0 positions" (checked by verify() for every run).
  const Console all = verify("user_head_stride", {"--only", "rope_qk.bf16"});
  EXPECT_EQ(all.exit_code, 1) << all.out;
  const Console c = verify("user_head_stride", {"--only", "rope_qk.bf16.oracle"});
  EXPECT_EQ(c.exit_code, 1) << c.out;
  expect_has(c, "is a NaN that no input holds: the kernel read outside the views' elements");
}

TEST(Console, KeyHeadsLoopedWithTheQueryCountFails) {
  const Console c = verify("user_kv_heads", {});
  EXPECT_EQ(c.exit_code, 1) << c.out;
  expect_has(c, "fail ");
}

// Issue 22, "Why" item 8: each subcommand's help opens with the question it answers, and
// `classify --kernel` says it is not a correctness check.
TEST(Console, EachSubcommandsHelpOpensWithItsQuestion) {
  const std::pair<const char*, const char*> subs[] = {{"verify", "Does my kernel compute what the model means"},
                                                      {"classify", "What is the attention score a function of"},
                                                      {"precision", "How far from the exact value"},
                                                      {"prove", "Do the spec's claims hold for every input"}};
  for (const auto& [sub, question] : subs) {
    const ProcessResult p = run_process({pecheck_bin(), sub, "--help"}, kRunTimeoutSeconds);
    EXPECT_EQ(p.exit_code, 0) << sub;
    std::string first = p.out.substr(0, p.out.find('\n'));
    EXPECT_TRUE(first.starts_with(question)) << sub << ": " << first;
  }
}

TEST(Console, ClassifyKernelSaysItIsNotACorrectnessCheck) {
  for (const char* lib : {"user_rope_ok", "user_gptj"}) {  // a correct and a wrong kernel: same row
    const ProcessResult p = run_process({pecheck_bin(), "classify", "--kernel", example_lib(lib)}, kRunTimeoutSeconds);
    EXPECT_EQ(p.exit_code, 0) << lib << p.out << p.err;
    EXPECT_NE(p.out.find("not whether they are right"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("pecheck verify --kernel"), std::string::npos) << p.out;
  }
}

}  // namespace
}  // namespace pecheck::e2e
