#!/bin/sh
# Sandbox: what does isolating submitted code cost? The same example
# instances measured by `hashbench measure` sandboxed and with --no-sandbox,
# alternated in one run (ratio of their figures; target: within 3 %), and a
# whole campaign on the examples with and without the sandbox (wall time;
# target: less than 10 % longer). A full run writes its figures into
# bench/README.md.
#   bench/sandbox.sh [--quick] [--no-readme] [--no-build] [--build DIR] [--cpu N]
set -eu
BENCH_NAME=sandbox
# shellcheck source=bench/common.sh disable=SC2034
. "$(dirname "$0")/common.sh"
bench_setup "$@"
bench_run
