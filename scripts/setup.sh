#!/usr/bin/env bash
# Installs pecheck's build and test dependencies from Debian 12 packages.
# Idempotent: does nothing when every package is already installed. Run as root.
set -euo pipefail
PKGS=(
  build-essential cmake ninja-build pkg-config git
  clang libclang-rt-14-dev          # libFuzzer + sanitizer runtimes
  libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
  libeigen3-dev libboost-dev libmpfr-dev libgmp-dev
  libz3-dev libcvc5-dev
  libhwy-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  python3 python3-mpmath            # scripts/gen_vectors.py: the vectors' second, independent check
  python3-dev pybind11-dev python3-numpy   # pecheck verify --python and the pecheck package (docs/python.md)
  python3-torch python3-pytest             # the Python examples and their tests (tests/python)
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PKGS[@]} packages already installed"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "setup: missing packages (${missing[*]}); run this script as root" >&2
  exit 2
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
