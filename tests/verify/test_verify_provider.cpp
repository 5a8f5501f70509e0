// Kernel providers (verify/isolation/kernel_call.hpp; the Python provider of docs/python.md
// uses the same path): verify_provider loads the provider once in the fork server, takes the
// table its pecheck_provider_open fills, and a call that fails without returning (a Python
// exception: KernelTable::failure) is a counterexample of kind "exception" naming the reason,
// forked or in-process, while the worker lives on.
#include "verify_test_util.hpp"

#include "core/error.hpp"

using pecheck::report::CheckStatus;

namespace {
const std::string kPlugins = PECHECK_VERIFY_PLUGINS;
const std::string kProvider = kPlugins + "/libtest_provider.so";
}  // namespace

// Clause: ABI-GEN-7
TEST(VerifyProvider, ProvidedTableIsVerifiedLikeALibrary) {
  const auto r = pecheck::verify_provider(kProvider, kPlugins + "/libgood_rope.so", vt::options({"rope.oracle"}, 0.2));
  EXPECT_EQ(vt::check(r, "rope.oracle").status, CheckStatus::Pass) << vt::check(r, "rope.oracle").reason;
  EXPECT_EQ(r.kernel, kPlugins + "/libgood_rope.so");
  EXPECT_EQ(r.exit_status(), 0);
}

// Clause: ABI-GEN-7
TEST(VerifyProvider, FailureIsAnExceptionCounterexampleShrunk) {
  for (const bool isolate : {true, false}) {
    auto o = vt::options({"rope.oracle"}, 0.2);
    o.isolate = isolate;
    o.kernel_flag = "--python";
    const auto r = pecheck::verify_provider(kProvider, "raise:" + kPlugins + "/libgood_rope.so", o);
    const auto& c = vt::check(r, "rope.oracle");
    ASSERT_EQ(c.status, CheckStatus::Fail) << isolate;
    const auto& cx = *c.counterexample;
    EXPECT_EQ(cx.kind, "exception");
    EXPECT_EQ(cx.clause, "ABI-GEN-7");
    EXPECT_NE(cx.message.find("raised RuntimeError: two heads"), std::string::npos) << cx.message;
    EXPECT_EQ(vt::int_arg(cx, "n_heads"), 2);  // shrunk to the first "raising" shape
    EXPECT_EQ(cx.reproduce.rfind("pecheck verify --python raise:", 0), 0u) << cx.reproduce;
    EXPECT_EQ(r.exit_status(), 1);
  }
}

// Clause: ABI-GEN-1
TEST(VerifyProvider, LoadFailureIsAUsageErrorWithTheProvidersReason) {
  try {
    pecheck::verify_provider(kProvider, "refuse", vt::options({"rope.oracle"}, 0.05));
    FAIL() << "no UsageError";
  } catch (const pecheck::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot load refuse: ValueError: refused on purpose"), std::string::npos)
        << e.what();
  }
  // A plain plug-in is not a provider.
  EXPECT_THROW(pecheck::verify_provider(kPlugins + "/libgood_rope.so", "x", vt::options({"rope.oracle"}, 0.05)),
               pecheck::UsageError);
}
