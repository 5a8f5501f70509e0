#!/usr/bin/env bash
# The repository is self-contained (issue 12): no file of it names a path outside the
# repository -- a sibling folder (../shared), a machine path (/work/...), the old shared vector
# folder, or the source root joined with "..". A fresh clone has none of those, so a test,
# script or CMake file that reads one fails there (24 tests did before the vectors moved into
# tests/vectors).
#
#   check_self_contained.sh ROOT         # scan ROOT's files (git's list when ROOT is a checkout)
#   check_self_contained.sh --self-test  # each pattern must be found in a planted file
#
# Every file is scanned, documentation included, with one exclusion: this script, which has to
# spell the patterns out. Exit 0: none found; 1: found (each line printed); 2: bad usage.
set -euo pipefail

# One extended regular expression per way of leaving the repository.
PATTERNS=(
  '\.\./shared'                                      # a sibling folder of the clone
  '/work/'                                           # a machine's absolute path
  'shared/vectors'                                   # the folder the vectors used to live in
  'SOURCE_DIR[})]*[[:space:]]*(\+[[:space:]]*"|/[[:space:]]*")/?\.\.'  # C++: SOURCE_DIR + "/.." or / ".."
  '(PROJECT|CMAKE)_SOURCE_DIR}/\.\.'                 # CMake: the top source folder's parent
  'dirname "\$0"\)/\.\./\.\.'                        # a script in scripts/ climbing out of the root
)
SELF=tests/repo/check_self_contained.sh

scan() {
  local root=$1 found=0 list
  cd "$root"
  if [ -e .git ] && git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    list=$(git ls-files -co --exclude-standard)
  else  # an exported copy: every file but build outputs (.gitignore's folders)
    list=$(find . -type f ! -path './.git/*' ! -path './build*' ! -path './out/*' \
             ! -path './report*' ! -path './.gpu/*' | sed 's#^\./##')
  fi
  # One pass over all files with every pattern (issue 21: one grep per file and pattern took
  # 28 s on an idle 2-core machine and timed out under load); -I skips binary files.
  local files n args=()
  files=$(printf '%s\n' "$list" | while IFS= read -r f; do
            [ -f "$f" ] && [ "$f" != "$SELF" ] && printf '%s\n' "$f"; done)
  n=$(printf '%s' "$files" | grep -c '' || true)
  for p in "${PATTERNS[@]}"; do args+=(-e "$p"); done
  local hits
  # xargs may split the list over several greps and exits 123 when any found nothing, so the
  # output, not the status, says whether a pattern matched.
  if [ "$n" -gt 0 ]; then
    hits=$(printf '%s\n' "$files" | xargs -d '\n' grep -HInE "${args[@]}" -- || true)
  fi
  if [ -n "${hits:-}" ]; then
    printf '%s\n' "$hits"
    found=1
  fi
  if [ "$found" -ne 0 ]; then
    echo "check_self_contained: the lines above name paths outside the repository" >&2
    return 1
  fi
  if [ "$n" -lt 100 ]; then  # an empty or wrong list would pass vacuously
    echo "check_self_contained: only $n files scanned under $root" >&2
    return 2
  fi
  echo "check_self_contained: $n files scanned, no path outside the repository"
}

self_test() {
  local tmp rc=0
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/pecheck-selftest-XXXXXX")
  trap 'rm -rf "$tmp"' RETURN
  # 100 harmless files, so that the scan is not refused for scanning too few
  mkdir -p "$tmp/tests"
  for i in $(seq 1 100); do echo "std::string p = PECHECK_SOURCE_DIR \"/tests/vectors/x$i\";" >"$tmp/tests/ok$i.cpp"; done
  if ! (scan "$tmp" >/dev/null); then echo "self-test: a clean tree was refused" >&2; rc=1; fi
  local plants=(
    'std::ifstream in(std::string(PECHECK_SOURCE_DIR) + "/../shared/vectors/" + name);'
    '// values from /work/shared/x'
    'see shared/vectors/README.md'
    'auto p = std::filesystem::path(PECHECK_SOURCE_DIR) / ".." / "data";'
    'auto p = std::string(PECHECK_SOURCE_DIR) + "/../data";'
    'file(READ ${PROJECT_SOURCE_DIR}/../data/x.tsv X)'
    'set(D ${CMAKE_SOURCE_DIR}/../data)'
    'cd "$(dirname "$0")/../.."'
  )
  for line in "${plants[@]}"; do
    printf '%s\n' "$line" >"$tmp/tests/planted.txt"
    if (scan "$tmp" >/dev/null 2>&1); then
      echo "self-test: NOT detected: $line" >&2
      rc=1
    else
      echo "self-test: detected: $line"
    fi
  done
  rm -f "$tmp/tests/planted.txt"
  return $rc
}

case "${1:-}" in
  --self-test) self_test ;;
  "") echo "usage: check_self_contained.sh ROOT | --self-test" >&2; exit 2 ;;
  *) scan "$1" ;;
esac
