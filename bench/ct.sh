#!/bin/sh
# Constant-time stage: does the timing test separate code whose time depends
# on the message from code whose time does not, on this host, and what does
# the stage cost per instance? Alternates, ROUNDS times, the timing test
# (hashbench ct --library, default settings: 64-byte messages, 100000
# measurements) on the early-exit fixture of tests/ct/fixtures and on the
# SHA-256 example, printing |t| side by side (target: fixture well over 4.5,
# SHA-256 below it in every round); then runs `hashbench ct` on a run
# directory of the bundled examples (built and KAT-checked first) and prints
# the stage's wall time per instance (target: under 10 s). The timed part
# holds the CPU lock exclusively, once (about a minute).
#   bench/ct.sh [--build DIR] [--rounds N] [--no-build]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${HB_BENCH_BUILD:-$ROOT/build-bench}
ROUNDS=5
NO_BUILD=0
if [ "${1:-}" = "--timed" ]; then
    # the part run under the exclusive lock: HB BUILD ROUNDS RUN
    HB=$2 BUILD=$3 ROUNDS=$4 RUN=$5
    abs_t() {
        python3 -c 'import json,sys; print("%.2f" % abs(json.load(sys.stdin)["timing"]["t"]))'
    }
    echo "## Timing test: |t| of the early-exit fixture and of the SHA-256 example"
    echo
    echo "| round | early-exit fixture | SHA-256 example |"
    echo "| ---: | ---: | ---: |"
    sep=0
    i=1
    while [ "$i" -le "$ROUNDS" ]; do
        a=$("$HB" ct --library "$BUILD/libhbct_early.so" --digest-bits 256 | abs_t)
        b=$("$HB" ct --library "$BUILD/libhbex_SHA256.so" --digest-bits 256 | abs_t)
        echo "| $i | $a | $b |"
        if python3 -c "import sys; sys.exit(0 if $a > 45 and $b <= 4.5 else 1)"; then
            sep=$((sep + 1))
        fi
        i=$((i + 1))
    done
    echo
    echo "separated (fixture > 45, SHA-256 <= 4.5) in $sep of $ROUNDS rounds"
    echo
    start=$(date +%s.%N)
    "$HB" ct --run-dir "$RUN" >"$RUN/ct.out" 2>/dev/null || true
    end=$(date +%s.%N)
    n=$(grep -c . "$RUN/ct.out")
    echo "## Stage cost: hashbench ct on the bundled examples (default settings)"
    echo
    python3 -c "w = $end - $start; print('%d instances in %.1f s: %.1f s per instance (target < 10 s)' % ($n, w, w / $n))"
    exit 0
fi
while [ $# -gt 0 ]; do
    case "$1" in
    --build) BUILD=$2; shift ;;
    --rounds) ROUNDS=$2; shift ;;
    --no-build) NO_BUILD=1 ;;
    *) echo "usage: bench/ct.sh [--build DIR] [--rounds N] [--no-build]" >&2; exit 2 ;;
    esac
    shift
done
LOCK=/work/.cpu.lock
[ -e "$LOCK" ] || LOCK=/tmp/hashbench-bench.lock
if [ "$NO_BUILD" = 0 ]; then
    flock -s "$LOCK" cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DHB_TESTS=ON \
        >/dev/null
    flock -s "$LOCK" cmake --build "$BUILD" -j2 --target hashbench hashbench-ct hbct_early \
        hbex_SHA256 hb_baseline_sm3 >/dev/null
fi
HB=$BUILD/hashbench
RUN=$(mktemp -d /tmp/hb-ct-bench.XXXXXX)
trap 'rm -rf "$RUN"' EXIT
flock -s "$LOCK" "$HB" build --run-dir "$RUN" "$ROOT"/examples/* >/dev/null 2>&1
flock -s "$LOCK" "$HB" kat --run-dir "$RUN" >/dev/null 2>&1
flock -x "$LOCK" sh "$0" --timed "$HB" "$BUILD" "$ROUNDS" "$RUN"
