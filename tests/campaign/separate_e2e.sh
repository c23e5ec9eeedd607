#!/bin/sh
# The separate commands, end to end: `hashbench build`, `kat` and `measure`
# one after another on a run directory, then `publish`, `report` and
# `validate`, as a user who does not use `hashbench run` would. Checks that
#  1. `measure` runs the host check as `run` does: on an unfit host (what
#     `hashbench check` says of this one) it refuses without
#     --allow-unfit-host (exit 2, the fix named, no record written, the
#     refusal in campaign.json), and measures with it;
#  2. the commands keep a campaign.json (host checks, a session per measure
#     command, the build and kat phases marked done), so that `publish`
#     works, and the published dataset validates with 0 problems;
#  3. an instance that fails its KAT (a copy of the SM3 example whose
#     manifest disagrees) is not timed by default, the pages saying
#     "MISMATCH (... not timed)", and `measure --time-failed` times it, its
#     status then beside its figures in the summary and the CSV.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR; python3 reads JSON.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-separate-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT
D="$T/run"
MOPTS="--sizes 64 --budget 0.3 --target-ci 5"
. "$(dirname "$0")/../checks.sh"
records() { find "$D/records" -name '*.json' 2>/dev/null | wc -l; }

# SM3X: the SM3 example with one manifest line changed, so it MISMATCHes
mkdir -p "$T/pkgs"
cp -r "$SRC/examples/SM3" "$T/pkgs/SM3X"
sed -i -E '/KAT_2_12_SM3.txt/s/^[0-9a-f]{64}/'"$(printf '0%.0s' $(seq 64))"'/' "$T/pkgs/SM3X/kat.sha256"
"$B" build --run-dir "$D" "$SRC/examples/SM3" "$T/pkgs/SM3X" >"$T/build.log" 2>&1 ||
    { cat "$T/build.log"; bad "build"; }
"$B" kat --run-dir "$D" --no-loop >"$T/kat.log" 2>&1
[ $? -eq 1 ] && grep -q "^MISMATCH (2_12; 2_23 not run: stopped at the first failure; Loop not checked: skipped with --no-loop; harness-default flags) SM3X/SM3" \
    "$T/kat.log" && grep -q "^PASS (2_12, 2_23; Loop not checked: skipped with --no-loop) SM3/SM3" \
    "$T/kat.log" && ok "kat: SM3 passes, SM3X mismatches, each saying what it checked" ||
    { cat "$T/kat.log"; bad "kat: SM3 passes, SM3X mismatches, each saying what it checked"; }
[ -f "$D/campaign.json" ] && bad "build and kat wrote campaign.json (measure keeps it)"

# 1. the host check, as `run` does it
"$B" check >"$T/check.log" 2>&1
fit=$?
"$B" measure --run-dir "$D" $MOPTS >"$T/measure1.log" 2>&1
rc=$?
if [ $fit -eq 1 ]; then
    if [ $rc -eq 2 ] && grep -q -- "--allow-unfit-host" "$T/measure1.log" &&
        grep -q "PROBLEM" "$T/measure1.log" && [ "$(records)" -eq 0 ]; then
        ok "measure refuses on this unfit host, naming --allow-unfit-host"
    else
        cat "$T/measure1.log"; bad "measure on an unfit host: exit $rc, $(records) records"
    fi
    python3 - "$D/campaign.json" <<'PY' || bad "the refusal is not in campaign.json"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["phases"]["measure"]["note"] == "refused: unfit host", c["phases"]
assert not c["phases"]["measure"]["done"]
assert c["sessions"][-1]["outcome"] == "refused: unfit host"
assert c["host_problems"] > 0 and not c["allow_unfit_host"]
PY
elif [ $fit -eq 0 ] && [ $rc -eq 0 ] && [ "$(records)" -gt 0 ]; then
    ok "measure on a fit host measures without --allow-unfit-host"
else
    cat "$T/check.log" "$T/measure1.log"; bad "check exit $fit, measure exit $rc"
fi
"$B" measure --run-dir "$D" $MOPTS --allow-unfit-host >"$T/measure2.log" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ "$(records)" -eq 3 ] && [ ! -d "$D/records/SM3X" ] &&
    [ -f "$D/records/baseline/OpenSSL_SM3__hash_64.json" ] &&
    [ -f "$D/records/baseline/OpenSSL_SHA256__hash_64.json" ]; then
    ok "measure with --allow-unfit-host (SM3 and the two baselines at 64 B; SM3X failed its KAT: not timed)"
else
    cat "$T/measure2.log"; bad "measure --allow-unfit-host: exit $rc, $(records) records"
fi
# the host check's duration is its own (a few seconds), not the time since boot
grep -q '^check: finished in [0-9.]* s$' "$T/measure2.log" &&
    grep -q '^measure: finished in [0-9.]* s$' "$T/measure2.log" &&
    ok "measure says how long its host check and its measurement took" ||
    { grep 'finished in' "$T/measure2.log"; bad "measure: stage durations"; }
"$B" publish --run-dir "$D" --system x86_t --data "$T/data1" >"$T/publish1.log" 2>&1 &&
    "$B" report "$T/data1" --out "$T/site1" >"$T/report1.log" 2>&1 ||
    { cat "$T/publish1.log" "$T/report1.log"; bad "publish and report before --time-failed"; }
grep -q '| SM3 | MISMATCH \[[0-9]*\] |' "$T/site1/x86_t/summary.md" &&
    grep -q '^- \[[0-9]*\] MISMATCH (2_12; 2_23 not run: stopped at the first failure; Loop not checked: skipped with --no-loop; harness-default flags; not timed)$' \
    "$T/site1/x86_t/summary.md" && ok "the summary says the MISMATCH was not timed" ||
    { grep SM3 "$T/site1/x86_t/summary.md"; bad "summary: no 'MISMATCH (...; not timed)'"; }
"$B" measure --run-dir "$D" $MOPTS --allow-unfit-host --time-failed >"$T/measure3.log" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ "$(records)" -eq 4 ] && [ -f "$D/records/SM3X/SM3__hash_64.json" ]; then
    ok "measure --time-failed times the MISMATCH instance"
else
    cat "$T/measure3.log"; bad "measure --time-failed: exit $rc, $(records) records"
fi

# 2. campaign.json kept by the separate commands, then publish
python3 - "$D/campaign.json" "$SRC/examples/SM3" <<'PY' || bad "campaign.json of the separate commands"
import json, os, sys
c = json.load(open(sys.argv[1]))
for p in ("check", "build", "kat", "measure"):
    assert c["phases"][p]["done"], (p, c["phases"])
assert c["phases"]["build"]["note"] == "hashbench build"
assert c["phases"]["kat"]["note"] == "hashbench kat"
assert c["submissions"][0] == os.path.realpath(sys.argv[2]), c["submissions"]
assert len(c["submissions"]) == 2
assert c["sessions"][-1]["command"] == "measure"
assert c["sessions"][-1]["outcome"] == "complete"
assert c["settings"]["sizes"] == [64], c["settings"]
assert c["start_utc"] and c["end_utc"] and c["environment"]["end"]
PY
if "$B" publish --run-dir "$D" --system x86_t --data "$T/data" >"$T/publish.log" 2>&1 &&
    [ -f "$T/data/x86_t/campaign.json" ]; then
    ok "publish after separate build, kat and measure"
else
    cat "$T/publish.log"; bad "publish after separate commands"
fi
if "$B" report "$T/data" --out "$T/site" >"$T/report.log" 2>&1 &&
    "$B" validate "$T/data" >"$T/validate.log" 2>&1; then
    ok "report and validate the published dataset"
else
    cat "$T/report.log" "$T/validate.log"; bad "report or validate"
fi
WHY='MISMATCH (2_12; 2_23 not run: stopped at the first failure; Loop not checked: skipped with --no-loop; harness-default flags; timed with --time-failed)'
# the summary's KAT cell is the status word with the number of its note
NOTE=$(sed -n 's/.*| SM3 | MISMATCH \[\([0-9]*\)\] |.*/\1/p' "$T/site/x86_t/summary.md" | head -1)
[ -n "$NOTE" ] && grep -qxF -- "- [$NOTE] $WHY" "$T/site/x86_t/summary.md" &&
    grep -q "| SM3 (KAT MISMATCH, timed with --time-failed) | 64 B |" "$T/site/x86_t/SM3X.md" &&
    "$B" export "$T/data" --csv "$T/all.csv" >/dev/null 2>&1 &&
    grep -q ',SM3X,SM3,.*,MISMATCH (2_12; 2_23 not run: stopped at the first failure; Loop not checked: skipped with --no-loop; harness-default flags; timed with --time-failed),' "$T/all.csv" &&
    ok "the timed MISMATCH carries its status in the summary, its page and the CSV" ||
    { grep SM3 "$T/site/x86_t/summary.md" "$T/site/x86_t/SM3X.md" "$T/all.csv"; bad "the timed MISMATCH's status"; }

# a session window's figure is recomputed from what hashbench read: a
# window's ns lowered by 10 % (its CPU time left as read) is a problem
cp -r "$T/data" "$T/tampered"
python3 - "$T/tampered" <<'PY'
import glob, json, sys
done = 0
for f in sorted(glob.glob(sys.argv[1] + "/x86_t/records/*/*.json")):
    r = json.load(open(f))
    if r.get("status") == "OK" and r.get("verification", {}).get("protocol") == "session":
        r["trials"][0]["ns"] = int(r["trials"][0]["ns"] * 0.9)
        json.dump(r, open(f, "w"))
        done = 1
        break
assert done, "no session record to tamper with"
PY
"$B" validate "$T/tampered" >"$T/tampered.log" 2>&1
st=$?
[ "$st" -ne 0 ] && grep -q "less the exchange" "$T/tampered.log" &&
    ok "validate finds a session window whose ns no longer follows its CPU time" ||
    { cat "$T/tampered.log"; bad "validate missed a tampered session window (exit $st)"; }

checks_summary
