#!/bin/sh
# Accuracy: is hashbench's throughput right? At 64 B and 16384 B, for the
# OpenSSL-backed SHA-256 and SM3 instances and the SHA-256 example, compares
# hashbench's MB/s (hashbench measure, the default planner: trial sessions) with
# `openssl speed -evp` in elapsed-time mode (same digest, same size; OpenSSL
# instances only, since openssl speed times OpenSSL's own code) and with Google
# Benchmark timing the same library call through dlopen (real time). In every
# round the three timers run back to back for each instance, their order
# rotated from round to round; it prints each round's ratios and, per instance
# and size, the median ratio with its range, and beside it hashbench's harness
# cost (what a window holds besides the hash: verification.harness_ns_per_call)
# with the ratios it would give taken out. Target: every ratio within 3 %. A
# full run writes its figures into bench/README.md.
#   bench/accuracy.sh [--quick] [--no-readme] [--no-build] [--build DIR] [--cpu N]
set -eu
BENCH_NAME=accuracy
# shellcheck source=bench/common.sh disable=SC2034
. "$(dirname "$0")/common.sh"
bench_setup "$@"
bench_build_gbench
bench_run
