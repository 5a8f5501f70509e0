// Issue 22's walk-through, end to end: the README's first kernel (pec_rope_qk_bf16) passes, and
// each of the bugs a new user plants fails with a console block that makes the cause obvious --
// the shrunk case's inputs, the failing element's indices, named enums and, where the cause is
// recognisable, the hint that names it (src/verify/rope_v2/hints_qk.hpp, one matcher per test).
// Examples: examples/buggy/user_rope_qk_bf16.c (one library per bug), rope_attn_twice.cpp.
#include <ostream>
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

// The hints of the v1 RoPE, ALiBi and T5 oracle failures (src/verify/v1/hints_rope.hpp,
// hints_bias.hpp): each buggy example's console block names its bug; a kernel failing for another
// reason gets no hint of that family. --no-regressions: the random search and the shrinker find
// the case (the shipped vectors are replayed separately below).
struct HintCase {
  const char* lib;
  const char* only;
  const char* hint;  // nullptr: no hint line at all
};

// Names the parameter in test listings (instead of its bytes).
void PrintTo(const HintCase& h, std::ostream* os) { *os << h.lib; }

class ConsoleHints : public ::testing::TestWithParam<HintCase> {};

TEST_P(ConsoleHints, FailureBlockNamesItsCauseOrNone) {
  const HintCase& h = GetParam();
  const Console c = verify(h.lib, {"--no-regressions", "--only", h.only});
  EXPECT_EQ(c.exit_code, 1) << c.out;
  if (h.hint) {  // on a hint line
    bool found = false;
    for (std::size_t b = 0, e; b < c.out.size(); b = e + 1) {
      e = c.out.find('\n', b);
      if (e == std::string::npos) e = c.out.size();
      const std::string line = c.out.substr(b, e - b);
      found = found || (line.find("hint: ") != std::string::npos && line.find(h.hint) != std::string::npos);
    }
    EXPECT_TRUE(found) << h.hint << "\n" << c.out;
  } else {
    EXPECT_EQ(c.out.find("hint: "), std::string::npos) << c.out;
  }
}

const HintCase kHintCases[] = {
    {"rope_layout_swap", "rope.oracle", "y equals the rotation with the NeoX pairing (lanes i, i + rotary_dim/2); the call asks for GPT-J"},
    {"rope_bf16_angle", "rope.oracle", "token 0's output equals the rotation at position 256 instead of 257 (257 rounded to bf16"},
    {"rope_fp16_angle", "rope.oracle", "token 0's output equals the rotation at position 2048 instead of 2049 (2049 rounded to bf16, 2049 rounded to fp16"},
    {"cat_int16_pos", "rope.oracle", "token 0's output equals the rotation at position -32768 instead of 32768 (32768 wrapped to int16)"},
    {"cat_pos_plus_one", "rope.oracle", "token 0's output equals the rotation at position 1 instead of 0 (0 + 1)"},
    {"rope_partial_drop", "rope.passthrough", "every lane past rotary_dim="},
    {"alibi_pow2_slopes", "alibi.oracle", "the bias equals -2^(-8(h+1)/n_heads) |q - k| for every head"},
    {"t5_sign", "t5.oracle", "every element is the table entry of the bucket of q_pos - k_pos: the relative position is negated"},
    {"rope_cache_token_index", "rope_cached.bf16.oracle", "the kernel indexes the cache by the token, not by its position"},
    {"rope_cache_bf16_cos", "rope_cached.oracle", "the outputs equal the rotation with the cache's cos/sin rounded to bf16 first"},
    // Negatives: wrong for another reason (a wrong frequency exponent, NaN where the causal mask
    // belongs, the table rounded to fp16, a pass-through copied from the wrong lane, strided views
// read as dense).
    {"cat_wrong_exponent", "rope.oracle", nullptr},
    {"alibi_nan_mask", "alibi.oracle", nullptr},
    {"t5_fp16_scale", "t5.oracle", nullptr},
    {"rope_pair_copy", "rope.passthrough", nullptr},
    {"rope_stride_ignored", "rope_cached.bf16.oracle", nullptr},  // views read as dense
};
INSTANTIATE_TEST_SUITE_P(Examples, ConsoleHints, ::testing::ValuesIn(kHintCases),
                         [](const ::testing::TestParamInfo<HintCase>& i) { return std::string(i.param.lib); });

// The shipped vector of rope_fp16_angle (position 65520, fp16's infinity) is named as such.
TEST(ConsoleHintsShipped, Fp16OverflowIsNamed) {
  const Console c = verify("rope_fp16_angle", {"--only", "rope.oracle"});
  EXPECT_EQ(c.exit_code, 1) << c.out;
  expect_has(c, "which rounds to infinity in fp16 (from 65520 on): the kernel forms the angle from an fp16 position");
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
