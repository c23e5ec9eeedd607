#!/bin/sh
# `make install` into a temporary DESTDIR with PREFIX=/opt/hb, then the
# installed copy on its own: the layout (bin/hashbench a link to
# libexec/hashbench/hashbench, its helpers and baseline libraries beside
# it, the examples in share/hashbench), --version and help (which states
# the default build profile), a build of one example package, and a small
# whole campaign (host check, build, KAT, measurement of one size), which
# needs the installed runner, probe and baseline, and prints each stage's
# duration. Needs HB_BUILD_DIR (a configured and built tree) and
# HB_SOURCE_DIR; python3 reads build.json.
set -u
BUILD="${HB_BUILD_DIR:?}"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"

DEST="$T/dest"
if make -s -C "$SRC" install BUILD="$BUILD" PREFIX=/opt/hb DESTDIR="$DEST" >"$T/install.log" 2>&1
then ok "make install PREFIX=/opt/hb DESTDIR=..."
else bad "make install failed"; cat "$T/install.log"; checks_summary; exit 1; fi

P="$DEST/opt/hb"
HB="$P/bin/hashbench"
if [ -L "$HB" ] && [ "$(readlink "$HB")" = "../libexec/hashbench/hashbench" ]
then ok "bin/hashbench is a relative link to libexec/hashbench/hashbench"
else bad "bin/hashbench: $(ls -l "$HB" 2>&1)"; fi
for f in hashbench hashbench-probe hashbench-ct hashbench-count \
    libhb_baseline_sm3.so libhb_baseline_sha256.so libhb_null.so; do
    [ -f "$P/libexec/hashbench/$f" ] && ok "libexec/hashbench/$f installed" ||
        bad "libexec/hashbench/$f missing"
done
[ -f "$P/share/hashbench/examples/SM3/kat.sha256" ] &&
    ok "the examples are installed in share/hashbench/examples" ||
    bad "share/hashbench/examples/SM3 missing"
grep -q -F "installed: $P/bin/hashbench" "$T/install.log" &&
    ok "make install says where hashbench is" ||
    { bad "make install does not say where hashbench is"; cat "$T/install.log"; }

V=$("$HB" --version 2>&1)
case "$V" in
"hashbench "[0-9]*) ok "installed hashbench --version: $V" ;;
*) bad "installed hashbench --version: $V" ;;
esac
"$HB" help run >"$T/help-run" 2>&1
grep -q "reference (default: the flags of the" "$T/help-run" &&
    ok "help run states the default profile" ||
    { bad "help run does not state the default profile"; cat "$T/help-run"; }
"$HB" help build >"$T/help-build" 2>&1
grep -q "else reference: the flags" "$T/help-build" &&
    ok "help build states the default profile" ||
    { bad "help build does not state the default profile"; cat "$T/help-build"; }

# a build from the installed copy, of the installed example
rc=0
"$HB" build --run-dir "$T/run" "$P/share/hashbench/examples/SM3" >"$T/build.log" 2>&1 || rc=$?
st=$(python3 -c 'import json,sys
b=json.load(open(sys.argv[1]+"/build.json"))
print(" ".join(e["instance"]+":"+e["status"] for e in b["instances"]))' "$T/run" 2>&1)
# the baseline entry shows the installed baseline library was found
if [ $rc -eq 0 ] && [ "${st%% *}" = "SM3:BUILT" ] &&
    case " $st " in *" OpenSSL_SM3:BUILT "*) true ;; *) false ;; esac &&
    ! echo "$st" | grep -q -v -E '^([A-Za-z0-9_-]+:BUILT ?)+$'
then ok "installed build: $st"
else bad "installed build exited $rc: $st"; cat "$T/build.log"; fi

# a small whole campaign: the runner, the probe and the baseline are the
# installed ones (the tool finds its helpers beside itself); every stage
# says how long it took
rc=0
"$HB" run --run-dir "$T/camp" --sizes 64 --budget 0.3 --target-ci 5 --allow-unfit-host \
    --no-loop "$P/share/hashbench/examples/SM3" >"$T/run.log" 2>&1 || rc=$?
if [ $rc -le 1 ] && [ -f "$T/camp/campaign.json" ]; then ok "installed run (exit $rc)"
else bad "installed run exited $rc"; cat "$T/run.log"; fi
n=$(find "$T/camp/records" -name '*.json' 2>/dev/null | wc -l)
[ "$n" -ge 2 ] && ok "installed run wrote $n records (the instance and the baseline)" ||
    { bad "installed run wrote $n records"; cat "$T/run.log"; }
# the installed null library, beside the installed probe, timed the harness
h=$(python3 -c 'import glob, json, sys
v = [json.load(open(f)).get("verification", {}).get("harness_ns_per_call")
     for f in glob.glob(sys.argv[1] + "/records/*/*.json")]
print("ok" if v and all(isinstance(x, (int, float)) and x >= 0 for x in v) else v)' "$T/camp")
[ "$h" = ok ] && ok "installed run: every record states the harness cost" ||
    bad "installed run: harness costs $h"
for stage in check build kat measure; do
    if grep -E -q "^$stage: finished in [0-9.]+ s$|^$stage: finished in [0-9]+ min [0-9]+ s$" \
        "$T/run.log"
    then ok "the run says how long $stage took: $(grep "^$stage: finished in" "$T/run.log")"
    else bad "no duration for $stage"; cat "$T/run.log"; fi
done
checks_summary
