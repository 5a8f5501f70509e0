#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds, runs every CTest test.
# Used as-is by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
JOBS=${PECHECK_JOBS:-2}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$JOBS"
ctest --test-dir build -j"$JOBS" --output-on-failure
