#!/bin/sh
# Interrupting a campaign (ctest: test_campaign_interrupt): SIGINT to the
# whole process group (as Ctrl-C sends it) during the build and KAT, and
# during the measurement once its journal exists, and SIGTERM to hashbench
# alone: each time one line says what is kept and the command that resumes,
# the process ends by the signal, and that command, run as printed, resumes
# (saying, in the measurement, how many records it keeps) and ends
# with every record of the campaign: one for each instance that passed its
# KATs (and each baseline) at each size, and no other.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR; setsid, python3.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-interrupt.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"
HB_LOCK_DIR="$T/locks"
export HB_LOCK_DIR
mkdir -p "$HB_LOCK_DIR"
PATH="$HB_BUILD_DIR:$PATH" # the printed command names `hashbench`
export PATH
# two sizes: the measurement is interrupted once the first one's records
# are written
SIZES=64,1024
OPTS="--sizes $SIZES --budget 0.3 --target-ci 1 --allow-unfit-host --no-loop --cpu 0"

# interrupt NAME SIGNAL GROUP WAITFOR: starts the campaign in DIR $T/NAME, in a
# session of its own, waits until the file WAITFOR (below DIR) exists (or
# 1 s when WAITFOR is "-"), sends SIGNAL to the group (GROUP=1) or to
# hashbench alone, and checks the line and the exit; then resumes with the
# printed command.
interrupt() {
    name=$1 sig=$2 group=$3 waitfor=$4
    d="$T/$name"
    HB_CAMPAIGN="hbint$$$name" setsid "$B" run --run-dir "$d" $OPTS "$SRC/examples/SM3" >"$T/$name.log" 2>&1 &
    pid=$!
    w=0
    if [ "$waitfor" = - ]; then
        sleep 1
    else
        while [ ! -e "$d/$waitfor" ] && kill -0 $pid 2>/dev/null && [ $w -lt 1200 ]; do
            sleep 0.02
            w=$((w + 1))
        done
    fi
    if [ "$group" = 1 ]; then kill -"$sig" -$pid 2>/dev/null; else kill -"$sig" $pid 2>/dev/null; fi
    wait $pid
    rc=$?
    want=130
    [ "$sig" = TERM ] && want=143
    if [ $rc -eq $want ] && grep -q "^hashbench run: interrupted; kept in $d: " "$T/$name.log"; then
        ok "$name: SIG$sig ends the run (exit $rc) with a line saying what is kept"
    else
        bad "$name: SIG$sig: exit $rc (want $want)"; tail -5 "$T/$name.log"
    fi
    # nothing it started outlives it (its marker, HB_CAMPAIGN, given to it alone)
    w=0
    while grep -qlaz -e "^HB_CAMPAIGN=hbint$$$name[.]" /proc/[0-9]*/environ 2>/dev/null &&
        [ $w -lt 100 ]; do
        sleep 0.05
        w=$((w + 1))
    done
    left=$(grep -laz -e "^HB_CAMPAIGN=hbint$$$name[.]" /proc/[0-9]*/environ 2>/dev/null | wc -l)
    [ "$left" -eq 0 ] && ok "$name: no process of the run is left after SIG$sig" ||
        bad "$name: $left processes of the run are left 5 s after SIG$sig"
    [ ! -s "$d/.hashbench.lock" ] && ok "$name: the run directory's lock file names no holder after SIG$sig" ||
        bad "$name: the lock file still names a holder: $(cat "$d/.hashbench.lock")"
    cmd=$(grep -A1 "resume with:" "$T/$name.log" | tail -n 1)
    case "$cmd" in
        "  hashbench run "*) ok "$name: the resume command is printed: $(echo "$cmd" | cut -c1-60)..." ;;
        *) bad "$name: no resume command printed"; tail -3 "$T/$name.log" ;;
    esac
    eval "$cmd" >"$T/$name.resume.log" 2>&1
    rc=$?
    if [ $rc -le 1 ] && msg=$(all_records "$d"); then
        ok "$name: the printed command resumes the campaign to its end ($msg)"
    else
        bad "$name: resume exit $rc: $msg"; tail -5 "$T/$name.resume.log"
    fi
}

# all_records DIR: DIR/records holds one record for each instance of
# DIR/kat.json that passed its KATs (or is a baseline) at each size of
# SIZES, and no other, for at least three instances (SM3 and the two
# built-in baselines); prints the count, or what is missing or extra.
all_records() {
    python3 - "$1" "$SIZES" <<'EOF'
import json, os, sys
run, sizes = sys.argv[1], [int(x) for x in sys.argv[2].split(",")]
kat = json.load(open(os.path.join(run, "kat.json")))["instances"]
want = {"%s/%s__hash_%d.json" % (e["candidate"], e["instance"], s)
        for e in kat if e["status"] in ("PASS", "BASELINE") for s in sizes}
records = os.path.join(run, "records")
have = {os.path.relpath(os.path.join(d, f), records)
        for d, _, files in os.walk(records) for f in files}
if want != have or len(want) < 3 * len(sizes):
    print("%d records; missing %s; extra %s" % (len(have), sorted(want - have),
                                                sorted(have - want)))
    sys.exit(1)
print("%d records: every instance at every size" % len(have))
EOF
}

interrupt build INT 1 logs/build
interrupt measure INT 1 records/SM3/SM3__hash_64.json
# the session planner writes every record of a message size as soon as the
# size is done: a resumed measurement keeps them and says how many
grep -q "measure: continuing: [1-9][0-9]* records\{0,1\} kept" \
    "$T/measure.resume.log" && ok "the resumed measurement says it continues, and with how many records" ||
    { bad "the resumed measurement does not say where it continues"; grep measure "$T/measure.resume.log" | head -5; }
interrupt term TERM 0 records
checks_summary
