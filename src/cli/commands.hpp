// Each `pecheck` subcommand lives in its own cmd_*.cpp: it registers its options on the
// CLI11 app and, when selected, sets `run` to the function that does the work and returns
// an exit status from pecheck::exit_code.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace pecheck::cli {

using Runner = std::function<int()>;

void register_classify(CLI::App& app, Runner& run);
void register_precision(CLI::App& app, Runner& run);
void register_verify(CLI::App& app, Runner& run);
void register_prove(CLI::App& app, Runner& run);

}  // namespace pecheck::cli
