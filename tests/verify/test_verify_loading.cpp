// Loading a plug-in library (spec/abi.md ABI-GEN-1): every way a library can be unusable is a
// pecheck::UsageError (exit status 2) with a one-line reason, and a library that crashes while
// loading cannot take pecheck down (it is loaded in a worker process).
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/error.hpp"
#include "verify_test_util.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kPlugins = PECHECK_VERIFY_PLUGINS;

std::string load_error(const std::string& path) {
  try {
    pecheck::verify_library(path, vt::options({"rope.oracle"}, 0.05));
  } catch (const pecheck::UsageError& e) {
    return e.what();
  }
  return "";
}

fs::path temp_copy(const std::string& name, const std::string& from) {
  const fs::path p = fs::temp_directory_path() / ("pecheck_verify_" + std::to_string(getpid()) + "_" + name);
  fs::copy_file(from, p, fs::copy_options::overwrite_existing);
  return p;
}

void patch(const fs::path& p, std::streamoff at, const std::string& bytes) {
  std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(at);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == std::string::npos; }

}  // namespace

// Clause: ABI-GEN-1
TEST(VerifyLoading, MissingLibraryIsAUsageError) {
  const auto e = load_error("/nonexistent/libkernel.so");
  EXPECT_NE(e.find("cannot open kernel library"), std::string::npos) << e;
  EXPECT_TRUE(one_line(e));
}

// Clause: ABI-GEN-1
TEST(VerifyLoading, NonElfFileIsRefused) {
  const fs::path p = fs::temp_directory_path() / ("pecheck_verify_text_" + std::to_string(getpid()) + ".so");
  std::ofstream(p) << "this is not a shared object\n";
  const auto e = load_error(p);
  fs::remove(p);
  EXPECT_NE(e.find("is not an ELF shared object"), std::string::npos) << e;
}

// Clause: ABI-GEN-1
TEST(VerifyLoading, LibraryForAnotherArchitectureIsRefused) {
  const fs::path p = temp_copy("arch.so", kPlugins + "/libgood_rope.so");
  // e_machine at offset 18: EM_AARCH64 (183) on x86-64 hosts, EM_X86_64 (62) elsewhere.
#if defined(__x86_64__)
  patch(p, 18, std::string("\xb7\x00", 2));
#else
  patch(p, 18, std::string("\x3e\x00", 2));
#endif
  const auto e = load_error(p);
  fs::remove(p);
  EXPECT_NE(e.find("built for another architecture"), std::string::npos) << e;
}

// Clause: ABI-GEN-1
TEST(VerifyLoading, ThirtyTwoBitLibraryIsRefused) {
  const fs::path p = temp_copy("elf32.so", kPlugins + "/libgood_rope.so");
  patch(p, 4, std::string("\x01", 1));  // EI_CLASS = ELFCLASS32
  const auto e = load_error(p);
  fs::remove(p);
  EXPECT_NE(e.find("32-bit ELF"), std::string::npos) << e;
}

// Clause: ABI-GEN-1
TEST(VerifyLoading, LibraryWithoutPecExportsIsRefused) {
  const auto e = load_error(kPlugins + "/libno_exports.so");
  EXPECT_NE(e.find("exports no pec_* function"), std::string::npos) << e;
}

// Clause: ABI-GEN-1
TEST(VerifyLoading, OtherAbiVersionIsRefused) {
  const auto e = load_error(kPlugins + "/libwrong_version.so");
  EXPECT_NE(e.find("reports ABI version 3"), std::string::npos) << e;
}

// Clause: ABI-GEN-1 ABI-GEN-7
TEST(VerifyLoading, LibraryThatCrashesWhileLoadingDoesNotTakePecheckDown) {
  const auto e = load_error(kPlugins + "/libctor_crash.so");
  EXPECT_NE(e.find("crashed while loading (SIGSEGV)"), std::string::npos) << e;
  EXPECT_TRUE(one_line(e));
}

// Clause: ABI-GEN-1
TEST(VerifyLoading, UnresolvedSymbolReportsTheLoadersReason) {
  const auto e = load_error(kPlugins + "/libundefined_symbol.so");
  EXPECT_NE(e.find("pecheck_test_vanishing_symbol"), std::string::npos) << e;
}

// Clause: ABI-GEN-1
TEST(VerifyLoading, ExportedFunctionsAreListedAndTheOthersSkipped) {
  const auto r = pecheck::verify_library(kPlugins + "/libgood_rope.so", vt::options({"rope.oracle"}, 0.2));
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(r.exported, std::vector<std::string>{"pec_rope_f32"});
  EXPECT_EQ(r.missing.size(), 4u);
  ASSERT_TRUE(r.abi_version.has_value());
  EXPECT_EQ(*r.abi_version, PEC_ABI_VERSION);
  EXPECT_EQ(vt::check(r, "rope.oracle").status, pecheck::report::CheckStatus::Pass);
  EXPECT_GT(vt::check(r, "rope.oracle").cases, 0);
  const auto& skipped = vt::check(r, "alibi.oracle");
  EXPECT_EQ(skipped.status, pecheck::report::CheckStatus::Skipped);
  EXPECT_NE(skipped.reason.find("not exported"), std::string::npos);
}

// Clause: ABI-GEN-1 ABI-STORE-1 ABI-STORE-2 (the fork server resolves the 16-bit symbols and the
// worker calls them with their own signatures; a version 2 library sees every gap listed)
TEST(VerifyLoading, SixteenBitFunctionsAreLoadedAndVerified) {
  auto o = vt::options({"rope.bf16", "learned.f16"}, 0.3);
  o.strict = true;
  const auto r = pecheck::verify_library(kPlugins + "/libgood_sixteen.so", o);
  EXPECT_TRUE(r.passed()) << [&] {
    std::string s;
    for (const auto& c : r.checks)
      if (c.counterexample) s += c.name + ": " + c.counterexample->message + "\n";
    return s;
  }();
  EXPECT_EQ(r.exported, (std::vector<std::string>{"pec_rope_bf16", "pec_learned_f16"}));
  // The attention functions are listed only for a library that exports one of them (ABI-ATTN).
  EXPECT_EQ(r.missing.size(), static_cast<std::size_t>(pecheck::verifier::kFnCount - pecheck::verifier::kAttentionFnCount) - 2);
  for (const char* name : {"rope.bf16.oracle", "rope.bf16.inplace", "rope.bf16.shift", "rope.bf16.bounds",
                           "rope.bf16.reject.null", "rope.bf16.batch", "learned.f16.lookup", "learned.f16.written",
                           "learned.f16.batch"}) {
    EXPECT_EQ(vt::check(r, name).status, pecheck::report::CheckStatus::Pass) << name;
    EXPECT_GT(vt::check(r, name).cases, 0) << name;
  }
  EXPECT_EQ(vt::check(r, "rope.oracle").status, pecheck::report::CheckStatus::Skipped);
  EXPECT_NE(vt::check(r, "rope.oracle").reason.find("pec_rope_f32 is not exported"), std::string::npos);
}

#ifdef PECHECK_BIN
namespace {
// Runs the pecheck binary; returns its exit status and its stderr.
int run_cli(const std::string& args, std::string* err) {
  const fs::path errf = fs::temp_directory_path() / ("pecheck_verify_err_" + std::to_string(getpid()));
  const std::string cmd = std::string(PECHECK_BIN) + " " + args + " >/dev/null 2>" + errf.string();
  const int st = std::system(cmd.c_str());
  std::ifstream in(errf);
  err->assign(std::istreambuf_iterator<char>(in), {});
  fs::remove(errf);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
}  // namespace

// Clause: ABI-GEN-1
TEST(VerifyCli, ExitStatusTwoWithOneLineForUnloadableLibraries) {
  for (const std::string& lib : std::vector<std::string>{"/nonexistent.so", kPlugins + "/libno_exports.so", kPlugins + "/libwrong_version.so",
                                kPlugins + "/libctor_crash.so"}) {
    std::string err;
    EXPECT_EQ(run_cli("verify --kernel " + lib, &err), 2) << lib;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  }
}

TEST(VerifyCli, BadUsageIsExitStatusTwo) {
  std::string err;
  const std::string good = kPlugins + "/libgood_rope.so";
  EXPECT_EQ(run_cli("verify --kernel " + good + " --contract bogus", &err), 2);
  EXPECT_EQ(run_cli("verify --kernel " + good + " --only no.such.check", &err), 2);
  EXPECT_NE(err.find("unknown check"), std::string::npos) << err;
  EXPECT_EQ(run_cli("verify", &err), 2);
}

// Clause: ABI-ROPE-2
TEST(VerifyCli, PassingKernelExitsZero) {
  std::string err;
  EXPECT_EQ(run_cli("verify --kernel " + kPlugins + "/libgood_rope.so --only rope.oracle --only rope.reject", &err), 0)
      << err;
}
#endif
