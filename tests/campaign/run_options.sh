#!/bin/sh
# `hashbench run` refuses a bad value of each of its options (ctest:
# test_campaign_run_options): exit status 2, a message naming the option,
# and no run directory made (nothing is checked, built or written first).
# Every case names a submission that does not exist, so a value wrongly
# accepted ends the run at once (on that submission) instead of starting a
# campaign. The wording of the messages is not checked, only that they
# name the option on their first line, and that a second line points at the
# help instead of printing it.
# GAPS lists the cases `run` does not refuse up front yet (they reach the
# host check and make the run directory): each is expected to fail the
# check, and one that passes fails the test until it is taken out of GAPS.
# Needs HB_BUILD_DIR (with hashbench).
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-run-options.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"

GAPS=""

# case OPTION VALUE...: run with OPTION VALUE... must be refused naming OPTION.
case_() {
    opt=$1
    shift
    key="$opt=$*"
    rm -rf "$T/run"
    "$B" run --run-dir "$T/run" "$opt" "$@" "$T/no-such-package" >"$T/out" 2>&1
    rc=$?
    made=no
    [ -e "$T/run" ] && made=yes
    name=$opt
    [ "$opt" = --planner ] && name=--plan # an alias, named as the option it stands for
    if [ $rc -eq 2 ] && head -n 1 "$T/out" | grep -qF -- "$name" && [ $made = no ] &&
        [ "$(wc -l <"$T/out")" -eq 2 ]; then
        refused=1
    else
        refused=0
    fi
    case " $(echo $GAPS) " in
        *" $key "*)
            if [ $refused = 1 ]; then
                bad "run $opt $*: now refused up front; take '$key' out of GAPS"
            else
                ok "known gap: run $opt $* is not refused up front (exit $rc, run directory made: $made)"
            fi ;;
        *)
            if [ $refused = 1 ]; then
                ok "run $opt $* refused naming $opt"
            else
                bad "run $opt $*: exit $rc (2 expected), run directory made: $made, message:"
                head -3 "$T/out"
            fi ;;
    esac
}

case_ --sizes 0
case_ --sizes abc
case_ --sizes 64,,128
case_ --sizes 2000000000
case_ --plan fast
case_ --planner fast
case_ --profile fast
case_ --shard 3/2
case_ --shard 0/2
case_ --shard x
case_ --cpu abc
case_ --cpu -1
case_ --cpu 1.5
case_ --cpu 99999
case_ --cpus 0,abc
case_ --cpus 99999
case_ --target-ci abc
case_ --target-ci -1
case_ --target-ci 0
case_ --budget abc
case_ --budget -1
case_ --budget 0
case_ --trials abc
case_ --trials 1.5
case_ --timeout abc
case_ --jobs abc
case_ --jobs 1.5
case_ --system a/b
case_ --cc "$T/no-such-cc"
case_ --bogus
# an option without its value (the last argument)
rm -rf "$T/run"
"$B" run --run-dir "$T/run" --budget >"$T/out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -qF -- "--budget" "$T/out" && [ ! -e "$T/run" ]; then
    ok "run --budget without a value refused naming --budget"
else
    bad "run --budget without a value: exit $rc"; head -3 "$T/out"
fi
# --cpus with --cpu or --shard
for other in "--cpu 0" "--shard 1/2"; do
    rm -rf "$T/run"
    # shellcheck disable=SC2086
    "$B" run --run-dir "$T/run" --cpus 0 $other "$T/no-such-package" >"$T/out" 2>&1
    rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "--cpus" "$T/out" && grep -qF -- "${other%% *}" "$T/out" &&
        [ ! -e "$T/run" ]; then
        ok "run --cpus with $other refused naming both"
    else
        bad "run --cpus with $other: exit $rc"; head -3 "$T/out"
    fi
done
# no --run-dir
"$B" run --sizes 64 "$T/no-such-package" >"$T/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -qF -- "--run-dir" "$T/out" && ok "run without --run-dir refused naming it" ||
    { bad "run without --run-dir: exit $rc"; head -3 "$T/out"; }

# Arguments checked before anything runs (exit 2, no host check printed,
# nothing made): a CPU outside this process's affinity mask, a submission
# that is missing or not a folder, a run directory that cannot be written.
NOTMINE=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)) + 1)')
MINE=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
: >"$T/a-file"
# refused_first NAME NEEDLE CMD...: exit 2, NEEDLE on the first line, then
# only a line pointing at the command's help (not the help itself), no
# host check, $T/run not made
refused_first() {
    name=$1 needle=$2
    shift 2
    rm -rf "$T/run"
    "$@" >"$T/out" 2>&1
    rc=$?
    if [ $rc -eq 2 ] && head -n 1 "$T/out" | grep -qF -- "$needle" &&
        ! grep -q "^host check (CPU\|^host: \|^  PROBLEM  \|^  ok       " "$T/out" && [ ! -e "$T/run" ] &&
        [ "$(wc -l <"$T/out")" -eq 2 ] && tail -n 1 "$T/out" | grep -q "^see hashbench help "; then
        ok "$name: refused first (exit 2, naming '$needle')"
    else
        bad "$name: exit $rc, run directory made: $([ -e "$T/run" ] && echo yes || echo no), output:"
        head -5 "$T/out"
    fi
}
refused_first "run --cpu $NOTMINE" "--cpu $NOTMINE" "$B" run --run-dir "$T/run" --cpu "$NOTMINE" "$SRC/examples/SM3"
refused_first "check --cpu $NOTMINE" "--cpu $NOTMINE" "$B" check --cpu "$NOTMINE"
refused_first "clock --cpu $NOTMINE" "--cpu $NOTMINE" "$B" clock --cpu "$NOTMINE"
refused_first "run with a missing submission" "$T/no-such-package" "$B" run --run-dir "$T/run" "$SRC/examples/SM3" "$T/no-such-package"
refused_first "run with only a file as submission" "$T/a-file: not a folder" "$B" run --run-dir "$T/run" "$T/a-file"
refused_first "build with a missing submission" "$T/no-such-package" "$B" build --run-dir "$T/run" "$T/no-such-package"
refused_first "run under a file" "--run-dir $T/a-file/run" "$B" run --run-dir "$T/a-file/run" "$SRC/examples/SM3"
refused_first "run in a folder nobody can write" "--run-dir /proc/hb-run" "$B" run --run-dir /proc/hb-run "$SRC/examples/SM3"
refused_first "build in a folder nobody can write" "--run-dir /proc/hb-run" "$B" build --run-dir /proc/hb-run "$SRC/examples/SM3"
if [ "$(id -u)" -ne 0 ]; then
    mkdir -p "$T/ro"
    chmod 555 "$T/ro"
    refused_first "run in a read-only folder" "--run-dir $T/ro/run" "$B" run --run-dir "$T/ro/run" "$SRC/examples/SM3"
    chmod 755 "$T/ro"
fi
# check, clock and run use the same core without --cpu, and say which
"$B" check --json >"$T/check.json" 2>/dev/null
cpu=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cpu"])' "$T/check.json" 2>/dev/null)
[ "$cpu" = "$MINE" ] && ok "check takes CPU $MINE by default, the last usable one as run does" ||
    bad "check's default CPU is '$cpu', run's is $MINE"
"$B" check >"$T/check.txt" 2>/dev/null
grep -q "checking CPU $MINE" "$T/check.txt" && ok "check says which CPU it checks" ||
    { bad "check does not say 'checking CPU $MINE'"; head -2 "$T/check.txt"; }

checks_summary
