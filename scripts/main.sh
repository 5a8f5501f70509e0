#!/usr/bin/env bash
# pecheck's main job on a fresh Debian 12 machine (as root): install the packages, build, install
# pecheck into /usr/local (`cmake --install build`: the command on PATH, so the reproduce lines it
# prints paste as printed; the headers and the CMake package), then
#  1. classify every positional encoding from property runs (pecheck classify);
#  2. verify pecheck's own optimized kernel plug-in (expected: pass, exit 0);
#  3. verify a realistic buggy kernel (RoPE angles in bf16) and write the counterexample
#     report a person can act on (expected: counterexample, exit 1).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release
targets="pecheck pecheck_simd examples"
# `cmake --install` installs every library target it knows: build the CUDA one too when configured.
if cmake --build build --target help | grep -q '^\.\.\. pecheck_cuda$'; then targets="$targets pecheck_cuda"; fi
cmake --build build -j2 --target $targets
cmake --install build
pecheck classify
pecheck verify --kernel build/src/kernels/simd/libpecheck_simd.so
status=0
pecheck verify --kernel build/examples/libexample_rope_bf16_angle.so \
  --report out/report --junit out/junit.xml || status=$?
if [ "$status" -ne 1 ]; then
  echo "main: expected a counterexample (exit 1) from the bf16-angle kernel, got exit $status" >&2
  exit 1
fi
echo "main: counterexample report written to out/report/report.html (also report.md, report.json; JUnit: out/junit.xml)"
