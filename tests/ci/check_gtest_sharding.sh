#!/usr/bin/env bash
# GoogleTest sharding and CTest registration, checked on one test binary:
#  1. with GTEST_TOTAL_SHARDS=3, the tests run by GTEST_SHARD_INDEX=0,1,2 are disjoint and
#     together exactly the tests the unsharded binary runs;
#  2. CTest knows each of the binary's tests as its own test (gtest_discover_tests), so
#     `ctest -j N` spreads them over N processes.
#   usage: check_gtest_sharding.sh TEST_BINARY BUILD_DIR
set -euo pipefail
bin=$1
build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
filter='CorpusFormat.*'
ran() { grep -E '^\[ RUN      \]' | sed -E 's/^\[ RUN      \] //' | sort; }
"$bin" --gtest_filter="$filter" | ran >"$work/all"
total=$(wc -l <"$work/all")
[ "$total" -ge 3 ] || { echo "need at least 3 tests to shard, found $total"; exit 1; }
: >"$work/union"
for i in 0 1 2; do
  GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i "$bin" --gtest_filter="$filter" | ran >"$work/s$i"
  n=$(wc -l <"$work/s$i")
  echo "shard $i/3 ran $n of $total tests"
  cat "$work/s$i" >>"$work/union"
done
sort "$work/union" >"$work/union.sorted"
if ! diff -u "$work/all" "$work/union.sorted"; then
  echo "FAIL: the union of the three shards is not the unsharded run (above: missing or duplicated tests)"
  exit 1
fi
listed=$("$bin" --gtest_list_tests | grep -c '^  ' || true)
in_ctest=$(ctest --test-dir "$build" -N | grep -cE 'Test +#[0-9]+: (FieldBugs/)?(CorpusFormat|CorpusCli|Regressions)\.' || true)
echo "gtest lists $listed tests; CTest registers $in_ctest of them as separate tests"
[ "$listed" -eq "$in_ctest" ] || { echo "FAIL: CTest does not register every gtest test separately"; exit 1; }
echo "PASS"
