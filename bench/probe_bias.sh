#!/bin/sh
# Builds and runs bench/probe_bias.c (probe bias, null instance, linear
# instance; see that file). Run on demand on a quiet machine, not in ctest:
#   sh bench/probe_bias.sh BUILD_DIR [LIB] [extra probe_bias options]
# BUILD_DIR holds hashbench-probe (and libhb_baseline_sha256.so, the default
# LIB); the benchmark and its two instances are built into BUILD_DIR/bench.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: probe_bias.sh BUILD_DIR [LIB] [options]}" && pwd)
shift
lib=${1:-$build/libhb_baseline_sha256.so}
[ $# -gt 0 ] && shift
out=$build/bench
mkdir -p "$out"
cc=${CC:-cc}
flags="-std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror"
$cc $flags -o "$out/probe_bias" "$here/probe_bias.c" -ldl
$cc $flags -fPIC -shared -o "$out/libprobe_bias_null.so" "$here/probe_bias_null.c"
$cc $flags -fPIC -shared -o "$out/libprobe_bias_linear.so" "$here/probe_bias_linear.c"
exec "$out/probe_bias" --probe "$build/hashbench-probe" --lib "$lib" \
    --null "$out/libprobe_bias_null.so" --linear "$out/libprobe_bias_linear.so" "$@"
