#!/bin/sh
# Slow and hung instances (ctest: kat_slow_e2e). A package written here
# holds two instances of one small hash: Slow spins in every call, so that
# its KAT_Loop takes longer than the --timeout given (1 s), and Hang stops
# answering inside KAT_Loop. The KAT limit, scaled to each instance's speed
# by its calibration call, lets Slow pass and stops Hang within its bound;
# Hang's TIMEOUT is not repeated by a harness-default rebuild, and
# --retry-timeout tests it again on its own (here with --no-loop) while
# Slow's verdict is kept. The vectors come from a third, quick instance.
# Needs HB_BUILD_DIR (with hashbench).
set -u
B="${HB_BUILD_DIR:?}/hashbench"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-slow.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"
HB_LOCK_DIR="$T/locks"
export HB_LOCK_DIR
mkdir -p "$HB_LOCK_DIR"

# instance PKG NAME SPIN HANG_AFTER: a 256-bit hash that spins SPIN steps
# per call and, from call HANG_AFTER on (0: never), never returns
instance() {
    d="$T/$1/Implementations/Reference_Implementation/$2"
    mkdir -p "$d"
    printf '#define ALGORITHM_INSTANCE "%s"\n#define DIGEST_BIT_LENGTH 256\n' "$2" >"$d/CryptHash_AlgorithmInstance.h"
    cat >"$d/tick.c" <<SRC
#include <stdint.h>
#include <string.h>
#include "CryptHash_AlgorithmInstance.h"
int CryptHash(int bits, const unsigned char *msg, unsigned long long len, unsigned char *digest);
static unsigned long calls;
int CryptHash(int bits, const unsigned char *msg, unsigned long long len, unsigned char *digest)
{
    uint64_t h[4] = {0x6a09e667f3bcc908u, 0xbb67ae8584caa73bu, 0x3c6ef372fe94f82bu,
                     0xa54ff53a5f1d36f1u}, w;
    unsigned long long n = len / 8, i = 0;
    volatile unsigned long spin = 0;
    if (bits != DIGEST_BIT_LENGTH || !digest || (!msg && len))
        return 1;
    if ($4 && ++calls >= $4ul)
        for (;;)
            spin++;
    while (spin < $3ul)
        spin++;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, msg + i, 8);
        h[(i / 8) & 3] = (h[(i / 8) & 3] ^ w) * 0x100000001b3u;
    }
    for (; i < n; i++)
        h[i & 3] = (h[i & 3] ^ msg[i]) * 0x100000001b3u;
    if (len % 8)
        h[0] ^= (uint64_t)(msg[n] & (0xFF00u >> (len % 8))) << 32;
    h[1] ^= len;
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 4; k++)
            h[k] = (h[k] ^ (h[(k + 1) & 3] >> 29)) * 0x9e3779b97f4a7c15u;
    memcpy(digest, h, 32);
    return 0;
}
SRC
}

# the vectors: the texts of the quick instance, under each name
instance Quick Quick 0 0
"$B" build --run-dir "$T/q" "$T/Quick" >"$T/q.log" 2>&1 &&
    "$B" kat --run-dir "$T/q" --loop >>"$T/q.log" 2>&1
"$B" kat --write-manifest "$T/Quick" --from-run "$T/q" >>"$T/q.log" 2>&1 ||
    { bad "vectors of the quick instance"; cat "$T/q.log"; }
instance Tick Slow 4000 0
instance Tick Hang 0 200000
sed 's/Quick/Slow/g' "$T/Quick/kat.sha256" >"$T/Tick/kat.sha256"
sed 's/Quick/Hang/g' "$T/Quick/kat.sha256" >>"$T/Tick/kat.sha256"

"$B" build --run-dir "$T/r" "$T/Tick" >"$T/b.log" 2>&1 || { bad "build"; cat "$T/b.log"; }
t0=$(date +%s)
"$B" kat --run-dir "$T/r" --timeout 1 --jobs 2 >"$T/k.log" 2>&1
t1=$(date +%s)
# Slow: passed, its KAT_Loop alone longer than the limit given
loop_s=$(awk '/^KAT_Loop_Slow.txt / {print $2}' "$T/r/kat/Tick/Slow.log")
grep -q "^PASS (2_12, 2_23, Loop) Tick/Slow" "$T/k.log" &&
    awk -v s="$loop_s" 'BEGIN {exit !(s > 1.0)}' && grep -q "limit scaled" "$T/r/kat/Tick/Slow.log" &&
    ok "Slow's KAT_Loop ($loop_s s) outlasts --timeout 1 and passes under its scaled limit" ||
    { bad "slow instance"; cat "$T/k.log" "$T/r/kat/Tick/Slow.log"; }
# Hang: TIMEOUT naming its scaled bound: its CPU time, or (on a machine
# too busy to give it that) its wall limit, 4 times that; kat ended within it
hang='^TIMEOUT .*Tick/Hang .*no result within \([0-9]*\) s'
cpu=$(sed -n "s|$hang of CPU time in KAT_Loop_Hang.txt.*limit scaled.*|\1|p" "$T/k.log")
wall=$(sed -n "s|$hang in KAT_Loop_Hang.txt.*limit scaled.*|\1|p" "$T/k.log")
[ -n "$cpu" ] && wall=$((4 * cpu))
[ -n "$wall" ] && [ "$wall" -gt 1 ] && [ "$wall" -lt 120 ] && [ $((t1 - t0)) -le $((wall + 5)) ] &&
    ok "Hang is stopped within its scaled bound (${cpu:-?} s of CPU, $wall s wall; kat took $((t1 - t0)) s)" ||
    { bad "hung instance (bound '$wall', $((t1 - t0)) s)"; cat "$T/k.log"; }
grep -q "^TIMEOUT .*Tick/Hang .*not rebuilt with harness-default flags" "$T/k.log" &&
    ! grep -q "harness-default rebuild" "$T/k.log" && ! grep -q '"guide": {' "$T/r/kat.json" &&
    ok "the TIMEOUT is not repeated by a harness-default rebuild" || { bad "TIMEOUT rebuilt"; cat "$T/k.log"; }

# --no-loop alone keeps the TIMEOUT (a weaker check replaces no verdict);
# --retry-timeout tests Hang again on its own (Slow's log is not rewritten)
slow_log=$(sha256sum <"$T/r/kat/Tick/Slow.log")
"$B" kat --run-dir "$T/r" --timeout 1 --no-loop >"$T/k2.log" 2>&1
grep -q "^TIMEOUT.*Tick/Hang" "$T/k2.log" && ok "--no-loop alone keeps the TIMEOUT" ||
    { bad "no-loop"; cat "$T/k2.log"; }
"$B" kat --run-dir "$T/r" --timeout 1 --no-loop --retry-timeout >"$T/k3.log" 2>&1
grep -q "^PASS (2_12, 2_23; Loop not checked: skipped with --no-loop) Tick/Hang" "$T/k3.log" &&
    grep -q "^PASS (2_12, 2_23, Loop) Tick/Slow" "$T/k3.log" &&
    [ "$(sha256sum <"$T/r/kat/Tick/Slow.log")" = "$slow_log" ] &&
    ok "--retry-timeout tests the TIMEOUT again on its own" || { bad "retry-timeout"; cat "$T/k3.log"; }
checks_summary
