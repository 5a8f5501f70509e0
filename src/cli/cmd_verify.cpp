// pecheck verify: checks a kernel plug-in library against spec/abi.md.
//
//   pecheck verify --kernel PATH.so | --python MODULE:OBJECT (docs/python.md) [--report DIR] [--junit FILE] [--seed N]
//                  [--budget-seconds S] [--max-position N] [--contract logits|softmax]
//                  [--only CHECK]... [--format text|json] [--jobs N]
//
// Exit status: 0 every check passed, 1 a counterexample was found (or a check could not
// decide, or the time cap cut one short: incomplete), 2 bad usage or a library that cannot be
// loaded, 3 a report could not be written.
#include <limits.h>
#include <unistd.h>

#include <cstdlib>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "report/json.hpp"
#include "report/write.hpp"
#include "verify/checks/accuracy.hpp"
#include "verify/shard.hpp"
#include "verify/verify.hpp"

namespace pecheck::cli {

namespace {

struct VerifyArgs {
  std::string kernel;
  std::string python;  // --python MODULE:OBJECT (docs/python.md)
  std::string report_dir;
  std::string junit;
  std::uint64_t seed = 0;
  double budget_seconds = VerifyOptions{}.budget_seconds;
  std::int64_t max_position = VerifyOptions{}.max_position;
  std::string contract = "logits";
  std::vector<std::string> only;
  std::string format = "text";
  double call_timeout = 0;  // 0: VerifyOptions' default, kPythonCallTimeout with --python
  int jobs = VerifyOptions{}.jobs;
  std::string corpus;      // CI gate (README "CI gate"): failure corpus,
  std::string shard;       // I/N split,
  bool no_regressions = false;  // and the shipped regression vectors
  std::vector<std::string> accuracy;  // --accuracy CLASS | scheme=CLASS[,...] (repeatable)
  bool strict = false;
  std::int64_t only_case = -1;
  std::string domain;
};

// The Python kernel provider (src/python): $PECHECK_PYTHON_PROVIDER, else
// python/pecheck/libpecheck_python.so next to this executable (the build tree's layout).
std::string python_provider() {
  if (const char* env = std::getenv("PECHECK_PYTHON_PROVIDER"); env && *env) return env;
  char exe[PATH_MAX] = {};
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::string dir = n > 0 ? std::string(exe, static_cast<std::size_t>(n)) : std::string();
  dir = dir.substr(0, dir.find_last_of('/') + 1);
  const std::string path = dir + "python/pecheck/libpecheck_python.so";
  if (access(path.c_str(), R_OK) != 0) {
    throw UsageError("--python: this pecheck has no Python kernel provider (" + path +
                     " is missing: configure found no python3-dev/pybind11-dev/python3-numpy; see docs/python.md)");
  }
  return path;
}

int run_verify(const VerifyArgs& a) {
  if (a.kernel.empty() == a.python.empty()) throw UsageError("verify: give exactly one of --kernel LIB.so and --python MODULE:OBJECT");
  VerifyOptions o;
  o.seed = a.seed;
  o.budget_seconds = a.budget_seconds;
  o.max_position = a.max_position;
  o.contract = a.contract;
  o.only = a.only;
  // A Python call pays the interpreter and (on a worker's first call) torch's lazy start-up.
  constexpr double kPythonCallTimeout = 5.0;
  o.call_timeout_seconds = a.call_timeout > 0 ? a.call_timeout : a.python.empty() ? o.call_timeout_seconds : kPythonCallTimeout;
  o.jobs = a.jobs;
  o.kernel_label = a.python.empty() ? a.kernel : a.python;
  if (!a.python.empty()) o.kernel_flag = "--python";
  o.corpus_dir = a.corpus;
  o.regressions = !a.no_regressions;
  for (const auto& spec : a.accuracy) {
    for (const auto& [scheme, cls] : verifier::parse_accuracy(spec)) o.accuracy[scheme] = cls;
  }
  o.strict = a.strict;
  o.only_case = a.only_case;
  o.domain = a.domain;
  if (!a.shard.empty()) {
    const verifier::Shard s = verifier::parse_shard(a.shard);
    o.shard_index = s.index, o.shard_count = s.count;
  }
  const bool tty = isatty(STDERR_FILENO) != 0;
  if (tty) {
    o.on_check = [](const report::CheckResult& c, std::size_t done, std::size_t total) {
      std::fprintf(stderr, "\r\033[K[%zu/%zu] %-24s %s", done, total, c.name.c_str(),
                   std::string(report::to_string(c.status)).c_str());
      if (done == total) std::fprintf(stderr, "\r\033[K");
      std::fflush(stderr);
    };
  }
  const VerifyResult r = a.python.empty() ? verify_library(a.kernel, o) : verify_provider(python_provider(), a.python, o);
  {
    DeferSignals complete_files_only;  // Ctrl-C waits for the files (README "CI gate")
    if (!a.report_dir.empty()) report::write_report_dir(a.report_dir, r);
    if (!a.junit.empty()) report::write_junit(a.junit, r);
  }
  const std::string out = a.format == "json" ? report::render_json(r) : report::render_text(r);
  std::fwrite(out.data(), 1, out.size(), stdout);
  if (!out.empty() && out.back() != '\n') std::fputc('\n', stdout);
  for (const auto& n : r.notes) {
    if (a.format == "text" && n.starts_with("corpus: ")) std::fprintf(stdout, "%s\n", n.c_str());
  }
  std::fflush(stdout);
  return r.exit_status();
}

}  // namespace

void register_verify(CLI::App& app, Runner& run) {
  auto args = std::make_shared<VerifyArgs>();
  auto* sub = app.add_subcommand(
      "verify",
      "Verify a kernel plug-in (spec/pecheck_kernel.h): oracle agreement, relative-position properties, "
      "rejections, bounds, completeness, determinism; crashes and hangs isolated in a worker process.\n"
      "Exit status: 0 all checks pass, 1 counterexample or a check undecided or incomplete, 2 usage or load error, "
      "3 report not written.");
  sub->add_option("--kernel", args->kernel, "plug-in shared library (.so)");
  sub->add_option("--python", args->python,
                  "a Python kernel instead: MODULE:OBJECT (a module name or a .py file; OBJECT, default the module, "
                  "has callables named after the pec_* functions without the prefix; docs/python.md)");
  sub->add_option("--report", args->report_dir, "write DIR/report.json, report.md, report.html");
  sub->add_option("--junit", args->junit, "write JUnit XML to FILE");
  sub->add_option("--seed", args->seed, "seed of the case generators (same seed, same result)")
      ->check(seed_check());
  sub->add_option("--budget-seconds", args->budget_seconds, "wall-clock cap of the whole run (0 = none); checks it cuts short are incomplete, never pass")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--max-position", args->max_position, "largest position generated")
      ->check(CLI::Range(std::int64_t{1}, (std::int64_t{1} << 31) - 1));
  sub->add_option("--contract", args->contract, "logits (default) or softmax (per-row constants allowed)")
      ->check(CLI::IsMember({"logits", "softmax"}));
  sub->add_option("--only", args->only,
                  "run only CHECK (a name like rope.oracle or rope.bf16.oracle, a scheme like rope, or a family like "
                  ".reject; naming .batch runs the batch-invariance checks without --strict)");
  sub->add_option("--format", args->format, "stdout format: text or json")->check(CLI::IsMember({"text", "json"}));
  sub->add_option("--call-timeout", args->call_timeout, "seconds one kernel call may take before it counts as a hang (default 1; 5 with --python)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--jobs", args->jobs,
                  "parallel lanes sharing the one loaded library, each running one function's checks at a time "
                  "(default 4; 1 = one after another); cases and verdicts do not depend on it")
      ->check(CLI::Range(1, 64));
  sub->add_option("--corpus", args->corpus,
                  "failure corpus DIR: replay its cases first, store every new counterexample there");
  sub->add_option("--shard", args->shard, "run shard I of N (I/N, 0-based): N runners cover one run");
  sub->add_flag("--no-regressions", args->no_regressions, "do not replay the shipped regression vectors first");
  sub->add_option("--accuracy", args->accuracy,
                  "accuracy class judged by the oracle and shift checks: CLASS for every scheme that has it, or "
                  "scheme=CLASS[,scheme=CLASS] (rope: accurate, reference, fma, powf, ggml, field; alibi: reference, "
                  "powf, field; sinusoidal: accurate, reference, field), or scheme.dtype=CLASS for one 16-bit "
                  "function (rope.bf16=reference). Default: field");
  sub->add_flag("--strict", args->strict,
                "ABI conformance mode for library authors: also require the argument-hygiene rejections (tier B of "
                "spec/abi.md: NULL arrays, non-finite scalars, sizes and positions outside the domain) and batch "
                "invariance (ABI-BATCH-1: bit-identical outputs whatever the batch)");
  sub->add_option("--case", args->only_case, "run only case index I of each selected check (a worst-case replay)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--domain", args->domain,
                  "declared domain of the kernel (spec/abi.md ABI-DOM-*): 'key=v[,v];...' or a file; generation stays "
                  "inside it, rejections outside it are accepted");
  sub->callback([&run, args] { run = [args] { return run_verify(*args); }; });
}

}  // namespace pecheck::cli
