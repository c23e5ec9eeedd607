#!/bin/sh
# A campaign in which nothing could be compared (ctest: test_campaign_nokat):
# a package without submitted vectors makes every instance NOKAT; `kat`
# and `run` then say that nothing was compared and exit 1, not 0. With
# the vectors back, the same commands pass (exit 0) without that line.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-nokat.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"
HB_LOCK_DIR="$T/locks"
export HB_LOCK_DIR
mkdir -p "$HB_LOCK_DIR"
mkdir -p "$T/pkg"
cp -R "$SRC/examples/SM3" "$T/pkg/SM3"
rm -f "$T/pkg/SM3/kat.sha256"
rm -rf "$T/pkg/SM3/Test_Vectors"
# KAT_Loop (a million calls) is not what this file tests: --no-loop everywhere
OPTS="--sizes 64 --budget 0.3 --target-ci 5 --allow-unfit-host --no-loop"

"$B" build --run-dir "$T/k" "$T/pkg/SM3" >"$T/b.log" 2>&1
"$B" kat --run-dir "$T/k" --no-loop >"$T/k.log" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "^NOKAT" "$T/k.log" && grep -q "nothing was compared: all 1 instance(s) are NOKAT" "$T/k.log"; then
    ok "kat on an all-NOKAT run directory says nothing was compared, exit 1"
else
    bad "kat all-NOKAT: exit $rc"; cat "$T/k.log"
fi
"$B" run --run-dir "$T/r" $OPTS "$T/pkg/SM3" >"$T/r.log" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "^KAT: nothing was compared: all 1 instance(s) are NOKAT" "$T/r.log"; then
    ok "run of an all-NOKAT campaign says nothing was compared, exit 1"
else
    bad "run all-NOKAT: exit $rc"; tail -4 "$T/r.log"
fi
# the vectors back: passed, no such line
cp "$SRC/examples/SM3/kat.sha256" "$T/pkg/SM3/kat.sha256"
"$B" kat --run-dir "$T/k" --no-loop >"$T/k2.log" 2>&1
rc=$?
[ $rc -eq 0 ] && ! grep -q "nothing was compared" "$T/k2.log" &&
    ok "with its vectors the same instance passes (exit 0)" || { bad "with vectors: exit $rc"; cat "$T/k2.log"; }
checks_summary
