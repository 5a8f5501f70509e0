// Output of `pecheck prove`: a terminal table, the JSON document, and the verify-format
// report (report.json / .md / .html via src/report) into which counterexamples go.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "proofs/claims.hpp"
#include "report/result.hpp"

namespace pecheck::proofs {

// One row per claim: name, clause, expected, verdict, each solver's answer and time.
std::string render_table(const std::vector<ClaimResult>& results, double seconds);

// {"tool": ..., "solvers": [versions], "seconds": s, "all_as_expected": b,
//  "proofs": [{name, clause, scheme, description, verdict, expected, as_expected, seconds,
//              reason, solvers: [{query, solver, verdict, seconds, reason}], notes,
//              counterexample (verify format) | null}]}
nlohmann::ordered_json to_json(const std::vector<ClaimResult>& results, double seconds);

// The claims as checks of a VerifyResult (kernel "<pecheck prove>"): proved -> pass,
// counterexample -> fail with the replayed counterexample, unknown/timeout/error as such.
// Each check's description states what the claim was expected to give.
report::VerifyResult to_verify_result(const std::vector<ClaimResult>& results, double seconds);

// True when every claim gave what it should (exit status 0).
bool all_as_expected(const std::vector<ClaimResult>& results);

}  // namespace pecheck::proofs
