#!/bin/sh
# One kind of process for submitted code (ctest robustness_role_split):
# RoleSplit of tests/robustness/attacks2/ (an honest SM3 that works through
# 128 KiB of stack in every call except in a process it takes for the
# memory run, told by its command line or its CPU-time limit) beside an
# honest copy of the SM3 example, at 32 bytes. Every process that runs
# submitted code is now started alike (src/runner/start.h), so it finds no
# memory run to save its stack in: its record is INCONSISTENT, or OK with a
# stack figure of at least 99 % of the 128 KiB it uses. When the memory run
# was "hashbench-probe --memory ...", its published stack figure was a few
# KiB, status OK.
#   role_split.sh BUILD SOURCE
set -eu

. "$(dirname "$0")/attacks2_env.sh"
attacks2_env rolesplit "$1" "$2"
SCRATCH=131072

status=0
"$B" run --run-dir "$DIR/run" --system split --sizes 32 --no-loop --allow-unfit-host \
    "$A/RoleSplit" "$A/Honest" >"$DIR/log" 2>&1 || status=$?
if [ "$status" -gt 1 ]; then
    echo "FAIL: the campaign ended with $status"
    tail -20 "$DIR/log"
    exit 1
fi

# number NAME of the record FILE
number() {
    sed -n "s/^ *\"$2\": \\([0-9-]*\\).*/\\1/p" "$1" | head -n 1
}

fail=0
rec=$DIR/run/records/Honest/SM3__hash_32.json
echo "Honest: $(field "$rec" status), stack $(number "$rec" stack_peak_bytes) bytes"
rec=$DIR/run/records/RoleSplit/SM3__hash_32.json
st=$(field "$rec" status)
stack=$(number "$rec" stack_peak_bytes)
echo "RoleSplit: $st, stack $stack bytes (it uses $SCRATCH in every call it is timed in)"
case $st in
INCONSISTENT) ;;
OK)
    [ -n "$stack" ] && [ "$stack" -ge $((SCRATCH * 99 / 100)) ] ||
        { echo "FAIL: RoleSplit published $stack bytes of stack, OK"; fail=1; } ;;
*) echo "FAIL: RoleSplit is $st"; fail=1 ;;
esac
[ "$fail" -eq 0 ] || { echo "FAIL"; exit 1; }
echo "ok: RoleSplit's stack figure is the one of the code that is timed"
