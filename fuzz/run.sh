#!/usr/bin/env bash
# Runs every libFuzzer target in DIR for about TOTAL seconds in all (split evenly), starting
# from its checked-in seeds (fuzz/seeds/<name>/, copied: the repository is never written) and
# the crashes found before (fuzz/crashes/<name>/), with its dictionary (fuzz/dict/) if any. A crash, leak, sanitizer report or timeout
# fails the run; the input that caused it is left in build-fuzz/artifacts/<name>/ — add it to
# fuzz/crashes/<name>/ with the fix, where tests/ci replays it on every CTest run.
#   usage: bash fuzz/run.sh build-sanitize/fuzz [TOTAL_SECONDS]   (or build-fuzz/fuzz of the `fuzz` preset)
set -euo pipefail
BIN=${1:?usage: fuzz/run.sh BIN_DIR [TOTAL_SECONDS]}
TOTAL=${2:-60}
SRC=$(cd "$(dirname "$0")" && pwd)
TARGETS=(fuzz_corpus fuzz_cli fuzz_report fuzz_simd_abi)
EACH=$(( TOTAL / ${#TARGETS[@]} ))
(( EACH >= 1 )) || EACH=1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
ART=$(cd "$BIN/.." && pwd)/artifacts
# fuzz_simd_abi loads pecheck_simd: the one built beside the fuzzers (the sanitizer build, clang,
# instrumented), else build/'s.
SIMD_LIB=${PECHECK_SIMD_LIB:-$BIN/../src/kernels/simd/libpecheck_simd.so}
[ -f "$SIMD_LIB" ] || SIMD_LIB=$SRC/../build/src/kernels/simd/libpecheck_simd.so
if [ ! -f "$SIMD_LIB" ]; then
  echo "fuzz: libpecheck_simd.so not found beside $BIN nor in build/: build the sanitize preset first (scripts/test.sh does)" >&2
  exit 1
fi
export PECHECK_SIMD_LIB=$(cd "$(dirname "$SIMD_LIB")" && pwd)/$(basename "$SIMD_LIB")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$SRC/../tests/ci/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Targets run PECHECK_JOBS (default 2) at a time, each for its own EACH seconds: the wall time
# halves on 2 cores, the fuzzing each target gets does not change.
JOBS=${PECHECK_JOBS:-2}
(( JOBS >= 1 )) || JOBS=1
fuzz_one() {
  local t=$1
  mkdir -p "$WORK/$t" "$ART/$t"
  for d in "$SRC/seeds/$t" "$SRC/crashes/$t"; do
    [ -d "$d" ] && cp -r "$d/." "$WORK/$t/"
  done
  local extra=()
  [ -f "$SRC/dict/$t.dict" ] && extra+=("-dict=$SRC/dict/$t.dict")
  "$BIN/$t" "$WORK/$t" -max_total_time="$EACH" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
      -print_final_stats=1 -artifact_prefix="$ART/$t/" "${extra[@]}" >"$WORK/$t.log" 2>&1
}
status=0
for (( i = 0; i < ${#TARGETS[@]}; i += JOBS )); do
  batch=("${TARGETS[@]:i:JOBS}")
  pids=()
  for t in "${batch[@]}"; do
    echo "== fuzz: $t for ${EACH} s"
    fuzz_one "$t" &
    pids+=($!)
  done
  for k in "${!batch[@]}"; do
    t=${batch[$k]}
    if ! wait "${pids[$k]}"; then
      echo "fuzz: $t FAILED; last lines of its log:" >&2
      tail -n 40 "$WORK/$t.log" >&2
      status=1
    else
      echo "== fuzz: $t: $(grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$WORK/$t.log" | tr '\n' ' ')"
    fi
  done
done
exit $status
