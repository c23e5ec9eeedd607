#!/bin/sh
# The command line's shared options through the real hashbench: --cpu has
# one range in every command that takes it (check, clock, measure, run: a
# CPU index from 0 to CPU_SETSIZE - 1; 4096, -1, 1.5 and abc refused with
# exit status 2 and a message naming --cpu, 0 accepted), and
# `run --plan fast` on the bundled examples fails before anything is built,
# leaving no run directory; a run directory whose campaign.json holds a bad
# planner is refused naming that file, and left as it was.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-options-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"

# the options each command needs besides --cpu to get past its parsing
# and stop soon after (run: at the compiler check, before the host check)
args_of() {
    case $1 in
    check) echo "" ;;
    clock) echo "--seconds 0.1" ;;
    measure) echo "--run-dir $T/none-measure" ;;
    run) echo "--run-dir $T/none-run --cc /nonexistent/cc" ;;
    esac
}

for cmd in check clock measure run; do
    for v in 4096 -1 1.5 abc; do
        rc=0
        # shellcheck disable=SC2046
        "$B" $cmd $(args_of $cmd) --cpu "$v" >"$T/out" 2>"$T/err" || rc=$?
        if [ $rc -eq 2 ] && grep -q -F -- "--cpu '$v' is not accepted: give a CPU index" "$T/err"
        then ok "$cmd --cpu $v refused"
        else bad "$cmd --cpu $v: exit $rc"; cat "$T/err"; fi
    done
    rc=0
    # shellcheck disable=SC2046
    "$B" $cmd $(args_of $cmd) --cpu 0 >"$T/out" 2>"$T/err" || rc=$?
    if grep -q -F -- "--cpu" "$T/err"; then bad "$cmd --cpu 0 refused"; cat "$T/err"
    else ok "$cmd --cpu 0 accepted (exit $rc)"; fi
done

# run --plan fast on the bundled examples: refused before anything is built
rc=0
"$B" run --run-dir "$T/fast" --plan fast --allow-unfit-host >"$T/fast.out" 2>"$T/fast.err" || rc=$?
if [ $rc -ne 0 ]; then ok "run --plan fast exits $rc"
else bad "run --plan fast exited 0"; fi
grep -q -F -- "--plan 'fast' is not accepted" "$T/fast.err" &&
    ok "run --plan fast names the option" ||
    { bad "run --plan fast: no message naming --plan"; cat "$T/fast.err"; }
if [ -e "$T/fast" ]; then bad "run --plan fast left $T/fast"; ls -la "$T/fast"
else ok "run --plan fast left no run directory"; fi
if grep -q -E '^\[[0-9]+/[0-9]+\] (build|kat)' "$T/fast.err"; then
    bad "run --plan fast built or KAT-tested something"
else ok "run --plan fast built nothing"; fi

# a campaign.json with a bad planner: refused naming it, left as it was
mkdir "$T/stored"
printf '%s\n' '{"schema": 1, "kind": "hashbench-campaign", "settings": {"planner": "fast"}}' \
    >"$T/stored/campaign.json"
cp "$T/stored/campaign.json" "$T/stored.was"
rc=0
"$B" run --run-dir "$T/stored" --allow-unfit-host >"$T/stored.out" 2>"$T/stored.err" || rc=$?
if [ $rc -eq 2 ] && grep -q -F "$T/stored/campaign.json: setting planner 'fast'" "$T/stored.err"
then ok "a stored bad planner is refused naming campaign.json"
else bad "stored bad planner: exit $rc"; cat "$T/stored.err"; fi
if cmp -s "$T/stored.was" "$T/stored/campaign.json" && [ "$(ls -A "$T/stored")" = campaign.json ]
then ok "the run directory is left as it was"
else bad "the run directory changed"; ls -la "$T/stored"; fi

checks_summary
