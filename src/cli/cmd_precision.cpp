// pecheck precision: placeholder registration, replaced by the issue that builds this command.
#include "cli/commands.hpp"
#include "core/error.hpp"

namespace pecheck::cli {

void register_precision(CLI::App& app, Runner& run) {
  auto* sub = app.add_subcommand("precision", "(not built yet)");
  sub->callback([&run] { run = [] () -> int { throw UsageError("'precision' is not built yet"); }; });
}

}  // namespace pecheck::cli
