#!/bin/bash
# Wall time of the default `pecheck verify` run on every example plug-in: the median of 3 runs
# each, with the CPU model and the load average beside every row (README "Verifying a kernel").
# Usage: bash scripts/verify_times.sh [BUILD_DIR]   (default build/)
set -u
build=${1:-build}
[ -x "$build/pecheck" ] || { echo "verify_times: no $build/pecheck (build first)" >&2; exit 2; }
grep -m1 "model name" /proc/cpuinfo
for lib in "$build"/examples/libexample_*.so; do
  name=$(basename "$lib" .so)
  ts=()
  for _ in 1 2 3; do
    s=$(date +%s.%N)
    "$build/pecheck" verify --kernel "$lib" >/dev/null 2>&1
    rc=$?
    e=$(date +%s.%N)
    ts+=("$(python3 -c "print(round($e - $s, 2))")")
  done
  med=$(printf "%s\n" "${ts[@]}" | sort -n | sed -n 2p)
  echo "${name#libexample_} exit=$rc median=${med}s runs=${ts[*]} load=$(cut -d' ' -f1 /proc/loadavg)"
done
