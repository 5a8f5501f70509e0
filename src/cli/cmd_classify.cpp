// pecheck classify: runs the property searches of src/classify on every encoding and variant
// and prints where the position enters, what the score depends on, the evidence and witnesses.
#include <cstdio>
#include <string>

#include "classify/engine.hpp"
#include "classify/report.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/verdict.hpp"

namespace pecheck::cli {

void register_classify(CLI::App& app, Runner& run) {
  auto* sub = app.add_subcommand(
      "classify",
      "Classify every positional encoding by property runs: where the position enters "
      "(applied_at) and what the attention score depends on (depends_on), with shrunk witnesses");
  auto format = std::make_shared<std::string>("table");
  auto seed = std::make_shared<std::uint64_t>(1);
  auto only = std::make_shared<std::string>();
  auto cases = std::make_shared<std::int64_t>(classify::EngineOptions{}.shift_cases);
  sub->add_option("--format", *format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  sub->add_option("--seed", *seed, "Seed of the property runs (same seed, same output)")
      ->check(seed_check())
      ->capture_default_str();
  sub->add_option("--only", *only,
                  "Classify only the encoding with this name (e.g. rope-neox-yarn)");
  sub->add_option("--cases", *cases,
                  "Shift-invariance cases per encoding (swap and softmax get half)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1000000}))
      ->capture_default_str();
  sub->callback([&run, format, seed, only, cases] {
    run = [format, seed, only, cases]() -> int {
      classify::EngineOptions o;
      o.seed = *seed;
      o.shift_cases = *cases;
      o.swap_cases = (*cases + 1) / 2;
      o.softmax_cases = (*cases + 1) / 2;
      std::vector<classify::Classification> out;
      std::string names;
      for (const auto& s : classify::builtin_subjects()) {
        names += (names.empty() ? "" : ", ") + s.name;
        if (!only->empty() && s.name != *only) continue;
        out.push_back(classify::classify(s, o));
      }
      if (out.empty()) throw UsageError("unknown encoding '" + *only + "' (known: " + names + ")");
      const std::string text = *format == "json" ? classify::to_json(out, o.seed).dump(2) + "\n"
                                                 : classify::to_table(out, o.seed);
      if (std::fputs(text.c_str(), stdout) < 0 || std::fflush(stdout) != 0) {
        throw IoError("classify: cannot write to standard output");
      }
      return exit_code::ok;
    };
  });
}

}  // namespace pecheck::cli
