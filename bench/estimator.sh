#!/bin/sh
# Builds and runs bench/estimator_sim.c: the paired ratio's estimator on
# simulated series of pairs (drift, noise, one-sided spikes), its intervals'
# coverage and its resistance to spikes on one side. A simulation, not a
# timing benchmark: it times nothing and may run on a busy machine.
#   sh bench/estimator.sh BUILD_DIR [--quick] [--reps N]
# BUILD_DIR is a configured hashbench build folder; the hbcore library is
# built there if needed and the simulation into BUILD_DIR/bench.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: estimator.sh BUILD_DIR [--quick] [--reps N]}" && pwd)
shift
cmake --build "$build" --target hbcore >/dev/null
out=$build/bench
mkdir -p "$out"
cc=${CC:-cc}
flags="-std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror"
# shellcheck disable=SC2046,SC2086 # the flags and libraries are word lists
$cc $flags -I"$here/../src" -o "$out/estimator_sim" "$here/estimator_sim.c" \
    "$build/libhbcore.a" $(pkg-config --libs jansson libcrypto) -lm
exec "$out/estimator_sim" "$@"
