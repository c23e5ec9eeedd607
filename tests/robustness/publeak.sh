#!/bin/sh
# Host data through failure text (tests/robustness/publeak/): one campaign
# at 32 bytes of an honest copy of examples/SM3 beside
# - ForgeSession: its first call in a session sends its own failure line, the
#   host's boot_id and the run directory XORed with one byte and in hex;
# - ForgeKat: its first call in a runner writes its own fault answer, the
#   same text as its detail;
# - ForgeClear: ForgeSession's line with the boot_id and the path as they are.
# Then publish, report and validate. Required:
#   1. no byte of a forged text in the dataset or the site (its marker);
#   2. the forged texts kept in the run directory, in raw_*_untrusted fields
#      (the XORed run directory there: the attack did carry host data; the
#      boot_id, unreadable inside the sandbox, nowhere in the run directory);
#   3. ForgeSession's published record INCONSISTENT with hashbench's wording
#      (its failure line is followed by the probe's own "ready": the probe
#      did not write it),
#      ForgeKat's kat.json entry ERROR with hashbench's wording;
#   4. ForgeClear, and only it, withheld (campaign.json and its page say
#      why), the honest copy's record published OK;
#   5. publish and validate --run-dir report nothing else.
#   publeak.sh BUILD SOURCE
set -eu
BUILD=$1
SRC=$2
B=$BUILD/hashbench
MARK=PUBLEAK7Q
DIR=$(mktemp -d /tmp/hb-publeak.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$DIR"' EXIT
A=$DIR/packages
mkdir -p "$A"
ex=$SRC/examples/SM3
cp -r "$ex" "$A/Honest"
for f in "$SRC"/tests/robustness/publeak/*/; do
    name=$(basename "$f")
    cp -r "$ex" "$A/$name"
    d=$A/$name/Implementations/Reference_Implementation/SM3
    cp "$ex/Implementations/Reference_Implementation/SM3/sm3.c" "$d/sm3_example.inc"
    cp "$SRC/tests/robustness/publeak/publeak.inc" "$d/"
    cp -r "$f/." "$A/$name/"
done

fail=0
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }

status=0
"$B" run --run-dir "$DIR/run" --sizes 32 --no-loop --allow-unfit-host \
    "$A/Honest" "$A/ForgeSession" "$A/ForgeKat" "$A/ForgeClear" >"$DIR/log" 2>&1 || status=$?
if [ "$status" -ne 1 ]; then
    echo "FAIL: the campaign ended with $status (1: it completed with failures)"
    cat "$DIR/log"
    exit 1
fi
RUN=$(cd "$DIR/run" && pwd -P)
"$B" publish --run-dir "$DIR/run" --system x86_t --data "$DIR/data" >"$DIR/publish.log" 2>&1 \
    || { cat "$DIR/publish.log"; echo "FAIL: publish refused the dataset"; exit 1; }
"$B" report "$DIR/data" --out "$DIR/site" >"$DIR/report.log" 2>&1 \
    || { cat "$DIR/report.log"; echo "FAIL: report"; exit 1; }
D=$DIR/data/x86_t

# the XORed hex of TEXT, as the fixtures write it
xorhex() {
    printf '%s' "$1" | od -An -tu1 -v | tr -s ' ' '\n' | awk '
        function xor(a, b,   r, bit) { r = 0; bit = 1
            while (a || b) { if ((a % 2) != (b % 2)) r += bit; a = int(a / 2); b = int(b / 2); bit *= 2 }
            return r }
        NF { printf "%02x", xor($1, 90) }'
}
BOOT=$(cat /proc/sys/kernel/random/boot_id)
# the boot_id is unreadable inside the sandbox: the libraries carry an
# empty one and the run directory (their own path up to /lib/)
XBOOT=$(xorhex "boot_id= run_dir=$RUN")

# 1. nothing of a forged text in the dataset or the site
if grep -rl "$MARK" "$D" "$DIR/site" >"$DIR/leaked"; then
    bad "a forged text was published: $(tr '\n' ' ' <"$DIR/leaked")"
else
    ok "no forged text in the dataset or the site"
fi
grep -rqi "$XBOOT" "$D" "$DIR/site" && bad "the XORed run directory was published"
grep -rqi "$BOOT" "$DIR/run" && bad "this host's boot_id reached the run directory"

# 2. the raw texts in the run directory, marked as written by submitted code
raw_has() { # FILE WHAT: FILE has a raw_*_untrusted field holding WHAT
    grep "\"raw_[a-z]*_untrusted\": \"[^\"]*$2" "$1" >/dev/null
}
raw_has "$DIR/run/records/ForgeSession/SM3__hash_32.json" "$MARK $XBOOT" \
    && ok "ForgeSession's text (the XORed run directory) kept in its record's raw field" \
    || bad "ForgeSession's record has no raw field with the forged text"
raw_has "$DIR/run/kat.json" "$MARK $XBOOT" \
    && ok "ForgeKat's fault detail kept in kat.json's raw field" \
    || bad "kat.json has no raw field with ForgeKat's detail"

# 3. hashbench's wording in what is published
field() { sed -n "s/^ *\"$2\": \"\\([^\"]*\\)\".*/\\1/p" "$1" | head -n 1; }
rec=$D/records/ForgeSession/SM3__hash_32.json
st=$(field "$rec" status)
why=$(field "$rec" failure)
[ "$st" = INCONSISTENT ] \
    && [ "$why" = "INCONSISTENT: the probe's channel carried a line it does not write before it was ready" ] \
    && ok "ForgeSession published as $st: $why" \
    || bad "ForgeSession published as '$st': '$why'"
kat=$(tr -d '\n' <"$D/kat.json" | sed 's/"candidate": /\n/g' | grep '^"ForgeKat"')
echo "$kat" | grep -q '"status": "ERROR"' \
    && echo "$kat" | grep -q "the call failed (the runner's fault answer) in KAT_2_12" \
    && ok "ForgeKat published as ERROR with hashbench's wording" \
    || bad "ForgeKat's kat.json entry: $kat"

# 4. only ForgeClear withheld; the honest copy published
withheld=$(tr -d '\n' <"$D/campaign.json" | sed -n 's/.*"withheld": \[\([^]]*\)\].*/\1/p')
echo "$withheld" | grep -q '"instance": "SM3"' && echo "$withheld" | grep -q '"ForgeClear"' \
    && ! echo "$withheld" | grep -q '"Honest"\|"ForgeSession"\|"ForgeKat"' \
    && ok "ForgeClear alone withheld" || bad "withheld: [$withheld]"
[ ! -e "$D/records/ForgeClear" ] && ! grep -rq ForgeClear "$D/kat.json" "$D/build.json" \
    || bad "ForgeClear's records or entries published"
grep -q "withheld from publication: hashbench found the run directory's absolute path" \
        "$DIR/site/x86_t/ForgeClear.md" 2>/dev/null \
    && ok "ForgeClear's page says why it is withheld" || bad "ForgeClear's page: no reason"
[ "$(field "$D/records/Honest/SM3__hash_32.json" status)" = OK ] \
    && ok "the honest copy's record published OK" || bad "the honest copy's record"

# 5. validate agrees
if "$B" validate "$DIR/data" --run-dir "$DIR/run" >"$DIR/validate.log" 2>&1; then
    ok "validate --run-dir: no problem"
else
    bad "validate: $(tail -5 "$DIR/validate.log")"
fi

# ... and refuses a copy holding the withheld record as the run directory
# has it (the boot_id in its raw field)
cp -r "$DIR/data" "$DIR/copy"
mkdir -p "$DIR/copy/x86_t/records/ForgeClear"
sed "s|$RUN/|x86_t/|g" "$DIR/run/records/ForgeClear/SM3__hash_32.json" \
    >"$DIR/copy/x86_t/records/ForgeClear/SM3__hash_32.json"
"$B" validate "$DIR/copy" --run-dir "$DIR/run" >"$DIR/validate2.log" 2>&1 && \
    bad "validate accepts a copy holding ForgeClear's raw record"
grep -q "holds the run directory's absolute path" "$DIR/validate2.log" \
    && grep -q "raw_failure_untrusted holds text written by submitted code" "$DIR/validate2.log" \
    && grep -q "withheld lists ForgeClear/SM3, but the dataset still holds its records" \
        "$DIR/validate2.log" \
    && ok "validate refuses a copy with ForgeClear's raw record" \
    || bad "validate on the copy: $(cat "$DIR/validate2.log")"

[ "$fail" -eq 0 ] || { echo "FAIL"; exit 1; }
echo "ok: nothing a submission wrote was published"
