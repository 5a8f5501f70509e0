// The pecheck command: parses, dispatches to a subcommand, maps errors to exit statuses.
#include <cstdio>
#include <exception>
#include <string>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/verdict.hpp"

int main(int argc, char** argv) {
  using namespace pecheck;
  CLI::App app{"pecheck: verification of transformer positional encodings"};
  app.set_version_flag("--version", std::string("pecheck ") + PECHECK_VERSION);
  app.require_subcommand(1);
  cli::Runner run;
  cli::register_classify(app, run);
  cli::register_precision(app, run);
  cli::register_verify(app, run);
  cli::register_prove(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "pecheck: %s (see pecheck --help)\n", e.what());
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
