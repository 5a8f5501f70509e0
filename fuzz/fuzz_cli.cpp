// libFuzzer target: the command line of every pecheck subcommand, parsed by the same
// build_app() that main() uses (src/cli/app.cpp), without running any work.
//
// The input is split on NUL bytes into argv[1..]. Properties: parsing never crashes and never
// throws anything but CLI11's own parse results (help, version, ParseError); a successful parse
// selects exactly one subcommand's runner.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/commands.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  std::vector<std::string> args{"pecheck"};
  std::string cur;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[i]));
    }
  }
  if (!cur.empty()) args.push_back(cur);
  if (args.size() > 64) return 0;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  CLI::App app;
  pecheck::cli::Runner run;
  pecheck::cli::build_app(app, run);
  try {
    app.parse(static_cast<int>(args.size()), argv.data());
  } catch (const CLI::ParseError&) {  // also help and version (CLI::Success derives from it)
    return 0;
  }
  if (!run) {
    std::fprintf(stderr, "a successful parse selected no subcommand\n");
    std::abort();
  }
  return 0;
}
