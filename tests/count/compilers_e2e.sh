#!/bin/sh
# The compiler as a dimension (ctest: test_count_compilers): a campaign
# timed with `run --cc clang` on the SHA-3 example (SHA3_256 alone) and the
# SM3 example, counted with `count --compilers gcc,clang`: campaign.json
# records clang as the compiler of the timed code and every page says so;
# each instance gets a record under gcc (clang, the build's own, is left
# out and said so), rebuilt from the library the KATs checked (a copy of
# SM3 that only clang builds gets a NOT_COUNTABLE record saying why); Keccak's
# count moves by more than 10 % between the two compilers, SM3's by less;
# the candidate page's table and the summary's column show the figures the
# records hold; validate passes the dataset and catches a changed figure;
# a compiler that cannot be run, one for another architecture, and
# --compilers without --count, are refused before any work.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-count-cc.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"
HB_LOCK_DIR="$T/locks"
export HB_LOCK_DIR
mkdir -p "$HB_LOCK_DIR" "$T/pkg"
if ! command -v clang >/dev/null 2>&1 || ! command -v gcc >/dev/null 2>&1; then
    bad "gcc and clang are both needed (Debian packages gcc and clang; scripts/deps.sh)"
    checks_summary
    exit
fi
cp -R "$SRC/examples/SM3" "$T/pkg/SM3"
cp -R "$SRC/examples/SHA3" "$T/pkg/SHA3"
# a copy of SM3 that only clang builds: its record under gcc says why
cp -R "$SRC/examples/SM3" "$T/pkg/ClangOnly"
printf '\n#ifndef __clang__\n#error this package builds with clang only\n#endif\n' \
    >>"$T/pkg/ClangOnly/Implementations/Reference_Implementation/SM3/sm3.c"
# SHA3_256 alone: the lines of the override file up to the next instance
awk '/^\[instance / && seen++ { exit } { print }' "$SRC/examples/SHA3/hashbench.ini" \
    >"$T/pkg/SHA3/hashbench.ini"

# refused before any work
"$B" run --run-dir "$T/x" --compilers gcc "$T/pkg/SM3" >"$T/x.log" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q -- "--compilers .*give --count too" "$T/x.log" &&
    ok "run --compilers without --count is a usage error" ||
    { bad "run --compilers without --count: exit $rc"; cat "$T/x.log"; }
"$B" run --run-dir "$T/x" --count --compilers gcc,no-such-cc "$T/pkg/SM3" >"$T/x.log" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "no-such-cc" "$T/x.log" && [ ! -e "$T/x/build.json" ] &&
    ok "a compiler of --compilers that cannot be run is refused before the build" ||
    { bad "unknown compiler: exit $rc"; cat "$T/x.log"; }

# the campaign, then the count stage without its length curve (the
# slowest part, which the compiler counts do not use)
# a compiler for another architecture: its libraries could not be counted
printf '#!/bin/sh\ncase "$1" in\n--version) echo "crosscc 1.0";;\n-dumpmachine) echo mips64-linux-gnu;;\nesac\nexit 0\n' \
    >"$T/crosscc"
chmod +x "$T/crosscc"
"$B" run --run-dir "$T/x" --count --compilers "$T/crosscc" "$T/pkg/SM3" >"$T/x.log" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "crosscc builds for mips64, but the count runs the $(uname -m)" "$T/x.log" &&
    [ ! -e "$T/x/build.json" ] &&
    ok "a compiler for another architecture is refused before the build" ||
    { bad "cross compiler: exit $rc"; cat "$T/x.log"; }

"$B" run --run-dir "$T/r" --cc clang --sizes 4096 --budget 0.2 --target-ci 50 \
    --allow-unfit-host --no-loop "$T/pkg/SHA3" "$T/pkg/SM3" "$T/pkg/ClangOnly" \
    >"$T/run.log" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "run --cc clang exits 0" || { bad "run exited $rc"; tail -20 "$T/run.log"; }
"$B" count --run-dir "$T/r" --no-curve --compilers gcc,clang >"$T/count.out" 2>"$T/count.err"
rc=$?
[ $rc -eq 1 ] && ok "count --compilers gcc,clang exits 1 (one instance not counted under gcc)" ||
    { bad "count exited $rc"; tail -20 "$T/count.err"; }
cat "$T/count.err" >>"$T/run.log"
grep -q "^count: 1 compiler(s) of --compilers left out: the build's own" "$T/run.log" &&
    ok "clang, the build's own compiler, is left out and said so" ||
    bad "no line for the build's own compiler"

python3 - "$T/r" <<'PY' && ok "campaign.json and build.json record clang" ||
import json, sys
c = json.load(open(sys.argv[1] + "/campaign.json"))["compiler"]
b = json.load(open(sys.argv[1] + "/build.json"))
sys.exit(0 if c["name"] == "clang" and "clang version" in c["version"] and
         c["version"] == b["compiler_version"] else "campaign.json compiler: %r" % c)
PY
    bad "campaign.json does not record clang"

python3 - "$T/r" >"$T/figures" <<'PY' && ok "records under gcc, rebuilt from the KAT-checked library: $(cat "$T/figures")" ||
import json, sys, hashlib
r = sys.argv[1]
kat = {(e["candidate"], e["instance"]): e for e in json.load(open(r + "/kat.json"))["instances"]}
moved = {}
for cand, inst in (("SHA3", "SHA3_256"), ("SM3", "SM3")):
    cc = json.load(open("%s/count/%s/%s__count_cc-gcc.json" % (r, cand, inst)))
    own = json.load(open("%s/count/%s/%s__count_4096.json" % (r, cand, inst)))
    assert cc["kind"] == "hashbench-count-compiler" and cc["status"] == "COUNTED", cc["status"]
    assert cc["compiler_label"].startswith("gcc "), cc["compiler_label"]
    assert "clang" in cc["build_compiler_version"]
    assert cc["from_library_sha256"] == own["library_sha256"]
    lib = open("%s/%s" % (r, cc["library"]), "rb").read()
    assert hashlib.sha256(lib).hexdigest() == cc["library_sha256"]
    assert cc["library_sha256"] != cc["from_library_sha256"]
    assert not any(k.endswith("cc-clang.json") for k in [cc["library"]])
    p = [x for x in cc["points"] if x["size_bytes"] == 4096][0]
    g, c = p["derived"]["Ir"]["per_byte"], own["derived"]["Ir"]["per_byte"]
    moved[inst] = (c, g, g / c)
k = moved["SHA3_256"][2]
s = moved["SM3"][2]
print("; ".join("%s at 4 KiB clang %.2f, gcc %.2f instructions/B (gcc/clang %.3f)" %
                (i, *v) for i, v in moved.items()))
sys.exit(0 if (k > 1.10 or k < 1 / 1.10) and 1 / 1.10 < s < 1.10 else "moved: %r" % moved)
PY
    { bad "records under gcc"; cat "$T/figures"; }
python3 - "$T/r" <<'PY' && ok "the instance gcc cannot build: a record NOT_COUNTABLE with the compiler's complaint" ||
import json, sys
r = json.load(open(sys.argv[1] + "/count/ClangOnly/SM3__count_cc-gcc.json"))
p = r["points"][0]
sys.exit(0 if r["build_status"] == "BUILDFAIL" and r["status"] == "NOT_COUNTABLE" and
         p["status"] == "NOT_COUNTABLE" and p["derived"] is None and
         p["reason"].startswith("the build with gcc failed: compiler failed") and
         "sm3.c" in p["reason"] else "record: %r" % {k: r[k] for k in ("status", "build_status", "reason")})
PY
    bad "no NOT_COUNTABLE record for the instance gcc cannot build"
[ ! -e "$T/r/count/SM3/SM3__count_cc-clang.json" ] &&
    ok "no record under the build's own compiler" || bad "a record under clang"

# every compiler installed: gcc's records are kept, clang is the build's own
ls "$T/r/count/SHA3" "$T/r/count/SM3" >"$T/before"
"$B" count --run-dir "$T/r" --no-curve --compilers installed >"$T/inst.out" 2>"$T/inst.err"
rc=$?
ls "$T/r/count/SHA3" "$T/r/count/SM3" >"$T/after"
[ $rc -eq 1 ] && cmp -s "$T/before" "$T/after" &&
    grep -q "^count: 2 instance-compiler record(s) counted under other compilers, 1 not" \
        "$T/inst.err" &&
    grep -q "^COUNTED  *SHA3/SHA3_256 4096 B with gcc " "$T/inst.out" &&
    ok "count --compilers installed keeps the records under gcc, adds none (exit 1: one not counted)" ||
    { bad "count --compilers installed: exit $rc"; cat "$T/inst.err"; diff "$T/before" "$T/after"; }

"$B" publish --run-dir "$T/r" --system x --data "$T/data" >"$T/pub.log" 2>&1 &&
    "$B" report "$T/data" --out "$T/site" >"$T/rep.log" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "publish and report" || { bad "publish/report: $rc"; cat "$T/pub.log" "$T/rep.log"; }
"$B" validate "$T/data" --site "$T/site" >"$T/val.log" 2>&1 &&
    grep -q " 0 problems" "$T/val.log" && ok "validate: 0 problems" ||
    { bad "validate"; cat "$T/val.log"; }
n=0
for p in summary SHA3 SM3; do
    grep -q "The timed code was built by \*\*clang 14" "$T/site/x/$p.md" && n=$((n + 1))
done
[ $n -eq 3 ] && grep -q "compiler: Debian clang version" "$T/site/x/method.md" &&
    ok "summary, candidate and method pages say clang built the timed code" ||
    bad "pages stating the compiler: $n of 3"
python3 - "$T/r" "$T/site/x" <<'PY' && ok "candidate page and summary show the records' figures under both compilers" ||
import json, sys
r, site = sys.argv[1], sys.argv[2]
cc = json.load(open(r + "/count/SHA3/SHA3_256__count_cc-gcc.json"))
own = json.load(open(r + "/count/SHA3/SHA3_256__count_4096.json"))
g = cc["points"][0]["derived"]["Ir"]["per_byte"]
c = own["derived"]["Ir"]["per_byte"]
page = open(site + "/SHA3.md").read()
row = "| 4 KiB | %.2f | %.2f | %.3f |" % (c, g, g / c)
if "instructions per byte under each compiler" not in page or row not in page:
    sys.exit("candidate page lacks %s" % row)
summ = open(site + "/summary.md").read()
if "instructions/B, %s" % cc["compiler_label"] not in summ or \
        "| %.2f | %.3f |" % (g, g / c) not in summ:
    sys.exit("summary lacks the gcc column")
if "keep their order" not in summ and "do not keep their order" not in summ:
    sys.exit("summary does not say whether the ranking changes")
other = open(site + "/ClangOnly.md").read()
if "Not counted with %s: the build with gcc failed" % cc["compiler_label"] not in other:
    sys.exit("ClangOnly's page does not say why gcc's figures are missing")
PY
    bad "pages lack the compiler figures"
# a changed figure in a published record under gcc is caught
python3 - "$T/data/x/count/SHA3/SHA3_256__count_cc-gcc.json" <<'PY'
import json, sys
f = sys.argv[1]
r = json.load(open(f))
r["points"][0]["derived"]["Ir"]["per_byte"] *= 0.5
json.dump(r, open(f, "w"))
PY
"$B" validate "$T/data" >"$T/val2.log" 2>&1
grep -q "SHA3_256__count_cc-gcc.json: points\[0\]: derived: not the figures" "$T/val2.log" &&
    ok "validate catches a halved figure under gcc" || { bad "changed figure not caught"; cat "$T/val2.log"; }
checks_summary
