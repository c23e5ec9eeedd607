#!/bin/sh
# The browser test as ctest runs it: generate the site from the synthetic
# dataset into the build folder, then check it in headless Chromium, driven
# over the DevTools protocol by check_site.py (python3 and Debian's chromium,
# nothing else). Usage: run.sh HASHBENCH SOURCE_DIR BUILD_DIR. Exits 77
# (skipped) only when chromium is not installed, and fails then under
# CI=true (in CI nothing may be skipped).
set -eu
hashbench=$1
src=$2
build=$3
out="$build/browser"
chromium=${HB_CHROMIUM:-$(command -v chromium || echo /usr/bin/chromium)}
if [ ! -x "$chromium" ]; then
    if [ "${CI:-}" = true ]; then
        echo "browser test FAILED: chromium missing under CI=true (apt-get install chromium)"
        exit 1
    fi
    echo "browser test skipped: chromium missing (apt-get install chromium)"
    exit 77
fi
rm -rf "$out/site"
mkdir -p "$out"
"$hashbench" report "$src/tests/report/data" --out "$out/site"
exec python3 "$src/tests/browser/check_site.py" "$out/site" "$out" "$chromium"
