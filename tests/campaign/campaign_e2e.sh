#!/bin/sh
# End-to-end campaign test on the bundled examples with two small sizes:
#  1. an uninterrupted run of every example (the default when no package is
#     named), whose records of SM3, SHA2 and the baselines are the reference
#     record set of the runs below, which take copies of SM3 and SHA2 only;
#  2. a campaign killed with SIGKILL at random moments ten times and
#     resumed each time: it must end with the reference set, every
#     JSON file must parse, no record file may be rewritten once written, no
#     trial pid may appear twice (nothing measured twice), and no temporary
#     file of a killed writer may be left, and no process or staging
#     folder of a killed run may outlive it;
#  3. changed planning settings on a directory with records are refused;
#  4. two shards run at once on the two cores, balanced by one shared
#     calibrated-costs file, merged, give exactly the reference set; a shard
#     with a different counter or costs file is refused by merge;
#  5. the published dataset holds no absolute path;
#  6. a library rebuilt after the campaign is tested and measured again on
#     resume, the unchanged ones keep their records (on the killed-and-
#     resumed campaign, complete by then).
# Candidates are named by their folders, so the record sets compare.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR; python3 checks JSON.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-campaign-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT
# KAT_Loop is not what this file tests: --no-loop keeps the campaigns quick.
OPTS="--sizes 64,2048 --budget 0.3 --target-ci 5 --allow-unfit-host --no-loop"
. "$(dirname "$0")/../checks.sh"
# passed RC DIR: exit 0, or 1 for measurements a loaded host spoiled only
passed() { python3 "$SRC/tests/campaign/examples_passed.py" "$1" "$2"; }


# "candidate/instance/size" of every record under $1/records, sorted.
record_set() {
    python3 - "$1" <<'EOF'
import json, os, sys
out = []
for d, _, files in os.walk(os.path.join(sys.argv[1], "records")):
    for f in files:
        if f.endswith(".json"):
            r = json.load(open(os.path.join(d, f)))
            out.append("%s/%s/%s" % (r["candidate"], r["instance"], r["size_bytes"]))
print("\n".join(sorted(out)))
EOF
}

# Every *.json under $1 parses; prints the count or fails.
all_json_parse() {
    python3 - "$1" <<'EOF'
import json, os, sys
n = 0
for d, _, files in os.walk(sys.argv[1]):
    for f in files:
        if f.endswith(".json"):
            json.load(open(os.path.join(d, f)))
            n += 1
print(n)
EOF
}

# 1. the uninterrupted reference run of every bundled example
"$B" run --run-dir "$T/ref" $OPTS >"$T/ref.log" 2>&1
rc=$?
if passed $rc "$T/ref" && [ -s "$T/ref/campaign.json" ]; then ok "uninterrupted run (exit $rc)"
else bad "uninterrupted run exited $rc"; cat "$T/ref.log"; exit 1; fi
record_set "$T/ref" >"$T/ref.all"
grep -q '^SHA3/' "$T/ref.all" && ok "the default run took every example ($(wc -l <"$T/ref.all") records)" ||
    bad "the run without packages did not measure the SHA-3 example"
# every OK record has its memory figures: RSS read from outside the timed
# session (baseline <= peak, both above the probe's own megabyte), the stack
# and heap of its memory run
python3 - "$T/ref" <<'EOF' && ok "every OK record has RSS from its session and a stack figure" ||
import json, os, sys
bad = []
for d, _, files in os.walk(os.path.join(sys.argv[1], "records")):
    for f in files:
        if not f.endswith(".json"):
            continue
        r = json.load(open(os.path.join(d, f)))
        m = r.get("memory") or {}
        base, peak = m.get("rss_baseline_kb"), m.get("rss_peak_kb")
        if r.get("status") == "OK" and not (
                m.get("rss_source") == "session" and isinstance(base, int) and
                isinstance(peak, int) and 1024 <= base <= peak and
                isinstance(m.get("stack_peak_bytes"), int) and m["stack_peak_bytes"] > 0):
            bad.append("%s: %s" % (f, json.dumps(m)))
print("\n".join(bad[:5]))
sys.exit(1 if bad else 0)
EOF
    bad "an OK record lacks its memory figures"
# the reference set of the runs below: SM3, SHA2 and the baselines
grep -E '^(SM3|SHA2|baseline)/' "$T/ref.all" >"$T/ref.set"
NREF=$(wc -l <"$T/ref.set")
[ "$NREF" -ge 10 ] && ok "reference set: $NREF records" || bad "reference set: $NREF records"
# the packages of the runs below: copies (section 6 rebuilds one)
mkdir -p "$T/pkgs" && cp -R "$SRC/examples/SM3" "$SRC/examples/SHA2" "$T/pkgs/"
PKGS="$T/pkgs/SM3 $T/pkgs/SHA2"

# 2. ten SIGKILLs at random moments, each followed by a resume: the first
#    five within 0.1-2.5 s of the start (checks, build, KAT), the last five
#    0-0.5 s after the resumed run wrote a record of its own (measuring)
: >"$T/snap"
nrec() { find "$T/killed/records" -name '*.json' 2>/dev/null | wc -l; }
# the processes and staging folders of the killed runs, by the marker they
# carry (HB_CAMPAIGN, given to hashbench alone): none may outlive a kill
KID="hbe2e$$"
kmarked() { grep -laz -e "^HB_CAMPAIGN=$KID[.]" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3; }
kfolders() { grep -ls -e "^$KID[.]" /tmp/hashbench-stage.*/.owner.lock 2>/dev/null; }
: >"$T/outlived"
i=1
while [ $i -le 10 ]; do
    before=$(nrec)
    # shellcheck disable=SC2086
    HB_CAMPAIGN=$KID "$B" run --run-dir "$T/killed" $OPTS $PKGS >>"$T/killed.log" 2>&1 &
    pid=$!
    if [ $i -le 5 ]; then
        ms=$(awk -v s="$$$i" 'BEGIN { srand(s); printf "%d", 100 + rand() * 2400 }')
    else
        w=0
        while [ "$(nrec)" -le "$before" ] && kill -0 "$pid" 2>/dev/null && [ $w -lt 1200 ]; do
            sleep 0.05
            w=$((w + 1))
        done
        ms=$(awk -v s="$$$i" 'BEGIN { srand(s); printf "%d", rand() * 500 }')
    fi
    sleep "$(awk -v m="$ms" 'BEGIN { printf "%.3f", m / 1000 }')"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    w=0
    while { [ -n "$(kmarked)" ] || [ -n "$(kfolders)" ]; } && [ $w -lt 100 ]; do
        sleep 0.05
        w=$((w + 1))
    done
    for p in $(kmarked); do
        echo "kill $i: $p $({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | cut -c1-100)" >>"$T/outlived"
        kill -9 "$p" 2>/dev/null
    done
    kfolders | sed "s/^/kill $i: /" >>"$T/outlived"
    # every record now present must stay byte-identical until the end
    for f in $(find "$T/killed/records" -name '*.json' 2>/dev/null); do
        echo "$f $(sha256sum <"$f" | cut -c1-64)" >>"$T/snap"
    done
    all_json_parse "$T/killed" >/dev/null 2>"$T/parse.err" ||
        { bad "a JSON file does not parse after kill $i"; cat "$T/parse.err"; }
    i=$((i + 1))
done
[ ! -s "$T/outlived" ] && ok "nothing of a killed run outlives it by 5 s (processes, staging folders)" ||
    { bad "left by the killed runs:"; cat "$T/outlived"; }
# a temporary file of a writer killed mid-write, with the pid of a process
# that has ended (besides any the kills above left)
dead=$(sh -c 'echo $$')
mkdir -p "$T/killed/records"
echo '{"half": ' >"$T/killed/records/planted.json.tmp.$dead"
# shellcheck disable=SC2086
"$B" run --run-dir "$T/killed" $OPTS $PKGS >>"$T/killed.log" 2>&1
rc=$?
passed $rc "$T/killed" && ok "resumed run completed (exit $rc)" || { bad "resume exited $rc"; tail -5 "$T/killed.log"; }
left=$(find "$T/killed" -name '*.tmp.*' | wc -l)
[ "$left" -eq 0 ] && ok "no temporary file of a killed run is left after the resume" ||
    { bad "$left temporary files left"; find "$T/killed" -name '*.tmp.*'; }
record_set "$T/killed" >"$T/killed.set"
if cmp -s "$T/ref.set" "$T/killed.set"; then ok "killed-and-resumed run has the reference record set"
else bad "record sets differ"; diff "$T/ref.set" "$T/killed.set"; fi
N=$(all_json_parse "$T/killed") && ok "all $N JSON files of the resumed run parse" ||
    bad "a JSON file of the resumed run does not parse"
snapped=$(cut -d' ' -f1 "$T/snap" | sort -u | wc -l)
[ "$snapped" -gt 0 ] && ok "$snapped records written before a kill are compared" ||
    bad "no kill came after a record was written: the rewrite check proves nothing"
rewritten=0
sort -u "$T/snap" | while read -r f sum; do
    [ "$(sha256sum <"$f" | cut -c1-64)" = "$sum" ] || echo "$f"
done >"$T/rewritten"
rewritten=$(wc -l <"$T/rewritten")
[ "$rewritten" -eq 0 ] && ok "no record was rewritten after it was written" ||
    { bad "$rewritten records were rewritten"; cat "$T/rewritten"; }
python3 - "$T/killed" <<'EOF' && ok "no probe process appears in two records (nothing measured twice)" || bad "a probe process appears in two records"
import json, os, sys
# one session (one process) serves every window of a record, and no other
seen = {}
for d, _, files in os.walk(os.path.join(sys.argv[1], "records")):
    for f in files:
        if f.endswith(".json"):
            for t in json.load(open(os.path.join(d, f))).get("trials", []):
                key = t["pid"]
                if seen.get(key, f) != f:
                    print("pid", key, "in", seen[key], "and", f)
                    sys.exit(1)
                seen[key] = f
EOF
python3 - "$T/killed/campaign.json" <<'EOF' && ok "campaign.json records the interrupted sessions" || bad "campaign.json sessions"
import json, sys
c = json.load(open(sys.argv[1]))
s = c["sessions"]
assert 2 <= len(s) <= 11, len(s)
assert any(x["outcome"] == "interrupted" for x in s), "no interrupted session"
assert s[-1]["outcome"] == "complete" and c["end_utc"]
assert all(c["phases"][p]["done"] for p in ("check", "build", "kat", "measure"))
assert c["environment"]["start"] and c["environment"]["end"]
EOF

# 3. changed planning settings are refused
"$B" run --run-dir "$T/ref" --sizes 64 --allow-unfit-host >"$T/changed.log" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "campaign.json" "$T/changed.log" && grep -q "'sizes'" "$T/changed.log"; then
    ok "changed sizes refused naming campaign.json and the setting"
else bad "changed settings not refused (exit $rc)"; cat "$T/changed.log"; fi

# 4. two shards at once on the two cores, then merge
#    (with the constant-time stage, whose records the merge and publish carry)
# shellcheck disable=SC2086
"$B" run --run-dir "$T/s1" --shard 1/2 --cpu 0 --shard-costs "$T/costs.json" $OPTS --ct $PKGS >"$T/s1.log" 2>&1 &
p1=$!
# shellcheck disable=SC2086
"$B" run --run-dir "$T/s2" --shard 2/2 --cpu 1 --shard-costs "$T/costs.json" $OPTS --ct $PKGS >"$T/s2.log" 2>&1 &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
passed $r1 "$T/s1" && passed $r2 "$T/s2" && ok "two shards ran (exit $r1, $r2)" ||
    { bad "shards exited $r1 $r2"; tail -5 "$T/s1.log" "$T/s2.log"; }
"$B" merge --run-dir "$T/merged" "$T/s1" "$T/s2" >"$T/merge.log" 2>&1 &&
    ok "merge" || { bad "merge failed"; cat "$T/merge.log"; }
record_set "$T/merged" >"$T/merged.set"
if cmp -s "$T/ref.set" "$T/merged.set"; then ok "merged shards have the reference record set"
else bad "merged record set differs"; diff "$T/ref.set" "$T/merged.set"; fi
record_set "$T/s1" >"$T/s1.set"
record_set "$T/s2" >"$T/s2.set"
[ -z "$(comm -12 "$T/s1.set" "$T/s2.set")" ] && [ -s "$T/s1.set" ] && [ -s "$T/s2.set" ] &&
    ok "the shards share no record and both measured" || bad "shards overlap or one is empty"
python3 - "$T/costs.json" "$T/s1/campaign.json" "$T/s2/campaign.json" <<'EOF' &&
import hashlib, json, sys
costs = json.load(open(sys.argv[1]))["instances"]
sha = hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()
shards = [json.load(open(f))["shard"] for f in sys.argv[2:]]
assert all(s["costs_sha256"] == sha for s in shards), "costs file differs"
names = [n for s in shards for n in s["instances"]]
assert sorted(names) == sorted(costs), (names, list(costs))
loads = [sum(costs[n] for n in s["instances"]) for s in shards]
for s, l in zip(shards, loads):
    assert abs(s["cost_s"] - l) < 1e-9 * max(1, l), (s["cost_s"], l)
# greedy over descending costs: the shares differ by at most the largest cost
assert max(loads) - min(loads) <= max(costs.values()) + 1e-12, loads
EOF
    ok "both shards split by the one calibrated-costs file, balanced" ||
    bad "shards not balanced by the shared costs file"
cp -r "$T/s2" "$T/s2bad"
python3 - "$T/s2bad/campaign.json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["counter"]["name"] = "perf_cycles" if c["counter"]["name"] != "perf_cycles" else "tsc"
json.dump(c, open(sys.argv[1], "w"))
EOF
"$B" merge --run-dir "$T/merged-bad" "$T/s1" "$T/s2bad" >"$T/mergebad.log" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "counter" "$T/mergebad.log" &&
    ok "merge refuses a shard with another counter" || { bad "merge accepted another counter"; cat "$T/mergebad.log"; }

cp -r "$T/s2" "$T/s2costs"
python3 - "$T/s2costs/campaign.json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["shard"]["costs_sha256"] = "0" * 64
json.dump(c, open(sys.argv[1], "w"))
EOF
"$B" merge --run-dir "$T/merged-costs" "$T/s1" "$T/s2costs" >"$T/mergecosts.log" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "costs file" "$T/mergecosts.log" &&
    ok "merge refuses a shard split by another costs file" ||
    { bad "merge accepted another costs file"; cat "$T/mergecosts.log"; }

# 5. publish the merged campaign: no absolute path anywhere
"$B" publish --run-dir "$T/merged" --system x86_1 --data "$T/data" >"$T/publish.log" 2>&1 &&
    ok "publish" || { bad "publish failed"; cat "$T/publish.log"; }
python3 - "$T/data" "$T" "$HB_SOURCE_DIR" <<'EOF' && ok "published dataset holds no absolute path" || bad "absolute path in dataset"
import json, os, sys
root, tmp, src = sys.argv[1], sys.argv[2], os.path.realpath(sys.argv[3])
def strings(v):
    if isinstance(v, str): yield v
    elif isinstance(v, list):
        for x in v: yield from strings(x)
    elif isinstance(v, dict):
        for k, x in v.items():
            assert k != "package", "package field kept"
            yield from strings(x)
n = 0
for d, _, files in os.walk(root):
    for f in files:
        if f.endswith(".json"):
            for s in strings(json.load(open(os.path.join(d, f)))):
                assert not s.startswith("/") and tmp not in s, (f, s)
            n += 1
assert n >= 4
assert not any(f.endswith(".so") for _, _, fs in os.walk(root) for f in fs)
# every compiler log build.json names is published, with the run directory
# and the package folders rewritten
build = json.load(open(os.path.join(root, "x86_1", "build.json")))
for e in build["instances"]:
    text = open(os.path.join(root, e["log"])).read()
    assert tmp not in text and src not in text, (e["log"], text)
    if e["candidate"] != "baseline":
        assert "# working folder: %s/\n" % e["candidate"] in text, (e["log"], text)
EOF
[ "$(record_set "$T/data/x86_1" | wc -l)" -eq "$NREF" ] &&
    ok "published dataset has every record" || bad "published record count"
# a constant-time record for every instance that passed its KATs (from both
# shards), none for the others, and validate checks them
python3 - "$T/data/x86_1" <<'EOF' && ok "published constant-time records" || bad "constant-time records"
import json, os, sys
kat = json.load(open(os.path.join(sys.argv[1], "kat.json")))["instances"]
want = sorted("%s/%s" % (e["candidate"], e["instance"]) for e in kat
              if e["status"] in ("PASS", "BASELINE"))
have = []
for d, _, files in os.walk(os.path.join(sys.argv[1], "ct")):
    for f in files:
        assert f.endswith(".json"), f
        r = json.load(open(os.path.join(d, f)))
        assert r["verdict"] == "NONE_FOUND", (f, r["verdict"], r["taint"]["reason"])
        have.append("%s/%s" % (r["candidate"], r["instance"]))
assert len(want) >= 4 and sorted(have) == want, (have, want)
EOF
"$B" validate "$T/data" >"$T/validate.log" 2>&1 && grep -q " 0 problems" "$T/validate.log" &&
    ok "validate accepts the published dataset" || { bad "validate"; cat "$T/validate.log"; }
# the isolation of submitted code is recorded with the evidence
python3 - "$T/data/x86_1" <<'EOF' && ok "the dataset records the sandbox" || bad "sandbox not recorded"
import json, os, sys
for f in ("campaign.json", "build.json", "kat.json"):
    v = json.load(open(os.path.join(sys.argv[1], f))).get("sandbox", "")
    assert v.startswith("bubblewrap "), (f, v)
EOF

# 6. a library rebuilt after the campaign finished (the killed-and-resumed
#    one, complete): resuming re-tests and re-measures that instance only,
#    and every record and KAT result then names the library build.json names
find "$T/killed/records/SHA2" -name '*.json' -exec sha256sum {} + 2>/dev/null |
    awk '{ print $2, $1 }' >"$T/rb.sha2"
[ "$(wc -l <"$T/rb.sha2")" -eq 4 ] && ok "4 SHA2 records before the rebuild" ||
    bad "SHA2 has $(wc -l <"$T/rb.sha2") records before the rebuild (4 expected: 2 instances, 2 sizes)"
echo 'const char hb_e2e_rebuilt[] = "rebuilt";' \
    >>"$T/pkgs/SM3/Implementations/Reference_Implementation/SM3/sm3.c"
# shellcheck disable=SC2086
"$B" build --run-dir "$T/killed" $PKGS >"$T/rb2.log" 2>&1 ||
    { bad "rebuild"; cat "$T/rb2.log"; }
# shellcheck disable=SC2086
"$B" run --run-dir "$T/killed" $OPTS $PKGS >"$T/rb3.log" 2>&1
passed $? "$T/killed" || { bad "resume after the rebuild"; cat "$T/rb3.log"; }
python3 - "$T/killed" <<'EOF' && ok "resume after a rebuild: KAT results and records name the new library" ||
import json, os, sys
root = sys.argv[1]
build = {(e["candidate"], e["instance"]): e["library_sha256"]
         for e in json.load(open(os.path.join(root, "build.json")))["instances"]}
for e in json.load(open(os.path.join(root, "kat.json")))["instances"]:
    if e["status"] != "BASELINE":
        assert e["library_sha256"] == build[(e["candidate"], e["instance"])], e
        assert e["status"] == "PASS", e
n = 0
for d, _, files in os.walk(os.path.join(root, "records")):
    for f in files:
        r = json.load(open(os.path.join(d, f)))
        assert r["library_sha256"] == build[(r["candidate"], r["instance"])], f
        n += 1
assert n >= 6, n
EOF
    { bad "stale KAT result or record after a rebuild"; tail -n 20 "$T/rb3.log"; }
kept=1
while read -r f h; do
    [ -f "$f" ] && [ "$(sha256sum <"$f" | cut -c1-64)" = "$h" ] ||
        { kept=0; bad "$f changed or went though its library did not change"; }
done <"$T/rb.sha2"
if [ "$kept" = 1 ] && [ -s "$T/rb.sha2" ]; then ok "records of the unchanged libraries kept byte for byte"
else bad "records of the unchanged libraries not kept (or none to compare)"; fi

checks_summary
