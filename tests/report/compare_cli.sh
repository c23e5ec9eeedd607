#!/bin/sh
# hashbench compare from the command line on the synthetic dataset's two
# systems (arm_1's records have no pairs, so every row is unpaired, a time
# per call). As committed, neither campaign recorded a host drift, so no
# row may be called faster or slower. With a recorded drift of 0 on both
# (a perfectly quiet host), arm_1's 1 KiB SM3 row is slower; --fail-above 2
# then fails from x86_1 to arm_1 and passes the other way, --fail-above 10
# passes; --out writes the page, chart and HTML.
#   compare_cli.sh HASHBENCH DATA
set -u
HB=$1
DATA=$2
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-compare-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

"$HB" compare "$DATA/x86_1" "$DATA/arm_1" >"$T/nodrift.txt" 2>/dev/null
grep -Eq '  (slower|faster)$' "$T/nodrift.txt" &&
    fail "a row was called faster or slower with no host drift recorded"
grep -q 'undecided' "$T/nodrift.txt" || fail "no undecided row without a recorded drift"
"$HB" compare "$DATA/x86_1" "$DATA/arm_1" --fail-above 2 >/dev/null 2>&1 ||
    fail "--fail-above 2 failed without a verdict of change"

cp -r "$DATA" "$T/data"
for s in x86_1 arm_1; do
    python3 - "$T/data/$s/campaign.json" <<'PY' || fail "could not set the drift"
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c["host_drift"] = {"spread_percent": 0.0}
json.dump(c, open(p, "w"), indent=2)
PY
done
"$HB" compare "$T/data/x86_1" "$T/data/arm_1" --fail-above 2 >/dev/null 2>&1
[ $? -eq 1 ] || fail "--fail-above 2 from x86_1 to arm_1 should exit 1"
"$HB" compare "$T/data/arm_1" "$T/data/x86_1" --fail-above 2 >/dev/null 2>&1 ||
    fail "--fail-above 2 from arm_1 to x86_1 should pass"
"$HB" compare "$T/data/x86_1" "$T/data/arm_1" --fail-above 10 >/dev/null 2>&1 ||
    fail "--fail-above 10 should pass"
"$HB" compare "$T/data/x86_1" "$T/data/arm_1" --out "$T/out" >/dev/null 2>&1 ||
    fail "compare --out failed"
test -s "$T/out/compare.html" && test -s "$T/out/compare.svg" || fail "no page or chart"
cat "$T/out/compare.md"
grep -qxF '| SM3 | SM3 | 1 KiB | unpaired | 2.77 µs | 2.91 µs | 1.053 | 1.002 – 1.108 | slower |' \
    "$T/out/compare.md" || fail "the 1 KiB SM3 row is not slower with drift 0"
echo "compare_cli: PASS"
