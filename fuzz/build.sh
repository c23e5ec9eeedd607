#!/bin/sh
# Configures and builds the libFuzzer targets (fuzz/CMakeLists.txt) with
# clang in a build folder of their own: fuzz/build.sh [BUILD_DIR]
# (default build-fuzz; HB_FUZZ_OPT=0 builds at -O0, not -O1). Prints the
# folder holding the fuzzer executables.
# Exits 77 when clang is missing (1 under CI=true).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build-fuzz}
JOBS=${JOBS:-2}
mkdir -p "$BUILD"
if ! command -v clang >/dev/null 2>&1; then
  echo "fuzz/build.sh: clang not found; install clang and libclang-rt-14-dev (scripts/deps.sh test)" >&2
  # under CI=true nothing may be skipped
  [ "${CI:-}" = true ] && exit 1
  exit 77
fi
cmake -S "$ROOT/fuzz" -B "$BUILD" -DCMAKE_C_COMPILER=clang \
  -DCMAKE_BUILD_TYPE=Debug -DHB_FUZZ_OPT="${HB_FUZZ_OPT:-1}" >"$BUILD/configure.log" 2>&1 || {
  cat "$BUILD/configure.log" >&2
  exit 1
}
cmake --build "$BUILD" -j"$JOBS" >"$BUILD/build.log" 2>&1 || {
  tail -n 60 "$BUILD/build.log" >&2
  echo "fuzz/build.sh: build failed; full log in $BUILD/build.log" >&2
  exit 1
}
echo "$BUILD"
