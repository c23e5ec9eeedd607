#!/bin/sh
# Speed: how long does a result take? The measure stage of the seven bundled
# examples and the OpenSSL SM3 baseline at all eight sizes with each planner
# (reference: the published campaign's rule, 5 trials of min(20000,
# max(ceil(1 s / t1), 20)) calls; adaptive: short trials, one cell after
# another; interleaved: rounds with paired baseline trials), alternated in
# one run over two rounds: wall time and run-to-run spread of mean ticks per
# byte. Targets: interleaved no slower than adaptive, at least 10x faster
# than reference, spread no worse than reference's. A full run writes its
# figures into bench/README.md (it takes about 15 minutes).
#   bench/speed.sh [--quick] [--no-readme] [--no-build] [--build DIR] [--cpu N]
set -eu
BENCH_NAME=speed
# shellcheck source=bench/common.sh disable=SC2034
. "$(dirname "$0")/common.sh"
bench_setup "$@"
bench_run
