// The 16-bit functions of ABI version 2 (pec_*_bf16, pec_*_f16) through the same checks as the
// float32 ones, and batch invariance (ABI-BATCH-1), on the in-process kernels of test_kernels.cpp.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "oracle/budget.hpp"
#include "core/error.hpp"
#include "verify/checks/accuracy.hpp"
#include "verify_test_util.hpp"

namespace {

using pecheck::report::CheckStatus;
using testk::Bug;

pecheck::VerifyResult run16(Bug bug, const pecheck::VerifyOptions& o) {
  testk::g_bug = bug;
  auto r = pecheck::verify(testk::all16(), o);
  testk::g_bug = Bug::None;
  return r;
}

std::string failures(const pecheck::VerifyResult& r) {
  std::string s;
  for (const auto& c : r.checks) {
    if (c.status == CheckStatus::Fail || c.status == CheckStatus::Error || c.status == CheckStatus::Unknown) {
      s += c.name + ": " + (c.counterexample ? c.counterexample->message : c.reason) + "\n";
    }
  }
  return s;
}

// Clause: ABI-STORE-1 ABI-STORE-2 ABI-BATCH-1 PREC-ROPE-11 PREC-ALIBI-4 PREC-SIN-4 PREC-SCORE-3
TEST(Verify16, HonestSixteenBitKernelsPassEveryCheckIncludingStrictAndBatch) {
  auto o = vt::options({}, 0.3);  // above 0.25: the .large checks run one of their two cases
  o.strict = true;
  const auto r = run16(Bug::None, o);
  EXPECT_TRUE(r.passed()) << failures(r);
  std::size_t ran = 0;
  for (const auto& c : r.checks) {
    // The checks of the functions not exported (the float32 ones, the query+key and cache
    // families) are skipped, every other one ran.
    const bool exported = std::find(r.exported.begin(), r.exported.end(), c.function) != r.exported.end();
    EXPECT_EQ(c.status == CheckStatus::Skipped, !exported) << c.name;
    ran += c.status == CheckStatus::Pass;
  }
  // Every check of the ten functions ran: oracle, passthrough, inplace, shift, rejections,
  // bounds, written, determinism, T5 buckets, learned lookups, batch.
  EXPECT_GT(ran, 100u);
  for (const char* name : {"rope.bf16.oracle", "rope.f16.shift", "rope.bf16.passthrough", "rope.f16.inplace",
                           "alibi.bf16.oracle", "alibi.f16.shift", "t5.bf16.oracle", "t5.f16.shift",
                           "sinusoidal.f16.oracle", "learned.bf16.lookup", "learned.f16.reject.position-range",
                           "rope.bf16.reject.null", "t5.f16.written", "sinusoidal.bf16.determinism",
                           "rope.f16.batch", "alibi.bf16.batch", "t5.f16.batch", "learned.bf16.batch"}) {
    EXPECT_EQ(vt::check(r, name).status, CheckStatus::Pass) << name;
    EXPECT_GT(vt::check(r, name).cases, 0) << name;
  }
  // The version 2 library lists every function it does not export, the float32 ones included.
  EXPECT_EQ(r.exported.size(), 10u);  // the ten functions
  EXPECT_EQ(r.missing.size(), static_cast<std::size_t>(pecheck::verifier::kFnCount - pecheck::verifier::kAttentionFnCount) - 10);
}

// Clause: PREC-ROPE-11 (Hugging Face's bf16 arithmetic is inside the default class)
TEST(Verify16, HuggingFaceSixteenBitArithmeticPassesTheFieldClass) {
  const auto r = run16(Bug::HfBf16Arith, vt::options({"rope.bf16.oracle", "rope.f16.oracle", "rope.bf16.shift"}, 0.5));
  EXPECT_TRUE(r.passed()) << failures(r);
  const auto& c = vt::check(r, "rope.bf16.oracle");
  ASSERT_TRUE(c.accuracy.has_value());
  EXPECT_EQ(c.accuracy->accuracy_class, "field");
  // It is graded against every bf16 class, and pinning uses the storage type's key.
  EXPECT_EQ(c.accuracy->grades.size(), pecheck::verifier::accuracy_classes("rope", pecheck::verifier::Storage::BF16).size());
  EXPECT_NE(c.accuracy->pin.find("--accuracy rope.bf16="), std::string::npos) << c.accuracy->pin;
  // Three roundings to bf16 exceed the classes that round once (c_out = 1): the reason the
  // default class carries c_out = 4 (PREC-ROPE-11).
  for (const auto& g : c.accuracy->grades) {
    if (g.name == "reference") {
      EXPECT_GT(g.max_units, 1.0);
    }
    if (g.name == "field") {
      EXPECT_LE(g.max_units, 1.0);
    }
  }
}

// Clause: ABI-ROPE-2 ABI-STORE-2 PREC-ROPE-11 (an angle formed in bf16 fails by orders of magnitude)
TEST(Verify16, AngleInBfloat16FailsTheRopeOracle) {
  for (const char* check : {"rope.bf16.oracle", "rope.f16.oracle"}) {
    const auto r = run16(Bug::AngleIn16Bit, vt::options({check}, 0.5));
    const auto& c = vt::check(r, check);
    ASSERT_EQ(c.status, CheckStatus::Fail) << check;
    ASSERT_TRUE(c.counterexample);
    EXPECT_EQ(c.counterexample->clause, "ABI-ROPE-2");
    ASSERT_TRUE(c.accuracy.has_value());
    double field = 0;
    for (const auto& g : c.accuracy->grades) {
      if (g.name == "field") field = g.max_units;
    }
    EXPECT_GT(field, 100.0) << check;  // the run's worst element, in 'field' units
  }
}

// Clause: ABI-GEN-4 ABI-STORE-1 (one 16-bit element written past the end is seen)
TEST(Verify16, SixteenBitWritePastTheEndFailsBounds) {
  const auto r = run16(Bug::WritePastEnd, vt::options({"rope.bf16.bounds", "rope.f16.bounds"}));
  for (const char* check : {"rope.bf16.bounds", "rope.f16.bounds"}) {
    const auto& c = vt::check(r, check);
    ASSERT_EQ(c.status, CheckStatus::Fail) << check;
    EXPECT_EQ(c.counterexample->clause, "ABI-GEN-4");
    EXPECT_NE(c.counterexample->message.find("1 " + std::string(c.name.find("bf16") != std::string::npos ? "bf16" : "f16") +
                                             " elements after the last element"),
              std::string::npos)
        << c.counterexample->message;
  }
}

// Clause: ABI-STORE-1 PREC-ALIBI-4 (round to nearest even: truncating the sum fails)
TEST(Verify16, TruncatingInsteadOfRoundingToNearestFailsAlibi) {
  const auto r = run16(Bug::Truncate, vt::options({"alibi.bf16.oracle", "alibi.f16.oracle"}));
  for (const char* check : {"alibi.bf16.oracle", "alibi.f16.oracle"}) {
    const auto& c = vt::check(r, check);
    ASSERT_EQ(c.status, CheckStatus::Fail) << check;
    EXPECT_EQ(c.counterexample->clause, "ABI-ALIBI-2");
  }
  const auto ok = run16(Bug::None, vt::options({"alibi.bf16.oracle", "alibi.f16.oracle"}));
  EXPECT_TRUE(ok.passed()) << failures(ok);
}

// Clause: ABI-BATCH-1 PREC-STORE-1 (strict-only; --only <prefix>.batch opts in)
TEST(Verify16, BatchVariantRemainderLoopFailsBatchUnderStrictAndPassesWithout) {
  // Default run: the remainder's float32 arithmetic is inside the class, batch is not checked.
  const auto plain = run16(Bug::BatchRemainderF32, vt::options({"rope.bf16"}));
  EXPECT_TRUE(plain.passed()) << failures(plain);
  EXPECT_EQ(vt::check(plain, "rope.bf16.batch").status, CheckStatus::Skipped);
  EXPECT_NE(vt::check(plain, "rope.bf16.batch").reason.find("--strict"), std::string::npos);
  // --strict runs it and it fails, with a token whose bits changed.
  auto strict = vt::options({"rope.bf16"});
  strict.strict = true;
  const auto s = run16(Bug::BatchRemainderF32, strict);
  const auto& c = vt::check(s, "rope.bf16.batch");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  EXPECT_EQ(c.counterexample->clause, "ABI-BATCH-1");
  EXPECT_EQ(c.counterexample->kind, "batch-variant");
  // --only naming the batch check runs it without --strict.
  const auto only = run16(Bug::BatchRemainderF32, vt::options({"rope.bf16.batch"}));
  EXPECT_EQ(vt::check(only, "rope.bf16.batch").status, CheckStatus::Fail);
  const auto family = run16(Bug::BatchRemainderF32, vt::options({".batch"}));
  EXPECT_EQ(vt::check(family, "rope.bf16.batch").status, CheckStatus::Fail);
  EXPECT_EQ(vt::check(family, "rope.f16.batch").status, CheckStatus::Fail);
  EXPECT_EQ(vt::check(family, "sinusoidal.bf16.batch").status, CheckStatus::Pass);
  // The honest kernel passes it.
  const auto honest = run16(Bug::None, vt::options({"rope.bf16.batch", "rope.f16.batch"}));
  EXPECT_TRUE(honest.passed()) << failures(honest);
}

// Clause: PREC-ROPE-11 PREC-ALIBI-4 PREC-SIN-4 (the 16-bit field rows contain the other 16-bit
// classes of their scheme term by term, and the f32 field terms)
TEST(Verify16, SixteenBitFieldRowsContainTheOtherClasses) {
  namespace po = pecheck::oracle;
  for (const char* dt : {"bf16", "f16"}) {
    const auto& rf = po::budget("rope", dt, "field");
    const auto& r32 = po::budget("rope", "f32", "field");
    EXPECT_GE(rf.c_out, 3.0) << dt;  // three roundings to the dtype (PREC-ROPE-11)
    EXPECT_EQ(rf.c_angle, r32.c_angle);
    EXPECT_EQ(rf.c_kangle, r32.c_kangle);
    EXPECT_EQ(rf.c_logb, r32.c_logb);
    for (const char* v : {"reference", "fma", "powf", "ggml", "accurate"}) {
      const auto& c = po::budget("rope", dt, v);
      for (double th : {0.0, 1.0, 1e5}) {
        EXPECT_GE(rf.bound({1.0, th, 7.0, 3.0}), c.bound({1.0, th, 7.0, 3.0})) << dt << " " << v << " " << th;
      }
    }
    for (const char* v : {"reference", "powf"}) {
      EXPECT_GE(po::budget("alibi", dt, "field").bound({100.0, 0.0, 5.0}), po::budget("alibi", dt, v).bound({100.0, 0.0, 5.0}));
    }
    for (const char* v : {"reference", "accurate"}) {
      EXPECT_GE(po::budget("sinusoidal", dt, "field").bound({1.0, 1e4, 3.0, 2.0}),
                po::budget("sinusoidal", dt, v).bound({1.0, 1e4, 3.0, 2.0}));
    }
  }
}

// Clause: ABI-GEN-1 (a library exporting only version 1 functions is reported as before)
TEST(Verify16, VersionOneLibrariesAreNotShownTheVersionTwoFunctions) {
  const auto r = vt::run_with(Bug::None, vt::options({"rope.oracle"}, 0.1));
  EXPECT_TRUE(r.missing.empty());
  for (const auto& c : r.checks) EXPECT_NE(c.function.find("f32"), std::string::npos) << c.name;
  EXPECT_EQ(r.find("rope.bf16.oracle"), nullptr);
}

}  // namespace

namespace {

// Clause: ABI-STORE-2 (a 16-bit counterexample is stored under its check and function, and
// replays as a case of that function: its inputs are values of the format)
TEST(Verify16, SixteenBitCounterexamplesAreStoredAndReplayed) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("pecheck_v16_corpus_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto o = vt::options({"rope.bf16.oracle", "alibi.f16.oracle"}, 0.3);
  o.corpus_dir = dir.string();
  const auto first = [&] {
    testk::g_bug = Bug::AngleIn16Bit;
    auto r = pecheck::verify(testk::all16(), o);
    testk::g_bug = Bug::None;
    return r;
  }();
  ASSERT_EQ(vt::check(first, "rope.bf16.oracle").status, CheckStatus::Fail);
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_GE(files, 1u);
  testk::g_bug = Bug::AngleIn16Bit;
  const auto again = pecheck::verify(testk::all16(), o);
  testk::g_bug = Bug::None;
  const auto& c = vt::check(again, "rope.bf16.oracle");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  EXPECT_NE(c.reason.find("stored counterexample fails again"), std::string::npos) << c.reason;
  EXPECT_EQ(c.counterexample->function, "pec_rope_bf16");
  // The fixed kernel passes the stored case (and the ALiBi check, which stored nothing).
  const auto fixed = pecheck::verify(testk::all16(), o);
  EXPECT_TRUE(fixed.passed()) << failures(fixed);
  fs::remove_all(dir);
}

}  // namespace

namespace {

// Clause: ABI-STORE-1 (the accuracy class of a 16-bit function: its dtype's rows, chosen per
// scheme or per function)
TEST(Verify16, AccuracyClassesArePerStorageType) {
  using pecheck::verifier::Storage;
  namespace v = pecheck::verifier;
  const auto a = v::parse_accuracy("rope.bf16=reference,alibi=powf");
  EXPECT_EQ(v::chosen_class(a, "rope", Storage::BF16), "reference");
  EXPECT_EQ(v::chosen_class(a, "rope", Storage::F32), "field");  // the float32 function keeps the default
  EXPECT_EQ(v::chosen_class(a, "rope", Storage::F16), "field");
  EXPECT_EQ(v::chosen_class(a, "alibi", Storage::F16), "powf");  // a scheme's class applies to every dtype
  EXPECT_EQ(v::chosen_class(a, "alibi", Storage::F32), "powf");
  EXPECT_EQ(v::class_row("rope", "field", Storage::F16).dtype, "f16");
  EXPECT_THROW(v::parse_accuracy("rope.bf16=nope"), pecheck::UsageError);
  EXPECT_THROW(v::parse_accuracy("rope.f64=field"), pecheck::UsageError);
  EXPECT_THROW(v::parse_accuracy("learned.bf16=field"), pecheck::UsageError);
  // Every float32 class of a scheme has its 16-bit row (spec/budgets.tsv, contracts.md).
  for (const char* s : {"rope", "alibi", "sinusoidal"}) {
    EXPECT_EQ(v::accuracy_classes(s, Storage::BF16), v::accuracy_classes(s, Storage::F32)) << s;
    EXPECT_EQ(v::accuracy_classes(s, Storage::F16), v::accuracy_classes(s, Storage::F32)) << s;
  }
}

}  // namespace
