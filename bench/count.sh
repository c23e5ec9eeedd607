#!/bin/sh
# Instruction-count stage: does it agree with Valgrind run by hand, and what
# does it cost? Builds and KAT-checks the bundled examples into a scratch
# run directory, then
#  1. runs `hashbench count` on it (7 examples and the OpenSSL baseline at
#     S1-S8) with its default events (instructions and conditional
#     branches), then with --no-branches and with --memory, printing wall
#     and CPU time of each (goal: <= 30 s for the default);
#  2. builds a static program from the SHA-256 example's sources with the
#     flags its build.json records (bench/count_static.c, no hashbench code
#     in it), runs Valgrind's cachegrind on it by hand with 1 and 3 calls at
#     each size, and compares (total(3) - total(1)) / 2 with the stage's
#     instructions per call (target: within 0.1 %).
# Counts instructions, so it needs no quiet machine.
#   bench/count.sh [--build DIR] [--no-build] [--keep]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${HB_BENCH_BUILD:-$ROOT/build-bench}
NO_BUILD=0
KEEP=0
while [ $# -gt 0 ]; do
    case "$1" in
    --build) BUILD=$2; shift ;;
    --no-build) NO_BUILD=1 ;;
    --keep) KEEP=1 ;;
    *) echo "usage: bench/count.sh [--build DIR] [--no-build] [--keep]" >&2; exit 2 ;;
    esac
    shift
done
if [ "$NO_BUILD" = 0 ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DHB_TESTS=OFF >/dev/null
    cmake --build "$BUILD" -j2 >/dev/null
fi
HB=$BUILD/hashbench
[ -x "$HB" ] || { echo "bench/count.sh: $HB missing; run without --no-build" >&2; exit 2; }
RUN=$(mktemp -d "${TMPDIR:-/tmp}/hb-count-bench.XXXXXX")
[ "$KEEP" = 1 ] || trap 'rm -rf "$RUN"' EXIT
EX=$ROOT/examples
"$HB" build --run-dir "$RUN/run" "$EX/SHA2" "$EX/SHA3" "$EX/SM3" >/dev/null 2>&1
"$HB" kat --run-dir "$RUN/run" --no-loop >/dev/null 2>&1 || true

# 1. the stage's cost
echo "## Stage cost: hashbench count on the bundled examples at S1-S8"
echo
echo "| events | records | wall s | CPU s (user + sys) |"
echo "| --- | ---: | ---: | ---: |"
for opt in "" --no-branches --memory; do
    rm -rf "$RUN/run/count"
    python3 - "$HB" "$RUN/run" "$opt" <<'PY'
import os, subprocess, sys, time
hb, run, opt = sys.argv[1], sys.argv[2], sys.argv[3]
t0 = time.monotonic()
r0 = os.times()
out = subprocess.run([hb, "count", "--run-dir", run] + ([opt] if opt else []),
                     capture_output=True, text=True)
wall = time.monotonic() - t0
r1 = os.times()
cpu = (r1.children_user - r0.children_user) + (r1.children_system - r0.children_system)
n = sum(1 for l in out.stdout.splitlines() if l.startswith("COUNTED"))
name = {"": "instructions + conditional branches (default)",
        "--no-branches": "instructions only (--no-branches)",
        "--memory": "+ memory reads and writes (--memory)"}[opt]
print("| %s | %d counted | %.1f | %.1f |" % (name, n, wall, cpu))
PY
done
echo
# leave the default records for the comparison
rm -rf "$RUN/run/count"
"$HB" count --run-dir "$RUN/run" --instances SHA256 >/dev/null 2>&1

# 2. the SHA-256 example counted by hand
python3 - "$RUN" "$ROOT" <<'PY'
import json, os, re, subprocess, sys
run, root = sys.argv[1], sys.argv[2]
build = json.load(open(os.path.join(run, "run", "build.json")))
e = [x for x in build["instances"] if x["candidate"] == "SHA2" and x["instance"] == "SHA256"][0]
words = e["flags"].split()
flags, skip = [], False
for w in words:  # what only a shared library needs, or names the build sandbox
    if skip:
        skip = False
        continue
    if w == "-include":
        skip = True
        continue
    if w == "-shared" or w.startswith("-Wl,--version-script"):
        continue
    flags.append(w)
srcs = [os.path.join(e["package"], s["path"]) for s in e["sources"]]
exe = os.path.join(run, "count_static")
cmd = [e.get("compiler") or "cc"] + flags + ["-static", "-o", exe] + srcs + \
      [os.path.join(root, "bench", "count_static.c")]
subprocess.run(cmd, check=True, capture_output=True)
print("## SHA-256 example: the stage against Valgrind run by hand on a static build")
print()
print("Static build: `%s`" % " ".join(["cc"] + flags + ["-static", "...sources", "bench/count_static.c"]))
print()
def total(size, calls):
    out = os.path.join(run, "cg.out")
    subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                    "--cachegrind-out-file=" + out, exe, str(size), str(calls)],
                   check=True, capture_output=True)
    for line in open(out):
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise SystemExit("no summary in " + out)
print("| size | by hand (instructions/call) | stage | difference |")
print("| ---: | ---: | ---: | ---: |")
worst = 0.0
for size in (32, 128, 512, 1024, 4096, 8192, 16384, 65536):
    hand = (total(size, 3) - total(size, 1)) / 2
    rec = json.load(open(os.path.join(run, "run", "count", "SHA2",
                                      "SHA256__count_%d.json" % size)))
    stage = rec["derived"]["Ir"]["per_call"]
    diff = 100.0 * (stage - hand) / hand
    worst = max(worst, abs(diff))
    print("| %d B | %.0f | %.0f | %+.3f %% |" % (size, hand, stage, diff))
print()
print("largest difference: %.3f %% (target: within 0.1 %%)" % worst)
PY
