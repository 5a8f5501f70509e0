// The pecheck command: everything lives in cli/app.cpp (parse_and_run), so that the argument
// parsing of every subcommand can be fuzzed without running the work (fuzz/fuzz_cli.cpp).
#include "cli/commands.hpp"

int main(int argc, char** argv) { return pecheck::cli::parse_and_run(argc, argv); }
