#!/bin/sh
# Compare: does `hashbench compare` find a change that is there, and only
# that? Campaigns of the SM3 example on this host, one after another in one
# run: 2N of the example as it is (N pairs of identical code, N = 5 unless
# COMPARE_PAIRS says) and one of a copy whose CryptHash hashes the message
# twice (B; the first digest is kept from being optimised away). Then
#   hashbench compare A_k A_k+1   for each pair: at least 95 % of all rows
#                                 must read "no difference detected";
#   hashbench compare A_1 B       the SM3 rows must read "slower", B / A
#                                 about 2 with an interval that holds 2;
# and prints the tables, each comparison's smallest told difference and
# PASS or FAIL for each requirement.
#   bench/compare.sh [--quick] [--no-build] [--build DIR]
# --quick: two sizes and two pairs (a smoke run). It never writes
# bench/README.md.
# Run it alone on the machine: flock -x /work/.cpu.lock bench/compare.sh
set -eu
BENCH_NAME=compare
# shellcheck source=bench/common.sh disable=SC2034
. "$(dirname "$0")/common.sh"
bench_setup "$@"
B="$BENCH_BUILD/hashbench"
SIZES=64,1024,16384
PAIRS=${COMPARE_PAIRS:-5}
case " $BENCH_ARGS " in *" --quick "*) SIZES=64,4096 PAIRS=2 ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-bench-compare.XXXXXX")
trap 'rm -rf "$T"' EXIT

# The copy doing its work twice: the example's CryptHash becomes a static
# function called twice by a new CryptHash, with a compiler barrier between
# the calls. The package keeps its name, so that the rows match.
mkdir -p "$T/twice"
cp -r "$BENCH_ROOT/examples/SM3" "$T/twice/SM3"
SRC="$T/twice/SM3/Implementations/Reference_Implementation/SM3/sm3.c"
sed -i 's/^int CryptHash(int digest_len_bits/static int sm3_once(int digest_len_bits/' "$SRC"
grep -q '^static int sm3_once(' "$SRC" || bench_die "could not rename CryptHash in $SRC"
cat >>"$SRC" <<'CEOF'

/* The example's work done twice: the first digest is written, then
 * overwritten by the second; the barrier makes the first one count. */
int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    int rc = sm3_once(digest_len_bits, msg, msg_len_bits, digest);
    __asm__ volatile("" : : "r"(digest) : "memory");
    return rc != 0 ? rc : sm3_once(digest_len_bits, msg, msg_len_bits, digest);
}
CEOF

# $1: run directory; $2: package. KAT must pass: the copy gives the same
# digests.
campaign() {
    echo "$BENCH_NAME: hashbench run --run-dir $1 $2 (sizes $SIZES)" >&2
    "$B" run --run-dir "$1" --allow-unfit-host --no-loop --sizes "$SIZES" "$2" >"$1.log" 2>&1 ||
        bench_die "the campaign in $1 failed; see $1.log"
}
k=1
while [ "$k" -le $((2 * PAIRS)) ]; do
    campaign "$T/a$k" "$BENCH_ROOT/examples/SM3"
    k=$((k + 1))
done
campaign "$T/b" "$T/twice/SM3"

status=0
: >"$T/same.txt"
k=1
while [ "$k" -le "$PAIRS" ]; do
    echo "## hashbench compare A$((2 * k - 1)) A$((2 * k)) (the same example twice)"
    "$B" compare "$T/a$((2 * k - 1))" "$T/a$((2 * k))" 2>/dev/null | tee -a "$T/same.txt" || true
    echo
    k=$((k + 1))
done
twice_rc=0
"$B" compare "$T/a1" "$T/b" --fail-above 50 >"$T/twice.txt" 2>/dev/null || twice_rc=$?
echo "## hashbench compare A1 B (B hashes twice)"
cat "$T/twice.txt"
echo
python3 - "$T/same.txt" "$T/twice.txt" "$twice_rc" <<'PYEOF' || status=1
import re, sys
same, twice, rc = open(sys.argv[1]).read(), open(sys.argv[2]).read(), int(sys.argv[3])
row = re.compile(r"^(\S+ / \S+)\s+(\S+ \S+)\s+(paired|unpaired)\s+.*?\s(\d+\.\d+)\s+(\d+\.\d+) – (\d+\.\d+)\s+(.+)$")
ok = True
def check(cond, text):
    global ok
    print(("PASS " if cond else "FAIL ") + text)
    ok &= cond
rows = [row.match(l) for l in same.splitlines()]
rows = [m for m in rows if m]
same_rows = sum(m.group(7) == "no difference detected" for m in rows)
check(rows and same_rows >= 0.95 * len(rows),
      "identical code: no difference in %d of %d rows (%.1f %%, 95 %% required)"
      % (same_rows, len(rows), 100.0 * same_rows / max(len(rows), 1)))
for l in same.splitlines() + twice.splitlines():
    if l.startswith("On these hosts") or l.startswith("paired intervals widened"):
        print("  " + l)
rows = [m for m in (row.match(l) for l in twice.splitlines()) if m]
sm3 = [m for m in rows if m.group(1) == "SM3 / SM3"]
for m in sm3:
    r, lo, hi = float(m.group(4)), float(m.group(5)), float(m.group(6))
    check(m.group(7) == "slower" and lo <= 2.0 <= hi,
          "A against B, SM3 at %s: %s, B / A %.3f [%.3f, %.3f] holds 2" % (m.group(2), m.group(7), r, lo, hi))
check(len(sm3) > 0, "A against B: SM3 rows found (%d)" % len(sm3))
check(all(m.group(7) == "no difference detected" for m in rows if m.group(1) != "SM3 / SM3"),
      "A against B: no difference for the baselines")
check(rc == 1, "A against B --fail-above 50 exits 1 (%d)" % rc)
sys.exit(0 if ok else 1)
PYEOF
exit $status
