#!/bin/sh
# The browser test as ctest runs it: generate the site from the synthetic
# dataset into the build folder, then check it in headless Chromium.
# Usage: run.sh HASHBENCH SOURCE_DIR BUILD_DIR. Exits 77 (skipped) when
# playwright-core is not installed (npm ci --prefix tests/browser).
set -eu
hashbench=$1
src=$2
build=$3
out="$build/browser"
if [ ! -d "$src/tests/browser/node_modules/playwright-core" ]; then
    echo "browser test skipped: run 'npm ci --prefix tests/browser' first"
    exit 77
fi
if [ ! -x /usr/bin/chromium ]; then
    echo "browser test skipped: /usr/bin/chromium missing (apt-get install chromium)"
    exit 77
fi
rm -rf "$out/site"
mkdir -p "$out"
"$hashbench" report "$src/tests/report/data" --out "$out/site"
exec node "$src/tests/browser/check_site.mjs" "$out/site" "$out"
