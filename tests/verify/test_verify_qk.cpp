// The checks of the version 2 RoPE functions (query+key with GQA and strided views, rotation
// from a cos/sin cache, the cache builder) against in-process test kernels: the honest ones
// pass every check in every storage type, and each bug fails with the clause it breaks.
#include <set>

#include "core/error.hpp"
#include "test_kernels_qk.hpp"
#include "verify/checks/accuracy.hpp"
#include "verify/rope_v2/cases.hpp"
#include "verify_test_util.hpp"

using pecheck::report::CheckStatus;
using testk::QkBug;

namespace {

pecheck::VerifyResult run_qk(QkBug bug, const pecheck::VerifyOptions& o) {
  testk::g_qk_bug = bug;
  auto r = pecheck::verify(testk::qk_all(), o);
  testk::g_qk_bug = QkBug::None;
  return r;
}

// The check failed with one of the given clauses (a defect may show first in either).
void expect_fail(const pecheck::VerifyResult& r, const std::string& name,
                 std::set<std::string> clauses) {
  const auto& c = vt::check(r, name);
  ASSERT_EQ(c.status, CheckStatus::Fail) << name;
  ASSERT_TRUE(c.counterexample.has_value());
  EXPECT_TRUE(clauses.count(c.counterexample->clause))
      << name << ": " << c.counterexample->clause << " " << c.counterexample->message;
  EXPECT_NE(c.counterexample->reproduce.find("--only " + name), std::string::npos);
}

// Options for runs of correct kernels: the builder writes up to 2^19 elements per call, which
// the 0.3 s hang limit of vt::options does not always allow a loaded machine (a kernel that is
// slow is not the subject here; the hang tests are test_verify_isolation's).
pecheck::VerifyOptions honest_options(std::vector<std::string> only, double scale) {
  auto o = vt::options(std::move(only), scale);
  o.call_timeout_seconds = 5;
  return o;
}

}  // namespace

// Clause: ABI-QK-1 ABI-QK-2 ABI-QK-3 ABI-QK-4 ABI-VIEW-1 ABI-VIEW-2 ABI-CACHE-1 ABI-CACHE-2
// ABI-CACHE-3 Clause: ABI-BATCH-1 ABI-GEN-4 ABI-GEN-5 ABI-GEN-6 ABI-GEN-8 PREC-CACHE-1 PREC-QK-1
TEST(VerifyQk, HonestKernelsPassEveryCheckInEveryStorageType) {
  auto o = honest_options({"rope_qk", "rope_cached", "rope_cache"}, 0.25);
  o.strict = true;  // both rejection tiers and batch invariance
  const auto r = run_qk(QkBug::None, o);
  std::set<std::string> clauses, names;
  for (const auto& c : r.checks) {
    if (c.status == CheckStatus::Skipped) continue;
    EXPECT_EQ(c.status, CheckStatus::Pass)
        << c.name << ": " << c.reason << (c.counterexample ? c.counterexample->message : "");
    EXPECT_GT(c.cases, 0) << c.name;
    clauses.insert(c.clause);
    names.insert(c.name);
  }
  for (const char* k :
       {"ABI-QK-1", "ABI-QK-2", "ABI-QK-3", "ABI-QK-4", "ABI-VIEW-2", "ABI-CACHE-1", "ABI-CACHE-2",
        "ABI-CACHE-3", "ABI-BATCH-1", "ABI-GEN-4", "ABI-GEN-5", "ABI-GEN-6", "ABI-GEN-3"}) {
    EXPECT_TRUE(clauses.count(k)) << k;
  }
  for (const char* n :
       {"rope_qk.oracle", "rope_qk.bf16.oracle", "rope_qk.f16.oracle", "rope_cached.oracle",
        "rope_cached.bf16.oracle", "rope_cached.f16.oracle", "rope_cache.oracle",
        "rope_cache.bf16.oracle", "rope_cache.f16.oracle", "rope_qk.bf16.gaps",
        "rope_cached.f16.reject.cache-range", "rope_qk.reject.gqa", "rope_qk.f16.batch"}) {
    EXPECT_TRUE(names.count(n)) << n;
  }
  EXPECT_GT(vt::check(r, "rope_qk.bf16.oracle").elements, 0);
  ASSERT_TRUE(vt::check(r, "rope_cached.oracle").accuracy.has_value());
}

// Clause: ABI-VIEW-1 ABI-QK-1
// The valid generator reaches the shapes and views where kernels break: MQA, GQA with an odd
// ratio, n_kv == n_q, head-major and fused-QKV views, gaps, in place, attention factors.
TEST(VerifyQk, GeneratorCoversGqaViewsAndAttentionFactors) {
  using namespace pecheck::verifier;
  bool mqa = false, odd_ratio = false, mha = false, head_major = false, fused = false, gaps = false,
       in_place = false, attn = false, cache16 = false;
  for (std::uint64_t i = 0; i < 400; ++i) {
    Rng r = Rng::for_case(0, "coverage", i);
    GenParams p;
    p.storage = Storage::BF16;
    const RopeQkCase c = gen_rope_qk(r, p);
    ASSERT_EQ(invalid_reason(c), "") << i;
    mqa |= c.n_kv_heads == 1 && c.n_q_heads > 1;
    odd_ratio |=
        (c.n_q_heads / c.n_kv_heads) % 2 == 1 && c.n_kv_heads > 1 && c.n_q_heads > c.n_kv_heads;
    mha |= c.n_q_heads == c.n_kv_heads && c.n_q_heads > 1;
    for (const ViewSpec* v : {&c.q_view, &c.k_view, &c.q_out_view, &c.k_out_view}) {
      head_major |= v->kind == ViewSpec::HeadMajor;
      fused |= v->kind == ViewSpec::FusedQkv;
      gaps |= v->head_gap > 0 || v->token_gap > 0;
    }
    in_place |= c.q_in_place || c.k_in_place;
    attn |= c.attn_factor != 1.0;
    for (float v : c.q) ASSERT_EQ(round_to_storage(v, Storage::BF16), v);
    Rng r2 = Rng::for_case(0, "coverage-cached", i);
    const RopeCachedCase d = gen_rope_cached(r2, p);
    ASSERT_EQ(invalid_reason(d), "") << i;
    cache16 |= d.cache_dtype != PEC_DTYPE_F32;
    for (auto pos : d.positions) ASSERT_LT(pos, d.cache_positions);
  }
  EXPECT_TRUE(mqa && odd_ratio && mha && head_major && fused && gaps && in_place && attn &&
              cache16);
}

// Clause: ABI-CACHE-2
// Indexing the cache by the token's index instead of its position reads a NaN row or a wrong one.
TEST(VerifyQk, CacheIndexedByTokenInsteadOfPositionFails) {
  const auto r = run_qk(QkBug::CacheByTokenIndex,
                        vt::options({"rope_cached.oracle", "rope_cached.bf16.oracle"}));
  expect_fail(r, "rope_cached.oracle", {"ABI-CACHE-2"});
  expect_fail(r, "rope_cached.bf16.oracle", {"ABI-CACHE-2"});
}

// Clause: ABI-VIEW-2 ABI-GEN-4
// Rotating the key for the query's head count writes past the key's heads: into a gap or past
// the buffer.
TEST(VerifyQk, KeyRotatedWithTheQueryHeadCountFails) {
  auto r = run_qk(QkBug::KeyWithQueryHeads,
                  vt::options({"rope_qk.gaps", "rope_qk.bounds", "rope_cached.f16.bounds"}));
  const bool gaps = vt::check(r, "rope_qk.gaps").status == CheckStatus::Fail;
  const bool bounds = vt::check(r, "rope_qk.bounds").status == CheckStatus::Fail;
  EXPECT_TRUE(gaps || bounds);
  expect_fail(r, "rope_cached.f16.bounds", {"ABI-GEN-4", "ABI-GEN-7"});
}

// Clause: ABI-VIEW-1 ABI-VIEW-2 ABI-QK-2
// A kernel that ignores the strides writes into the gaps (and reads the wrong elements).
TEST(VerifyQk, IgnoringTheStridesFails) {
  const auto r = run_qk(QkBug::IgnoreStrides,
                        vt::options({"rope_qk.gaps", "rope_qk.oracle", "rope_cached.bf16.gaps"}));
  expect_fail(r, "rope_qk.gaps", {"ABI-VIEW-2"});
  expect_fail(r, "rope_qk.oracle", {"ABI-QK-2"});
  expect_fail(r, "rope_cached.bf16.gaps", {"ABI-VIEW-2"});
  EXPECT_NE(vt::check(r, "rope_qk.gaps").counterexample->message.find("gap after"),
            std::string::npos);
}

// Clause: ABI-QK-2 ABI-CACHE-3 PREC-QK-1
// The attention factor applied twice, or to cos only, fails the query+key form and the builder.
TEST(VerifyQk, AttentionFactorTwiceOrOnCosOnlyFails) {
  for (QkBug b : {QkBug::AttnTwice, QkBug::AttnCosOnly}) {
    const auto r = run_qk(b, vt::options({"rope_qk.oracle", "rope_qk.f16.oracle",
                                          "rope_cache.oracle", "rope_cache.bf16.oracle"}));
    expect_fail(r, "rope_qk.oracle", {"ABI-QK-2"});
    expect_fail(r, "rope_qk.f16.oracle", {"ABI-QK-2"});
    expect_fail(r, "rope_cache.oracle", {"ABI-CACHE-3"});
    expect_fail(r, "rope_cache.bf16.oracle", {"ABI-CACHE-3"});
  }
}

// Clause: PREC-CACHE-1 ABI-CACHE-2
// A float32 cache rounded to bf16 before the multiply fails the default class in every storage
// type; per-operation rounding in the storage type passes it on a 16-bit cache (vLLM's scalar_t
// arithmetic) but not the tighter `reference`.
TEST(VerifyQk, DegradedFloat32CacheFailsTheDefaultClassButPerOperationRoundingOnA16BitCachePasses) {
  const auto d = run_qk(QkBug::DegradeF32Cache,
                        vt::options({"rope_cached.oracle", "rope_cached.bf16.oracle"}));
  expect_fail(d, "rope_cached.oracle", {"ABI-CACHE-2"});
  expect_fail(d, "rope_cached.bf16.oracle", {"ABI-CACHE-2"});
  const auto p = run_qk(QkBug::PerOpStorage,
                        vt::options({"rope_cached.bf16.oracle", "rope_cached.f16.oracle"}));
  // The generated cases mix float32 and 16-bit caches: on the float32 ones per-operation
  // rounding is the degradation above, so the check fails, and only there.
  const auto& c = vt::check(p, "rope_cached.bf16.oracle");
  ASSERT_EQ(c.status, CheckStatus::Fail);
  EXPECT_EQ(std::get<std::string>(vt::arg(*c.counterexample, "cache_dtype")), "f32");
  auto o = vt::options({"rope_cached.bf16.oracle"});
  o.accuracy = {{"rope_cached", "reference"}};
  const auto q = run_qk(QkBug::PerOpStorage, o);
  EXPECT_EQ(vt::check(q, "rope_cached.bf16.oracle").status, CheckStatus::Fail);
}

// Clause: ABI-QK-3
// bf16 positions break the relative scores of every group.
TEST(VerifyQk, Bf16PositionsBreakTheScoresOfTheGroups) {
  const auto r = run_qk(QkBug::Bf16Position, vt::options({"rope_qk.shift"}, 1.0));
  expect_fail(r, "rope_qk.shift", {"ABI-QK-3"});
  EXPECT_NE(vt::check(r, "rope_qk.shift").counterexample->message.find("key head"),
            std::string::npos);
}

// Clause: ABI-QK-4
TEST(VerifyQk, InPlaceAliasingFailsOnlyInPlace) {
  const auto r = run_qk(QkBug::InPlaceAlias, vt::options({"rope_qk.inplace"}));
  expect_fail(r, "rope_qk.inplace", {"ABI-QK-4"});
}

// Clause: ABI-GEN-8 ABI-QK-1 ABI-CACHE-1
// A kernel that trusts its arguments fails the tier A rejections by default where it touches
// memory outside the call (rotary range, cache range); strides (a trusting kernel
// stays inside the buffer the view spans, ABI-VIEW-1) and the rest of tier B wait for --strict.
TEST(VerifyQk, TrustingKernelFailsTheMemorySafetyRejections) {
  const auto r = run_qk(QkBug::NoValidation, vt::options({"rope_qk.reject", "rope_cached.reject"}));
  for (const char* n : {"rope_qk.reject.rotary-range", "rope_cached.reject.cache-range"}) {
    const auto& c = vt::check(r, n);
    EXPECT_EQ(c.status, CheckStatus::Fail) << n;
  }
  // This kernel rotates each query and key head on its own (no pairing), so a bad GQA ratio
  // touches nothing outside the call: no harm, a pass by default, a failure under --strict.
  EXPECT_EQ(vt::check(r, "rope_qk.reject.gqa").status, CheckStatus::Pass);
  auto o = vt::options({"rope_qk.reject.gqa"});
  o.strict = true;
  EXPECT_EQ(vt::check(run_qk(QkBug::NoValidation, o), "rope_qk.reject.gqa").status, CheckStatus::Fail);
  EXPECT_EQ(vt::check(r, "rope_qk.reject.strides").status, CheckStatus::Skipped);
  EXPECT_EQ(vt::check(r, "rope_qk.reject.scalars").status, CheckStatus::Skipped);
  EXPECT_EQ(vt::check(r, "rope_cached.reject.cache-dtype").status, CheckStatus::Skipped);
}

// Clause: ABI-BATCH-1
// A result that depends on the batch length fails .batch (opted in by --only without --strict).
TEST(VerifyQk, BatchDependentResultFailsBatchInvariance) {
  const auto r = run_qk(QkBug::BatchDependent, vt::options({"rope_qk.batch", "rope_qk.oracle"}));
  expect_fail(r, "rope_qk.batch", {"ABI-BATCH-1"});
  EXPECT_EQ(vt::check(r, "rope_qk.oracle").status, CheckStatus::Pass);  // within the accuracy class
}

// Clause: PREC-CACHE-1 PREC-QK-1
// The version 2 schemes have --accuracy keys: rope_qk and rope_cache in the RoPE classes,
// rope_cached in its own (reference, field).
TEST(VerifyQk, AccuracyKeysOfTheVersion2Schemes) {
  using pecheck::verifier::parse_accuracy;
  const auto a = parse_accuracy("rope_qk=ggml,rope_cache.bf16=powf,rope_cached=reference");
  EXPECT_EQ(a.at("rope_qk"), "ggml");
  EXPECT_EQ(a.at("rope_cache.bf16"), "powf");
  EXPECT_EQ(a.at("rope_cached"), "reference");
  EXPECT_THROW(parse_accuracy("rope_cached=ggml"), pecheck::UsageError);
  EXPECT_EQ(pecheck::verifier::chosen_class(a, "rope_cached", pecheck::verifier::Storage::F16),
            "reference");
}

// Clause: ABI-QK-2 ABI-CACHE-2 ABI-CACHE-3 ABI-GEN-1
// Through dlopen and the fork server: a C plug-in exporting the float32 and bf16 query+key, cached
// and builder functions passes every check of them (the f16 ones are listed as not exported).
TEST(VerifyQk, PluginLoadedThroughDlopenPassesEveryCheck) {
  auto o = honest_options({"rope_qk", "rope_cached", "rope_cache"}, 0.2);
  o.strict = true;
  const auto r =
      pecheck::verify_library(std::string(PECHECK_VERIFY_PLUGINS) + "/libgood_rope_qk.so", o);
  std::size_t ran = 0;
  for (const auto& c : r.checks) {
    if (c.function.find("pec_rope_qk") == std::string::npos &&
        c.function.find("pec_rope_cache") == std::string::npos) {
      continue;  // not selected
    }
    // At --case-scale 0.2 the .large checks run none of their two cases (and say so).
    const bool f16 = c.function.find("_f16") != std::string::npos ||
                     (c.name.ends_with(".large") && c.reason.starts_with("--case-scale 0.2 runs none"));
    EXPECT_EQ(c.status, f16 ? CheckStatus::Skipped : CheckStatus::Pass)
        << c.name << ": " << c.reason << (c.counterexample ? c.counterexample->message : "");
    ran += c.status == CheckStatus::Pass;
  }
  EXPECT_GT(ran, 50u);
  EXPECT_EQ(r.exported.size(), 6u);
}

// Clause: PREC-QK-1 PREC-CACHE-1 ABI-QK-2 ABI-CACHE-2 ABI-CACHE-3
// The field's float32 formulas (HF: 1/powf(base, 2i/d), float angle, cosf/sinf, the attention
// factor as a float product, float rotation), rounded once to the storage type, meet the default
// classes: the attention factor's two extra roundings are inside PREC-QK-1's row.
TEST(VerifyQk, FieldFloat32FormulasPassTheDefaultClasses) {
  const auto r =
      run_qk(QkBug::FloatField,
             honest_options({"rope_qk.oracle", "rope_qk.bf16.oracle", "rope_qk.f16.oracle",
                             "rope_qk.shift", "rope_cached.oracle", "rope_cached.bf16.oracle",
                             "rope_cache.oracle", "rope_cache.f16.oracle"},
                            1.0));
  for (const auto& c : r.checks) {
    if (c.status == CheckStatus::Skipped) continue;
    EXPECT_EQ(c.status, CheckStatus::Pass)
        << c.name << ": " << (c.counterexample ? c.counterexample->message : c.reason);
    EXPECT_GT(c.cases, 0) << c.name;
  }
}

// Clause: ABI-DOM-1 ABI-DOM-2
// A kernel that supports NEOX with head_dim 64 and 128 only passes inside its declared domain
// (the rope.* rules hold for the query+key and cached functions) and fails ABI-GEN-2 without it.
TEST(VerifyQk, DeclaredRopeDomainHoldsForQueryKeyAndCachedFunctions) {
  auto o = honest_options(
      {"rope_qk.oracle", "rope_qk.bf16.shift", "rope_cached.oracle", "rope_cached.f16.inplace"},
      0.3);
  o.domain = "rope.layout=neox;rope.head_dim=64,128";
  const auto in = run_qk(QkBug::NeoxOnly, o);
  for (const char* n :
       {"rope_qk.oracle", "rope_qk.bf16.shift", "rope_cached.oracle", "rope_cached.f16.inplace"}) {
    EXPECT_EQ(vt::check(in, n).status, CheckStatus::Pass) << n;
  }
  o.domain.clear();
  const auto out = run_qk(QkBug::NeoxOnly, o);
  expect_fail(out, "rope_qk.oracle", {"ABI-GEN-2"});
  expect_fail(out, "rope_cached.oracle", {"ABI-GEN-2"});
}
