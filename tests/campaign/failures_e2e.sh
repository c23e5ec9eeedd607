#!/bin/sh
# Failures explained where they are seen (ctest: test_campaign_failures): a
# campaign of three copies of the SM3 example, one that does not compile,
# one whose kat.sha256 has a malformed line (its other lines still
# compared, its status not PASS) and one that crashes on a one-byte
# message. Under its table `run` prints each failure with its
# reason and file:line (compiler, manifest, KAT file and length), the
# figures that missed their confidence target and the total time;
# `status RUN_DIR` prints the same later and exits 1, and exits 2 on a
# folder that holds no campaign.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-failures.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"
HB_LOCK_DIR="$T/locks"
export HB_LOCK_DIR
mkdir -p "$HB_LOCK_DIR"
C=Implementations/Reference_Implementation/SM3/sm3.c
for p in NoBuild BadLine Crash; do cp -R "$SRC/examples/SM3" "$T/$p"; done
sed -i '100s/^/this is not C;\n/' "$T/NoBuild/$C"
sed -i '2s/ strict / strikt /' "$T/BadLine/kat.sha256"
line=$(grep -n '^int CryptHash' "$T/Crash/$C" | cut -d: -f1)
sed -i "$((line + 2))a\\    if (msg_len_bits == 8) { volatile int *p = 0; *p = 1; }" "$T/Crash/$C"

"$B" run --run-dir "$T/r" --sizes 32 --budget 0.2 --trials 4 --target-ci 0.001 \
    --allow-unfit-host --no-loop "$T/NoBuild" "$T/BadLine" "$T/Crash" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && ok "run with three broken packages exits 1" || bad "run exited $rc"
check_reasons() { # $1 output file, $2 which command
    grep -q "^  NoBuild/SM3  BUILDFAIL: .*sm3.c:100:[0-9]*: error" "$1" &&
        ok "$2: the compile error with file:line" || bad "$2: no compile error line"
    grep -q "^  BadLine/SM3  [A-Z]*: .*kat.sha256:2: .*strikt" "$1" &&
        ok "$2: the manifest's bad line with file:line" || bad "$2: no manifest line"
    grep -q "^  Crash/SM3  CRASH: .*SIGSEGV.* in KAT_2_12_SM3.txt at Msg_Len = 8" "$1" &&
        ok "$2: the crash with its KAT file and length" || bad "$2: no crash line"
    grep -q "^  baseline/OpenSSL_SM3 32 B: +-[0-9.]* % against a target of 0.001 %" "$1" &&
        grep -q "what to do: measure again with a larger --budget" "$1" &&
        ok "$2: the figure that missed its target, with what to do" ||
        bad "$2: no missed-target line"
}
check_reasons "$T/out" run
grep -q "^total time: [0-9].* (check .*, build .*, kat .*, measure .*)$" "$T/out" &&
    ok "run: the total time and each stage's" || bad "run: no total time line"

# the progress counters: the build's runs 1/3, 2/3, 3/3 (each once), the
# KAT's counts the two instances tested, not the baselines
b=$(grep '^build [A-Za-z]' "$T/err" | sed 's/.*: \([0-9]*\/[0-9]*\).*/\1/' | tr '\n' ' ')
[ "$b" = "1/3 2/3 3/3 " ] && ok "build counter: $b" || bad "build counter: '$b'"
k=$(grep -m1 '^kat [A-Za-z]' "$T/err" | sed 's/.*: [0-9]*\/\([0-9]*\).*/\1/')
[ "$k" = 2 ] && ok "the KAT counter counts the 2 instances tested, not the baselines" ||
    bad "KAT counter total '$k'"
# the bad manifest line did not stop the others being compared, and the
# status is not PASS
python3 - "$T/r" <<'PY' && ok "the manifest's other lines were compared (2_12 PASS), status BADVECTORS" ||
import json, sys
for e in json.load(open(sys.argv[1] + "/kat.json"))["instances"]:
    if e["candidate"] == "BadLine":
        v = {f["name"]: f["verdict"] for f in e["files"]}
        sys.exit(0 if e["status"] == "BADVECTORS" and v.get("KAT_2_12_SM3.txt") == "PASS"
                 and "the other lines were compared" in e["reason"] else str((e["status"], v)))
sys.exit("no BadLine entry")
PY
    bad "the manifest's other lines were not compared"
"$B" status "$T/r" >"$T/status" 2>&1
rc=$?
[ $rc -eq 1 ] && ok "status of that campaign exits 1" || bad "status exited $rc"
check_reasons "$T/status" status
grep -q "^total time of the stages: [0-9]" "$T/status" &&
    ok "status: the stages' total time" || bad "status: no total time"
mkdir "$T/empty"
"$B" status "$T/empty" >"$T/s2" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "build.json" "$T/s2" && ok "status of an empty folder: exit 2, names build.json" ||
    { bad "status of an empty folder exited $rc"; cat "$T/s2"; }
[ $FAILS -eq 0 ] || { cat "$T/out"; tail -5 "$T/err"; }
checks_summary
