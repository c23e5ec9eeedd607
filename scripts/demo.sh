#!/bin/sh
# The main job on the bundled examples: build every example instance and
# print the table. Later stages extend this to the whole campaign.
set -eu
BUILD=${1:-build}
OUT=${2:-out}
START=$(date +%s)
"$BUILD/hashbench" build --run-dir "$OUT/run" examples/*
echo "demo finished in $(( $(date +%s) - START )) s; run directory: $OUT/run"
