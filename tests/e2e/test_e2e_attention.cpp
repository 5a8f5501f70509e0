// The attention examples end to end (examples/field/attention_kernel.cpp, docs/attention.md):
//   - the field-style kernels pass `pecheck verify` with default options (exit 0), each under its
//     own declared domain (ABI-DOM-4); the SDPA-style top-left kernel fails ABI-ATTN-2 when run
//     as bottom-right;
//   - vLLM PR #945's "+1" ALiBi distance passes shift and every output value by design (a constant
//     per row); only its logsumexp moves;
//   - each buggy kernel exits 1 with its check failing its clause, shrunk to a witness of at most
//     two query and two key tokens;
//   - libpecheck_simd.so passes `verify --strict` on pec_attention_f32 and _bf16, the shift check
//     included (key-only ALiBi among its cases).
#include <algorithm>

#include "e2e.hpp"

namespace pecheck::e2e {
namespace {

using ojson = nlohmann::ordered_json;

const ojson* check_named(const ojson& report, const std::string& name) {
  for (const auto& c : report.at("checks"))
    if (c.at("name") == name) return &c;
  return nullptr;
}

std::string summary(const ojson& report) {
  std::string s;
  for (const auto& c : report.at("checks")) {
    if (c.at("status") == "pass" || c.at("status") == "skipped") continue;
    s += c.at("name").get<std::string>() + "=" + c.at("status").get<std::string>();
    if (c.contains("counterexample")) s += " (" + c.at("counterexample").at("message").get<std::string>() + ")";
    s += "\n";
  }
  return s;
}

struct Field {
  const char* lib;
  std::vector<std::string> extra;
};
void PrintTo(const Field& f, std::ostream* os) { *os << f.lib; }

class AttentionField : public ::testing::TestWithParam<Field> {};

// Clause: ABI-ATTN-2 ABI-ATTN-3 ABI-ATTN-5 ABI-ATTN-6 ABI-DOM-4 — the field-style kernels pass.
TEST_P(AttentionField, PassesWithDefaultOptions) {
  TempDir tmp;
  const Field& f = GetParam();
  const VerifyRun r = run_verify(example_lib(f.lib), tmp, f.extra);
  ASSERT_FALSE(r.report.is_null()) << r.proc.err;
  EXPECT_EQ(r.proc.exit_code, 0) << summary(r.report) << r.proc.err;
  const ojson* o = check_named(r.report, "attention.oracle");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->at("status"), "pass");
  EXPECT_GT(o->at("cases").get<int>(), 0);
  for (const char* name : {"attention.mask", "attention.bounds", "attention.written", "attention.reject.heads",
                           "attention.reject.lengths"}) {
    const ojson* c = check_named(r.report, name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_EQ(c->at("status"), "pass") << name;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, AttentionField,
                         ::testing::Values(Field{"attn_fa2", {}}, Field{"attn_sdpa", {}}, Field{"attn_decode_rope", {}},
                                         Field{"attn_t5", {}}),
                         [](const auto& i) { return std::string(i.param.lib); });

// Clause: ABI-DOM-4 ABI-ATTN-2 — the SDPA-style kernel declared top-left, run as bottom-right.
TEST(AttentionField, TopLeftKernelFailsWhenRunAsBottomRight) {
  TempDir tmp;
  const VerifyRun r = run_verify(example_lib("attn_sdpa"), tmp, {"--domain", "attention.positions=bottom-right"});
  ASSERT_FALSE(r.report.is_null()) << r.proc.err;
  EXPECT_EQ(r.proc.exit_code, 1) << summary(r.report);
  const ojson* o = check_named(r.report, "attention.oracle");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->at("status"), "fail");
  EXPECT_EQ(o->at("counterexample").at("clause"), "ABI-ATTN-2");
  // Under a declared alignment the relative shift is not representable: skipped with a reason.
  const ojson* s = check_named(r.report, "attention.shift");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->at("status"), "skipped");
}

// Clause: ABI-ATTN-4 ABI-ATTN-2 — vLLM PR #945's "+1" in the ALiBi distance adds a constant per
// row: every output value passes (oracle values, shift, mask, decode: the exact softmax is the same);
// only the logsumexp, which the constant moves, fails ABI-ATTN-2.
TEST(AttentionField, AlibiPlusOnePassesShiftByDesign) {
  TempDir tmp;
  const VerifyRun r = run_verify(example_lib("attn_alibi_plus_one"), tmp);
  ASSERT_FALSE(r.report.is_null()) << r.proc.err;
  for (const char* name : {"attention.shift", "attention.mask", "attention.decode", "attention.alibi_decay"}) {
    const ojson* c = check_named(r.report, name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_EQ(c->at("status"), "pass") << name << "\n" << summary(r.report);
  }
  const ojson* o = check_named(r.report, "attention.oracle");
  ASSERT_NE(o, nullptr);
  ASSERT_EQ(o->at("status"), "fail");
  EXPECT_TRUE(o->at("counterexample").at("message").get<std::string>().starts_with("pec_attention_f32: lse("))
      << o->at("counterexample").at("message");
  EXPECT_EQ(r.proc.exit_code, 1);
}

struct Buggy {
  const char* lib;
  const char* check;
  const char* clause;
};
void PrintTo(const Buggy& b, std::ostream* os) { *os << b.lib; }

class AttentionBuggy : public ::testing::TestWithParam<Buggy> {};

// Clause: ABI-ATTN-2 ABI-ATTN-4 ABI-ATTN-5 ABI-ATTN-7 — one field bug each, a small witness.
TEST_P(AttentionBuggy, FailsItsClauseWithASmallWitness) {
  TempDir tmp;
  const Buggy& b = GetParam();
  const VerifyRun r = run_verify(example_lib(b.lib), tmp);
  ASSERT_FALSE(r.report.is_null()) << r.proc.err;
  EXPECT_EQ(r.proc.exit_code, 1) << summary(r.report);
  const ojson* c = check_named(r.report, b.check);
  ASSERT_NE(c, nullptr) << b.check;
  ASSERT_EQ(c->at("status"), "fail") << summary(r.report);
  const ojson& cx = c->at("counterexample");
  EXPECT_EQ(cx.at("clause"), b.clause) << cx.at("message");
  const auto& args = cx.at("args");
  EXPECT_LE(args.at("q_pos").size(), 2u) << cx.dump();
  EXPECT_LE(args.at("k_pos").size(), 2u) << cx.dump();
}

INSTANTIATE_TEST_SUITE_P(
    Examples, AttentionBuggy,
    ::testing::Values(Buggy{"attn_alibi_q_index", "attention.oracle", "ABI-ATTN-2"},
                    Buggy{"attn_topleft_cache", "attention.oracle", "ABI-ATTN-2"},
                    Buggy{"attn_alibi_sign", "attention.alibi_decay", "ABI-ATTN-7"},
                    Buggy{"attn_rope_q_offset", "attention.oracle", "ABI-ATTN-2"},
                    Buggy{"attn_softcap_after_mask", "attention.mask", "ABI-ATTN-5"},
                    Buggy{"attn_window_off_by_one", "attention.oracle", "ABI-ATTN-2"},
                    Buggy{"attn_t5_decode", "attention.oracle", "ABI-ATTN-2"}),
    [](const auto& i) { return std::string(i.param.lib); });

// Clause: ABI-ATTN-1 ABI-ATTN-4 ABI-ATTN-6 ABI-ATTN-8 ABI-ATTN-9 ABI-GEN-8 — pecheck's own CPU kernel passes --strict, shift included.
TEST(AttentionSimd, PassesStrict) {
  TempDir tmp;
  const VerifyRun r = run_verify(PECHECK_SIMD_LIB, tmp, {"--strict", "--only", "attention"});
  ASSERT_FALSE(r.report.is_null()) << r.proc.err;
  EXPECT_EQ(r.proc.exit_code, 0) << summary(r.report);
  for (const char* name : {"attention.shift", "attention.bf16.shift", "attention.decode", "attention.reject.null",
                           "attention.alibi_decay", "attention.isolation"}) {
    const ojson* c = check_named(r.report, name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_EQ(c->at("status"), "pass") << name;
    EXPECT_GT(c->at("cases").get<int>(), 0) << name;
  }
}

}  // namespace
}  // namespace pecheck::e2e
