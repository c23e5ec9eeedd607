#!/bin/sh
# hashbench soak end to end (ctest: test_soak_e2e): a run directory with
# the SM3 example and three copies of it that misbehave (fixtures/
# soak_wrap.c): one whose digests go wrong after DRIFT calls in a process,
# one that leaks memory and one that leaks descriptors. A 3 s soak of the
# example is STABLE; the drifting copy is found at exactly call DRIFT, with
# the message key and length that the soak's rule gives (recomputed here
# from the record's key with Python's ChaCha20, and the digest with
# OpenSSL's SM3), and the printed command reproduces it; the leaks are
# found as LEAK; a copy that computes a function of its own is recomputed by
# fresh processes of its library and its drift found the same way. The drifting record, put into a copy of the report tests'
# dataset, gives a row on the candidate page; a library replaced after the
# KAT stage is refused. Every record names its verifier.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
DRIFT=5000
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-soak.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"
SM3C=Implementations/Reference_Implementation/SM3/sm3.c
fixture() { # NAME DEFINE...
    cp -R "$SRC/examples/SM3" "$T/$1"
    sed -i 's/^int CryptHash(/int CryptHash_plain(/' "$T/$1/$SM3C"
    name=$1
    shift
    for d in "$@"; do printf '\n#define %s\n' "$d" >>"$T/$name/$SM3C"; done
    set -- "$name"
    cat "$(dirname "$0")/fixtures/soak_wrap.c" >>"$T/$1/$SM3C"
}
cp -R "$SRC/examples/SM3" "$T/Mine"
fixture Drift "SOAK_DRIFT_AFTER $DRIFT"
fixture LeakMem "SOAK_LEAK_BYTES 65536"
fixture LeakFd "SOAK_LEAK_FDS 1"
# a function of its own (its manifest written from its texts), drifting too
fixture Tweak SOAK_TWEAK "SOAK_DRIFT_AFTER $DRIFT"
"$B" build --run-dir "$T/r" "$T/Mine" "$T/Drift" "$T/LeakMem" "$T/LeakFd" "$T/Tweak" \
    >"$T/b.log" 2>&1
"$B" kat --run-dir "$T/r" --no-loop >"$T/k.log" 2>&1
"$B" kat --write-manifest "$T/Tweak" --from-run "$T/r" >>"$T/k.log" 2>&1
"$B" kat --run-dir "$T/r" --no-loop --instances Tweak/SM3 >>"$T/k.log" 2>&1
python3 -c 'import json, sys
e = [x for x in json.load(open(sys.argv[1]))["instances"] if x["status"] == "PASS"]
sys.exit(len(e) != 5)' "$T/r/kat.json" && ok "the five packages pass their KATs" ||
    { bad "KATs"; cat "$T/b.log" "$T/k.log"; }

"$B" soak --run-dir "$T/r" --instances Mine/SM3 --duration 3s >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && grep -q "^STABLE   Mine/SM3 " "$T/out" && ok "the example is STABLE (exit 0)" ||
    { bad "example: exit $rc"; cat "$T/out" "$T/err"; }
python3 - "$T/r/soak/Mine/SM3.json" <<'PY' && ok "its record: calls, lengths 0 to 64 KiB, OpenSSL, readings" ||
import json, sys
r = json.load(open(sys.argv[1]))
o = r["outside"]
sys.exit(0 if r["verdict"] == "STABLE" and r["calls"] > 500 and r["length_min"] == 0 and
         r["length_max"] == 65536 and r["verified_by"] == "openssl:SM3" and
         o["start"]["rss_kib"] > 0 and o["start"]["fds"] > 0 and o["start"]["maps"] > 0 and
         "failure" not in r and r["sandboxed"] else r)
PY
    bad "the example's record"

"$B" soak --run-dir "$T/r" --instances Drift/SM3 --duration 20s >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && grep -q "^WRONG    Drift/SM3 " "$T/out" && ok "the drifting copy is WRONG (exit 1)" ||
    { bad "drift: exit $rc"; cat "$T/out" "$T/err"; }
python3 - "$T/r/soak/Drift/SM3.json" "$DRIFT" <<'PY' && ok "found at call $DRIFT, with the message key and length of the rule" ||
import hashlib, json, sys
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
r = json.load(open(sys.argv[1]))
f = r["failure"]
drift = int(sys.argv[2])
def stream(key, n):
    e = Cipher(algorithms.ChaCha20(key, bytes(16)), mode=None).encryptor()
    return e.update(bytes(n))
block = stream(bytes.fromhex(r["key"]), 64 * (drift + 1))[64 * drift:]
u = int.from_bytes(block[32:40], "little")
guide = [32, 128, 512, 1024, 4096, 8192, 16384, 65536]
e = (u >> 2) % 17
n = guide[(u >> 2) % 8] if u % 4 == 0 else 0 if e == 0 else (1 << (e - 1)) + ((u >> 8) % (1 << (e - 1)))
msg = stream(block[:32], n)
want = hashlib.new("sm3", msg).hexdigest()
ok = (f["call"] == drift and f["message_key"] == block[:32].hex() and f["length_bytes"] == n
      and ("recomputed " + want) in f["what"] and r["calls"] > drift)
sys.exit(0 if ok else (f, n, block[:32].hex(), want))
PY
    bad "the failure's call, key or length"
cmd=$(sed -n 's/^ *reproduce: hashbench //p' "$T/out")
[ -n "$cmd" ] && ok "a reproduce command is printed" || bad "no reproduce command"
first=$(grep -A1 "^WRONG" "$T/out" | tail -1)
# shellcheck disable=SC2086
"$B" $cmd >"$T/out2" 2>"$T/err2"
rc=$?
again=$(grep -A1 "^WRONG" "$T/out2" | tail -1)
[ $rc -eq 1 ] && [ -n "$first" ] && [ "$first" = "$again" ] &&
    ok "the command reproduces the same call, key and length" ||
    { bad "reproduce: exit $rc"; cat "$T/out2" "$T/err2"; echo "$first"; echo "$again"; }

# a function OpenSSL does not compute: recomputed by fresh processes of the
# same library, which never reach DRIFT calls
"$B" soak --run-dir "$T/r" --instances Tweak/SM3 --duration 30s >"$T/out" 2>"$T/err"
rc=$?
python3 - "$T/r/soak/Tweak/SM3.json" "$DRIFT" <<'PY' && ok "a function of its own: recomputed by fresh processes, found at call $DRIFT" ||
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if r["verdict"] == "WRONG" and r["failure"]["call"] == int(sys.argv[2]) and
         r["verified_by"].startswith("self (fresh process)") else r)
PY
    { bad "the function of its own: exit $rc"; cat "$T/out" "$T/err"; }

# the record on a candidate page: the drifting copy's record, as if soaked
# for the SM3 candidate of the report tests' dataset
cp -R "$SRC/tests/report/data" "$T/data"
mkdir -p "$T/data/x86_1/soak/SM3"
python3 - "$T/r/soak/Drift/SM3.json" "$T/data/x86_1/soak/SM3/SM3.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["candidate"], r["instance"] = "SM3", "SM3"
json.dump(r, open(sys.argv[2], "w"))
PY
"$B" report "$T/data" --out "$T/site" >"$T/rep.log" 2>&1 || { bad "report"; cat "$T/rep.log"; }
fkey=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["failure"]["message_key"])' \
    "$T/r/soak/Drift/SM3.json")
grep -q "^| SM3 | WRONG | [0-9]* | [0-9]* | [0-9]* to [0-9]* | [0-9]* to [0-9]* | [0-9]* to [0-9]* | openssl:SM3 | call $DRIFT, message key $fkey, [0-9]* B: digest " \
    "$T/site/x86_1/SM3.md" && ok "the candidate page has the instance's row, with its first failure" ||
    { bad "no soak row on the page"; grep -n -i "stability" "$T/site/x86_1/SM3.md"; }
grep -q "^| SM3 | long-run stability | soak/SM3/SM3.json |" "$T/site/x86_1/SM3.md" &&
    ok "and lists the record among its evidence" || bad "no evidence row"
grep -q "long-run stability" "$T/site/x86_1/Whirl.md" && bad "a page without records has the section" ||
    ok "a candidate without soak records has no such section"

"$B" soak --run-dir "$T/r" --instances LeakMem/SM3,LeakFd/SM3 --duration 10s >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && grep -q "^LEAK     LeakMem/SM3 " "$T/out" &&
    grep -A1 "^LEAK     LeakMem/SM3 " "$T/out" | grep -q "resident memory grew" &&
    ok "the memory leak is found" || { bad "memory leak: exit $rc"; cat "$T/out" "$T/err"; }
grep -q "^LEAK     LeakFd/SM3 " "$T/out" &&
    grep -A1 "^LEAK     LeakFd/SM3 " "$T/out" | grep -q "open descriptors grew" &&
    ok "the descriptor leak is found" || { bad "descriptor leak"; cat "$T/out" "$T/err"; }
# a library put in place of the one the KAT stage tested is not soaked
cp "$T/r/lib/Mine/libSM3.so" "$T/r/lib/LeakFd/libSM3.so"
"$B" soak --run-dir "$T/r" --instances LeakFd/SM3 --duration 2s >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && grep -q "^NOT_RUN  LeakFd/SM3 " "$T/out" && grep -q "SHA-256 is not the one" "$T/out" &&
    ok "a replaced library is refused, by its SHA-256" || { bad "replaced library: exit $rc"; cat "$T/out"; }
checks_summary
