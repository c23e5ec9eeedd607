#!/bin/sh
# The browser test as ctest runs it: generate the site from the synthetic
# dataset (its x86_1 widened to the guide's eight sizes by
# widen_dataset.py) into the build folder, with the comparison of its two systems
# linked from it (hashbench compare --out, then report --compare), then
# check it in headless Chromium, driven over the DevTools protocol by
# check_site.py (python3 and Debian's chromium, nothing else). Screenshots
# stay in BUILD_DIR/browser/ as artifacts. Usage: run.sh HASHBENCH
# SOURCE_DIR BUILD_DIR. Exits 77 (skipped) only when chromium is not
# installed, and fails then under CI=true (in CI nothing may be skipped).
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
rm -rf "$out/site" "$out/x86_1-arm_1"
mkdir -p "$out"
# x86_1 with the guide's eight sizes: a summary as wide as a real campaign's
python3 "$src/tests/browser/widen_dataset.py" "$src/tests/report/data" "$out/data"
"$hashbench" compare "$out/data/x86_1" "$out/data/arm_1" --out "$out/x86_1-arm_1" >/dev/null
"$hashbench" report "$out/data" --out "$out/site" --compare "$out/x86_1-arm_1"
exec python3 "$src/tests/browser/check_site.py" "$out/site" "$out" "$chromium"
