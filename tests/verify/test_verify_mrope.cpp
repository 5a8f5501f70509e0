// The checks of pec_mrope_* (spec/abi.md ABI-MROPE-*) against in-process test kernels: the honest
// kernel passes every check in every storage type; a section rotated by the wrong axis, image
// tokens rotated by their text position and an interleaved call rotated as sectioned fail the
// oracle with a shrunk witness naming the pair and axis, and only a position-dependent kernel
// fails the offset-vector shift.
#include <set>

#include "test_kernels_qk.hpp"
#include "verify/rope_v2/cases.hpp"
#include "verify_test_util.hpp"

using pecheck::report::CheckStatus;
using testk::QkBug;

namespace {

pecheck::VerifyResult run_m(QkBug bug, const pecheck::VerifyOptions& o) {
  testk::g_qk_bug = bug;
  auto r = pecheck::verify(testk::qk_all(), o);
  testk::g_qk_bug = QkBug::None;
  return r;
}

const pecheck::report::Counterexample& fail_of(const pecheck::VerifyResult& r, const std::string& n,
                                               const std::string& clause) {
  const auto& c = vt::check(r, n);
  EXPECT_EQ(c.status, CheckStatus::Fail) << n;
  static const pecheck::report::Counterexample none;
  if (!c.counterexample) return none;
  EXPECT_EQ(c.counterexample->clause, clause) << c.counterexample->message;
  EXPECT_NE(c.counterexample->reproduce.find("--only " + n), std::string::npos);
  return *c.counterexample;
}

bool has_note(const pecheck::report::Counterexample& c, const std::string& part) {
  for (const auto& n : c.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

// Clause: ABI-MROPE-1 ABI-MROPE-2 ABI-MROPE-3
TEST(VerifyMrope, HonestKernelPassesEveryCheckInEveryStorageType) {
  auto o = vt::options({"mrope"}, 0.3);
  o.call_timeout_seconds = 5;  // a loaded machine: slowness is not the subject here
  o.strict = true;             // both rejection tiers and batch invariance
  const auto r = run_m(QkBug::None, o);
  std::set<std::string> names, clauses;
  for (const auto& c : r.checks) {
    if (c.status == CheckStatus::Skipped) continue;
    EXPECT_EQ(c.status, CheckStatus::Pass)
        << c.name << ": " << c.reason << (c.counterexample ? c.counterexample->message : "");
    EXPECT_GT(c.cases, 0) << c.name;
    names.insert(c.name);
    clauses.insert(c.clause);
  }
  for (const char* n : {"mrope.oracle", "mrope.bf16.oracle", "mrope.f16.oracle", "mrope.shift",
                        "mrope.f16.shift", "mrope.passthrough", "mrope.gaps", "mrope.batch",
                        "mrope.reject.sections", "mrope.reject.interleave",
                        "mrope.reject.mrope-layout", "mrope.bf16.reject.positions"})
    EXPECT_TRUE(names.count(n)) << n;
  for (const char* k : {"ABI-MROPE-1", "ABI-MROPE-2", "ABI-MROPE-3", "ABI-QK-4", "ABI-VIEW-2"})
    EXPECT_TRUE(clauses.count(k)) << k;
  ASSERT_TRUE(vt::check(r, "mrope.oracle").accuracy.has_value());
}

// Clause: ABI-MROPE-2
// The generator draws both layouts, the models' sections, empty sections and the three kinds of
// position rows; every case is valid and its sections cover rotary_dim/2 pairs.
TEST(VerifyMrope, GeneratorCoversLayoutsSectionsAndImageGrids) {
  using namespace pecheck::verifier;
  bool sectioned = false, interleaved = false, qwen2 = false, qwen3 = false, empty = false,
       grid = false, unrelated = false, text = false;
  for (std::uint64_t i = 0; i < 400; ++i) {
    Rng r = Rng::for_case(0, "mrope-coverage", i);
    GenParams p;
    const MropeCase c = gen_mrope(r, p);
    ASSERT_EQ(invalid_reason(c), "") << i;
    ASSERT_EQ(c.pos_h.size(), c.positions.size());
    std::int64_t count[3] = {0, 0, 0};
    for (std::int64_t k = 0; k < c.rotary_dim / 2; ++k) {
      const int a = mrope_axis(c, k);
      ASSERT_GE(a, 0);
      ++count[a];
    }
    for (int a = 0; a < 3; ++a) EXPECT_EQ(count[a], c.section[a]) << i;  // the layout's counts
    sectioned |= c.mrope_layout == PEC_MROPE_SECTIONED;
    interleaved |= c.mrope_layout == PEC_MROPE_INTERLEAVED;
    qwen2 |= c.rotary_dim == 128 && c.section[0] == 16 && c.section[1] == 24 && c.section[2] == 24 &&
             c.mrope_layout == PEC_MROPE_SECTIONED;
    qwen3 |= c.rotary_dim == 128 && c.section[0] == 24 && c.section[1] == 20 && c.section[2] == 20 &&
             c.mrope_layout == PEC_MROPE_INTERLEAVED;
    empty |= c.section[1] == 0 && c.section[2] == 0;
    grid |= c.note.find("image grid") != std::string::npos;
    unrelated |= c.note.find("unrelated") != std::string::npos;
    text |= c.note.find("text tokens") != std::string::npos;
  }
  EXPECT_TRUE(sectioned && interleaved && qwen2 && qwen3 && empty && grid && unrelated && text);
}

// Clause: ROPE-MROPE-3
// The interleaved assignment of Qwen3-VL's [24, 20, 20]: h at 1, 4, ..., 58; w at 2, 5, ..., 59;
// t at 0, 3, ..., 57 and 60-63 (spec/rope.md).
TEST(VerifyMrope, InterleavedAxesOfQwen3Vl) {
  pecheck::verifier::MropeCase c;
  c.rotary_dim = c.head_dim = 128;
  c.mrope_layout = PEC_MROPE_INTERLEAVED;
  c.section[0] = 24, c.section[1] = 20, c.section[2] = 20;
  for (std::int64_t i = 0; i < 64; ++i) {
    const int want = i >= 60 ? 0 : static_cast<int>(i % 3);
    EXPECT_EQ(pecheck::verifier::mrope_axis(c, i), want) << i;
  }
  c.mrope_layout = PEC_MROPE_SECTIONED;
  c.section[0] = 16, c.section[1] = 24, c.section[2] = 24;
  EXPECT_EQ(pecheck::verifier::mrope_axis(c, 15), 0);
  EXPECT_EQ(pecheck::verifier::mrope_axis(c, 16), 1);
  EXPECT_EQ(pecheck::verifier::mrope_axis(c, 39), 1);
  EXPECT_EQ(pecheck::verifier::mrope_axis(c, 40), 2);
  EXPECT_EQ(pecheck::verifier::mrope_axis(c, 64), -1);
}

// Clause: ABI-MROPE-2
// h and w swapped: the oracle fails with a small witness whose h and w rows differ, and the
// report says which axis the kernel's value belongs to.
TEST(VerifyMrope, WrongAxisForASectionFailsTheOracleWithAWitness) {
  const auto r = run_m(QkBug::MropeWrongAxis, vt::options({"mrope.oracle", "mrope.bf16.oracle", "mrope.shift"}));
  const auto& ce = fail_of(r, "mrope.oracle", "ABI-MROPE-2");
  EXPECT_TRUE(has_note(ce, "hint: the kernel's value is the rotation at the")) << ce.message;
  EXPECT_TRUE(has_note(ce, "rotated by the wrong axis")) << ce.message;
  EXPECT_FALSE(has_note(ce, "layout; the call asks for")) << ce.message;  // no layout hint for an axis bug
  for (const auto& a : ce.args) {
    if (a.name == "n_tokens") {
      EXPECT_EQ(std::get<std::int64_t>(a.value), 1);
    }
  }
  fail_of(r, "mrope.bf16.oracle", "ABI-MROPE-2");
  // Still a function of the offset vector (each pair reads one axis consistently): no shift failure.
  EXPECT_EQ(vt::check(r, "mrope.shift").status, CheckStatus::Pass);
}

// Clause: ABI-MROPE-2
// Image tokens rotated by their text position (the t row for every pair): the oracle fails and
// names the t axis; the scores stay relative, so the shift check passes — only the values tell.
TEST(VerifyMrope, TextPositionsForImageTokensFailTheOracle) {
  const auto r = run_m(QkBug::MropeTextPositions, vt::options({"mrope.oracle", "mrope.f16.oracle", "mrope.shift"}));
  const auto& ce = fail_of(r, "mrope.oracle", "ABI-MROPE-2");
  EXPECT_TRUE(has_note(ce, "rotation at the t position")) << ce.message;
  EXPECT_FALSE(has_note(ce, "layout; the call asks for")) << ce.message;
  fail_of(r, "mrope.f16.oracle", "ABI-MROPE-2");
  EXPECT_EQ(vt::check(r, "mrope.shift").status, CheckStatus::Pass);
}

// Clause: ABI-MROPE-2 ROPE-MROPE-3
TEST(VerifyMrope, InterleavedCallRotatedAsSectionedFails) {
  const auto r = run_m(QkBug::MropeInterleavedAsSectioned, vt::options({"mrope.oracle"}));
  const auto& ce = fail_of(r, "mrope.oracle", "ABI-MROPE-2");
  bool interleaved = false;
  for (const auto& a : ce.args)
    if (a.name == "mrope_layout") interleaved = std::get<std::string>(a.value) == "interleaved";
  EXPECT_TRUE(interleaved);
  // The hint names the layout mix-up (and no wrong axis: every pair is some axis's rotation).
  EXPECT_TRUE(has_note(ce, "hint: q_out and k_out equal the rotation with the sectioned layout; the call asks for "
                           "interleaved")) << ce.message;
}

// Clause: ABI-MROPE-3
// A query scaled by its own t position: the scores move under a shift of the rows.
TEST(VerifyMrope, PositionDependentScaleFailsTheOffsetVectorShift) {
  const auto r = run_m(QkBug::MropeAbsoluteScale, vt::options({"mrope.shift"}));
  const auto& ce = fail_of(r, "mrope.shift", "ABI-MROPE-3");
  EXPECT_NE(ce.message.find("shifted by ("), std::string::npos);
}

// Clause: ABI-MROPE-1 ABI-GEN-8
// Tier A fails by default only for harm shown; every acceptance (tier B: layout, interleaved
// limits, positions, strides; and the harmless tier A ones) fails under --strict.
TEST(VerifyMrope, TrustingKernelFailsTheSectionRejection) {
  // This kernel is not seen touching memory outside the call on these invalid calls: no harm
  // shown, so tier A passes by default (ABI-GEN-8) and --strict fails it.
  const auto r = run_m(QkBug::NoValidation, vt::options({"mrope.reject"}));
  for (const char* n : {"mrope.reject.sections", "mrope.reject.gqa"})
    EXPECT_EQ(vt::check(r, n).status, CheckStatus::Pass) << n;
  EXPECT_EQ(vt::check(r, "mrope.reject.interleave").status, CheckStatus::Skipped);
  EXPECT_EQ(vt::check(r, "mrope.reject.strides").status, CheckStatus::Skipped);  // tier B (ABI-VIEW-1)
  auto o = vt::options({"mrope.reject.interleave", "mrope.reject.positions", "mrope.reject.mrope-layout",
                        "mrope.reject.strides", "mrope.reject.sections", "mrope.reject.gqa"});
  o.strict = true;
  const auto s = run_m(QkBug::NoValidation, o);
  for (const char* n : {"mrope.reject.interleave", "mrope.reject.positions", "mrope.reject.mrope-layout",
                        "mrope.reject.strides", "mrope.reject.sections", "mrope.reject.gqa"})
    EXPECT_EQ(vt::check(s, n).status, CheckStatus::Fail) << n;
}

// Clause: ABI-DOM-1 ABI-MROPE-1
// mrope.layout in a declared domain keeps every generated call in that layout.
TEST(VerifyMrope, DeclaredLayoutBoundsTheCalls) {
  auto o = vt::options({"mrope.oracle"});
  o.domain = "mrope.layout=sectioned";
  const auto r = run_m(QkBug::MropeInterleavedAsSectioned, o);  // wrong only for interleaved calls
  EXPECT_EQ(vt::check(r, "mrope.oracle").status, CheckStatus::Pass);
}
