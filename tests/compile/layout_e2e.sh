#!/bin/sh
# Packages as submitted (ctest: build_layout_e2e): an SM3 package whose
# official tree and test vectors sit two folders below the package folder,
# under Chinese folder names with spaces. `build` and `init` find the tree
# as it is and say where; `kat` finds the vectors there; `init --print` and
# `init --update` work over an existing hashbench.ini; a package folder
# whose name is no valid id takes the enclosing folder's.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-layout.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"
HB_LOCK_DIR="$T/locks"
export HB_LOCK_DIR
mkdir -p "$HB_LOCK_DIR"

# The vectors: the KAT texts of the flat example, checked against its manifest.
"$B" build --run-dir "$T/flat" "$SRC/examples/SM3" >"$T/flat.log" 2>&1
"$B" kat --run-dir "$T/flat" --no-loop >>"$T/flat.log" 2>&1 &&
    grep -q "^PASS" "$T/flat.log" || { bad "flat SM3 does not pass"; cat "$T/flat.log"; }

P="$T/uSM3"
IMPL="$P/Implementations/3 实现代码/Implementations"
VEC="$P/Test_Vectors/4 测试向量/Test_Vectors"
mkdir -p "$IMPL" "$VEC/SM3"
cp -R "$SRC/examples/SM3/Implementations/Reference_Implementation" "$IMPL/"
cp "$T/flat/kat/SM3/SM3/KAT_2_12_SM3.txt" "$T/flat/kat/SM3/SM3/KAT_2_23_SM3.txt" "$VEC/SM3/"

"$B" build --run-dir "$T/r" "$P" >"$T/b.log" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "the official tree is at Implementations/3 实现代码/Implementations" "$T/b.log" &&
    grep -q '"instance": "SM3"' "$T/r/build.json" &&
    ok "build finds the tree two folders down and says where" ||
    { bad "build on the nested package: exit $rc"; cat "$T/b.log"; }
"$B" kat --run-dir "$T/r" --no-loop >"$T/k.log" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^PASS.*2_12, 2_23" "$T/k.log" &&
    ok "kat finds the nested Test_Vectors and passes" || { bad "kat nested: exit $rc"; cat "$T/k.log"; }

"$B" init "$P" >"$T/i.log" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^dir = Implementations/3 实现代码/Implementations/Reference_Implementation/SM3$" "$P/hashbench.ini" &&
    grep -q "^# note: the official tree is at Implementations/3 实现代码/Implementations" "$P/hashbench.ini" &&
    ok "init writes the nested folder into hashbench.ini" || { bad "init nested: exit $rc"; cat "$T/i.log" "$P/hashbench.ini"; }
"$B" build --run-dir "$T/r2" "$P" >"$T/b2.log" 2>&1 && grep -q '"status": "BUILT"' "$T/r2/build.json" &&
    ok "the written hashbench.ini builds" || { bad "build with init's file"; cat "$T/b2.log"; }

# an existing file: refused with the way out; --print and --update work over it
printf '[candidate]\nid = uSM3\n\n[instance Old]\nskip = stale\n' >"$P/hashbench.ini"
"$B" init "$P" >"$T/i2.log" 2>&1
[ $? -eq 2 ] && grep -q "init --update" "$T/i2.log" && ok "init over a file names --update" ||
    { bad "init over a file"; cat "$T/i2.log"; }
"$B" init "$P" --print >"$T/p.ini" 2>"$T/p.err"
[ $? -eq 0 ] && grep -q "^\[instance SM3\]" "$T/p.ini" && ! grep -q "instance Old" "$T/p.ini" &&
    ok "init --print over a file prints what discovery finds" || { bad "init --print"; cat "$T/p.err" "$T/p.ini"; }
"$B" init "$P" --update >"$T/u.log" 2>&1
[ $? -eq 0 ] && grep -q "^\[instance SM3\]" "$P/hashbench.ini" && grep -q "instance Old" "$P/hashbench.ini.old" &&
    ok "init --update rewrites it and keeps the old one" || { bad "init --update"; cat "$T/u.log"; }

# the package given as the inner folder, whose name is no valid id
rm -f "$P/hashbench.ini" "$P/hashbench.ini.old"
"$B" init "$P/Implementations/3 实现代码" --print >"$T/p2.ini" 2>"$T/p2.err"
[ $? -eq 0 ] && grep -q "^id = uSM3$" "$T/p2.ini" && grep -q "^# note: candidate id uSM3, from the enclosing folder" "$T/p2.ini" &&
    ok "an invalid package folder name falls back to the enclosing folder" ||
    { bad "id fallback"; cat "$T/p2.err" "$T/p2.ini"; }
checks_summary
