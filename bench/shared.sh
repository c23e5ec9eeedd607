#!/bin/sh
# Shared against static: does hashbench's library run the code a static build
# of the same sources would? Every example instance and the fixture
# bench/packages/CrossCall (a hot loop calling non-static helpers in another
# file) are built by `hashbench build` (reference and performance profiles),
# then each is timed, side by side in one run and alternating, as that library
# (loaded with dlopen) and statically linked into a timing executable built
# from the same sources with the same guide flags (bench/shared_timer.c); also
# a library built with the guide flags and -fPIC -shared alone, to show what
# the export options change. Target: every library within 3 % of its static
# build. A full run writes its figures into bench/README.md.
#   bench/shared.sh [--quick] [--no-readme] [--no-build] [--build DIR] [--cpu N]
set -eu
BENCH_NAME=shared
# shellcheck source=bench/common.sh disable=SC2034
. "$(dirname "$0")/common.sh"
bench_setup "$@"
bench_run
