// One kernel call for a version 1 case: lays the arguments and inputs out in the shared arena
// (tensors encoded in the case's storage format, verify/isolation/storage.hpp), poisons the output
// between guard zones, runs the call of the case's function (fn_of(family, c.storage)) through the
// Executor and reads back everything the checks need (isolation/run.hpp: RunResult).
#pragma once

#include "verify/isolation/run.hpp"
#include "verify/v1/cases.hpp"

namespace pecheck::verifier {

RunResult run_case(Executor& ex, const RopeCase& c, const RunMode& m = {});
RunResult run_case(Executor& ex, const AlibiCase& c, const RunMode& m = {});
RunResult run_case(Executor& ex, const T5Case& c, const RunMode& m = {});
RunResult run_case(Executor& ex, const SinusoidalCase& c, const RunMode& m = {});
RunResult run_case(Executor& ex, const LearnedCase& c, const RunMode& m = {});

}  // namespace pecheck::verifier
