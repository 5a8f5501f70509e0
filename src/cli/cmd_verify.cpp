// pecheck verify: checks a kernel plug-in library against spec/abi.md.
//
//   pecheck verify --kernel PATH.so | --python MODULE:OBJECT (docs/python.md) [--report DIR] [--junit FILE] [--seed N]
//                  [--budget-seconds S] [--max-position N] [--contract logits|softmax]
//                  [--only CHECK]... [--format text|json] [--jobs N] [--list-checks]
//
// Exit status: 0 every check passed, 1 a counterexample was found (or a check could not
// decide or could not run), 2 bad usage, a library that cannot be loaded, or a selection that
// runs no check, 3 a report could not be written, 5 incomplete (nothing failed, but the time
// cap cut a check short).
#include <limits.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstdio>
#include <mutex>
#include <new>
#include <thread>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/verdict.hpp"
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
  bool list_checks = false;
  bool max_position_given = false;
  std::int64_t require_resolved = 0;
  double case_scale = 1.0;
};

// The functions a run tested, each with its number of checks that ran: "pec_rope_qk_bf16 (14
// checks)" — the first line of the text output, so a user sees at once what was verified.
std::string tested_line(const VerifyResult& r) {
  std::vector<std::pair<std::string, int>> fns;
  for (const auto& c : r.checks) {
    if (c.status == report::CheckStatus::Skipped || c.function.starts_with("(")) continue;
    auto it = std::find_if(fns.begin(), fns.end(), [&](const auto& f) { return f.first == c.function; });
    if (it == fns.end()) fns.emplace_back(c.function, 1);
    else ++it->second;
  }
  std::string s = "tested:";
  for (const auto& [f, n] : fns) s += (s.size() > 7 ? ", " : " ") + f + " (" + std::to_string(n) + " checks)";
  return s;
}

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
// The progress line (see run_verify). Written with write(2) from one thread; the lanes forked
// while it runs never touch it.
class Progress {
 public:
  ~Progress() { stop(); }
  void start(VerifyOptions& o) {
    void* p = mmap(nullptr, sizeof(std::atomic<std::int64_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;  // no progress line, the run is unchanged
    cases_ = new (p) std::atomic<std::int64_t>(0);
    o.progress_cases = cases_;
    t0_ = std::chrono::steady_clock::now();
    thread_ = std::thread([this] {
      std::unique_lock<std::mutex> lk(m_);
      while (!stop_) {
        draw(lk);
        cv_.wait_for(lk, std::chrono::milliseconds(250));
      }
    });
  }
  void check_done(const report::CheckResult& c, std::size_t done, std::size_t total) {
    std::lock_guard<std::mutex> lk(m_);
    done_ = done, total_ = total;
    last_ = c.name + " " + std::string(report::to_string(c.status));
  }
  void stop() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
    const char clear[] = "\r\033[K";
    [[maybe_unused]] ssize_t w = ::write(STDERR_FILENO, clear, sizeof clear - 1);
    munmap(cases_, sizeof(std::atomic<std::int64_t>));
    cases_ = nullptr;
  }

 private:
  void draw(std::unique_lock<std::mutex>&) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    std::string line = "\r\033[Kpecheck: ";
    line += total_ > 0 ? std::to_string(done_) + "/" + std::to_string(total_) + " checks" : std::string("starting");
    line += ", " + std::to_string(cases_->load(std::memory_order_relaxed)) + " cases";
    if (!last_.empty()) line += ", last: " + last_;
    char t[32];
    std::snprintf(t, sizeof t, " (%.0f s)", s);
    line += t;
    [[maybe_unused]] ssize_t w = ::write(STDERR_FILENO, line.data(), line.size());
  }
  std::atomic<std::int64_t>* cases_ = nullptr;
  std::chrono::steady_clock::time_point t0_;
  std::thread thread_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::size_t done_ = 0, total_ = 0;
  std::string last_;
};

int run_verify(const VerifyArgs& a) {
  if (a.kernel.empty() == a.python.empty()) throw UsageError("verify: give exactly one of --kernel LIB.so and --python MODULE:OBJECT");
  if (a.list_checks) {
    if (!a.python.empty()) throw UsageError("verify: --list-checks lists the checks of a --kernel library");
    for (const auto& line : list_library_checks(a.kernel)) std::printf("%s\n", line.c_str());
    return exit_code::ok;
  }
  VerifyOptions o;
  o.seed = a.seed;
  o.budget_seconds = a.budget_seconds;
  o.max_position = a.max_position;
  o.max_position_given = a.max_position_given;
  o.case_scale = a.case_scale;
  o.contract = a.contract;
  o.only = a.only;
  // A Python call pays the interpreter and (on a worker's first call) torch's lazy start-up.
  constexpr double kPythonCallTimeout = 5.0;
  o.call_timeout_seconds = a.call_timeout > 0 ? a.call_timeout : a.python.empty() ? o.call_timeout_seconds : kPythonCallTimeout;
  o.jobs = a.jobs;
  o.kernel_label = a.python.empty() ? a.kernel : a.python;
  if (!a.python.empty()) o.kernel_flag = "--python";
  o.program = program_name();
  o.corpus_dir = a.corpus;
  o.regressions = !a.no_regressions;
  for (const auto& spec : a.accuracy) {
    for (const auto& [scheme, cls] : verifier::parse_accuracy(spec)) o.accuracy[scheme] = cls;
  }
  o.strict = a.strict;
  o.only_case = a.only_case;
  o.domain = a.domain;
  o.require_resolved = a.require_resolved;
  if (!a.shard.empty()) {
    const verifier::Shard s = verifier::parse_shard(a.shard);
    o.shard_index = s.index, o.shard_count = s.count;
  }
  // Progress on stderr when it is a terminal (issue 22), silent otherwise: checks done of the
  // total, cases run so far (counted by every lane in shared memory), the last check finished
  // and the time, refreshed 4 times a second by a thread, so a slow kernel shows it is alive.
  const bool tty = isatty(STDERR_FILENO) != 0;
  Progress progress;
  if (tty) {
    progress.start(o);
    o.on_check = [&progress](const report::CheckResult& c, std::size_t done, std::size_t total) {
      progress.check_done(c, done, total);
    };
  }
  const VerifyResult r = a.python.empty() ? verify_library(a.kernel, o) : verify_provider(python_provider(), a.python, o);
  progress.stop();
  {
    DeferSignals complete_files_only;  // Ctrl-C waits for the files (README "CI gate")
    if (!a.report_dir.empty()) report::write_report_dir(a.report_dir, r);
    if (!a.junit.empty()) report::write_junit(a.junit, r);
  }
  const std::string out = a.format == "json" ? report::render_json(r) : report::render_text(r);
  if (a.format == "text") {
    std::printf("%s\n", tested_line(r).c_str());
    for (const auto& n : r.notes) {
      if (n.starts_with("warning: ") || n.starts_with("--accuracy ")) std::printf("%s\n", n.c_str());
    }
  }
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
      "Does my kernel compute what the model means, to the precision its arithmetic allows? Calls every pec_* "
      "function a plug-in library exports (spec/pecheck_kernel.h) in an isolated worker on generated inputs and "
      "checks agreement with the exact oracle, relative-position properties, rejections, bounds, completeness and "
      "determinism; a failure is shrunk and printed with the line that replays it.\n"
      "Exit status: 0 all checks pass, 1 counterexample (or a check undecided or not run), 2 usage or load error "
      "(also a selection that runs no check), 3 report not written, 5 incomplete (the time cap cut a check short).");
  sub->add_option("--kernel", args->kernel, "plug-in shared library (.so)");
  sub->add_option("--python", args->python,
                  "a Python kernel instead: MODULE:OBJECT (a module name or a .py file; OBJECT, default the module, "
                  "has callables named after the pec_* functions without the prefix; docs/python.md)");
  sub->add_option("--report", args->report_dir, "write DIR/report.json, report.md, report.html");
  sub->add_option("--junit", args->junit, "write JUnit XML to FILE");
  sub->add_option("--seed", args->seed, "seed of the case generators (same seed, same result)")
      ->check(seed_check());
  sub->add_option("--budget-seconds", args->budget_seconds, "wall-clock cap of the whole run (0 = none); checks it cuts short are incomplete, never pass")
      ->check(at_least(0));
  sub->add_option("--max-position", args->max_position, "largest position generated")
      ->check(CLI::Range(std::int64_t{1}, (std::int64_t{1} << 31) - 1));
  sub->add_option("--contract", args->contract, "logits (default) or softmax (per-row constants allowed)")
      ->check(CLI::IsMember({"logits", "softmax"}));
  sub->add_option("--only", args->only,
                  "run only CHECK: names are scheme[.dtype][.check] for every function (rope.oracle, rope.bf16.oracle, "
                  "rope_qk.bf16, mrope.f16.shift; float32's names carry no dtype, rope.f32.oracle = rope.oracle), a "
                  "family like .reject (naming .batch runs the batch-invariance checks without --strict); it must "
                  "select a check of the library (--list-checks lists them)");
  sub->add_option("--format", args->format, "stdout format: text or json")->check(CLI::IsMember({"text", "json"}));
  sub->add_option("--call-timeout", args->call_timeout, "seconds one kernel call may take before it counts as a hang (default 1; 5 with --python)")
      ->check(at_least(0, true));
  sub->add_option("--jobs", args->jobs,
                  "parallel lanes sharing the one loaded library, each running one function's checks at a time "
                  "(default 4; 1 = one after another); cases and verdicts do not depend on it")
      ->check(CLI::Range(1, 64));
  sub->add_option("--corpus", args->corpus,
                  "failure corpus DIR: replay its cases first, store every new counterexample there");
  sub->add_option("--shard", args->shard, "run shard I of N (I/N, 0-based): N runners cover one run");
  sub->add_flag("--no-regressions", args->no_regressions, "do not replay the shipped regression vectors first");
  sub->add_option("--accuracy", args->accuracy,
                  "accuracy class judged by the oracle and shift checks: CLASS for every function that has it, or "
                  "KEY=CLASS[,KEY=CLASS] with KEY a scheme (every dtype of it) or scheme.dtype (one function), named as "
                  "--only names them (rope, rope.bf16, rope_qk.f16, rope_cached, rope_cache, mrope, alibi, sinusoidal, "
                  "attention; rope-like schemes: accurate, reference, fma, powf, ggml, field; rope_cached: reference, "
                  "field; alibi: reference, powf, field; sinusoidal: accurate, reference, field; attention: eager, online, "
                  "p16 (bf16/f16), field). A key that applies to no exported "
                  "function is a usage error. Default: field");
  sub->add_flag("--strict", args->strict,
                "ABI conformance mode for library authors: also require the argument-hygiene rejections (tier B of "
                "spec/abi.md: NULL arrays, non-finite scalars, sizes and positions outside the domain) and batch "
                "invariance (ABI-BATCH-1: bit-identical outputs whatever the batch)");
  sub->add_option("--case-scale", args->case_scale,
                  "multiply every check's number of cases by F (0 < F <= 64; default 1): below 1 a quicker run of each "
                  "check's first cases, above 1 a deeper one; case i of a check is the same whatever F, and F is part of "
                  "the verdict's options (reports and reproduce lines carry it)")
      ->check(at_least(0, true, 64));
  sub->add_option("--case", args->only_case, "run only case index I of each selected check (a worst-case replay)")
      ->check(at_least(0));
  sub->add_flag("--list-checks", args->list_checks,
                "list the checks of the functions the library exports (the names --only takes) and exit");
  sub->add_option("--require-resolved", args->require_resolved,
                  "RoPE: fail unless every tested position up to P is resolved (the fastest pair's angle error below half "
                  "a position step, spec/contracts.md); for long-context use, where the default class allows float32's "
                  "loss of position beyond 2^23 rad")
      ->check(CLI::Range(std::int64_t{1}, (std::int64_t{1} << 31) - 1));
  sub->add_option("--domain", args->domain,
                  "declared domain of the kernel (spec/abi.md ABI-DOM-*): 'key=v[,v];...' or a file; generation stays "
                  "inside it, rejections outside it are accepted");
  sub->callback([&run, args, sub] {
    args->max_position_given = sub->count("--max-position") > 0;
    run = [args] { return run_verify(*args); };
  });
}

}  // namespace pecheck::cli
