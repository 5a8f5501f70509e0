#!/usr/bin/env bash
# GPU check of the CUDA kernels (issue 5), in two steps:
#
#   bash scripts/gpu-check.sh prepare [BUILD_DIR]   # here: build and stage binaries in .gpu/
#   bash scripts/gpu-check.sh device                # on the GPU machine, from the repo root
#
# `prepare` builds the device test, the timing program and pecheck (BUILD_DIR, default build)
# and copies them with the shared libraries they need (MPFR/GMP/quadmath, fmt, Google Benchmark, Z3 and cvc5
# for pecheck, the pecheck kernel libraries; the device's own libstdc++ is newer) into .gpu/, which is git-ignored and carried to the device
# machine (that machine has the CUDA driver and toolkit but none of our Debian packages).
# `device` then, writing everything under $OUT (default ./gpu-out):
#   1. records the GPU (nvidia-smi) and rebuilds kernels.cu there with nvcc for sm_90 as a
#      build check;
#   2. disassembles the carried library (cuobjdump --dump-sass) and fails on approximate
#      transcendental units (MUFU.SIN/COS/EX2/LG2) in the kernels;
#   3. runs the GPU test: pecheck_cuda through the ABI against the MPFR oracle within the
#      float32 contract and bit for bit against pecheck_simd's portable path;
#   4. runs `pecheck verify` on libpecheck_cuda.so (every check the plug-in exports, the
#      same command a user runs) and the GPU test under compute-sanitizer memcheck (where the
#      machine's runtime allows it);
#   5. times RoPE on large shapes (Google Benchmark, CUDA events) against a device-to-device
#      cudaMemcpy of the same bytes measured in the same benchmark.
# Exit status: 0 when every check passed, 1 otherwise.
set -uo pipefail

cmd=${1:-}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if [[ "$cmd" == prepare ]]; then
  build=${2:-build}
  cmake --build "$build" -j2 --target test_kernels_cuda_device bench_kernels_gpu pecheck_cuda pecheck_simd pecheck || exit 1
  rm -rf .gpu && mkdir -p .gpu
  cp "$build/tests/kernels/test_kernels_cuda_device" "$build/bench/kernels/bench_kernels_gpu" "$build/pecheck" .gpu/
  cp "$build/src/kernels/cuda/libpecheck_cuda.so" "$build/src/kernels/simd/libpecheck_simd.so" .gpu/
  for lib in libmpfr.so.6 libgmp.so.10 libquadmath.so.0 libfmt.so.9 libz3.so.4 libcvc5.so.1 libcln.so.6 \
             libcryptominisat5.so.5.11 libbenchmark.so.1debian; do
    path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ {print $NF; exit}')
    [[ -n "$path" ]] && cp -L "$path" .gpu/
  done
  grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
  strip --strip-unneeded .gpu/* 2>/dev/null || true   # the carry limit is 64 MiB
  du -sh .gpu
  exit 0
fi

if [[ "$cmd" != device ]]; then
  echo "usage: scripts/gpu-check.sh prepare [BUILD_DIR] | device" >&2
  exit 2
fi

OUT=${OUT:-$root/gpu-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$root/.gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
status=0
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }

log "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 | tee -a "$OUT/summary.txt"

log "nvcc build of src/kernels/cuda/kernels.cu for sm_90 (-fmad=false)"
if timeout 120 nvcc -std=c++17 -arch=sm_90 -fmad=false --prec-div=true --prec-sqrt=true -Isrc -Ispec \
    -c src/kernels/cuda/kernels.cu -o /tmp/kernels_sm90.o > "$OUT/nvcc.log" 2>&1; then
  log "nvcc: ok"
else
  log "nvcc: FAILED (see nvcc.log)"; status=1
fi

log "SASS inspection of libpecheck_cuda.so"
if cuobjdump --dump-sass .gpu/libpecheck_cuda.so > "$OUT/sass.txt" 2>&1; then
  bad=$(grep -cE 'MUFU\.(SIN|COS|EX2|LG2)' "$OUT/sass.txt")
  kernels=$(grep -c 'Function :' "$OUT/sass.txt")
  dfma=$(grep -c 'DFMA' "$OUT/sass.txt")
  log "sass: $kernels kernels, $bad approximate transcendental instructions, $dfma DFMA"
  [[ "$bad" == 0 && "$kernels" -ge 6 ]] || status=1
else
  log "cuobjdump: FAILED"; status=1
fi

log "GPU test (oracle within the f32 contract, bits equal to pecheck_simd)"
if timeout 120 .gpu/test_kernels_cuda_device --gtest_output=xml:"$OUT/device_test.xml" > "$OUT/device_test.txt" 2>&1; then
  grep -E '^\[  (PASSED|SKIPPED|FAILED) ' "$OUT/device_test.txt" | tee -a "$OUT/summary.txt"
  if grep -q 'SKIPPED' "$OUT/device_test.txt"; then log "device test skipped: no device?"; status=1; fi
else
  tail -30 "$OUT/device_test.txt"; log "device test: FAILED"; status=1
fi

log "pecheck verify --kernel libpecheck_cuda.so"
if timeout 240 .gpu/pecheck verify --kernel .gpu/libpecheck_cuda.so --budget-seconds 90 \
    --report "$OUT/verify_cuda" --junit "$OUT/verify_cuda/junit.xml" > "$OUT/verify_cuda.txt" 2>&1; then
  grep -E '^verdict' "$OUT/verify_cuda.txt" | tee -a "$OUT/summary.txt"
else
  tail -40 "$OUT/verify_cuda.txt"; log "pecheck verify of pecheck_cuda: FAILED"; status=1
fi

log "GPU test under compute-sanitizer memcheck"
if command -v compute-sanitizer > /dev/null; then
  timeout 180 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 1 \
    .gpu/test_kernels_cuda_device > "$OUT/memcheck.txt" 2>&1
  rc=$?
  tail -3 "$OUT/memcheck.txt" | tee -a "$OUT/summary.txt"
  if [[ $rc != 0 ]]; then
    if grep -q 'Device not supported' "$OUT/memcheck.txt"; then
      log "memcheck: SKIPPED (this runtime does not support compute-sanitizer)"
    else
      log "memcheck: FAILED"; status=1
    fi
  fi
else
  log "memcheck: SKIPPED (no compute-sanitizer on this machine)"
fi

log "RoPE timing (Google Benchmark, CUDA events) vs device-to-device cudaMemcpy"
if timeout 240 .gpu/bench_kernels_gpu --benchmark_out="$OUT/gpu_bench.json" --benchmark_out_format=json \
    > "$OUT/gpu_bench.txt" 2>&1; then
  cat "$OUT/gpu_bench.txt" | tee -a "$OUT/summary.txt"
else
  cat "$OUT/gpu_bench.txt"; log "gpu bench: FAILED"; status=1
fi

log "exit status $status"
exit $status
