#!/bin/sh
# One campaign per run directory, one campaign per core of a host (ctest:
# test_campaign_run_lock):
#  1. a second command on a run directory in use is refused at once (exit 2),
#     naming the holder's pid, while the first runs to its end;
#  2. a lock file left by a process that no longer runs is taken over, and
#     said so;
#  3. another set of submissions on the run directory is refused, naming
#     the folder that differs, --add and a new --run-dir, with campaign.json
#     kept as it was; --add extends the campaign;
#  4. a core that another campaign holds (a host-wide lock, here in a
#     private HB_LOCK_DIR) is refused with --no-wait, naming the core, and
#     waited for without it.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-run-lock.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"
HB_LOCK_DIR="$T/locks"
export HB_LOCK_DIR
mkdir -p "$HB_LOCK_DIR"
OPTS="--sizes 64 --budget 0.3 --target-ci 5 --allow-unfit-host --no-loop --cpu 0"
SM3="$SRC/examples/SM3"
SHA2="$SRC/examples/SHA2"
# the submission added to the campaign: a copy of the SM3 example under
# another name (one instance, quick to build, test and measure)
mkdir -p "$T/pkgs" && cp -R "$SM3" "$T/pkgs/SM3X"
EXTRA="$T/pkgs/SM3X"

# 1. two commands on one run directory
"$B" run --run-dir "$T/a" $OPTS "$SM3" "$SHA2" >"$T/a1.log" 2>&1 &
first=$!
w=0
while ! grep -q "^pid $first" "$T/a/.hashbench.lock" 2>/dev/null && [ $w -lt 400 ]; do
    sleep 0.05
    w=$((w + 1))
done
start=$(date +%s)
"$B" run --run-dir "$T/a" $OPTS "$SM3" "$SHA2" >"$T/a2.log" 2>&1
rc=$?
took=$(($(date +%s) - start))
if kill -0 $first 2>/dev/null && [ $rc -eq 2 ] && grep -q "in use by another hashbench command (pid $first, hashbench run" "$T/a2.log" &&
    [ $took -le 3 ]; then
    ok "a second run on a run directory in use is refused at once, naming pid $first"
else
    bad "second run: exit $rc after ${took}s, first still running: $(kill -0 $first 2>/dev/null && echo yes || echo no)"
    cat "$T/a2.log"
fi
grep -q "host check" "$T/a2.log" && bad "the refused run checked the host first" ||
    ok "the refused run did not start the host check"
wait $first
rc=$?
[ $rc -le 1 ] && ok "the first run ran to its end (exit $rc)" || { bad "first run exit $rc"; tail -3 "$T/a1.log"; }
[ -s "$T/a/.hashbench.lock" ] && bad "the lock file still names a holder after a clean end" ||
    ok "the lock file is emptied at a clean end"

# 2. a stale lock of a dead process
dead=$(sh -c 'echo $$')
echo "pid $dead, hashbench run, since 2026-01-01T00:00:00Z" >"$T/a/.hashbench.lock"
"$B" run --run-dir "$T/a" $OPTS "$SM3" "$SHA2" >"$T/a3.log" 2>&1
rc=$?
if [ $rc -le 1 ] && grep -q "took over the lock of .*(pid $dead," "$T/a3.log"; then
    ok "a stale lock (pid $dead) is taken over and said so"
else
    bad "stale lock: exit $rc"; head -5 "$T/a3.log"
fi

# 3. other submissions
sum=$(sha256sum <"$T/a/campaign.json")
"$B" run --run-dir "$T/a" $OPTS "$SM3" >"$T/a4.log" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "left out now: .*examples/SHA2" "$T/a4.log" &&
    grep -q "new --run-dir" "$T/a4.log" && [ "$(sha256sum <"$T/a/campaign.json")" = "$sum" ]; then
    ok "a run with fewer submissions is refused naming the one left out, campaign.json kept"
else
    bad "fewer submissions: exit $rc"; head -3 "$T/a4.log"
fi
"$B" run --run-dir "$T/a" $OPTS "$SM3" "$SHA2" "$EXTRA" >"$T/a5.log" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "not in it: .*pkgs/SM3X" "$T/a5.log" &&
    [ "$(sha256sum <"$T/a/campaign.json")" = "$sum" ]; then
    ok "a run with another submission is refused naming it, campaign.json kept"
else
    bad "another submission: exit $rc"; head -3 "$T/a5.log"
fi
"$B" run --run-dir "$T/a" $OPTS "$SHA2" "$SM3" >"$T/a6.log" 2>&1
rc=$?
[ $rc -le 1 ] && ok "the same submissions in another order resume the campaign (exit $rc)" ||
    { bad "same set reordered: exit $rc"; head -3 "$T/a6.log"; }

# --add extends the campaign: its submissions need not be named again
grep -q "add new ones to it with --add PACKAGE" "$T/a5.log" &&
    ok "the refusal names --add as a way on" || bad "the refusal does not name --add"
"$B" run --run-dir "$T/a" $OPTS --add "$EXTRA" >"$T/a7.log" 2>&1
rc=$?
n=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["submissions"]))' "$T/a/campaign.json")
if [ $rc -le 1 ] && grep -q "adding 1 submission to the campaign" "$T/a7.log" && [ "$n" = 3 ] &&
    [ -n "$(find "$T/a/records/SM3X" -name '*.json' 2>/dev/null)" ]; then
    ok "--add adds a submission to the campaign, which is then measured too"
else
    bad "--add: exit $rc, $n submissions"; tail -3 "$T/a7.log"
fi
"$B" run --run-dir "$T/a" $OPTS --shard 1/2 --add "$EXTRA" >"$T/a8.log" 2>&1
[ $? -eq 2 ] && grep -q "^hashbench run: --add extends an unsharded campaign" "$T/a8.log" &&
    ok "--add with --shard is refused" || { bad "--add with --shard"; head -2 "$T/a8.log"; }

# 4. a core another campaign holds
"$B" run --run-dir "$T/b" $OPTS "$SM3" >"$T/b0.log" 2>&1 # built and tested, then measured
rm -rf "$T/b/records"
# held until the second run below says it waits (at most 60 s), then 1 s more
flock "$HB_LOCK_DIR/hashbench-cpu0.lock" sh -c 'echo "pid $$, test holder" >"$HB_LOCK_DIR/hashbench-cpu0.lock"
    w=0
    while ! grep -q "waiting" "$0/b2.log" 2>/dev/null && [ $w -lt 600 ]; do sleep 0.1; w=$((w + 1)); done
    sleep 1' "$T" &
holder=$!
w=0
while ! grep -q "test holder" "$HB_LOCK_DIR/hashbench-cpu0.lock" 2>/dev/null && [ $w -lt 200 ]; do
    sleep 0.05
    w=$((w + 1))
done
"$B" run --run-dir "$T/b" $OPTS --no-wait "$SM3" >"$T/b1.log" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "CPU 0 is being measured on by another campaign (pid" "$T/b1.log" &&
    [ ! -d "$T/b/records" ]; then
    ok "--no-wait on a core another campaign holds is refused, naming the core"
else
    bad "--no-wait on a held core: exit $rc"; tail -3 "$T/b1.log"
fi
"$B" measure --run-dir "$T/b" --cpu 0 --sizes 64 --budget 0.3 --target-ci 5 --allow-unfit-host \
    --no-wait >"$T/b1m.log" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "CPU 0 is being measured on by another campaign (pid" "$T/b1m.log" &&
    [ ! -d "$T/b/records" ]; then
    ok "measure --no-wait on a core another campaign holds is refused, naming the core"
else
    bad "measure --no-wait on a held core: exit $rc"; tail -3 "$T/b1m.log"
fi
start=$(date +%s)
"$B" run --run-dir "$T/b" $OPTS "$SM3" >"$T/b2.log" 2>&1
rc=$?
took=$(($(date +%s) - start))
wait $holder
if [ $rc -le 1 ] && grep -q "CPU 0 is being measured on by another campaign.*waiting" "$T/b2.log" &&
    [ $took -ge 1 ] && [ -d "$T/b/records" ]; then
    ok "a core another campaign holds is waited for, then measured on (${took}s)"
else
    bad "waiting for a held core: exit $rc after ${took}s"; tail -3 "$T/b2.log"
fi
checks_summary
