#!/bin/sh
# The build flags stated in full wherever they are stated (ctest:
# test_cli_flags_stated): `help run`, `help build`, README.md and the method
# page of a site name every option the build adds to the guide's flags, each
# with why, and say what the additions are for.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-flags.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"
"$B" help run >"$T/run.txt"
"$B" help build >"$T/build.txt"
cp "$SRC/README.md" "$T/readme.txt"
"$B" report "$SRC/tests/report/data" --out "$T/site" >/dev/null 2>&1
cp "$T/site/x86_1/method.md" "$T/method.txt"
for where in run build readme method; do
    missing=""
    for flag in "-fPIC -shared" "-fvisibility=hidden" "-include hashbench_visibility.h" \
                "-fno-semantic-interposition" "-Wl,--version-script=hashbench_exports.map"; do
        # the option, then on its line (or the next, in help) why it is there
        grep -A1 -F -- "$flag" "$T/$where.txt" | grep -qiE "library|symbol|CryptHash|static" ||
            missing="$missing [$flag]"
    done
    grep -q "neither inlines calls between its functions" "$T/$where.txt" ||
        missing="$missing [why: interposition]"
    [ -z "$missing" ] && ok "$where states every added flag with why" ||
        bad "$where lacks:$missing"
done
checks_summary
