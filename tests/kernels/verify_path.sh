#!/usr/bin/env bash
# CTest driver: `pecheck verify` on the pecheck_simd plug-in with one forced code path, or on
# the pecheck_cuda plug-in (PATH = cuda).
#   verify_path.sh PECHECK_BIN PLUGIN_SO PATH REPORT_DIR [VERIFY OPTIONS...]
# A path this machine lacks is skipped loudly (exit 77, CTest's SKIP_RETURN_CODE).
set -u
pecheck=$1 plugin=$2 path=$3 report=$4
shift 4  # the rest are passed to pecheck verify
need=""
case "$path" in
  scalar) need="" ;;
  avx2) need="avx2 fma bmi2 f16c" ;;
  avx512) need="avx2 fma bmi2 f16c avx512f avx512dq avx512bw avx512vl" ;;
  avx512bf16) need="avx2 fma bmi2 f16c avx512f avx512dq avx512bw avx512vl avx512_bf16" ;;
  cuda)
    if ! nvidia-smi -L > /dev/null 2>&1; then
      echo "SKIPPED: pecheck verify of pecheck_cuda: no usable CUDA device (nvidia-smi -L failed)"
      exit 77
    fi ;;
  *) echo "verify_path.sh: unknown path $path" >&2; exit 2 ;;
esac
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
for f in $need; do
  if ! grep -qw "$f" <<<"$flags"; then
    echo "SKIPPED: pecheck verify of pecheck_simd path '$path': this CPU lacks '$f'"
    exit 77
  fi
done
mkdir -p "$report"
# A generous time budget: CI runs this on two shared cores next to other tests.
PECHECK_SIMD=$path exec "$pecheck" verify --kernel "$plugin" --budget-seconds 0 \
  --report "$report" --junit "$report/junit.xml" "$@"
