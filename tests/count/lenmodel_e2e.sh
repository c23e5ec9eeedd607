#!/bin/sh
# The length model of the counts end to end (ctest: test_count_lenmodel):
# two copies of the SM3 example built from the same patched source, one
# computing 16 rounds instead of 64 at the byte-aligned lengths no KAT
# vector covers (4097 bits to 1 MiB less one bit: the KATs still pass), the
# other 64 always. Counted at 1024 bytes with the curve: the fake's model
# is BELOW_MODEL (block 64 B, ratio under 0.7), its 1024-byte record
# INCONSISTENT naming the length and ratio, count exits 1 with a failure
# line, `status` lists it among the failures, its candidate page says its
# figures beyond 512 bytes are not borne out and the summary's table marks
# it; the honest copy is CONSISTENT (ratio within 5 % of 1) and COUNTED.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-count-lenmodel.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"
# $1: package, $2: the rounds past the covered lengths
patched() {
    cp -R "$SRC/examples/SM3" "$T/$1"
    f="$T/$1/Implementations/Reference_Implementation/SM3/sm3.c"
    sed -i -e 's|^/\* The compression function CF|static int sm3_rounds = 64;\n&|' \
        -e 's|for (j = 0; j < 64; j++) {|for (j = 0; j < sm3_rounds; j++) {|' \
        -e "s|^    memcpy(v, iv, sizeof v);|&\n    sm3_rounds = msg_len_bits > 4096 \&\& msg_len_bits < 8388608 \&\& msg_len_bits % 8 == 0 ? $2 : 64;|" \
        "$f"
    grep -q "? $2 : 64;" "$f" && grep -q "j < sm3_rounds" "$f" || bad "the patch of $1 did not apply"
}
patched Fast 16
patched Honest 64
"$B" build --run-dir "$T/r" "$T/Fast" "$T/Honest" >"$T/b.log" 2>&1
"$B" kat --run-dir "$T/r" --no-loop >"$T/k.log" 2>&1
grep -q "^PASS .*Fast/SM3" "$T/k.log" && grep -q "^PASS .*Honest/SM3" "$T/k.log" &&
    ok "both copies pass their KATs" || { bad "KATs"; cat "$T/b.log" "$T/k.log"; }
"$B" count --run-dir "$T/r" --instances Fast/SM3,Honest/SM3 --sizes 1024 --jobs 2 \
    >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && ok "count exits 1" || { bad "count exited $rc"; cat "$T/out" "$T/err"; }
python3 - "$T/r" <<'PY' && ok "models: the fake BELOW_MODEL, its 1024-byte record inconsistent; the honest copy CONSISTENT, counted" ||
import json, sys
d = sys.argv[1] + "/count/"
def load(p): return json.load(open(d + p))
f, h = load("Fast/SM3__count_curve.json"), load("Honest/SM3__count_curve.json")
fm, hm = f["length_model"], h["length_model"]
print("fake:", json.dumps(fm)); print("honest:", json.dumps(hm))
assert fm["verdict"] == "BELOW_MODEL" and fm["block_bytes"] == 64 and fm["worst_ratio"] < 0.7, fm
assert fm["worst_length"] > 512
assert hm["verdict"] == "CONSISTENT" and hm["block_bytes"] == 64, hm
assert 0.95 < hm["worst_ratio"] and hm["high_ratio"] < 1.05, hm
fr, hr = load("Fast/SM3__count_1024.json"), load("Honest/SM3__count_1024.json")
assert fr["status"] == "INCONSISTENT" and fr["derived"] is None, fr["status"]
assert "below its own cost model: at 1024 B it executes 0." in fr["reason"], fr["reason"]
assert fr["raw"]["Ir"], "the raw counts are kept"
assert hr["status"] == "COUNTED" and hr["derived"]["Ir"]["per_call"] > 0
PY
    bad "length models"
grep -q "^count: Fast/SM3 BELOW_MODEL: its counts beyond 512 B are below its own cost model" \
    "$T/err" && ok "count ends with a failure line for the fake" ||
    { bad "no failure line"; cat "$T/err"; }
grep -q "Honest/SM3 BELOW_MODEL" "$T/err" && bad "a failure line for the honest copy" ||
    ok "none for the honest copy"
"$B" status "$T/r" >"$T/st.out" 2>&1
grep -q "^  Fast/SM3  count BELOW_MODEL: its counts beyond 512 B" "$T/st.out" &&
    ok "status lists it among the failures" || { bad "status"; cat "$T/st.out"; }
# the pages: a line on the candidate page, a mark in the summary's table
"$B" measure --run-dir "$T/r" --sizes 1024 --budget 0.2 --target-ci 50 --allow-unfit-host \
    --no-wait >"$T/m.log" 2>&1
"$B" publish --run-dir "$T/r" --system x --data "$T/data" >"$T/pub.log" 2>&1 &&
    "$B" report "$T/data" --out "$T/site" >"$T/rep.log" 2>&1 ||
    { bad "publish or report"; cat "$T/m.log" "$T/pub.log" "$T/rep.log"; }
grep -q "^- SM3: \*\*its timed figures beyond 512 B are not borne out by its own cost model\*\*: at [0-9]* B it executes 0\.[0-6]" \
    "$T/site/x/Fast.md" && ok "the candidate page says its figures beyond 512 B are not borne out" ||
    bad "no line on the candidate page"
grep -q "not borne out" "$T/site/x/Honest.md" && bad "a line on the honest copy's page" ||
    ok "none on the honest copy's page"
grep -q "^| \[Fast\](Fast.md) | SM3 | PASS.*\*\*below its count model\*\* \[[0-9]\]" \
    "$T/site/x/summary.md" && grep -q "^| \[Honest\](Honest.md) | SM3 | PASS" "$T/site/x/summary.md" &&
    ! grep -q "^| \[Honest\].*below its count model" "$T/site/x/summary.md" &&
    ok "the summary's table marks the fake only" || { bad "summary mark"; grep "^| \[" "$T/site/x/summary.md"; }
"$B" validate "$T/data" --site "$T/site" >"$T/val.log" 2>&1 && ok "validate passes" ||
    { bad "validate"; tail -5 "$T/val.log"; }
checks_summary
