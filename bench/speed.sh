#!/bin/sh
# Speed: how long does a result take? The reference planner (the published
# campaign's rule: 5 trials of min(20000, max(ceil(1 s / t1), 20)) calls)
# against the adaptive planner on the SM3 and SHA-512 examples, alternated in
# one run: wall time of `hashbench measure` for all eight sizes of an
# instance, and each planner's run-to-run spread of mean cycles/byte. Target:
# adaptive at least 10x faster with no worse spread. A full run writes its
# figures into bench/README.md.
#   bench/speed.sh [--quick] [--no-readme] [--no-build] [--build DIR] [--cpu N]
set -eu
BENCH_NAME=speed
# shellcheck source=bench/common.sh disable=SC2034
. "$(dirname "$0")/common.sh"
bench_setup "$@"
bench_run
