// pecheck's kernel verification, the C++ API.
//
//   pecheck::KernelTable t;
//   t.rope_f32 = &my_rope;                        // any subset of the pec_* functions
//   pecheck::VerifyResult r = pecheck::verify(t, {});
//   EXPECT_TRUE(r.passed()) << ...;
//
// The same checks and the same result structure as `pecheck verify --kernel LIB.so`. By
// default each call runs in a forked worker process, so a crashing or hanging kernel becomes a
// counterexample instead of ending the test program; `isolate = false` calls in-process.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "report/result.hpp"
#include "verify/isolation/kernel_table.hpp"

namespace pecheck {

using VerifyResult = report::VerifyResult;

struct VerifyOptions {
  std::uint64_t seed = 0;               // cases are a function of (seed, check, case index)
  double budget_seconds = 60.0;         // wall-clock cap for the whole run (0 = none); a cut check is incomplete
  std::int64_t max_position = 131072;   // largest position generated
  // --max-position was given: stored cases beyond it are outside the run and not replayed (a
  // value other than the default counts as given; the default bounds only the generators).
  bool max_position_given = false;
  std::string contract = "logits";      // "logits" or "softmax" (ABI-ALIBI-3)
  std::vector<std::string> only;        // run only these checks (names or name prefixes)
  bool isolate = true;                  // fork a worker process for the kernel calls
  double call_timeout_seconds = 1.0;    // per kernel call (isolated mode)
  double case_scale = 1.0;              // multiplies every check's case count
  std::int64_t shard_index = 0;         // run case indices i with i % shard_count == shard_index
  std::int64_t shard_count = 1;
  std::string kernel_label;             // library path for reports and reproduce lines
  std::string kernel_flag = "--kernel"; // the option that names it in reproduce lines ("--python MOD:OBJ")
  // How reproduce lines name pecheck: the command as invoked when that is not the `pecheck` found
  // on PATH (`build/pecheck`), else "pecheck", so a printed line pastes as printed (cli/app.cpp).
  std::string program = "pecheck";
  std::string corpus_dir;               // --corpus DIR: replay DIR first, store new counterexamples (verify/corpus.hpp)
  bool regressions = true;              // replay the shipped regression vectors (regressions/) first
  // Accuracy class per scheme (verify/accuracy.hpp; --accuracy): absent = "field", the default
  // class that every standard float32 formula of the field meets (spec/contracts.md).
  std::map<std::string, std::string> accuracy;
  bool strict = false;                  // --strict: also the argument-hygiene rejections (spec/abi.md tier B)
  std::int64_t only_case = -1;          // --case I: run only case index I of each selected check
  std::string domain;                   // --domain: a declared domain (spec/abi.md ABI-DOM-*), "" = none
  // --require-resolved P: RoPE oracle checks fail unless every tested position <= P is resolved
  // (position error < 1/2 at the fastest pair; spec/contracts.md); 0 = not required.
  std::int64_t require_resolved = 0;
  // --jobs: parallel lanes (forked copies sharing the one loaded library), each running one
  // function's valid-call or rejection checks at a time; the cases and verdicts do not depend on
  // it, only the wall time does (1 = sequential). 4 by default on any machine: a lane waiting for a
  // hanging call uses no CPU, and CPU-bound lanes beyond the cores only share them.
  int jobs = 4;
  // Called after each check (progress display); may be empty.
  std::function<void(const report::CheckResult&, std::size_t done, std::size_t total)> on_check;
  // Progress display: when set, every case run adds 1 here. It must live in memory shared with
  // the lanes (MAP_SHARED, cli/cmd_verify.cpp), which run checks in forked copies of pecheck.
  std::atomic<std::int64_t>* progress_cases = nullptr;
};

// Verifies every function present in `table`.
VerifyResult verify(const KernelTable& table, const VerifyOptions& options);

// Loads a plug-in library (in a worker process) and verifies it. Throws pecheck::UsageError with
// a one-line reason when the library cannot be loaded, exports no pec_* function or reports
// another ABI version (ABI-GEN-1).
VerifyResult verify_library(const std::string& path, const VerifyOptions& options);

// Verifies what a kernel provider library loads from `spec` (its pecheck_provider_open,
// verify/isolation/kernel_call.hpp): the Python provider (src/python) and "MODULE:OBJECT" for
// `pecheck verify --python`. The provider is loaded once, in the fork server, and every call runs
// in a worker forked from it, as a plug-in library's. Throws UsageError as verify_library does.
VerifyResult verify_provider(const std::string& provider_library, const std::string& spec, const VerifyOptions& options);

// Names of every check, in run order (for --only and documentation).
std::vector<std::string> check_names();

// --list-checks: loads the library (in a worker) and lists the checks of the functions it
// exports, one line each: name, function, clause, and "[--strict]" for the opt-in ones; then a
// line per stray export (a misspelt or C++-mangled pec_* name). Throws UsageError as
// verify_library does.
std::vector<std::string> list_library_checks(const std::string& path);

}  // namespace pecheck
