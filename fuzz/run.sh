#!/usr/bin/env bash
# Runs every libFuzzer target in DIR for about TOTAL seconds in all (split evenly), starting
# from its checked-in seeds (fuzz/seeds/<name>/, copied: the repository is never written) and
# the crashes found before (fuzz/crashes/<name>/), with its dictionary (fuzz/dict/) if any. A crash, leak, sanitizer report or timeout
# fails the run; the input that caused it is left in build-fuzz/artifacts/<name>/ — add it to
# fuzz/crashes/<name>/ with the fix, where tests/ci replays it on every CTest run.
#   usage: bash fuzz/run.sh build-fuzz/fuzz [TOTAL_SECONDS]
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
# fuzz_simd_abi loads the GCC-built pecheck_simd (GCC vector code; see fuzz_simd_abi.cpp).
SIMD_LIB=${PECHECK_SIMD_LIB:-$SRC/../build/src/kernels/simd/libpecheck_simd.so}
if [ ! -f "$SIMD_LIB" ]; then
  echo "fuzz: $SIMD_LIB not found: build the release preset first (scripts/test.sh does)" >&2
  exit 1
fi
export PECHECK_SIMD_LIB=$(cd "$(dirname "$SIMD_LIB")" && pwd)/$(basename "$SIMD_LIB")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$SRC/../tests/ci/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in "${TARGETS[@]}"; do
  mkdir -p "$WORK/$t" "$ART/$t"
  for d in "$SRC/seeds/$t" "$SRC/crashes/$t"; do
    [ -d "$d" ] && cp -r "$d/." "$WORK/$t/"
  done
  extra=()
  [ -f "$SRC/dict/$t.dict" ] && extra+=("-dict=$SRC/dict/$t.dict")
  echo "== fuzz: $t for ${EACH} s"
  if ! "$BIN/$t" "$WORK/$t" -max_total_time="$EACH" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
      -print_final_stats=1 -artifact_prefix="$ART/$t/" "${extra[@]}" >"$WORK/$t.log" 2>&1; then
    echo "fuzz: $t FAILED; last lines of its log:" >&2
    tail -n 40 "$WORK/$t.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$WORK/$t.log" | tr '\n' ' '
    echo
  fi
done
exit $status
