#!/usr/bin/env bash
# Regenerates docs/report-pass.png and docs/report-fail.png: the first screen of report.html for
# a passing plug-in (the README's kernel) and a failing one (the same kernel with the GPT-J
# pairing where the call asks for NeoX), as headless Chromium shows it (issue 22).
#   bash scripts/screenshots.sh [BUILD_DIR]      (default build; needs pecheck and the examples)
# Needs chromium (apt-get install chromium). Not in scripts/setup.sh: no test needs it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "screenshots: chromium not found (apt-get install chromium)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pecheck-shots-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$build/pecheck" verify --kernel "$build/examples/libexample_user_rope_ok.so" --report "$tmp/pass" >/dev/null
status=0
"$build/pecheck" verify --kernel "$build/examples/libexample_user_gptj.so" --report "$tmp/fail" >/dev/null || status=$?
[ "$status" -eq 1 ] || { echo "screenshots: expected exit 1 from the failing kernel, got $status" >&2; exit 1; }
for k in pass fail; do
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,900 \
    --screenshot="$PWD/docs/report-$k.png" "file://$tmp/$k/report.html" 2>/dev/null
done
echo "screenshots: docs/report-pass.png, docs/report-fail.png"
