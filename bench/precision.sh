#!/bin/sh
# Precision: are hashbench's figures repeatable, and do its intervals hold?
# Five independent `hashbench measure` runs of each planner (sequential
# adaptive and interleaved rounds, alternating) on the SM3 and SHA-512
# examples and the OpenSSL SM3 baseline at all eight sizes: per size the
# run-to-run spread of the ratio to the baseline (paired for interleaved) and
# of mean ticks per byte, side by side, and the coverage of the recorded 95 %
# intervals (the share containing the median of the runs). Targets: ratio
# spread at most 2 % at every size, coverage at least 80 % (interleaved). A
# full run writes its figures into bench/README.md.
#   bench/precision.sh [--quick] [--no-readme] [--no-build] [--build DIR] [--cpu N]
set -eu
BENCH_NAME=precision
# shellcheck source=bench/common.sh disable=SC2034
. "$(dirname "$0")/common.sh"
bench_setup "$@"
bench_run
