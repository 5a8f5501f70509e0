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

// Clause: PREC-ATTN-2 PREC-ATTN-3 PREC-ATTN-4 — every class graded, the chosen one judged.
// pecheck_simd's float32 kernel is an online softmax and its bf16 kernel rounds P to bf16 before
// P.V (the p16 form): by default both pass `field` (online, p16) with the other classes graded;
// pinned to `online`, the bf16 kernel fails by a wide margin, the float32 one still passes.
TEST(AttentionAccuracy, EveryClassIsGradedAndTheChosenOneJudged) {
  const std::vector<std::string> only = {"--only", "attention.oracle", "attention.bf16.oracle"};
  TempDir tmp;
  const VerifyRun r = run_verify(PECHECK_SIMD_LIB, tmp, only);
  ASSERT_FALSE(r.report.is_null()) << r.proc.err;
  EXPECT_EQ(r.proc.exit_code, 0) << summary(r.report);
  const auto grades = [](const ojson& c) {
    std::vector<std::pair<std::string, double>> g;
    for (const auto& x : c.at("accuracy").at("grades")) g.emplace_back(x.at("class"), x.at("max_units").get<double>());
    return g;
  };
  const ojson* f32 = check_named(r.report, "attention.oracle");
  const ojson* bf16 = check_named(r.report, "attention.bf16.oracle");
  ASSERT_NE(f32, nullptr);
  ASSERT_NE(bf16, nullptr);
  const auto g32 = grades(*f32), g16 = grades(*bf16);
  ASSERT_EQ(g32.size(), 3u);
  ASSERT_EQ(g16.size(), 4u);
  EXPECT_EQ(g32[0].first, "eager");
  EXPECT_EQ(g32[1].first, "online");
  EXPECT_EQ(g16[2].first, "p16");
  EXPECT_EQ(f32->at("accuracy").at("class"), "field");
  EXPECT_DOUBLE_EQ(g32[2].second, g32[1].second) << "float32 field is online";
  EXPECT_DOUBLE_EQ(g16[3].second, g16[2].second) << "bf16 field is p16";
  EXPECT_GE(g32[0].second, g32[1].second) << "eager's budget is the tighter";
  EXPECT_GE(g16[1].second, g16[2].second);
  EXPECT_LE(g16[3].second, 1.0);
  EXPECT_GT(g16[1].second, 4.0) << "P rounded to bf16 is far outside the online class";
  EXPECT_NE(bf16->at("accuracy").at("worst").at("reproduce").get<std::string>().find("--case "), std::string::npos);

  std::vector<std::string> pinned = only;
  pinned.insert(pinned.end(), {"--accuracy", "attention.bf16=online"});
  TempDir tmp2;
  const VerifyRun p = run_verify(PECHECK_SIMD_LIB, tmp2, pinned);
  ASSERT_FALSE(p.report.is_null()) << p.proc.err;
  EXPECT_EQ(p.proc.exit_code, 1);
  EXPECT_EQ(check_named(p.report, "attention.oracle")->at("status"), "pass");
  const ojson* b = check_named(p.report, "attention.bf16.oracle");
  ASSERT_EQ(b->at("status"), "fail");
  EXPECT_EQ(b->at("accuracy").at("class"), "online");
  EXPECT_NE(b->at("counterexample").at("message").get<std::string>().find("of class online"), std::string::npos)
      << b->at("counterexample").at("message");
  EXPECT_NE(b->at("counterexample").at("reproduce").get<std::string>().find("--accuracy attention.bf16=online"),
            std::string::npos);
  EXPECT_EQ(p.report.at("options").at("extra").at("accuracy.attention.bf16"), "online");

  for (const char* bad : {"attention=ggml", "attention.f32=p16"}) {
    TempDir t3;
    const VerifyRun u = run_verify(PECHECK_SIMD_LIB, t3, {"--only", "attention.oracle", "--accuracy", bad});
    EXPECT_EQ(u.proc.exit_code, 2) << bad << ": " << u.proc.out << u.proc.err;
    EXPECT_EQ(std::count(u.proc.err.begin(), u.proc.err.end(), '\n'), 1) << u.proc.err;
  }
}

}  // namespace
}  // namespace pecheck::e2e
