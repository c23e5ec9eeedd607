#!/bin/sh
# Variation: what do the probe's varying messages cost? For every example
# instance (and the OpenSSL SM3 baseline) at the eight sizes, the probe's
# loop (a new message per call from the trial's seed, two buffers, a digest
# slot per call) against the loop it timed before (one message, one digest
# buffer), alternated round by round on one core in one run (bench/variation.c).
# Prints the ratio per instance and size; a full run writes its figures into
# bench/README.md.
#   bench/variation.sh [--quick] [--no-readme] [--no-build] [--build DIR] [--cpu N]
set -eu
BENCH_NAME=variation
# shellcheck source=bench/common.sh disable=SC2034
. "$(dirname "$0")/common.sh"
bench_setup "$@"
bench_run
