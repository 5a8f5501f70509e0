// Each `pecheck` subcommand lives in its own cmd_*.cpp: it registers its options on the
// CLI11 app and, when selected, sets `run` to the function that does the work and returns
// an exit status from pecheck::exit_code.
#pragma once

#include <limits>

#include <signal.h>

#include <CLI/CLI.hpp>
#include <functional>

namespace pecheck::cli {

using Runner = std::function<int()>;

void register_classify(CLI::App& app, Runner& run);
void register_precision(CLI::App& app, Runner& run);
void register_verify(CLI::App& app, Runner& run);
void register_prove(CLI::App& app, Runner& run);

// A --seed value: an integer in [0, 2^64), parsed exactly (CLI11 alone wraps "-1" to
// 2^64-1 and saturates values past 2^64).
CLI::Validator seed_check();
// A number at least `low` (above it when `strict`) and at most `high`, with a message that states
// the bounds as written ("must be >= 0"), not CLI11's range up to the largest double (issue 22,
// item 7). NaN is never in range.
CLI::Validator at_least(double low, bool strict = false,
                        double high = std::numeric_limits<double>::infinity());

// How printed command lines (reproduce:) name pecheck: "pecheck" when the running binary is the
// `pecheck` that PATH finds (an installed one), else argv[0] as invoked (e.g. `build/pecheck`),
// shell-quoted when needed, so a printed line pastes into the same shell as printed.
const std::string& program_name();
std::string program_name_for(const std::string& argv0, const std::string& path_env);

// The whole command line (cli/app.cpp): every subcommand registered on `app`.
void build_app(CLI::App& app, Runner& run);
// main(): parse, run, map errors to pecheck::exit_code; SIGINT/SIGTERM exit 130.
int parse_and_run(int argc, char** argv);

// While alive, SIGINT and SIGTERM are held back (delivered when it ends): wrap the writing of
// output files so that an interrupted run never leaves a partial one.
class DeferSignals {
 public:
  DeferSignals();
  ~DeferSignals();
  DeferSignals(const DeferSignals&) = delete;
  DeferSignals& operator=(const DeferSignals&) = delete;

 private:
  sigset_t old_;
};

}  // namespace pecheck::cli
