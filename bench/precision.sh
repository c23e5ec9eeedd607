#!/bin/sh
# Precision: are hashbench's figures repeatable, and do its intervals hold?
# Five independent `hashbench measure` runs of each of two settings, the
# default and --trials 64 (HB_PRECISION_TRIALS=N: another count), their runs
# alternating, on the SM3 and SHA-512 examples, a renamed copy of the SM3
# example and the OpenSSL SM3 baseline at all eight sizes: per size the
# copy's paired ratio against the original's (A/A), the run-to-run spread of
# each paired ratio beside the ratio drift each run recorded, and the
# coverage of the intervals as recorded and as published. Targets: A/A
# within 1 %, spread at most 3 % at every size, coverage at least 90 %. A
# full run writes its figures into bench/README.md.
#   bench/precision.sh [--quick] [--no-readme] [--no-build] [--build DIR] [--cpu N]
set -eu
BENCH_NAME=precision
# shellcheck source=bench/common.sh disable=SC2034
. "$(dirname "$0")/common.sh"
bench_setup "$@"
bench_run
