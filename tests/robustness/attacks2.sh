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
#
# Each folder of attacks2/ holds only what its package changes: the
# packages are assembled from the SM3 example (its files, its manifest, its
# sm3.c also as sm3_example.inc, and ContextFake's as context_fake.inc,
# which a fixture may include), the fixture's files over them; ContextFakeDodge is ContextFake with only
# KAT_2_23 in its manifest.
#   attacks2.sh BUILD SOURCE            the test
#   attacks2.sh --assemble OUT SOURCE   only assemble the packages into OUT
set -eu

# assemble SOURCE OUT: every package into OUT/<name>
assemble() {
    ex=$1/examples/SM3
    for f in "$1"/tests/robustness/attacks2/*/; do
        name=$(basename "$f")
        rm -rf "${2:?}/$name"
        cp -r "$ex" "$2/$name"
        cp "$ex/Implementations/Reference_Implementation/SM3/sm3.c" \
            "$2/$name/Implementations/Reference_Implementation/SM3/sm3_example.inc"
        cp "$1/tests/robustness/attacks2/ContextFake/Implementations/Reference_Implementation/SM3/sm3.c" \
            "$2/$name/Implementations/Reference_Implementation/SM3/context_fake.inc"
        cp -r "$f/." "$2/$name/"
    done
    rm -rf "$2/ContextFakeDodge"
    cp -r "$2/ContextFake" "$2/ContextFakeDodge"
    grep ' SM3/KAT_2_23_SM3.txt$' "$2/ContextFake/kat.sha256" >"$2/ContextFakeDodge/kat.sha256"
    [ -s "$2/ContextFakeDodge/kat.sha256" ]
}

if [ "${1:-}" = --assemble ]; then
    mkdir -p "$2"
    assemble "$3" "$2"
    exit 0
fi

BUILD=$1
SRC=$2
B=$BUILD/hashbench
DIR=$(mktemp -d /tmp/hb-attacks2.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
A=$DIR/packages
mkdir -p "$A"
assemble "$SRC" "$A"

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
