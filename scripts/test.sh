#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this script and nothing less):
#   1. release   build (preset `release`) and every CTest test, in a copy of the repository's
#                files in a fresh temporary folder with nothing beside it (see below)
#   2. sanitize  pecheck's own code under AddressSanitizer + UndefinedBehaviorSanitizer (preset
#                `sanitize`, build-sanitize/): every test that exercises pecheck's memory handling
#                -- the verifier against hostile kernels, isolation, the CLI and bad input,
#                reports, corpus, our kernels -- with pecheck's libraries instrumented (-O1 -g1)
#                and the test programs linked against the sanitizer runtimes; the numeric sweeps,
#                oracle vectors and proofs (labels numeric, repo, package, long) already ran in
#                stage 1 and are not built here, nor are bench and CUDA
#   3. fuzz      the libFuzzer targets (preset `fuzz`, clang, build-fuzz/), each run for a
#                bounded time from its seeds; any crash fails the run (README "CI gate")
# Each stage prints its wall time; the summary line gives the total.
#
# Tests labelled `long` (the full 200-seed flakiness sweep) are a deliberate long run, left out
# of every stage unless PECHECK_LONG=1 (or run them alone: `ctest --preset release-long`).
#
# Environment: PECHECK_JOBS (default 2) build/test parallelism; PECHECK_STAGES (default
# "release sanitize fuzz") to run a subset locally; PECHECK_FUZZ_SECONDS (default 60) the
# fuzzing time over all targets together; PECHECK_KEEP_ISOLATED=1 keeps the release stage's
# copy (it is kept anyway when the stage fails, and its path printed; otherwise it is removed
# when the script exits, after the fuzz stage has used its libpecheck_simd.so).
#
# Why the release stage runs in a copy (issue 12): a fresh clone has nothing beside it, so a
# test that reads a sibling folder or a machine path passes in a developer's tree and fails for
# everyone else. The copy is what a clone of this tree would hold -- the tracked files and the
# untracked ones git does not ignore (uncommitted edits included, build outputs not) -- placed
# at $TMPDIR/pecheck-isolated-XXXXXX/pecheck, whose parent holds nothing else. It is built from
# scratch, as on a fresh machine; the other stages stay in this tree (build-sanitize/,
# build-fuzz/), so nothing is built twice.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
JOBS=${PECHECK_JOBS:-2}
STAGES=${PECHECK_STAGES:-"release sanitize fuzz"}
FUZZ_SECONDS=${PECHECK_FUZZ_SECONDS:-60}
T0=$SECONDS
declare -a SUMMARY=()
RELEASE_SIMD_LIB=

stage_done() { SUMMARY+=("$1: $(( SECONDS - $2 )) s"); echo "== test.sh: stage $1 took $(( SECONDS - $2 )) s"; }

has_stage() { [[ " $STAGES " == *" $1 "* ]]; }

# Copies the repository's files (as a clone of this tree would have them) into $1.
copy_repository() {
  mkdir -p "$1"
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z -co --exclude-standard |
      while IFS= read -r -d '' f; do
        if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi  # skip deleted files
      done |
      tar --null -T - -cf - | tar -xf - -C "$1"
  else  # not a git checkout (an unpacked archive): everything but build outputs
    tar --exclude='./build*' --exclude=./out --exclude='./report*' --exclude=./.gpu -cf - . |
      tar -xf - -C "$1"
  fi
}

if has_stage release; then
  t=$SECONDS
  ISOLATED=$(mktemp -d "${TMPDIR:-/tmp}/pecheck-isolated-XXXXXX")
  chmod 755 "$ISOLATED"  # as a clone's folder: tests that drop to an unprivileged user read it
  trap 'rm -rf "$ISOLATED"' EXIT  # removed on interrupt as well
  copy_repository "$ISOLATED/pecheck"
  echo "== test.sh: release stage in $ISOLATED/pecheck (a copy with nothing beside it)"
  if ! (cd "$ISOLATED/pecheck" &&
        cmake --preset release &&
        cmake --build --preset release -j"$JOBS" &&
        ctest --preset release -j"$JOBS" &&
        if [ "${PECHECK_LONG:-0}" = 1 ]; then ctest --preset release-long -j"$JOBS"; fi); then
    trap - EXIT
    echo "== test.sh: release stage FAILED; the isolated copy is kept: $ISOLATED/pecheck" >&2
    exit 1
  fi
  # The fuzz stage's fuzz_simd_abi loads this GCC-built pecheck_simd; the copy is removed when
  # the script exits.
  RELEASE_SIMD_LIB=$ISOLATED/pecheck/build/src/kernels/simd/libpecheck_simd.so
  if [ "${PECHECK_KEEP_ISOLATED:-0}" = 1 ]; then
    trap - EXIT
    echo "== test.sh: isolated copy kept: $ISOLATED/pecheck"
  fi
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
  # pecheck_simd from this run's release stage; without one, fuzz/run.sh looks in build/.
  PECHECK_SIMD_LIB=${PECHECK_SIMD_LIB:-${RELEASE_SIMD_LIB:-}} bash fuzz/run.sh build-fuzz/fuzz "$FUZZ_SECONDS"
  stage_done fuzz "$t"
fi

echo "== test.sh: all stages passed in $(( SECONDS - T0 )) s (${SUMMARY[*]:-none})"
