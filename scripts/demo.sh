#!/bin/sh
# The main job on the bundled examples: one campaign over examples/ (host
# check, build, KAT, measurement), published as a dataset and rendered as the
# Markdown and HTML site. Called by `make demo`; safe to run again (the
# campaign resumes where it stopped and keeps finished records).
set -eu
BUILD=${1:-build}
OUT=${2:-out}
SYSTEM=${HB_SYSTEM:-$(uname -m)_demo}
START=$(date +%s)

# A demo is not a published campaign: on a host without pinned clocks or a
# cycle counter (a VM, a laptop) the problems are recorded and the run goes on.
# A campaign whose figures will be published runs without --allow-unfit-host.
# The KAT gate includes KAT_Loop; each example instance must PASS against the
# kat.sha256 manifest its package ships.
# Every usable core works in the KAT stage, which tests instances side by
# side. Measuring needs one core left for hashbench's own processes (the
# sandbox, the runner, the campaign): with every core timing at once, nearly
# every trial of a few milliseconds is preempted and discarded. So with three
# usable cores or more, --cpus measures one shard on each core but the first,
# merged into $OUT/run; with two, one core measures (a run directory an older
# demo left with or without --cpus is resumed as it was).
CPUS=""
ALLOWED=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)
FIRST=${ALLOWED%%-*}
LAST=${ALLOWED##*-}
case "$ALLOWED" in
*[!0-9-]* | *-*-* | "") ;; # not one range a-b: one core measures
*-*)
    if [ $((LAST - FIRST)) -ge 2 ] &&
        { [ ! -e "$OUT/run/campaign.json" ] || [ -d "$OUT/run/cores" ]; }; then
        CPUS="--cpus $((FIRST + 1))-$LAST"
    fi
    ;;
esac
set +e
# shellcheck disable=SC2086
"$BUILD/hashbench" run --run-dir "$OUT/run" --system "$SYSTEM" --allow-unfit-host --loop --ct \
    $CPUS ${HB_DEMO_ARGS:-}
RUN=$?
set -e
if [ "$RUN" -gt 1 ]; then
    echo "demo: the campaign stopped (exit $RUN); see the messages above" >&2
    exit "$RUN"
fi
"$BUILD/hashbench" publish --run-dir "$OUT/run" --system "$SYSTEM" --data "$OUT/data"
"$BUILD/hashbench" report "$OUT/data" --out "$OUT/site"

echo
echo "demo finished in $(( $(date +%s) - START )) s"
echo "  run directory (raw evidence): $OUT/run"
echo "  published dataset:            $OUT/data/$SYSTEM"
echo "  site (open in a browser):     $OUT/site/index.html"
echo "  Markdown pages:               $OUT/site/$SYSTEM/*.md"
if [ "$RUN" -eq 1 ]; then
    echo "note: some instances did not pass; the pages name each one and why"
fi
