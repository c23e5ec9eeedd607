#!/bin/sh
# Drivers told by their code (ctest: build_drivers_e2e): in an SM3 package,
# sm3.c carrying `//int main()` in a comment is kept and the package still
# passes its KATs, while harness.c, whose main is spelt through a macro (no
# `int main(` in its text), is left out and named with its reason. A
# package whose one source defines main says which files were left out and
# why. Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-drivers.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"
HB_LOCK_DIR="$T/locks"
export HB_LOCK_DIR
mkdir -p "$HB_LOCK_DIR"

P="$T/SM3"
cp -R "$SRC/examples/SM3" "$P"
D="$P/Implementations/Reference_Implementation/SM3"
{ printf '//int main() { return test_all(); }\n'; cat "$SRC/examples/SM3/Implementations/Reference_Implementation/SM3/sm3.c"; } >"$D/sm3.c"
printf '#define ENTRY main\nint ENTRY(void)\n{\n    return 0;\n}\n' >"$D/harness.c"
"$B" build --run-dir "$T/r" "$P" >"$T/b.log" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '"status": "BUILT"' "$T/r/build.json" &&
    grep -q 'harness.c (driver: defines main(), read from its compiled object)' "$T/r/build.json" &&
    ! grep -q 'sm3.c (driver' "$T/r/build.json" &&
    ok "//int main() in a comment is kept, a macro-spelt main left out and named" ||
    { bad "drivers: build exit $rc"; cat "$T/b.log" "$T/r/build.json"; }
"$B" kat --run-dir "$T/r" --no-loop >"$T/k.log" 2>&1 && grep -q "^PASS" "$T/k.log" &&
    ok "the package with the commented main passes its KATs" || { bad "kat"; cat "$T/k.log"; }
"$B" init "$P" --print >"$T/i.ini" 2>&1
grep -q "^sources = sm3.c$" "$T/i.ini" && grep -q "^# left out: harness.c (driver: defines main(), read from its compiled object)" "$T/i.ini" &&
    ok "init keeps sm3.c and names harness.c" || { bad "init drivers"; cat "$T/i.ini"; }

# every source left out: the refusal names the files and why
printf 'int main(void) { return 0; }\n' >>"$D/sm3.c"
rm -f "$D/harness.c"
"$B" build --run-dir "$T/r2" "$P" >"$T/b2.log" 2>&1
grep -q 'no library source (.c) left after leaving out Implementations/Reference_Implementation/SM3/KAT_CryptHash.c (driver: file name), Implementations/Reference_Implementation/SM3/sm3.c (driver: defines main()' "$T/r2/build.json" &&
    ok "a package with every source left out names them and why" || { bad "all left out"; cat "$T/b2.log" "$T/r2/build.json"; }
# a folder of many files naming main: the first 16 are compiled, the others
# judged by their text, which their reason says
P3="$T/Many/SM3"
mkdir -p "$T/Many"
cp -R "$SRC/examples/SM3" "$P3"
D3="$P3/Implementations/Reference_Implementation/SM3"
for i in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16; do
    printf '/* not main */\nint f%s(void);\nint f%s(void) { return 0; }\n' $i $i >"$D3/a$i.c"
done
printf 'int main(void) { return 0; }\n' >"$D3/a17.c"
"$B" build --run-dir "$T/r3" "$P3" >"$T/b3.log" 2>&1
grep -q 'a17.c (driver: defines main(), read as text: more than 16 files of the folder name main)' "$T/r3/build.json" &&
    grep -q '"status": "BUILT"' "$T/r3/build.json" &&
    ok "past 16 files naming main, the text decides and the reason says so" || { bad "many suspects"; cat "$T/b3.log"; }
checks_summary
