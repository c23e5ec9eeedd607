#!/bin/sh
# Hostile packages of tests/robustness/attacks2/ that a campaign catches:
# one campaign at 32 bytes, the independent check on, of
# - ContextFakeDodge: fakes its timed digests (SM3 cut to 16 rounds) and
#   ships only KAT_2_23's vectors; it must be verified by openssl:SM3 (not
#   by itself) and so be INCONSISTENT;
# - WarmupBurn: spends 20 ms in every untimed warm-up window; INCONSISTENT
#   for work outside the timed windows.
# (ThreadHoard is checked by sandbox_nproc, which costs a second, not the
# 40 s its runners hold their threads.)
set -eu

BUILD=$1
SRC=$2
B=$BUILD/hashbench
A=$SRC/tests/robustness/attacks2
DIR=$(mktemp -d /tmp/hb-attacks2.XXXXXX)
trap 'rm -rf "$DIR"' EXIT

status=0
"$B" run --run-dir "$DIR/run" --sizes 32 --no-loop --allow-unfit-host \
    "$A/ContextFakeDodge" "$A/WarmupBurn" > "$DIR/log" 2>&1 || status=$?
if [ "$status" -ne 1 ]; then
    echo "FAIL: the campaign ended with $status (1: it completed with failures)"
    cat "$DIR/log"
    exit 1
fi

# field NAME of the record FILE, as the record writes it ("name": value)
field() {
    sed -n "s/^ *\"$2\": \"\\([^\"]*\\)\".*/\\1/p" "$1" | head -n 1
}

fail=0
rec=$DIR/run/records/ContextFakeDodge/SM3__hash_32.json
st=$(field "$rec" status)
by=$(field "$rec" verified_by)
echo "ContextFakeDodge: $st, verified by $by"
[ "$st" = INCONSISTENT ] && [ "$by" = "openssl:SM3" ] || fail=1

rec=$DIR/run/records/WarmupBurn/SM3__hash_32.json
st=$(field "$rec" status)
echo "WarmupBurn: $st: $(field "$rec" failure)"
[ "$st" = INCONSISTENT ] && grep -q "untimed warm-up" "$rec" || fail=1

[ "$fail" -eq 0 ] || { echo "FAIL: a hostile package was not caught"; exit 1; }
echo "ok: both caught"
