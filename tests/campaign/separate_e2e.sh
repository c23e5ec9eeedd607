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
#     works, and the published dataset validates with 0 problems.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR; python3 reads JSON.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-separate-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT
D="$T/run"
MOPTS="--sizes 64 --budget 0.3 --target-ci 5"
FAILS=0

ok() { echo "ok: $*"; }
bad() { FAILS=$((FAILS + 1)); echo "FAILED: $*"; }
records() { find "$D/records" -name '*.json' 2>/dev/null | wc -l; }

"$B" build --run-dir "$D" "$SRC/examples/SM3" >"$T/build.log" 2>&1 ||
    { cat "$T/build.log"; bad "build"; }
"$B" kat --run-dir "$D" --no-loop >"$T/kat.log" 2>&1 ||
    { cat "$T/kat.log"; bad "kat"; }
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
if [ $rc -eq 0 ] && [ "$(records)" -eq 2 ]; then
    ok "measure with --allow-unfit-host (SM3 and the baseline at 64 B)"
else
    cat "$T/measure2.log"; bad "measure --allow-unfit-host: exit $rc, $(records) records"
fi

# 2. campaign.json kept by the separate commands, then publish
python3 - "$D/campaign.json" "$SRC/examples/SM3" <<'PY' || bad "campaign.json of the separate commands"
import json, os, sys
c = json.load(open(sys.argv[1]))
for p in ("check", "build", "kat", "measure"):
    assert c["phases"][p]["done"], (p, c["phases"])
assert c["phases"]["build"]["note"] == "hashbench build"
assert c["phases"]["kat"]["note"] == "hashbench kat"
assert c["submissions"] == [os.path.realpath(sys.argv[2])], c["submissions"]
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

if [ $FAILS -ne 0 ]; then
    echo "$FAILS check(s) FAILED"
    exit 1
fi
echo "all checks passed"
