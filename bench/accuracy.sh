#!/bin/sh
# Accuracy: is hashbench's throughput right? At 16384 B, for the OpenSSL-backed
# SHA-256 and SM3 instances and the SHA-256 example, compares hashbench's MB/s
# (hashbench measure, default planner: trial sessions in a pinned probe) with
# `openssl speed -evp` in elapsed-time mode (same digest, same size; OpenSSL
# instances only, since openssl speed times OpenSSL's own code) and with Google
# Benchmark timing the same library call through dlopen (real time). Rounds
# alternate the three timers; each ratio is the median over rounds. Target:
# every ratio within 3 %. A full run writes its figures into bench/README.md.
#   bench/accuracy.sh [--quick] [--no-readme] [--no-build] [--build DIR] [--cpu N]
set -eu
BENCH_NAME=accuracy
# shellcheck source=bench/common.sh disable=SC2034
. "$(dirname "$0")/common.sh"
bench_setup "$@"
bench_build_gbench
bench_run
