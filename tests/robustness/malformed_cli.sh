#!/bin/sh
# Malformed inputs through the command line (SPEC §8; ctest:
# robustness_malformed_cli). test_malformed.c checks the library messages;
# this script feeds the same kinds of bad input to the real hashbench on
# copies of examples/SM3 and checks what a user sees:
#  1. hashbench.ini naming a source that does not exist -> build;
#  2. a submitted KAT text cut inside a record (Test_Vectors/) -> kat;
#  3. a kat.sha256 line whose digest is not 64 hex digits -> kat;
#  4. a published record without its size_bytes field -> validate, report;
#  5. a path with '..' in build.json and in kat.json of a dataset -> validate,
#     report.
# For each: the exit status; exactly one output line naming the file (and
# ":LINE: " where lines mean something), saying what to do, with no other
# line beside progress lines "[k/n] step" and the command's usual summary
# (an error spread over several lines fails); and the run directory, the
# dataset and the site folder byte for byte as they were (or never created).
# Cases 2 and 3 differ by design (src/kat/kat_instance.c, compare_one): a bad
# vector file or manifest is the submission's fault, so it does not stop the
# KAT stage but becomes the instance's verdict, MISMATCH, with the file and
# line as the reason; the command exits 1 (an instance failed), the KAT log
# names the file and line, and the stage writes what it always writes
# (kat.json, kat/, and the harness-default rebuild SPEC §2 makes after a
# failed KAT: lib/<cand>/harness-default/, logs/build/<cand>/<Inst>.harness-
# default.log); everything else must stay as it was.
#   malformed_cli.sh BUILD_DIR SOURCE_DIR
# ok() never fails, so "A && ok || bad" is an if-then-else here.
# shellcheck disable=SC2015
set -eu

BUILD=$1
SRC=$2
B=$BUILD/hashbench
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-malformed-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 130' HUP INT TERM
# The quickest real campaign: one size, the reference planner, two trials.
# KAT_Loop is not what this file tests: --no-loop keeps it quick.
RUN_OPTS="--sizes 32 --plan reference --trials 2 --allow-unfit-host --no-loop"
PROGRESS='^\[[0-9]+/[0-9]+\] '
. "$(dirname "$0")/../checks.sh"


# snap DIR: every folder and every file of DIR (with its SHA-256), sorted;
# "absent" when DIR does not exist.
snap() {
    if [ -e "$1" ]; then
        (cd "$1" && { find . -type d | sed 's/^/dir /'
                      find . ! -type d -exec sha256sum {} +; } | LC_ALL=C sort)
    else
        echo absent
    fi
}

# same DESC DIR BEFORE [ERE]: DIR is as snapshot BEFORE says, leaving out the
# entries whose line matches ERE (what the command may write).
same() {
    skeep=${4:-'^$'}
    snap "$2" | grep -v -E "$skeep" >"$T/now.snap" || true
    grep -v -E "$skeep" "$3" >"$T/was.snap" || true
    if cmp -s "$T/was.snap" "$T/now.snap"; then ok "$1"
    else bad "$1"; diff "$T/was.snap" "$T/now.snap" || true; fi
}

# run NAME CMD...: runs CMD with stdout and stderr in $T/NAME.log; RC gets
# its exit status.
run() {
    rn=$1
    shift
    RC=0
    "$@" >"$T/$rn.log" 2>&1 || RC=$?
}

# expect NAME RC NEEDLE FIX [OTHER_ERE]: the command run as NAME exited RC;
# exactly one line of its output holds NEEDLE (the file, and ":LINE: " when
# lines mean something) and that line holds FIX; every other line is a
# progress line or matches OTHER_ERE.
expect() {
    en=$1 ewant=$2 eneedle=$3 efix=$4 eother=${5:-$PROGRESS}
    elog=$T/$en.log
    if [ "$RC" -eq "$ewant" ]; then ok "$en: exit status $RC"
    else bad "$en: exit status $RC, want $ewant"; cat "$elog"; return 0; fi
    n=$(grep -c -F -e "$eneedle" "$elog" || true)
    if [ "$n" -ne 1 ]; then
        bad "$en: $n lines hold '$eneedle', want 1"
        cat "$elog"
        return 0
    fi
    line=$(grep -F -e "$eneedle" "$elog")
    case $line in
    *"$efix"*) ok "$en: one line names '$eneedle' and says '$efix'" ;;
    *) bad "$en: the error line does not say '$efix': $line" ;;
    esac
    rest=$(grep -v -F -e "$eneedle" "$elog" | grep -v -E "$PROGRESS|$eother" || true)
    if [ -z "$rest" ]; then ok "$en: no other output than progress and summary lines"
    else bad "$en: more output than the one error line:"; echo "$rest"; fi
}

# campaign DIR: DIR/SM3, a copy of the example, measured into DIR/R.
campaign() {
    mkdir -p "$1"
    cp -R "$SRC/examples/SM3" "$1/SM3"
    # shellcheck disable=SC2086
    "$B" run --run-dir "$1/R" $RUN_OPTS "$1/SM3" >"$1/run.log" 2>&1 ||
        { echo "FAILED: hashbench run on $1/SM3"; cat "$1/run.log"; exit 1; }
}

# ---- 1. override file naming a source that does not exist ----
C=$T/c1
campaign "$C"
# line 6 names missing.c
printf '%s\n' '[candidate]' 'id = SM3' '' '[instance SM3]' \
    'dir = Implementations/Reference_Implementation/SM3' \
    'sources = sm3.c missing.c' 'digest_bits = 256' >"$C/SM3/hashbench.ini"
snap "$C/R" >"$C/R.snap"
run build-missing-source "$B" build --run-dir "$C/R" "$C/SM3"
expect build-missing-source 2 "hashbench.ini:6: " "fix the path"
grep -q "'missing.c' does not exist" "$T/build-missing-source.log" &&
    ok "build-missing-source: names missing.c" || bad "build-missing-source: missing.c not named"
same "build-missing-source: run directory unchanged" "$C/R" "$C/R.snap"
run build-missing-source-new "$B" build --run-dir "$C/new" "$C/SM3"
expect build-missing-source-new 2 "hashbench.ini:6: " "fix the path"
[ ! -e "$C/new" ] && ok "build-missing-source-new: run directory not created" ||
    bad "build-missing-source-new: $C/new was created"

# kat_logged NAME NOTE: the KAT log of case $C names the bad vector file and
# line in a NOTE line matching NOTE, and ends with the MISMATCH verdict; then
# nothing but what the kat command writes has changed.
kat_logged() {
  log=$C/R/kat/SM3/SM3.log
  if grep -q "^NOTE .*$2" "$log" && grep -q '^RESULT SM3 SM3 BADVECTORS$' "$log"; then
    ok "$1: the KAT log names the file and line"
  else
    bad "$1: the KAT log does not name the file and line"
    cat "$log"
  fi
  same "$1: nothing but kat.json, kat/ and the harness-default rebuild (and its record in build.json) changed" \
    "$C/R" "$C/R.snap" "$KAT_WRITES"
}

# ---- 2. submitted KAT text truncated inside a record ----
# What the kat command writes, left out of the comparison in cases 2 and 3:
# kat.json and kat/, the instances' wall budgets (budget/), and the build
# stage's harness-default rebuild that a failed guide build calls for,
# recorded in build.json.
KAT_WRITES=' \./(build\.json|kat\.json|kat|kat/.*|budget|budget/.*|lib/[^/]+/harness-default(/.*)?|logs/build/[^/]+/[^/]+\.harness-default\.log)$'
KAT_OTHER='^BASELINE +baseline/|^hashbench kat: 1 instance\(s\) failed their KATs'
C=$T/c2
campaign "$C"
mkdir "$C/SM3/Test_Vectors"
# Lines 1-7: the first record, the blank line, then Msg_Len and Msg of the
# second record, whose Dst_Len and Dst are cut off.
head -n 7 "$C/R/kat/SM3/SM3/KAT_2_12_SM3.txt" >"$C/SM3/Test_Vectors/KAT_2_12_SM3.txt"
snap "$C/R" >"$C/R.snap"
run kat-truncated "$B" kat --run-dir "$C/R" --no-loop
expect kat-truncated 1 "Test_Vectors/KAT_2_12_SM3.txt:7: " \
    "replace it with a complete copy" "$KAT_OTHER"
grep -q '^BADVECTORS .*SM3/SM3 ' "$T/kat-truncated.log" &&
    ok "kat-truncated: the instance's verdict is BADVECTORS, not a MISMATCH of the implementation" ||
    bad "kat-truncated: no BADVECTORS line"
grep -q 'Test_Vectors/KAT_2_12_SM3.txt:7: .*the vector file is malformed' "$T/kat-truncated.log" &&
    ok "kat-truncated: says the vector file is malformed, naming file:line" ||
    bad "kat-truncated: does not say the vector file is malformed"
[ ! -e "$C/R/lib/SM3/harness-default" ] && ! grep -q harness_default "$C/R/build.json" &&
    ok "kat-truncated: no harness-default rebuild is tried for bad vectors" ||
    bad "kat-truncated: a harness-default rebuild was made for bad vectors"
kat_logged kat-truncated 'Test_Vectors/KAT_2_12_SM3.txt:7: file ends inside the record'

# ---- 3. kat.sha256 with a bad digest line ----
C=$T/c3
campaign "$C"
# line 2 loses its first hex digit: 63 are left
sed '2s/^.//' "$C/SM3/kat.sha256" >"$C/kat.sha256" && mv "$C/kat.sha256" "$C/SM3/kat.sha256"
snap "$C/R" >"$C/R.snap"
run kat-manifest "$B" kat --run-dir "$C/R" --no-loop
expect kat-manifest 1 "kat.sha256:2: " "repair the line" "$KAT_OTHER"
grep -q "is not a SHA-256 (64 hex digits)" "$T/kat-manifest.log" &&
    ok "kat-manifest: says what is wrong" || bad "kat-manifest: does not say what is wrong"
grep -q '^BADVECTORS .*SM3/SM3 ' "$T/kat-manifest.log" &&
    ok "kat-manifest: the instance's verdict is BADVECTORS" || bad "kat-manifest: no BADVECTORS line"
[ ! -e "$C/R/lib/SM3/harness-default" ] &&
    ok "kat-manifest: no harness-default rebuild" || bad "kat-manifest: a harness-default rebuild was made"
kat_logged kat-manifest 'kat.sha256:2: '

# ---- a published dataset and its site, for cases 4 and 5 ----
C=$T/c4
campaign "$C"
"$B" publish --run-dir "$C/R" --system x86_1 --data "$C/data" >"$C/publish.log" 2>&1 &&
    "$B" report "$C/data" --out "$C/site" >"$C/report.log" 2>&1 ||
    { echo "FAILED: publish or report"; cat "$C/publish.log" "$C/report.log"; exit 1; }
VALIDATE_OTHER='^validate: [0-9]+ records, [0-9]+ KAT logs, [0-9]+ compiler logs, [0-9]+ pages checked; [0-9]+ problems?$|^signature: '

# dataset_case NAME DATA NEEDLE FIX VALIDATE_RC: validate DATA, report DATA
# into a new folder and into an existing site; nothing may change.
dataset_case() {
    dn=$1 dd=$2 dneedle=$3 dfix=$4 dvrc=$5
    snap "$dd" >"$T/$dn.data.snap"
    cp -R "$C/site" "$T/$dn.site"
    snap "$T/$dn.site" >"$T/$dn.site.snap"
    run "$dn-validate" "$B" validate "$dd"
    expect "$dn-validate" "$dvrc" "$dneedle" "$dfix" "$VALIDATE_OTHER"
    same "$dn-validate: dataset unchanged" "$dd" "$T/$dn.data.snap"
    run "$dn-report-new" "$B" report "$dd" --out "$T/$dn.new"
    expect "$dn-report-new" 2 "$dneedle" "$dfix"
    [ ! -e "$T/$dn.new" ] && ok "$dn-report-new: site folder not created" ||
        bad "$dn-report-new: $T/$dn.new was created"
    run "$dn-report-old" "$B" report "$dd" --out "$T/$dn.site"
    expect "$dn-report-old" 2 "$dneedle" "$dfix"
    same "$dn-report-old: existing site unchanged" "$T/$dn.site" "$T/$dn.site.snap"
    same "$dn-report: dataset unchanged" "$dd" "$T/$dn.data.snap"
}

# ---- 4. a record without a required field ----
# A missing field has no line: the message names the file (relative to the
# dataset, ending in the file's base name) and the field.
cp -R "$C/data" "$T/d4"
REC=$T/d4/x86_1/records/SM3/SM3__hash_32.json
grep -q '^  "size_bytes": 32,$' "$REC" || { echo "FAILED: no size_bytes line in $REC"; exit 1; }
sed '/^  "size_bytes": /d' "$REC" >"$T/rec.json" && mv "$T/rec.json" "$REC"
dataset_case record-no-size "$T/d4" "x86_1/records/SM3/SM3__hash_32.json: field 'size_bytes' missing" \
    "regenerate it with hashbench" 2

# ---- 5. paths with '..' in build.json and in kat.json ----
# A JSON value has no line of its own here: the message names the file and
# the field (instances[0].log).
cp -R "$C/data" "$T/d5b"
F=$T/d5b/x86_1/build.json
grep -q '"log": "x86_1/logs/build/SM3/SM3.log"' "$F" || { echo "FAILED: no build log path in $F"; exit 1; }
sed 's#"x86_1/logs/build/SM3/SM3.log"#"x86_1/../../logs/build/SM3/SM3.log"#' "$F" >"$T/f.json" &&
    mv "$T/f.json" "$F"
dataset_case build-dotdot "$T/d5b" "x86_1/build.json: field instances[0].log: path 'x86_1/../../" \
    "publish the campaign again" 1

cp -R "$C/data" "$T/d5k"
F=$T/d5k/x86_1/kat.json
grep -q '"log": "x86_1/kat/SM3/SM3.log"' "$F" || { echo "FAILED: no KAT log path in $F"; exit 1; }
sed 's#"x86_1/kat/SM3/SM3.log"#"x86_1/../../etc/passwd"#' "$F" >"$T/f.json" && mv "$T/f.json" "$F"
dataset_case kat-dotdot "$T/d5k" "x86_1/kat.json: field instances[0].log: path 'x86_1/../../etc/passwd'" \
    "publish the campaign again" 1
# validate --site: the bad path is said once, and the site is not compared
# (report would refuse the dataset) rather than failing a second time
run kat-dotdot-site "$B" validate "$T/d5k" --site "$C/site"
expect kat-dotdot-site 1 "x86_1/kat.json: field instances[0].log: path 'x86_1/../../etc/passwd'" \
    "publish the campaign again" "$VALIDATE_OTHER|: not compared: the site cannot be regenerated"

checks_summary
