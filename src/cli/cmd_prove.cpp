// pecheck prove: placeholder registration, replaced by the issue that builds this command.
#include "cli/commands.hpp"
#include "core/error.hpp"

namespace pecheck::cli {

void register_prove(CLI::App& app, Runner& run) {
  auto* sub = app.add_subcommand("prove", "(not built yet)");
  sub->callback([&run] { run = [] () -> int { throw UsageError("'prove' is not built yet"); }; });
}

}  // namespace pecheck::cli
