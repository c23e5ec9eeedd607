#!/bin/sh
# The AArch64 path end to end under emulation (ctest: aarch64_cross_run).
# It cross-builds hashbench with cmake/aarch64-linux-gnu.cmake, then runs the
# AArch64 hashbench under qemu-aarch64 on the bundled examples (or the
# packages in HB_EXAMPLES_DIR): build with the cross compiler (reference
# profile) and KAT, requiring PASS for every instance; performance and
# resource builds whose flags must be the ARM guide's and nothing else;
# `hashbench check`, which must see an AArch64 host and name cntvct_el0 as
# ticks; a short measurement whose records must name cntvct_el0 at the
# frequency that cntfrq_el0 gives (read by tests/aarch64/cntfrq.c). It then
# runs the same examples natively (x86-64), requires both architectures to
# generate the same KAT texts, publishes both runs into one dataset (the
# emulated system's id, arm_1_emulated, says its figures time qemu, not a
# core), renders the site and requires each candidate's x86 page and AArch64
# page to link to each other, and the AArch64 pages to give cntvct_el0
# ticks, never cycles. run_check (tests/aarch64/run_check.c) does the checks.
# Without qemu-aarch64, the cross compiler, the arm64 libraries or the
# binfmt_misc entry (scripts/cross-deps.sh installs all of them) it skips
# with exit code 77, or fails when HB_AARCH64_REQUIRED=1 or CI=true (CI
# installs them, so there the test must run).
# AArch64 programs run with Debian's arm64 C library (libc6:arm64, which the
# arm64 -dev packages bring): qemu-aarch64 gets no -L/QEMU_LD_PREFIX, since
# with a prefix an emulated fork() hangs in the child under qemu 7.2.
#   cross_run.sh SOURCE_DIR BUILD_DIR RUN_CHECK CMAKE
set -eu

SRC=$1
BUILD=$2
RUN_CHECK=$3
CMAKE=$4
W=$BUILD/aarch64-test
XB=$W/build
TRIPLET=aarch64-linux-gnu
# The packages: the bundled examples, or HB_EXAMPLES_DIR.
EXDIR=${HB_EXAMPLES_DIR:-$SRC/examples}
# The emulated system's id says so: its figures time qemu, not a core.
ARM_SYS=arm_1_emulated
X86_SYS=x86_1
# The native run's size (its figures are not checked: it gives the KAT
# texts to compare and the x86 pages to link).
SIZES=64
# The emulated measurement's (its trials time qemu; one size shows the counter).
ARM_SIZES=64
# The ARM guide's performance flags, as the guide states them.
ARM_PERF_FLAGS="-O3 -march=armv8.2-a+sve -flto -fomit-frame-pointer -std=c99 -Wpedantic -Wall -Wextra"
ARM_RES_FLAGS="-Os -march=armv8-a -flto -fomit-frame-pointer -std=c99 -Wpedantic -Wall -Wextra"
REF_FLAGS="-std=c99 -Wpedantic -Wall -Wextra -O2"

skip() {
  if [ "${HB_AARCH64_REQUIRED:-0}" = 1 ] || [ "${CI:-}" = true ]; then
    echo "aarch64: cannot run: $1 (the test is required here: HB_AARCH64_REQUIRED=1 or CI=true); run scripts/cross-deps.sh as root"
    exit 1
  fi
  echo "aarch64: skipped: $1; scripts/cross-deps.sh (as root) installs what is missing"
  exit 77
}

command -v qemu-aarch64 >/dev/null || skip "qemu-aarch64 is not installed"
command -v $TRIPLET-gcc >/dev/null || skip "$TRIPLET-gcc is not installed"
for pc in jansson libelf md4c-html libcrypto; do
  [ -f /usr/lib/$TRIPLET/pkgconfig/$pc.pc ] || skip "the arm64 $pc library is not installed"
done
[ -e /usr/lib/$TRIPLET/libcsv.so ] || skip "the arm64 libcsv library is not installed"
[ -e /lib/ld-linux-aarch64.so.1 ] || skip "the arm64 C library (libc6:arm64) is not installed"
grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null ||
  skip "qemu-aarch64 is not registered with binfmt_misc (the emulated hashbench starts the AArch64 probe as a child)"

unset QEMU_LD_PREFIX
now() { date +%s.%N; }
T_START=$(now)
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

# step NAME CMD...: runs CMD with its output in $W/logs/NAME.log, shows the
# log and fails the test when CMD fails.
step() {
  name=$1
  shift
  t0=$(now)
  if "$@" >"$W/logs/$name.log" 2>&1; then
    echo "aarch64: $name: ok ($(elapsed "$t0"))"
  else
    rc=$?
    echo "aarch64: $name: FAILED (exit $rc, $(elapsed "$t0")): $*"
    cat "$W/logs/$name.log"
    exit 1
  fi
}

# The emulated hashbench cannot set up the sandbox (qemu-user does not give
# the process controls it needs), so the commands that run submitted code
# run unsandboxed here, as --no-sandbox records; the x86-64 run beside it
# is sandboxed.
arm() {
  case "$1" in
    build|kat|measure|run) c=$1; shift; qemu-aarch64 "$XB/hashbench" "$c" --no-sandbox "$@" ;;
    *) qemu-aarch64 "$XB/hashbench" "$@" ;;
  esac
}
x86() { "$BUILD/hashbench" "$@"; }

rm -rf "$W/arm-run" "$W/arm-perf" "$W/arm-res" "$W/x86-run" "$W/data" "$W/site" "$W/logs"
mkdir -p "$W/logs"

EXAMPLES=""
NEX=0
CANDS=""
for d in "$EXDIR"/*/; do
  [ -d "$d" ] || continue
  EXAMPLES="$EXAMPLES ${d%/}"
  CANDS="$CANDS $(basename "$d")"
  NEX=$((NEX + 1))
done
[ "$NEX" -gt 0 ] || { echo "aarch64: no example package under $EXDIR"; exit 1; }
echo "aarch64: examples:$CANDS"

# 1. Cross-build hashbench, the probe and the baseline for AArch64.
step cross-configure "$CMAKE" -S "$SRC" -B "$XB" \
  -DCMAKE_TOOLCHAIN_FILE="$SRC/cmake/$TRIPLET.cmake" -DCMAKE_BUILD_TYPE=RelWithDebInfo
step cross-build "$CMAKE" --build "$XB" -j2
step elf-machine sh -c "readelf -h '$XB/hashbench' '$XB/hashbench-probe' | grep -c AArch64 | grep -qx 2"

# The frequency of cntvct_el0 as the architecture states it.
step cntfrq-build $TRIPLET-gcc -O2 -o "$W/cntfrq" "$SRC/tests/aarch64/cntfrq.c"
FREQ=$(qemu-aarch64 "$W/cntfrq")
echo "aarch64: cntfrq_el0 = $FREQ Hz"

# 2. Build and KAT the examples under emulation (reference profile). KAT_Loop
# (a million hashes, slow under emulation) is left out with --no-loop here
# and in the runs below.
# shellcheck disable=SC2086
step arm-build arm build --run-dir "$W/arm-run" --cc $TRIPLET-gcc --profile reference $EXAMPLES
step arm-build-check "$RUN_CHECK" build "$W/arm-run" aarch64 reference "$REF_FLAGS"
step arm-kat arm kat --run-dir "$W/arm-run" --no-loop
step arm-kat-check "$RUN_CHECK" kat "$W/arm-run" "$NEX"
cat "$W/logs/arm-kat-check.log"

# 3. The performance and resource profiles take the ARM guide's flags, not
# the x86 ones, since the compiler targets AArch64 (build only).
# shellcheck disable=SC2086
step arm-perf-build arm build --run-dir "$W/arm-perf" --cc $TRIPLET-gcc --profile performance $EXAMPLES
step arm-perf-check "$RUN_CHECK" build "$W/arm-perf" aarch64 performance "$ARM_PERF_FLAGS"
# shellcheck disable=SC2086
step arm-res-build arm build --run-dir "$W/arm-res" --cc $TRIPLET-gcc --profile resource $EXAMPLES
step arm-res-check "$RUN_CHECK" build "$W/arm-res" aarch64 resource "$ARM_RES_FLAGS"

# The host check under emulation: it sees an AArch64 host and names its
# counter as a timer (exit 1: this VM is unfit, which is expected).
step arm-check sh -c "qemu-aarch64 '$XB/hashbench' check --json >'$W/check.json'; [ \$? -le 1 ]"
step arm-check-json "$RUN_CHECK" check "$W/check.json" cntvct_el0 "$FREQ"
cat "$W/logs/arm-check-json.log"

# 4. A measurement smoke run under emulation: one size, the reference
# planner with two trials (at least 100 calls each; the records are checked
# for their counter, not their figures). Not the adaptive
# planner: its budget holds whatever the trials do, and under qemu on a busy
# host nearly every trial of a millisecond is disturbed (preempted, or off
# the counter's rate by the emulated clock reads), so a cell could end on
# its budget with no trial kept; the reference planner's long trials are
# disturbed by the rate rule only, which they meet.
# shellcheck disable=SC2086
step arm-measure arm run --run-dir "$W/arm-run" --system "$ARM_SYS" --cc $TRIPLET-gcc \
  --profile reference --plan reference --sizes "$ARM_SIZES" --trials 2 --allow-unfit-host \
  --no-loop $EXAMPLES
step arm-records-check "$RUN_CHECK" records "$W/arm-run" cntvct_el0 "$FREQ"
cat "$W/logs/arm-records-check.log"

# 5. The same examples natively, one size, a short budget.
# shellcheck disable=SC2086
step x86-run x86 run --run-dir "$W/x86-run" --system "$X86_SYS" --profile reference \
  --sizes "$SIZES" --budget 0.3 --target-ci 5 --allow-unfit-host --no-loop $EXAMPLES

# The AArch64 libraries printed the same KAT texts as the x86-64 ones.
step kat-agree "$RUN_CHECK" kat-agree "$W/arm-run" "$W/x86-run"
cat "$W/logs/kat-agree.log"

# 6. One dataset, two systems; the site links the systems' pages.
step arm-publish arm publish --run-dir "$W/arm-run" --system "$ARM_SYS" --data "$W/data"
step x86-publish x86 publish --run-dir "$W/x86-run" --system "$X86_SYS" --data "$W/data"
step report x86 report "$W/data" --out "$W/site"
# shellcheck disable=SC2086
step site-check "$RUN_CHECK" site "$W/site" "$X86_SYS" "$ARM_SYS" $CANDS
cat "$W/logs/site-check.log"
# shellcheck disable=SC2086
step labels "$RUN_CHECK" labels "$W/site" "$ARM_SYS" cntvct_el0 $CANDS
cat "$W/logs/labels.log"

echo "aarch64: all checks passed in $(elapsed "$T_START")"
