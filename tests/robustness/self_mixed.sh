#!/bin/sh
# The process that recomputes sampled timed digests with the library itself
# ("self (fresh process)", the verifier of a function with no independent
# implementation; --no-independent-check makes every instance use it)
# cannot be told from a KAT runner (ctest robustness_self_mixed): one
# campaign at 32 bytes of ContextFake (tests/robustness/attacks2/: fakes
# where it is timed and in a runner whose first message has a timed size)
# beside an honest copy of the SM3 example, both verified by themselves.
# The recomputing runner starts as a KAT runner does, with the first
# records of the instance's own KAT_2_12, and gets more of them shuffled
# among the timed calls: ContextFake, honest there, gives digests its timed
# session did not: INCONSISTENT (before, its faked figure was published
# OK); the honest copy answers its own vectors: OK.
#   self_mixed.sh BUILD SOURCE
set -eu

. "$(dirname "$0")/attacks2_env.sh"
attacks2_env selfmix "$1" "$2"

status=0
"$B" run --run-dir "$DIR/run" --system mix --sizes 32 --no-loop --allow-unfit-host \
    --no-independent-check "$A/ContextFake" "$A/Honest" >"$DIR/log" 2>&1 || status=$?
if [ "$status" -gt 1 ]; then
    echo "FAIL: the campaign ended with $status"
    tail -20 "$DIR/log"
    exit 1
fi

fail=0
rec=$DIR/run/records/ContextFake/SM3__hash_32.json
st=$(field "$rec" status)
echo "ContextFake: $st: $(field "$rec" failure)"
[ "$st" = INCONSISTENT ] || { echo "FAIL: ContextFake is $st, not INCONSISTENT"; fail=1; }
[ "$(field "$rec" refused_by)" = digests ] ||
    { echo "FAIL: ContextFake's record does not name the digests rule"; fail=1; }

rec=$DIR/run/records/Honest/SM3__hash_32.json
st=$(field "$rec" status)
by=$(field "$rec" verified_by)
echo "Honest: $st, verified by $by"
[ "$st" = OK ] && [ "$by" = "self (fresh process)" ] ||
    { echo "FAIL: the honest copy is not OK verified by itself"; fail=1; }

[ "$fail" -eq 0 ] || { echo "FAIL"; exit 1; }
echo "ok: ContextFake INCONSISTENT, the honest copy OK, both verified by themselves"
