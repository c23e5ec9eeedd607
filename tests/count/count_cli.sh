#!/bin/sh
# hashbench count's terminal output (ctest: test_count_cli): a run directory
# with the SM3 example (PASS) and a copy without vectors (NOKAT), counted at
# --sizes 1024,32,128: each instance's lines come in numeric size order,
# its curve after them, integer counts print as integers, and the NOKAT
# instance, and a name that is no instance, are each named as skipped with
# the reason; with --nokat the NOKAT instance is counted, marked.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-count-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"
cp -R "$SRC/examples/SM3" "$T/Mine"
cp -R "$SRC/examples/SM3" "$T/NoVec"
rm -f "$T/NoVec/kat.sha256"
"$B" build --run-dir "$T/r" "$T/Mine" "$T/NoVec" >"$T/b.log" 2>&1
"$B" kat --run-dir "$T/r" --no-loop >"$T/k.log" 2>&1
"$B" count --run-dir "$T/r" --instances Mine/SM3,NoVec/SM3,Nothing --sizes 1024,32,128 \
    >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok "count exits 0" || { bad "count exited $rc"; cat "$T/err"; }
sizes=$(grep ' Mine/SM3 ' "$T/out" |
    sed 's/.* Mine\/SM3 \([0-9]*\) B.*/\1/; s/.* Mine\/SM3 curve,.*/curve/' | tr '\n' ' ')
[ "$sizes" = "32 128 1024 curve " ] && ok "sizes in numeric order, the curve last: $sizes" ||
    bad "sizes: '$sizes'"
python3 - "$T/r" "$T/out" <<'PY' && ok "counts as the records hold them, integers without a decimal" ||
import json, glob, sys
lines = open(sys.argv[2]).read()
n = 0
for f in glob.glob(sys.argv[1] + "/count/Mine/*__count_[0-9]*.json"):
    r = json.load(open(f))
    c = r["derived"]["Ir"]["per_call"]
    want = "%d instructions/call" % c if c == int(c) else "%.1f instructions/call" % c
    if " %d B  %s" % (r["size_bytes"], want) not in lines:
        sys.exit("missing: %d B %s" % (r["size_bytes"], want))
    n += 1
sys.exit(0 if n == 3 and ".0 instructions/call" not in lines else "%d records" % n)
PY
    bad "counts not printed as the records hold them"
grep -q "^count: skipped NoVec/SM3 (NOKAT): no KAT vectors were submitted" "$T/err" &&
    ok "the NOKAT instance is named as skipped, with why" || { bad "no skip line"; cat "$T/err"; }
grep -q "^count: skipped Nothing: no instance of .* has that name" "$T/err" &&
    ok "a name that is no instance is named" || bad "no line for the unknown name"
grep -q "^count: skipped NoVec/SM3 (NOKAT): .*hashbench count --nokat)$" "$T/err" &&
    ok "the skip line says how to count it anyway" || bad "no --nokat hint"
# asked for, the NOKAT instance is counted and its lines marked
"$B" count --run-dir "$T/r" --instances NoVec/SM3 --sizes 32 --no-curve --nokat \
    >"$T/out2" 2>"$T/err2"
grep -q "^count: NoVec/SM3 (NOKAT) is counted as asked (--nokat)" "$T/err2" &&
    grep -q "^COUNTED  *NoVec/SM3 (NOKAT) 32 B  " "$T/out2" &&
    ok "count --nokat counts the NOKAT instance, marked" ||
    { bad "--nokat"; cat "$T/out2" "$T/err2"; }
checks_summary
