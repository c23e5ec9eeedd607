#!/bin/sh
# The long fuzzing run: every libFuzzer target in fuzz/ until it has
# executed at least a million inputs in total, counted over every run of
# this script with the same build folder (a run stopped by --max-seconds
# is continued by the next one). Each target starts from its committed
# corpus (fuzz/corpus/<target>/, seeds and regression inputs) plus the work
# corpus the earlier runs grew in <build>/work. A crash, leak, timeout or
# out-of-memory stops that target and fails the script; the input is saved
# as <build>/artifacts/<target>-crash-<sha1>, to be added to the corpus once
# the code is fixed.
#
#   bench/fuzz_long.sh [--build DIR] [--target-runs N] [--max-seconds S] [TARGET...]
#
# Prints, per target, the exact command, the executions of this run and
# the total so far; the totals are kept in <build>/fuzz-long-totals.
# Exit status: 0 every target reached its total without a finding, 1 a
# target failed, 3 clean but some total is still short (run again), 77
# clang is missing.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build-fuzz
TARGET_RUNS=1000000
MAX_SECONDS=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=$2; shift 2 ;;
    --target-runs) TARGET_RUNS=$2; shift 2 ;;
    --max-seconds) MAX_SECONDS=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "usage: bench/fuzz_long.sh [--build DIR] [--target-runs N] [--max-seconds S] [TARGET...]" >&2; exit 2 ;;
    *) break ;;
  esac
done
sh "$ROOT/fuzz/build.sh" "$BUILD" >/dev/null || exit $?
TARGETS=${*:-$(cd "$BUILD" && ls fuzz_* 2>/dev/null | grep -v '\.' || true)}
[ -n "$TARGETS" ] || { echo "fuzz_long.sh: no fuzz targets were built in $BUILD" >&2; exit 1; }
TOTALS=$BUILD/fuzz-long-totals
mkdir -p "$BUILD/artifacts" "$BUILD/work"
touch "$TOTALS"

total_of() { awk -v t="$1" '$1 == t { n = $2 } END { print n + 0 }' "$TOTALS"; }

FAIL=0
SHORT=0
for t in $TARGETS; do
  name=${t#fuzz_}
  done_before=$(total_of "$t")
  left=$((TARGET_RUNS - done_before))
  if [ "$left" -le 0 ]; then
    echo "$t: $done_before executions in total (target $TARGET_RUNS reached)"
    continue
  fi
  work=$BUILD/work/$name
  log=$BUILD/work/$name.long.log
  mkdir -p "$work" "$ROOT/fuzz/corpus/$name"
  limit=""
  [ "$MAX_SECONDS" -gt 0 ] && limit="-max_total_time=$MAX_SECONDS"
  set -- "$BUILD/$t" -runs="$left" $limit -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$t-" \
    "$work" "$ROOT/fuzz/corpus/$name"
  echo "command: $*"
  if "$@" >"$log" 2>&1; then rc=0; else rc=$?; fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  runs=${runs:-0}
  total=$((done_before + runs))
  grep -v "^$t " "$TOTALS" >"$TOTALS.new" || true
  echo "$t $total" >>"$TOTALS.new"
  mv "$TOTALS.new" "$TOTALS"
  echo "$t: $runs executions in this run, $total in total (target $TARGET_RUNS), exit $rc"
  if [ "$rc" != 0 ]; then
    grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -n 20
    echo "$t: FAILED (log: $log)"
    FAIL=1
  elif [ "$total" -lt "$TARGET_RUNS" ]; then
    SHORT=1
  fi
done
if [ "$FAIL" != 0 ]; then echo "fuzz_long: a target failed"; exit 1; fi
if [ "$SHORT" != 0 ]; then echo "fuzz_long: clean so far; some totals are short of $TARGET_RUNS: run again"; exit 3; fi
echo "fuzz_long: every target clean after at least $TARGET_RUNS executions"
