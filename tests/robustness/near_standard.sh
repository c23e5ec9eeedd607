#!/bin/sh
# A standard function cannot be opted out of (ctest robustness_near_standard):
# one campaign at 32 bytes, the independent check on, of three packages of
# tests/robustness/attacks2/ (assembled by attacks2.sh --assemble) and an
# honest copy of the SM3 example:
# - NearFake: fakes its timed digests where it is timed or recomputed by
#   itself, and flips the digest of the empty message everywhere, with
#   vectors to match: its vectors agree with SM3 on all records but one, so
#   OpenSSL recomputes its timed digests: INCONSISTENT, the record and the
#   candidate page saying its vectors "agree with SM3 except on 1 record";
# - NearHonest: the same flip, no fake: OK, verified by openssl:SM3 with
#   the same words;
# - Honest: OK, verified by plain "openssl:SM3".
#   near_standard.sh BUILD SOURCE
set -eu

. "$(dirname "$0")/attacks2_env.sh"
attacks2_env near "$1" "$2"

status=0
"$B" run --run-dir "$DIR/run" --system near --sizes 32 --no-loop --allow-unfit-host \
    "$A/NearFake" "$A/NearHonest" "$A/Honest" >"$DIR/log" 2>&1 || status=$?
if [ "$status" -gt 1 ]; then
    echo "FAIL: the campaign ended with $status"
    tail -20 "$DIR/log"
    exit 1
fi

fail=0
WORDS="near-standard: its vectors agree with SM3 except on 1 record (first: Msg_Len = 0 in KAT_2_12_SM3.txt:"
rec=$DIR/run/records/NearFake/SM3__hash_32.json
st=$(field "$rec" status)
echo "NearFake: $st: $(field "$rec" failure)"
[ "$st" = INCONSISTENT ] || { echo "FAIL: NearFake is $st, not INCONSISTENT"; fail=1; }
rule=$(field "$rec" refused_by)
[ "$rule" = digests ] || { echo "FAIL: NearFake's record names rule '$rule', not digests"; fail=1; }
grep -qF "digest differs from openssl:SM3; $WORDS" "$rec" ||
    { echo "FAIL: NearFake's record does not say it agrees with SM3 except on 1 record"; fail=1; }

rec=$DIR/run/records/NearHonest/SM3__hash_32.json
st=$(field "$rec" status)
by=$(field "$rec" verified_by)
echo "NearHonest: $st, verified by $by"
[ "$st" = OK ] && case $by in "openssl:SM3; $WORDS"*) true ;; *) false ;; esac ||
    { echo "FAIL: NearHonest is not OK verified by openssl:SM3 with the difference named"; fail=1; }

rec=$DIR/run/records/Honest/SM3__hash_32.json
st=$(field "$rec" status)
by=$(field "$rec" verified_by)
echo "Honest: $st, verified by $by"
[ "$st" = OK ] && [ "$by" = "openssl:SM3" ] ||
    { echo "FAIL: the honest copy is not OK verified by openssl:SM3"; fail=1; }

# the pages name the difference
"$B" publish --run-dir "$DIR/run" --system near --data "$DIR/data" >"$DIR/publish.log" 2>&1 &&
    "$B" report "$DIR/data" --out "$DIR/site" >"$DIR/report.log" 2>&1 ||
    { echo "FAIL: publish or report"; tail -5 "$DIR/publish.log" "$DIR/report.log"; exit 1; }
for c in NearFake NearHonest; do
    grep -qF "agree with SM3 except on 1 record" "$DIR/site/near/$c.md" ||
        { echo "FAIL: the page of $c does not say where its vectors differ from SM3"; fail=1; }
done

[ "$fail" -eq 0 ] || { echo "FAIL"; exit 1; }
echo "ok: NearFake INCONSISTENT, NearHonest and Honest OK, each named on its page"
