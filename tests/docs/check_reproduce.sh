#!/usr/bin/env bash
# Reproduce lines paste as printed (issue 22): pecheck names itself in them as a shell finds it.
#   check_reproduce.sh BUILD_DIR LIB
# 1. Installed into a prefix on PATH and run as `pecheck`: the line says `pecheck verify ...` and,
#    run by bash as printed, fails again (exit 1).
# 2. Run by its path with no pecheck on PATH: the line names that path (`./<build>/pecheck verify`)
#    and, pasted in the same folder, fails again.
set -euo pipefail
build=$(cd "$1" && pwd)
lib=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pecheck-repro-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null

repro_of() { grep -m1 '^ *reproduce: ' | sed 's/^ *reproduce: //'; }

out=$(PATH="$tmp/prefix/bin:/usr/bin:/bin" pecheck verify --kernel "$lib" --only rope.oracle || true)
line=$(printf '%s\n' "$out" | repro_of)
case "$line" in
  "pecheck verify "*) ;;
  *) echo "installed: reproduce line does not start with 'pecheck verify': $line"; exit 1 ;;
esac
rc=0; (cd "$tmp" && PATH="$tmp/prefix/bin:/usr/bin:/bin" bash -c "$line" >/dev/null) || rc=$?
[ "$rc" -eq 1 ] || { echo "installed: '$line' pasted exited $rc, want 1"; exit 1; }

parent=$(dirname "$build"); base=$(basename "$build")
out=$(cd "$parent" && PATH="/usr/bin:/bin" "./$base/pecheck" verify --kernel "$lib" --only rope.oracle || true)
line=$(printf '%s\n' "$out" | repro_of)
case "$line" in
  "./$base/pecheck verify "*) ;;
  *) echo "by path: reproduce line does not name ./$base/pecheck: $line"; exit 1 ;;
esac
rc=0; (cd "$parent" && PATH="/usr/bin:/bin" bash -c "$line" >/dev/null) || rc=$?
[ "$rc" -eq 1 ] || { echo "by path: '$line' pasted exited $rc, want 1"; exit 1; }
echo "check_reproduce: reproduce lines paste as printed, installed and by path"
