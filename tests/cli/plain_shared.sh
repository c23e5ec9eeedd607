#!/bin/sh
# The plain shared build (ctest: test_cli_plain_shared): `build
# --plain-shared` compiles an example with the guide's flags and -fPIC
# -shared only and records so in build.json (the whole file and each
# entry), a run directory built either way refuses the other, and every
# page of a system built so (summary, method, candidate, its entry on the
# index) says it, while a system built with hashbench's additions says
# nothing of it.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-plain.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"

# the flags of build.json's SM3 entry, then its plain_shared and the file's
sm3_flags() {
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
e = [e for e in d["instances"] if e["candidate"] == "SM3"][0]
print(e["flags"]); print(e.get("plain_shared")); print(d.get("plain_shared"))' "$1"
}

if "$B" build --run-dir "$T/plain" --plain-shared "$SRC/examples/SM3" >"$T/out" 2>&1; then
    ok "build --plain-shared builds examples/SM3"
else
    bad "build --plain-shared failed: $(cat "$T/out")"
fi
sm3_flags "$T/plain/build.json" >"$T/plain.txt"
flags=$(sed -n 1p "$T/plain.txt")
case "$flags" in
    "-std=c99 -Wpedantic -Wall -Wextra -O2 -fPIC -shared") ok "flags are the guide's and -fPIC -shared only" ;;
    *) bad "recorded flags: $flags" ;;
esac
[ "$(sed -n 2,3p "$T/plain.txt" | tr '\n' ' ')" = "True True " ] &&
    ok "build.json and its entry record plain_shared" ||
    bad "plain_shared recorded as: $(sed -n 2,3p "$T/plain.txt" | tr '\n' ' ')"

"$B" build --run-dir "$T/guide" "$SRC/examples/SM3" >/dev/null 2>&1
sm3_flags "$T/guide/build.json" >"$T/guide.txt"
grep -q -- "-fvisibility=hidden .*-Wl,--version-script=" "$T/guide.txt" &&
    [ "$(sed -n 2,3p "$T/guide.txt" | tr '\n' ' ')" = "False False " ] &&
    ok "without the option the additions are made, plain_shared false" ||
    bad "the guide build recorded: $(cat "$T/guide.txt")"
if "$B" build --run-dir "$T/guide" --plain-shared "$SRC/examples/SM3" >"$T/out" 2>&1; then
    bad "--plain-shared on a run directory built without it was accepted"
else
    grep -q "build.json: this run directory was built without --plain-shared" "$T/out" &&
        ok "a run directory built without it refuses --plain-shared" ||
        bad "refusal: $(cat "$T/out")"
fi

# a dataset whose x86_1 system was built so: its pages say it, arm_1's do not
cp -R "$SRC/tests/report/data" "$T/data"
python3 -c 'import json, sys
p = sys.argv[1]
d = json.load(open(p)); d["plain_shared"] = True
json.dump(d, open(p, "w"))' "$T/data/x86_1/build.json"
"$B" report "$T/data" --out "$T/site" >"$T/out" 2>&1 || bad "report failed: $(cat "$T/out")"
note="A plain shared build (--plain-shared).\*\* Every library of this campaign was built with the guide's flags and -fPIC -shared only"
for page in summary method SM3 Whirl; do
    grep -q "$note" "$T/site/x86_1/$page.md" && ok "x86_1 $page page says so" ||
        bad "x86_1 $page page lacks the note"
    ! grep -q "plain-shared" "$T/site/arm_1/$page.md" 2>/dev/null &&
        ok "arm_1 $page page is silent" || bad "arm_1 $page page names --plain-shared"
done
sed -n '/^## x86_1/,/^## Signature/p' "$T/site/index.md" | grep -q "; a plain shared build (--plain-shared" &&
    ! sed -n '/^## arm_1/,/^## x86_1/p' "$T/site/index.md" | grep -q "plain-shared" &&
    ok "the index names x86_1 a plain shared build, not arm_1" ||
    bad "the index: $(grep -n "plain" "$T/site/index.md")"
grep -q "built with --plain-shared: of these additions only -fPIC -shared was made" \
    "$T/site/x86_1/method.md" && ok "the method page's flag table says which were made" ||
    bad "the method page's flag table does not say which were made"
checks_summary
