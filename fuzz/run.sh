#!/bin/sh
# Builds the fuzz targets (fuzz/build.sh) and runs each one over its
# committed corpus (fuzz/corpus/<target>/, which holds the seeds and every
# regression input) and then for a bounded time or number of executions.
# Fails when any target crashes, leaks, times out or runs out of memory; the
# input that did it is saved as <build>/artifacts/<target>-crash-<sha1> (add
# it to the corpus once the owner has fixed the code).
#
#   fuzz/run.sh [--build DIR] [--seconds S | --runs N] [--jobs J] [TARGET...]
#
# Prints, per target, the exact command and the number of executions.
# Exit status: 0 all clean, 1 a target failed, 77 clang is missing (1 under
# CI=true, where nothing may be skipped).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build-fuzz
LIMIT="-max_total_time=15"
JOBS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=$2; shift 2 ;;
    --seconds) LIMIT="-max_total_time=$2"; shift 2 ;;
    --runs) LIMIT="-runs=$2"; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "usage: fuzz/run.sh [--build DIR] [--seconds S | --runs N] [--jobs J] [TARGET...]" >&2; exit 2 ;;
    *) break ;;
  esac
done
sh "$ROOT/fuzz/build.sh" "$BUILD" >/dev/null || exit $?
TARGETS=${*:-$(cd "$BUILD" && ls fuzz_* 2>/dev/null | grep -v '\.' || true)}
[ -n "$TARGETS" ] || { echo "fuzz/run.sh: no fuzz targets were built in $BUILD" >&2; exit 1; }
mkdir -p "$BUILD/artifacts" "$BUILD/work"

# One target: new inputs go to a work corpus in the build folder, so the
# committed corpus only changes when someone copies a finding into it.
run_one() {
  t=$1
  seeds=$ROOT/fuzz/corpus/${t#fuzz_}
  work=$BUILD/work/${t#fuzz_}
  log=$BUILD/work/${t#fuzz_}.log
  mkdir -p "$work" "$seeds"
  set -- "$BUILD/$t" $LIMIT -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$BUILD/artifacts/$t-" "$work" "$seeds"
  if "$@" >"$log" 2>&1; then rc=0; else rc=$?; fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  echo "$t: ${runs:-?} executions, exit $rc: $*"
  if [ "$rc" != 0 ]; then
    grep -E 'ERROR|SUMMARY|==[0-9]+==|runtime error|Test unit written|^    #' "$log" | head -n 40
    echo "$t: FAILED (log: $log)"
    return 1
  fi
}

FAIL=0
if [ "$JOBS" -le 1 ]; then
  for t in $TARGETS; do run_one "$t" || FAIL=1; done
else
  # A few targets at a time, in batches; each writes its own result file.
  n=0
  for t in $TARGETS; do
    ( run_one "$t" >"$BUILD/work/$t.result" 2>&1 || echo FAILED >>"$BUILD/work/$t.result" ) &
    n=$((n + 1))
    if [ "$n" -ge "$JOBS" ]; then wait; n=0; fi
  done
  wait
  for t in $TARGETS; do
    cat "$BUILD/work/$t.result"
    if grep -q '^FAILED$' "$BUILD/work/$t.result"; then FAIL=1; fi
  done
fi
[ "$FAIL" = 0 ] && echo "fuzz: all targets clean" || echo "fuzz: a target failed"
exit "$FAIL"
