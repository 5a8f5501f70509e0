#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this script and nothing less):
#   1. release   build (preset `release`, build/) and every CTest test
#   2. sanitize  the same suite under AddressSanitizer + UndefinedBehaviorSanitizer
#                (preset `sanitize`, build-sanitize/; bench and CUDA are left out there)
#   3. fuzz      the libFuzzer targets (preset `fuzz`, clang, build-fuzz/), each run for a
#                bounded time from its seeds; any crash fails the run (README "CI gate")
# Each stage prints its wall time; the summary line gives the total.
#
# Environment: PECHECK_JOBS (default 2) build/test parallelism; PECHECK_STAGES (default
# "release sanitize fuzz") to run a subset locally; PECHECK_FUZZ_SECONDS (default 60) the
# fuzzing time over all targets together.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
JOBS=${PECHECK_JOBS:-2}
STAGES=${PECHECK_STAGES:-"release sanitize fuzz"}
FUZZ_SECONDS=${PECHECK_FUZZ_SECONDS:-60}
T0=$SECONDS
declare -a SUMMARY=()

stage_done() { SUMMARY+=("$1: $(( SECONDS - $2 )) s"); echo "== test.sh: stage $1 took $(( SECONDS - $2 )) s"; }

has_stage() { [[ " $STAGES " == *" $1 "* ]]; }

if has_stage release; then
  t=$SECONDS
  cmake --preset release
  cmake --build --preset release -j"$JOBS"
  ctest --preset release -j"$JOBS"
  stage_done release "$t"
fi

if has_stage sanitize; then
  t=$SECONDS
  cmake --preset sanitize
  cmake --build --preset sanitize -j"$JOBS"
  ctest --preset sanitize -j"$JOBS"
  stage_done sanitize "$t"
fi

if has_stage fuzz; then
  t=$SECONDS
  cmake --preset fuzz
  cmake --build --preset fuzz -j"$JOBS" --target fuzzers
  bash fuzz/run.sh build-fuzz/fuzz "$FUZZ_SECONDS"
  stage_done fuzz "$t"
fi

echo "== test.sh: all stages passed in $(( SECONDS - T0 )) s (${SUMMARY[*]:-none})"
