#!/usr/bin/env bash
# pecheck's main job on a fresh machine: install, build, run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j2 --target pecheck
./build/pecheck classify
