// The pecheck command as a library function, so that argument parsing can be fuzzed without
// running any work (fuzz/fuzz_cli.cpp): build_app() registers every subcommand, and
// parse_and_run() is main(): it parses, dispatches, and maps errors to exit statuses.
//
// Interruption (SIGINT, SIGTERM): pecheck prints one line and exits with status 130 at once.
// Report and corpus files are written with these signals deferred (DeferSignals), so an
// interrupted run leaves either the complete new file or none — never a partial one; a
// kernel worker process dies with pecheck (PR_SET_PDEATHSIG, verify/worker.cpp).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <limits>
#include <string>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/suggest.hpp"
#include "core/verdict.hpp"

namespace pecheck::cli {

namespace {

extern "C" void on_interrupt(int sig) {
  // Async-signal-safe only: write(2) and _exit(2).
  static const char kInt[] = "pecheck: interrupted (SIGINT); output files are complete or absent\n";
  static const char kTerm[] = "pecheck: terminated (SIGTERM); output files are complete or absent\n";
  const char* m = sig == SIGINT ? kInt : kTerm;
  const std::size_t n = sig == SIGINT ? sizeof kInt - 1 : sizeof kTerm - 1;
  [[maybe_unused]] ssize_t w = ::write(STDERR_FILENO, m, n);
  ::_exit(exit_code::interrupted);
}

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

std::string& program_storage() {
  static std::string name = "pecheck";
  return name;
}

// A word the shell reads back as itself: as is when it holds only safe characters, else quoted.
std::string shell_word(const std::string& w) {
  const bool plain = !w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                       "0123456789_./+-=:,@%") == std::string::npos;
  if (plain) return w;
  std::string q = "'";
  for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::string program_name_for(const std::string& argv0, const std::string& path_env) {
  namespace fs = std::filesystem;
  if (argv0.empty() || argv0.find('/') == std::string::npos) return "pecheck";  // found through PATH
  std::error_code ec;
  const fs::path self = fs::weakly_canonical(fs::path(argv0), ec);
  std::size_t start = 0;
  while (!ec && start <= path_env.size()) {
    const std::size_t end = std::min(path_env.find(':', start), path_env.size());
    const std::string dir = path_env.substr(start, end - start);
    start = end + 1;
    if (dir.empty()) continue;
    const fs::path cand = fs::path(dir) / "pecheck";
    std::error_code e2;
    if (::access(cand.c_str(), X_OK) != 0) continue;
    // The first pecheck on PATH is the one a pasted line runs: it must be this binary.
    return fs::equivalent(cand, self, e2) && !e2 ? "pecheck" : shell_word(argv0);
  }
  return shell_word(argv0);
}

const std::string& program_name() { return program_storage(); }

DeferSignals::DeferSignals() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  sigprocmask(SIG_BLOCK, &s, &old_);
}

DeferSignals::~DeferSignals() { sigprocmask(SIG_SETMASK, &old_, nullptr); }

CLI::Validator seed_check() {
  return CLI::Validator(
      [](std::string& v) {
        std::uint64_t x = 0;
        const auto r = std::from_chars(v.data(), v.data() + v.size(), x);
        const bool ok = !v.empty() && r.ec == std::errc() && r.ptr == v.data() + v.size();
        return ok ? std::string() : std::string("must be an integer in [0, 2^64)");
      },
      "SEED");
}

CLI::Validator at_least(double low, bool strict, double high) {
  char bound[32], top[32];
  std::snprintf(bound, sizeof bound, "%g", low);
  std::snprintf(top, sizeof top, "%g", high);
  std::string want = std::string(strict ? "> " : ">= ") + bound;
  if (high < std::numeric_limits<double>::infinity()) want += std::string(" and <= ") + top;
  return CLI::Validator(
      [low, strict, high, want](std::string& v) {
        double x = 0;
        const auto r = std::from_chars(v.data(), v.data() + v.size(), x);
        const bool number = !v.empty() && r.ec == std::errc() && r.ptr == v.data() + v.size();
        if (!number) return "must be a number " + want + ", not '" + v + "'";
        return ((strict ? x > low : x >= low) && x <= high) ? std::string() : "must be " + want + ", not " + v;
      },
      strict ? "POSITIVE" : "NONNEGATIVE");
}

namespace {

// The long option names of the command line (every subcommand's), for "did you mean".
std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const auto* o : app.get_options()) {
    for (const auto& n : o->get_lnames()) out.push_back("--" + n);
  }
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    for (auto& n : option_names(*sub)) out.push_back(std::move(n));
    out.push_back(sub->get_name());
  }
  return out;
}

// A misspelt option: the parse error, then the nearest option name (issue 22, item 7).
std::string with_suggestion(const CLI::App& app, const std::string& what, int argc, char** argv) {
  const auto names = option_names(app);
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (!a.starts_with("--")) continue;
    a = a.substr(0, a.find('='));
    if (std::find(names.begin(), names.end(), a) != names.end()) continue;
    if (what.find(a) == std::string::npos) continue;
    return what + did_you_mean(a, names);
  }
  return what;
}

}  // namespace

void build_app(CLI::App& app, Runner& run) {
  app.description("pecheck: verification of transformer positional encodings");
  app.set_version_flag("--version", std::string("pecheck ") + PECHECK_VERSION);
  app.require_subcommand(1);
  register_classify(app, run);
  register_precision(app, run);
  register_verify(app, run);
  register_prove(app, run);
}

int parse_and_run(int argc, char** argv) {
  install_interrupt_handlers();
  if (argc > 0 && argv[0] != nullptr) {
    const char* path = std::getenv("PATH");
    program_storage() = program_name_for(argv[0], path ? path : "");
  }
  CLI::App app;
  Runner run;
  build_app(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "pecheck: %s (see pecheck --help)\n", with_suggestion(app, e.what(), argc, argv).c_str());
    return exit_code::usage;
  }
  try {
    return run ? run() : exit_code::usage;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "pecheck: %s\n", e.what());
    return exit_code::usage;
  } catch (const InvalidArgument& e) {
    std::fprintf(stderr, "pecheck: invalid argument: %s\n", e.what());
    return exit_code::usage;
  } catch (const IoError& e) {
    std::fprintf(stderr, "pecheck: %s\n", e.what());
    return exit_code::io;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pecheck: internal error: %s\n", e.what());
    return exit_code::internal;
  }
}

}  // namespace pecheck::cli
