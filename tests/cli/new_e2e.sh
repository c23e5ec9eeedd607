#!/bin/sh
# hashbench new (ctest: test_cli_new): a package of one's own from the
# bundled SM3 example, named MyHash everywhere (instance folder,
# ALGORITHM_INSTANCE, kat.sha256 labels and file names), run with the
# command new prints: its KATs pass. A two-instance example (SHA2) gives
# Two_SHA256 and Two_SHA512, which pass too. An existing folder, a bad
# name and a package with an override file are refused, leaving nothing.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-new.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"
HB_LOCK_DIR="$T/locks"
export HB_LOCK_DIR
mkdir -p "$HB_LOCK_DIR"
cd "$T" || exit 1
# kat_status RUN_DIR CAND/INST: the instance's status in kat.json
kat_status() {
    python3 -c 'import json, sys
for e in json.load(open(sys.argv[1] + "/kat.json"))["instances"]:
    if e["candidate"] + "/" + e["instance"] == sys.argv[2]: print(e["status"])' "$1" "$2"
}

"$B" new MyHash --dir "$T" >new.out 2>&1
rc=$?
I="$T/MyHash/Implementations/Reference_Implementation/MyHash"
[ $rc -eq 0 ] && [ -f "$I/sm3.c" ] && ! [ -e "$T/MyHash/Implementations/Reference_Implementation/SM3" ] &&
    ok "new MyHash: the instance folder renamed" || { bad "new MyHash: exit $rc"; cat new.out; }
grep -q '^#define ALGORITHM_INSTANCE "MyHash"' "$I/CryptHash_AlgorithmInstance.h" &&
    ok "ALGORITHM_INSTANCE renamed" || bad "ALGORITHM_INSTANCE not renamed"
[ "$(grep -c ' strict MyHash/KAT_[A-Za-z0-9_]*_MyHash.txt$' "$T/MyHash/kat.sha256")" -eq 3 ] &&
    ok "the three kat.sha256 lines relabelled" || { bad "kat.sha256:"; cat "$T/MyHash/kat.sha256"; }
cmd=$(grep '^  .*hashbench run ' new.out)
[ -n "$cmd" ] && ok "new prints the run command" || bad "no run command printed"
eval "$cmd --sizes 32 --budget 0.2 --trials 4 --no-loop" >run.out 2>&1
[ "$(kat_status "$T/out/MyHash" MyHash/MyHash)" = PASS ] &&
    ok "the printed command runs the new package: KAT PASS" ||
    { bad "new package's KAT: $(kat_status "$T/out/MyHash" MyHash/MyHash)"; tail -20 run.out; }

"$B" new Two --from "$SRC/examples/SHA2" --dir "$T" >two.out 2>&1 &&
    "$B" build --run-dir "$T/two" "$T/Two" >/dev/null 2>&1 &&
    "$B" kat --run-dir "$T/two" --no-loop >/dev/null 2>&1
s1=$(kat_status "$T/two" Two/Two_SHA256)
s2=$(kat_status "$T/two" Two/Two_SHA512)
[ "$s1" = PASS ] && [ "$s2" = PASS ] && ok "two instances: Two_SHA256 and Two_SHA512 pass" ||
    { bad "two instances: $s1 $s2"; cat two.out; }

"$B" new MyHash --dir "$T" >again.out 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "MyHash exists" again.out && ok "an existing folder is refused" ||
    bad "existing folder: exit $rc"
"$B" new 9lives --dir "$T" >name.out 2>&1
rc=$?
[ $rc -eq 2 ] && ! [ -e "$T/9lives" ] && ok "a name not starting with a letter is refused" ||
    bad "bad name: exit $rc"
"$B" new K --from "$SRC/examples/SHA3" --dir "$T" >ini.out 2>&1
rc=$?
[ $rc -eq 2 ] && ! [ -e "$T/K" ] && grep -q "hashbench.ini" ini.out &&
    ok "a package with an override file is refused, nothing left" || bad "override file: exit $rc"
checks_summary
