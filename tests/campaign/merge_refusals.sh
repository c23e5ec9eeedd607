#!/bin/sh
# `hashbench merge` refusals on crafted shard run directories (ctest:
# test_campaign_merge_refusals). Two small shards written here (campaign.json,
# build.json, kat.json, a record, a library and a log each, no measuring)
# merge with exit 0; then each refusal merge.c makes is provoked by one change
# and must exit 2 with a message naming the file (or folder) at fault and
# the setting: a missing or unparsable part, an unfinished measure phase, no
# valid shard (k, n), each of the settings that must match, a shard given
# twice, an instance on two shards, a record in two shards, an output folder
# that is a shard, holds another campaign or holds run files without
# campaign.json, and no shard at all. An earlier merge is replaced (exit 0).
# Needs HB_BUILD_DIR (with hashbench); python3 writes the JSON.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-merge-refusals.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../checks.sh"

# shard DIR K OWNED [PYTHON]: a finished shard K/2 owning instance OWNED
# (P/A or P/B) of the two instances P/A and P/B; PYTHON, when given, then
# edits the dicts c (campaign.json), b (build.json) and k (kat.json).
shard() {
    rm -rf "$1"
    python3 - "$1" "$2" "$3" "${4:-}" <<'PY'
import json, os, sys
d, k_, owned, edit = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
cand, inst = owned.split("/")
c = {"counter": {"name": "tsc", "rate_hz": 2e9},
     "environment": {"start": {"arch": "x86_64", "cpu_model": "Test CPU",
                               "governor": "performance", "turbo": False, "smt": False},
                     "end": {}},
     "settings": {"profile": "performance", "planner": "adaptive", "sizes": [64],
                  "target_ci_percent": 5, "budget_s": 0.3, "trials": None},
     "shard": {"k": k_, "n": 2, "instances": [owned], "costs_sha256": "c0" * 32},
     "phases": {p: {"done": True, "failed": 0} for p in ("check", "build", "kat", "measure")},
     "start_utc": "2026-01-01T00:00:0%dZ" % k_, "end_utc": "2026-01-01T01:00:0%dZ" % k_,
     "host_problems": 0, "sessions": []}
b = {"compiler_version": "gcc 12.2.0",
     "instances": [{"candidate": "P", "instance": i, "source_dir": "P/src",
                    "status": "BUILT", "library": "lib/P/lib%s.so" % i,
                    "log": "logs/build/P/%s.log" % i} for i in ("A", "B")]}
k = {"instances": [{"candidate": cand, "instance": inst, "status": "PASS",
                    "log": "kat/P/%s.log" % inst}]}
exec(edit)
for rel in ("records/P", "kat/P", "lib/P", "logs/build/P"):
    os.makedirs(os.path.join(d, rel), exist_ok=True)
for name, doc in (("campaign.json", c), ("build.json", b), ("kat.json", k)):
    json.dump(doc, open(os.path.join(d, name), "w"))
json.dump({"candidate": cand, "instance": inst, "size_bytes": 64},
          open(os.path.join(d, "records/P/%s__hash_64.json" % inst), "w"))
open(os.path.join(d, "kat/P/%s.log" % inst), "w").write("kat of %s\n" % inst)
for i in ("A", "B"):
    open(os.path.join(d, "lib/P/lib%s.so" % i), "w").write("library %s of shard %d\n" % (i, k_))
    open(os.path.join(d, "logs/build/P/%s.log" % i), "w").write("build log %s\n" % i)
PY
}

# refused DESC OUT WORDS... -- SHARD...: merge exits 2 and its message
# holds each of WORDS (fixed strings).
refused() {
    desc=$1
    out=$2
    shift 2
    words=""
    while [ "$1" != -- ]; do words="$words
$1"; shift; done
    shift
    "$B" merge --run-dir "$out" "$@" >"$T/merge.log" 2>&1
    rc=$?
    missing=""
    echo "$words" | { while IFS= read -r w; do
        [ -z "$w" ] || grep -qF -- "$w" "$T/merge.log" || echo "$w"
    done; } >"$T/missing"
    if [ $rc -eq 2 ] && [ ! -s "$T/missing" ]; then
        ok "refused: $desc"
    else
        bad "$desc: exit $rc (2 expected), message lacks: $(tr '\n' '|' <"$T/missing")"
        cat "$T/merge.log"
    fi
}

S1="$T/s1"
S2="$T/s2"
shard "$S1" 1 P/A
shard "$S2" 2 P/B

# The crafted shards merge: the refusals below come from the one change.
if "$B" merge --run-dir "$T/m" "$S1" "$S2" >"$T/ok.log" 2>&1 &&
    [ -f "$T/m/records/P/A__hash_64.json" ] && [ -f "$T/m/records/P/B__hash_64.json" ] &&
    grep -q "library B of shard 2" "$T/m/lib/P/libB.so" &&
    grep -q "library A of shard 1" "$T/m/lib/P/libA.so"; then
    ok "the crafted shards merge (each instance's library from its owner)"
else
    bad "the crafted shards do not merge"; cat "$T/ok.log"
fi
# an earlier merge is replaced
if "$B" merge --run-dir "$T/m" "$S1" "$S2" >"$T/ok.log" 2>&1; then ok "an earlier merge is replaced"
else bad "merging over an earlier merge"; cat "$T/ok.log"; fi

# missing or unreadable parts of a shard
for part in campaign.json build.json kat.json; do
    shard "$S1" 1 P/A
    rm "$S1/$part"
    refused "$part missing" "$T/out" "$S1/$part" "missing" -- "$S1" "$S2"
done
shard "$S1" 1 P/A
echo '{"counter": ' >"$S1/campaign.json"
refused "campaign.json does not parse" "$T/out" "$S1/campaign.json" -- "$S1" "$S2"
shard "$S1" 1 P/A 'c["phases"]["measure"]["done"] = False'
refused "the measure phase has not finished" "$T/out" "$S1/campaign.json" "measure phase" -- "$S1" "$S2"
shard "$S1" 1 P/A 'c["shard"]["k"] = 0'
refused "no valid shard (k, n)" "$T/out" "$S1/campaign.json" "no valid shard" -- "$S1" "$S2"
shard "$S1" 1 P/A 'del c["shard"]'
refused "no shard object" "$T/out" "$S1/campaign.json" "no valid shard" -- "$S1" "$S2"
shard "$S1" 1 P/A

# every setting the shards must share: shard 2 differs in one
while IFS='|' read -r label part edit; do
    shard "$S2" 2 P/B "$edit"
    refused "shards differing in $label" "$T/out" "$S2/$part" "$label" "$S1/$part" -- "$S1" "$S2"
done <<'EOF2'
the counter|campaign.json|c["counter"]["name"] = "perf_cycles"
the architecture|campaign.json|c["environment"]["start"]["arch"] = "aarch64"
the CPU model|campaign.json|c["environment"]["start"]["cpu_model"] = "Other CPU"
the governor|campaign.json|c["environment"]["start"]["governor"] = "powersave"
turbo/boost|campaign.json|c["environment"]["start"]["turbo"] = True
SMT|campaign.json|c["environment"]["start"]["smt"] = True
the profile|campaign.json|c["settings"]["profile"] = "reference"
the planner|campaign.json|c["settings"]["planner"] = "reference"
the sizes|campaign.json|c["settings"]["sizes"] = [64, 1024]
the target CI|campaign.json|c["settings"]["target_ci_percent"] = 1
the budget|campaign.json|c["settings"]["budget_s"] = 2
the trials|campaign.json|c["settings"]["trials"] = 7
the number of shards|campaign.json|c["shard"]["n"] = 3
the shard costs file|campaign.json|c["shard"]["costs_sha256"] = "0" * 64
the compiler|build.json|b["compiler_version"] = "clang 14"
EOF2

shard "$S2" 2 P/B 'c["shard"]["k"] = 1'
refused "a shard given twice" "$T/out" "$S1" "$S2" "both shard 1/2" -- "$S1" "$S2"
shard "$S2" 2 P/A
refused "an instance on two shards" "$T/out" "$S2/campaign.json" "P/A" -- "$S1" "$S2"
shard "$S2" 2 P/B
cp "$S1/records/P/A__hash_64.json" "$S2/records/P/"
refused "a record in two shards" "$T/out2" "$S2/records/P/A__hash_64.json" "another shard" -- "$S1" "$S2"
shard "$S2" 2 P/B

# the output folder
refused "--run-dir is a shard" "$S1" "--run-dir" "$S1" -- "$S1" "$S2"
cp -r "$S1" "$T/other"
refused "--run-dir holds another campaign" "$T/other" "$T/other/campaign.json" "not a merge" -- "$S1" "$S2"
[ -f "$T/other/records/P/A__hash_64.json" ] && ok "that campaign is left in place" ||
    bad "the campaign in --run-dir was touched"
mkdir -p "$T/runfiles/records"
refused "--run-dir holds run files without campaign.json" "$T/runfiles" "$T/runfiles" "no campaign.json" -- "$S1" "$S2"
refused "no shard" "$T/out3" "merge" -- 
[ -e "$T/out3" ] && bad "merge without shards created its --run-dir" || ok "merge without shards creates nothing"

checks_summary
