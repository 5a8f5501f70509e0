// Verdicts and exit statuses shared by every pecheck command.
//
// A verdict is a closed type: a check either passed (or a claim was proved), produced a
// counterexample, could not decide (unknown / timeout), or failed to run (error).
// "Could not decide" is never "passed".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pecheck {

enum class Verdict {
  Pass,            // every case passed / the claim was proved
  Counterexample,  // a concrete input violates the claim
  Unknown,         // the engine could not decide (solver "unknown", budget exhausted)
  Timeout,         // a time limit was reached before a decision
  Error,           // the check could not run (tool error, bad input)
};

std::string_view to_string(Verdict v);
std::optional<Verdict> verdict_from_string(std::string_view s);

// Documented exit statuses of the `pecheck` command (README, "Exit status").
namespace exit_code {
inline constexpr int ok = 0;              // every check passed / every claim as expected
inline constexpr int counterexample = 1;  // at least one check failed or a claim was not as expected
inline constexpr int usage = 2;           // bad usage or bad input (unloadable library, bad file, ...)
inline constexpr int io = 3;              // an output (report, CSV, corpus) could not be written
inline constexpr int internal = 4;        // a bug in pecheck itself
inline constexpr int incomplete = 5;      // verify: nothing failed, but a check could not decide or was cut short
inline constexpr int interrupted = 130;   // SIGINT / SIGTERM; no partial output is left behind
}  // namespace exit_code

}  // namespace pecheck
