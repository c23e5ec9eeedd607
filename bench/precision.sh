#!/bin/sh
# Precision: are hashbench's figures repeatable? Five independent
# `hashbench measure` runs of the SM3 and SHA-512 examples at all eight sizes;
# per size, the spread (max - min) / median of the reported mean cycles/byte
# (counter ticks per byte where the counter is not a cycle counter). Targets:
# at most 1 % at 1024 B and above, at most 2 % below. A full run writes its
# figures into bench/README.md.
#   bench/precision.sh [--quick] [--no-readme] [--no-build] [--build DIR] [--cpu N]
set -eu
BENCH_NAME=precision
# shellcheck source=bench/common.sh disable=SC2034
. "$(dirname "$0")/common.sh"
bench_setup "$@"
bench_run
