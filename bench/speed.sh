#!/bin/sh
# Speed: how long does a result take? The measure stage of the seven bundled
# examples and the OpenSSL SM3 baseline at all eight sizes with each planner
# (reference: the published campaign's rule, 5 trials of min(20000,
# max(ceil(1 s / t1), 20)) calls; interleaved-processes: rounds of short
# trials paired with the baseline's, one probe process per trial;
# interleaved, the default: the same rounds as windows of trial sessions),
# alternated in one run over two rounds: wall time and run-to-run spread of
# mean ticks per byte. Targets: interleaved no slower than
# interleaved-processes, at least 10x faster than reference, spread no worse
# than reference's. A full run writes its
# figures into bench/README.md (it takes about 15 minutes).
#   bench/speed.sh [--quick] [--no-readme] [--no-build] [--build DIR] [--cpu N]
set -eu
BENCH_NAME=speed
# shellcheck source=bench/common.sh disable=SC2034
. "$(dirname "$0")/common.sh"
bench_setup "$@"
bench_run
