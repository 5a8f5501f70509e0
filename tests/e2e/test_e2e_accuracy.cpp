// Accuracy classes end to end (spec/contracts.md "Accuracy classes", PREC-CLASS-*; spec/abi.md
// ABI-GEN-8): kernels written the way the field writes them pass the default class `field` and
// are graded with the class they meet; pinned to a tighter class they fail; every entry of the
// RoPE bug catalogue fails the default class; the worst case replays with --case; the profile
// shows where an fp16-position kernel stops carrying position information; a kernel with no
// argument checks passes by default and fails --strict.
#include <cmath>
#include <set>

#include "e2e.hpp"

namespace pecheck::e2e {
namespace {

using ojson = nlohmann::ordered_json;

const ojson* find_check(const ojson& report, const std::string& name) {
  for (const auto& c : report.at("checks")) {
    if (c.at("name") == name) return &c;
  }
  return nullptr;
}

// report.json writes non-finite numbers as the strings "inf", "-inf", "nan".
double num(const ojson& v) {
  if (v.is_string()) {
    const auto s = v.get<std::string>();
    return s == "nan" ? NAN : s == "-inf" ? -INFINITY : INFINITY;
  }
  return v.get<double>();
}

double grade(const ojson& check, const std::string& cls) {
  for (const auto& g : check.at("accuracy").at("grades")) {
    if (g.at("class") == cls) return num(g.at("max_units"));
  }
  ADD_FAILURE() << "no grade for " << cls;
  return -1;
}

struct Field {
  const char* lib;
  const char* check;   // the oracle check graded
  const char* pin;     // the tightest class it meets
  const char* tighter; // a class it must not meet (pinned: fail)
};
void PrintTo(const Field& f, std::ostream* os) { *os << f.lib; }

class FieldKernel : public ::testing::TestWithParam<Field> {};

// Clause: PREC-CLASS-1 PREC-CLASS-2 PREC-CLASS-3 PREC-ROPE-10 PREC-ALIBI-3
TEST_P(FieldKernel, PassesTheDefaultClassIsGradedAndFailsWhenPinnedTighter) {
  const Field f = GetParam();
  TempDir tmp;
  auto r = run_verify(example_lib(f.lib), tmp, {"--budget-seconds", "0"});
  EXPECT_EQ(r.proc.exit_code, 0) << r.proc.out << r.proc.err;
  expect_reports_well_formed(r, "pass");
  if (r.report.is_null()) return;
  const ojson* c = find_check(r.report, f.check);
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->contains("accuracy")) << c->dump();
  const auto& a = c->at("accuracy");
  EXPECT_EQ(a.at("class"), "field");
  EXPECT_LE(grade(*c, "field"), 1.0);
  EXPECT_LE(grade(*c, f.pin), 1.0);
  EXPECT_GT(grade(*c, f.tighter), 1.0);
  const std::string scheme = std::string(f.check).substr(0, std::string(f.check).find('.'));
  // The pin is the tightest class met with margin (issue 20, finding 6): worst <= 0.8 of it.
  std::string pin;
  for (const auto& g : a.at("grades")) {
    if (num(g.at("max_units")) <= 0.8) {
      pin = g.at("class").get<std::string>();
      break;
    }
  }
  // No class met with margin (llama_alibi meets field at 0.99999: half an ulp of a score near
  // 2^24): no pin is advised, since the next class up does not exist.
  EXPECT_EQ(a.at("pin"), pin.empty() ? std::string() : "--accuracy " + scheme + "=" + pin) << a.at("grades").dump();
  if (!pin.empty()) {
    EXPECT_NE(r.proc.out.find("pin in CI (the tightest class met with margin, worst <= 0.8 of it): --accuracy " +
                              scheme + "=" + pin), std::string::npos)
        << r.proc.out;
  } else {
    EXPECT_EQ(r.proc.out.find("pin in CI"), std::string::npos) << r.proc.out;
  }
  // The profile covers the tested octaves and the worst case names its case index.
  EXPECT_FALSE(a.at("profile").empty());
  ASSERT_TRUE(a.contains("worst"));
  EXPECT_NE(a.at("worst").at("reproduce").get<std::string>().find("--case "), std::string::npos);

  TempDir t2;
  auto pinned = run_verify(example_lib(f.lib), t2,
                           {"--budget-seconds", "0", "--no-regressions", "--accuracy", scheme + "=" + f.tighter, "--only", f.check});
  EXPECT_EQ(pinned.proc.exit_code, 1) << pinned.proc.out;
  const ojson* pc = pinned.report.is_null() ? nullptr : find_check(pinned.report, f.check);
  ASSERT_NE(pc, nullptr);
  EXPECT_EQ(pc->at("status"), "fail");
}

INSTANTIATE_TEST_SUITE_P(Examples, FieldKernel,
                         ::testing::Values(Field{"hf_rope", "rope.oracle", "powf", "reference"},
                                           Field{"ggml_rope", "rope.oracle", "ggml", "powf"},
                                           Field{"llama_alibi", "alibi.oracle", "powf", "reference"}),
                         [](const auto& i) { return std::string(i.param.lib); });

// Clause: PREC-CLASS-3
// Issue 20, finding 6: HF RoPE at seed 2, --max-position 8192 meets `reference` at 0.9996 of it,
// and that pin failed seed 0 at 1.028x. Pin advice is only for a class met with margin (<= 0.8).
TEST(Pin, OnlyForAClassMetWithMargin) {
  TempDir tmp;
  auto r = run_verify(example_lib("hf_rope"), tmp,
                      {"--budget-seconds", "0", "--no-regressions", "--seed", "2", "--max-position", "8192", "--only",
                       "rope.oracle"});
  ASSERT_FALSE(r.report.is_null()) << r.proc.err;
  const ojson* c = find_check(r.report, "rope.oracle");
  ASSERT_NE(c, nullptr);
  const auto& a = c->at("accuracy");
  const double reference = grade(*c, "reference");
  EXPECT_GT(reference, 0.8) << "the issue's case: reference met without margin";
  EXPECT_LE(reference, 1.0);
  const std::string pin = a.at("pin").get<std::string>();
  EXPECT_NE(pin, "--accuracy rope=reference");
  // The pin is the first class (tightest first) whose worst is <= 0.8 of it.
  for (const auto& g : a.at("grades")) {
    if (num(g.at("max_units")) <= 0.8) {
      EXPECT_EQ(pin, "--accuracy rope=" + g.at("class").get<std::string>());
      break;
    }
  }
}

// Clause: PREC-CLASS-2
TEST(BugCatalogue, EveryEntryFailsTheDefaultClassByAWideMargin) {
  for (const char* bug : {"cat_bf16_freq", "cat_fp16_freq", "cat_int16_pos", "cat_wrong_exponent", "cat_pos_plus_one",
                          "cat_ignore_scale", "rope_bf16_angle", "rope_fp16_angle", "rope_layout_swap"}) {
    TempDir tmp;
    auto r = run_verify(example_lib(bug), tmp, {"--budget-seconds", "0", "--no-regressions", "--only", "rope.oracle"});
    EXPECT_EQ(r.proc.exit_code, 1) << bug << r.proc.out;
    if (r.report.is_null()) continue;
    const ojson* c = find_check(r.report, "rope.oracle");
    ASSERT_NE(c, nullptr) << bug;
    EXPECT_EQ(c->at("status"), "fail") << bug;
    EXPECT_EQ(c->at("counterexample").at("clause"), "ABI-ROPE-2") << bug;
    // spec/contracts.md PREC-CLASS-2 states the smallest catalogue error: > 1000 class units.
    EXPECT_GT(grade(*c, "field"), 1000.0) << bug;
  }
}

// Clause: PREC-CLASS-3
TEST(Profile, ShowsWhereFp16PositionsStopCarryingPositionInformation) {
  TempDir tmp;
  auto r = run_verify(example_lib("rope_fp16_angle"), tmp, {"--budget-seconds", "0", "--no-regressions", "--only", "rope.oracle"});
  ASSERT_FALSE(r.report.is_null()) << r.proc.err;
  const ojson* c = find_check(r.report, "rope.oracle");
  ASSERT_NE(c, nullptr);
  const auto& a = c->at("accuracy");
  for (const auto& row : a.at("profile")) {
    const auto oct = row.at("octave").get<long long>();
    if (oct >= 0 && oct <= 10) {
      EXPECT_LE(num(row.at("max_units")), 1.0) << row.dump();  // fp16 holds every integer below 2^11
    }
    if (oct == 11) {
      EXPECT_GT(num(row.at("max_units")), 1.0) << row.dump();
    }
  }
  ASSERT_FALSE(a.at("resolved_up_to").is_null());
  EXPECT_EQ(a.at("resolved_up_to").get<long long>(), 2048);
  EXPECT_EQ(a.at("class_held_up_to").at("field").get<long long>(), 2048);
  // The worst element is far worse than the shrunk counterexample, and both are reported.
  EXPECT_GT(num(a.at("worst").at("element").at("contract_units")),
            num(c->at("counterexample").at("worst").at("contract_units")));
}

// Clause: PREC-CLASS-3
TEST(WorstCase, ReplaysWithItsCaseIndex) {
  TempDir tmp;
  auto r = run_verify(example_lib("ggml_rope"), tmp, {"--budget-seconds", "0", "--only", "rope.oracle"});
  ASSERT_FALSE(r.report.is_null()) << r.proc.err;
  const auto& w = find_check(r.report, "rope.oracle")->at("accuracy").at("worst");
  const long long i = w.at("case_index").get<long long>();
  TempDir t2;
  auto one = run_verify(example_lib("ggml_rope"), t2,
                        {"--budget-seconds", "0", "--only", "rope.oracle", "--case", std::to_string(i)});
  ASSERT_FALSE(one.report.is_null()) << one.proc.err;
  const auto* c1 = find_check(one.report, "rope.oracle");
  EXPECT_EQ(c1->at("cases").get<long long>(), 1);
  EXPECT_EQ(c1->at("accuracy").at("worst").at("element").at("contract_units"), w.at("element").at("contract_units"));
}

// --case-scale F runs each check's first F x its cases: the same cases as the full run (case i
// depends on the seed, the check and i alone), the scale recorded in the report and carried by
// the reproduce line, so a failure found in a quick run replays as it was found.
TEST(CaseScale, RunsTheFirstCasesOfTheFullRunAndReplaysWithItsScale) {
  TempDir full, quarter;
  auto a = run_verify(example_lib("ggml_rope"), full, {"--budget-seconds", "0", "--only", "rope.oracle"});
  auto b = run_verify(example_lib("ggml_rope"), quarter,
                      {"--budget-seconds", "0", "--only", "rope.oracle", "--case-scale", "0.25"});
  ASSERT_FALSE(a.report.is_null()) << a.proc.err;
  ASSERT_FALSE(b.report.is_null()) << b.proc.err;
  const auto* ca = find_check(a.report, "rope.oracle");
  const auto* cb = find_check(b.report, "rope.oracle");
  const long long n = ca->at("planned_cases").get<long long>();
  EXPECT_EQ(cb->at("planned_cases").get<long long>(), (n + 2) / 4) << "0.25 x " << n << ", rounded";
  EXPECT_EQ(b.report.at("options").at("extra").at("case_scale"), "0.25");
  EXPECT_FALSE(a.report.at("options").at("extra").contains("case_scale"));
  // The quarter run's worst case is case i of the full run: the same error, replayed alone.
  const auto& w = cb->at("accuracy").at("worst");
  const long long i = w.at("case_index").get<long long>();
  EXPECT_LT(i, (n + 2) / 4);
  TempDir one;
  auto r = run_verify(example_lib("ggml_rope"), one,
                      {"--budget-seconds", "0", "--only", "rope.oracle", "--case", std::to_string(i)});
  ASSERT_FALSE(r.report.is_null()) << r.proc.err;
  EXPECT_EQ(find_check(r.report, "rope.oracle")->at("accuracy").at("worst").at("element").at("contract_units"),
            w.at("element").at("contract_units"));
  // A failure's reproduce line carries the scale.
  TempDir bug;
  auto f = run_verify(example_lib("rope_fp16_angle"), bug,
                      {"--budget-seconds", "0", "--only", "rope.oracle", "--no-regressions", "--case-scale", "0.5"});
  ASSERT_FALSE(f.report.is_null()) << f.proc.err;
  const auto* cf = find_check(f.report, "rope.oracle");
  ASSERT_EQ(cf->at("status"), "fail") << f.proc.out << f.proc.err;
  EXPECT_NE(cf->at("counterexample").at("reproduce").get<std::string>().find(" --case-scale 0.5"), std::string::npos)
      << cf->at("counterexample").at("reproduce");
}

// Clause: ABI-GEN-8
TEST(Tiers, NoArgumentChecksPassesByDefaultAndFailsStrict) {
  TempDir tmp;
  auto r = run_verify(example_lib("nochecks"), tmp, {"--budget-seconds", "0"});
  EXPECT_EQ(r.proc.exit_code, 0) << r.proc.out;
  TempDir t2;
  auto s = run_verify(example_lib("nochecks"), t2, {"--budget-seconds", "0", "--strict"});
  EXPECT_EQ(s.proc.exit_code, 1) << s.proc.out;
  ASSERT_FALSE(s.report.is_null());
  std::set<std::string> failed;
  for (const auto& c : s.report.at("checks")) {
    if (c.at("status") == "fail") failed.insert(c.at("name").get<std::string>());
  }
  for (const char* n : {"alibi.reject.mode", "alibi.reject.null", "sinusoidal.reject.base", "sinusoidal.reject.positions"}) {
    EXPECT_TRUE(failed.count(n)) << n;
  }
  // Only hygiene checks fail: the arithmetic and the memory-safety checks pass.
  for (const auto& n : failed) EXPECT_NE(n.find(".reject."), std::string::npos) << n;
}

// Clause: ABI-DOM-1 ABI-DOM-2 ABI-DOM-3
TEST(Domain, NeoxOnlyHeadDim128PassesWithItsDeclarationAndFailsWithout) {
  // The library's own declaration (pec_domain).
  TempDir t0;
  auto lib = run_verify(example_lib("neox128_rope"), t0, {"--budget-seconds", "0"});
  EXPECT_EQ(lib.proc.exit_code, 0) << lib.proc.out;
  EXPECT_NE(lib.proc.out.find("from the library's pec_domain()"), std::string::npos) << lib.proc.out;
  // The same declaration on the command line, for the build without pec_domain.
  const std::string decl = "rope.layout=neox;rope.head_dim=128;rope.rotary_dim=64,128";
  TempDir tmp;
  auto with = run_verify(example_lib("neox128_rope_undeclared"), tmp, {"--budget-seconds", "0", "--domain", decl});
  EXPECT_EQ(with.proc.exit_code, 0) << with.proc.out;
  EXPECT_NE(with.proc.out.find("declared domain: rope: layout gptj untested"), std::string::npos) << with.proc.out;
  ASSERT_FALSE(with.report.is_null());
  bool noted = false;
  for (const auto& n : with.report.at("notes")) noted = noted || n.get<std::string>().find("declared domain") != std::string::npos;
  EXPECT_TRUE(noted);
  // Without it: valid calls it does not support return non-zero (ABI-GEN-2).
  TempDir t2;
  auto without = run_verify(example_lib("neox128_rope_undeclared"), t2, {"--budget-seconds", "0", "--no-regressions"});
  EXPECT_EQ(without.proc.exit_code, 1);
  ASSERT_FALSE(without.report.is_null());
  const ojson* c = find_check(without.report, "rope.oracle");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->at("counterexample").at("clause"), "ABI-GEN-2");
  EXPECT_EQ(c->at("counterexample").at("kind"), "nonzero-return");
  // A declaration that is too wide (any rotary_dim) is caught the same way.
  TempDir t3;
  auto wide = run_verify(example_lib("neox128_rope_undeclared"), t3,
                         {"--budget-seconds", "0", "--no-regressions", "--domain", "rope.layout=neox;rope.head_dim=128"});
  EXPECT_EQ(wide.proc.exit_code, 1);
}

// Clause: ABI-DOM-1
TEST(Domain, BadDeclarationIsAUsageError) {
  for (const char* bad : {"rope.layout=sideways", "rope.head_dim=-4", "nope.rule=1", "rope.head_dim"}) {
    TempDir tmp;
    auto r = run_verify(example_lib("neox128_rope"), tmp, {"--domain", bad});
    EXPECT_EQ(r.proc.exit_code, 2) << bad;
    expect_one_line_error(r.proc);
  }
}

// Clause: PREC-CLASS-3
TEST(Profile, Float32AnglesStopResolvingPositionsAt2To24) {
  // A float32 position rounds 2^24 + 1 to 2^24: past it p and p + 1 blur at the fastest pair.
  TempDir tmp;
  auto r = run_verify(example_lib("hf_rope"), tmp,
                      {"--budget-seconds", "0", "--only", "rope.oracle", "--max-position", "2147483647"});
  EXPECT_EQ(r.proc.exit_code, 0) << r.proc.out;
  ASSERT_FALSE(r.report.is_null());
  const auto& a = find_check(r.report, "rope.oracle")->at("accuracy");
  ASSERT_FALSE(a.at("resolved_up_to").is_null());
  EXPECT_LE(a.at("resolved_up_to").get<long long>(), 1LL << 24);
  EXPECT_GE(a.at("resolved_up_to").get<long long>(), 1LL << 20);
  EXPECT_GT(a.at("largest_position").get<long long>(), 1LL << 24);
}

}  // namespace
}  // namespace pecheck::e2e
