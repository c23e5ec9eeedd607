# Shared start of bench/accuracy.sh, bench/precision.sh and bench/speed.sh
# (sourced, not run): reads the common options, installs the Debian packages
# the benchmarks need (scripts/deps.sh bench: as root it installs them,
# otherwise it names what is missing), configures and builds hashbench in
# Release mode into the benchmarks' own build folder, builds the Google
# Benchmark timer when asked, then hands over to bench/hbbench.py, which
# runs the measurements, prints the ratios and writes bench/README.md.
#
# Options of every benchmark script:
#   --quick        a short smoke run (fewer rounds and sizes); never writes
#                  bench/README.md
#   --no-readme    a full run that leaves bench/README.md alone
#   --build DIR    build folder (default: build-bench in the repository, or
#                  $HB_BENCH_BUILD)
#   --cpu N        core to pin every timer to (default: the last usable one)
#   --no-build     use the binaries already in the build folder as they are

# shellcheck shell=sh

bench_die() {
    echo "$BENCH_NAME: $*" >&2
    exit 2
}

bench_setup() {
    BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
    BENCH_ROOT=$(cd "$BENCH_DIR/.." && pwd)
    BENCH_BUILD=${HB_BENCH_BUILD:-$BENCH_ROOT/build-bench}
    BENCH_ARGS=""
    BENCH_NO_BUILD=0
    while [ $# -gt 0 ]; do
        case "$1" in
        --quick | --no-readme) BENCH_ARGS="$BENCH_ARGS $1" ;;
        --no-build) BENCH_NO_BUILD=1 ;;
        --build)
            [ $# -ge 2 ] || bench_die "--build needs a folder"
            BENCH_BUILD=$2
            shift
            ;;
        --cpu)
            [ $# -ge 2 ] || bench_die "--cpu needs a core number"
            BENCH_ARGS="$BENCH_ARGS --cpu $2"
            shift
            ;;
        -h | --help)
            sed -n '2,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'
            sed -n '/^# Options/,/^$/{/^#/p}' "$BENCH_DIR/common.sh" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *) bench_die "unknown option '$1' (see $0 --help)" ;;
        esac
        shift
    done
    sh "$BENCH_ROOT/scripts/deps.sh" bench ||
        bench_die "missing packages; install them as shown above and run again"
    mkdir -p "$BENCH_BUILD"
    BENCH_BUILD=$(cd "$BENCH_BUILD" && pwd)
    if [ "$BENCH_NO_BUILD" = 1 ]; then
        [ -x "$BENCH_BUILD/hashbench" ] ||
            bench_die "--no-build: $BENCH_BUILD/hashbench does not exist; run without it"
        return 0
    fi
    echo "$BENCH_NAME: building hashbench (Release) in $BENCH_BUILD" >&2
    cmake -S "$BENCH_ROOT" -B "$BENCH_BUILD" -DCMAKE_BUILD_TYPE=Release \
        -DHB_TESTS=OFF >/dev/null || bench_die "cmake configure failed"
    cmake --build "$BENCH_BUILD" -j2 --target hashbench hashbench-probe \
        hb_baseline_sm3 hb_baseline_sha256 hb_null >/dev/null ||
        bench_die "build failed (run: cmake --build $BENCH_BUILD to see why)"
}

# The Google Benchmark timer (bench/gbench_crypthash.cc), rebuilt when its
# source is newer than the binary.
bench_build_gbench() {
    out=$BENCH_BUILD/gbench_crypthash
    if [ ! -x "$out" ] || [ -n "$(find "$BENCH_DIR/gbench_crypthash.cc" -newer "$out")" ]; then
        ${CXX:-g++} -std=c++17 -O2 -Wall -Wextra -Werror -o "$out" \
            "$BENCH_DIR/gbench_crypthash.cc" -lbenchmark -lpthread -ldl ||
            bench_die "could not build $out (needs libbenchmark-dev)"
    fi
}

bench_run() {
    # shellcheck disable=SC2086
    exec python3 "$BENCH_DIR/hbbench.py" "$BENCH_NAME" --root "$BENCH_ROOT" \
        --build "$BENCH_BUILD" $BENCH_ARGS
}
