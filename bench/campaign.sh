#!/bin/sh
# Campaign: how long does the demo campaign take to a published result, and
# what does running on every core buy? Runs the demo campaign (the bundled
# examples and the baseline, all eight sizes, KAT with KAT_Loop) from a
# clean run directory twice, side by side in one run:
#   one core:    hashbench run --jobs 1 (one KAT at a time, measured on one
#                core), as the demo ran before;
#   every core:  hashbench run --cpus <usable cores> (KAT on every core, one
#                measuring core per usable core);
# each followed by publish and report, and prints the wall time of each
# stage, that both give the same KAT verdicts and the same records, and what
# measuring side by side costs: each record's time per call measured side
# by side against the same record measured alone on the same core (the
# one-core run for its core, `hashbench measure --cpu N` alone for the
# others). Target: the whole demo campaign in at most 120 s on a 2-core
# machine. A full run writes its block into bench/README.md.
#   bench/campaign.sh [--quick] [--no-readme] [--no-build] [--build DIR]
# --quick: two sizes and no KAT_Loop (a smoke run); never writes the README.
# Run it alone on the machine: flock -x /work/.cpu.lock bench/campaign.sh
set -eu
BENCH_NAME=campaign
# shellcheck source=bench/common.sh disable=SC2034
. "$(dirname "$0")/common.sh"
bench_setup "$@"
B="$BENCH_BUILD/hashbench"
QUICK=0
README=1
case " $BENCH_ARGS " in *" --quick "*) QUICK=1; README=0 ;; esac
case " $BENCH_ARGS " in *" --no-readme "*) README=0 ;; esac
OPTS="--allow-unfit-host --loop"
[ "$QUICK" = 1 ] && OPTS="--allow-unfit-host --sizes 64,4096"
CPUS=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)
LAST=$(python3 -c "import os; print(max(os.sched_getaffinity(0)))")
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-bench-campaign.XXXXXX")
trap 'rm -rf "$T"' EXIT
now() { python3 -c "import time; print(time.monotonic())"; }

# $1: name; the rest: the run options. Writes $T/$1.wall, $T/$1.pub.
campaign() {
    name=$1
    shift
    echo "$BENCH_NAME: $name: hashbench run $*" >&2
    t0=$(now)
    # shellcheck disable=SC2086
    "$B" run --run-dir "$T/$name" "$@" $OPTS >"$T/$name.log" 2>&1 || [ $? -eq 1 ] ||
        { tail -20 "$T/$name.log" >&2; bench_die "$name: the campaign stopped"; }
    t1=$(now)
    "$B" publish --run-dir "$T/$name" --system bench --data "$T/$name.data" >/dev/null
    "$B" report "$T/$name.data" --out "$T/$name.site" >/dev/null
    t2=$(now)
    python3 -c "print($t1 - $t0)" >"$T/$name.wall"
    python3 -c "print($t2 - $t1)" >"$T/$name.pub"
}

START=$(date -u +%Y-%m-%dT%H:%MZ)
campaign one --jobs 1 --cpu "$LAST"
campaign every --cpus "$CPUS"
# Each core other than LAST measured alone, the one-core run's build and
# KAT reused: the reference for what side by side costs on that core.
for c in $(python3 -c "import os; print(' '.join(str(c) for c in sorted(os.sched_getaffinity(0)) if c != $LAST))"); do
    echo "$BENCH_NAME: alone on CPU $c: hashbench measure --cpu $c" >&2
    mkdir -p "$T/alone$c"
    cp "$T/one/build.json" "$T/one/kat.json" "$T/alone$c/"
    cp -r "$T/one/lib" "$T/one/kat" "$T/alone$c/"
    SIZES=""
    [ "$QUICK" = 1 ] && SIZES="--sizes 64,4096"
    # shellcheck disable=SC2086
    "$B" measure --run-dir "$T/alone$c" --cpu "$c" $SIZES >"$T/alone$c.log" 2>&1 ||
        { tail -5 "$T/alone$c.log" >&2; bench_die "measuring alone on CPU $c failed"; }
done

COMMIT=$(git -C "$BENCH_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
python3 - "$T" "$LAST" "$CPUS" "$START" "$QUICK" "$README" "$BENCH_ROOT/bench/README.md" "$COMMIT" <<'EOF'
import glob, json, os, statistics, sys
T, last, cpus, start, quick, readme, readme_path, commit = sys.argv[1:9]
last = int(last)

def load(p):
    return json.load(open(p))

def phase(doc, name, session=-1):
    return doc["sessions"][session].get("phase_seconds", {}).get(name, 0.0)

def wall(name):
    return float(open(os.path.join(T, name + ".wall")).read())

def pub(name):
    return float(open(os.path.join(T, name + ".pub")).read())

def records(run):
    out = {}
    for f in glob.glob(os.path.join(run, "records", "*", "*.json")):
        r = load(f)
        out["%s/%s/%s" % (r["candidate"], r["instance"], r["size_bytes"])] = r
    return out

def verdicts(run):
    return {"%s/%s" % (e["candidate"], e["instance"]): e["status"]
            for e in load(os.path.join(run, "kat.json"))["instances"]}

one = load(os.path.join(T, "one", "campaign.json"))
every_all = load(os.path.join(T, "every", "cores", "all", "campaign.json"))
shards = sorted(glob.glob(os.path.join(T, "every", "cores", "cpu*", "campaign.json")))
shard_docs = [load(p) for p in shards]

kat1, kat2 = phase(one, "kat"), phase(every_all, "kat")
meas1 = phase(one, "measure")
meas2 = max(phase(d, "measure") for d in shard_docs)
w1, w2 = wall("one"), wall("every")
rest1, rest2 = w1 - kat1 - meas1, w2 - kat2 - meas2
p1, p2 = pub("one"), pub("every")

def row(label, a, b):
    ratio = "%.2f" % (b / a) if a > 0 else "-"
    return "| %s | %.1f | %.1f | %s |" % (label, a, b, ratio)

n_cores = len(shard_docs)
lines = []
lines.append("Measured %s on this machine (%d usable cores: %s), %s; `bench/campaign.sh%s`, hashbench at %s."
             % (start, n_cores, cpus, "two sizes, no KAT_Loop" if quick == "1"
                else "all eight sizes, KAT with KAT_Loop", " --quick" if quick == "1" else "",
                commit))
lines.append("")
lines.append("| stage (wall seconds) | one core, one KAT at a time (`--jobs 1`) | every core (`--cpus %s`) | ratio |" % cpus)
lines.append("| --- | ---: | ---: | ---: |")
lines.append(row("KAT", kat1, kat2))
lines.append(row("measurement", meas1, meas2))
lines.append(row("check, build, split, shards' setup, merge", rest1, rest2))
lines.append(row("publish and report", p1, p2))
lines.append(row("**whole demo campaign**", w1 + p1, w2 + p2))
lines.append("")

v1, v2 = verdicts(os.path.join(T, "one")), verdicts(os.path.join(T, "every"))
r1, r2 = records(os.path.join(T, "one")), records(os.path.join(T, "every"))
s1 = {k: r["status"] for k, r in r1.items()}
s2 = {k: r["status"] for k, r in r2.items()}
lines.append("Same KAT verdicts: %s (%d instances). Same records (instance, size, status): %s (%d records)."
             % ("yes" if v1 == v2 else "NO", len(v1), "yes" if s1 == s2 else "NO", len(s1)))
lines.append("")

# side by side against alone, per core
alone = {last: r1}
for d in glob.glob(os.path.join(T, "alone*")):
    if os.path.isdir(d):
        alone[int(os.path.basename(d)[5:])] = records(d)
lines.append("Measuring side by side: each record's mean time per call measured with every core "
             "measuring, against the same record measured alone on the same core (median, min and max "
             "of the ratios):")
lines.append("")
lines.append("| core | records | median | min | max |")
lines.append("| ---: | ---: | ---: | ---: | ---: |")
for core in sorted(alone):
    ratios = []
    for k, r in r2.items():
        if r["environment"].get("cpu") != core or k not in alone[core]:
            continue
        a = alone[core][k].get("derived") or {}
        b = r.get("derived") or {}
        if a.get("mean_ns_per_call") and b.get("mean_ns_per_call"):
            ratios.append(b["mean_ns_per_call"] / a["mean_ns_per_call"])
    if ratios:
        lines.append("| %d | %d | %.3f | %.3f | %.3f |" % (core, len(ratios),
                     statistics.median(ratios), min(ratios), max(ratios)))
block = "\n".join(lines)
print(block)
if readme == "1":
    text = open(readme_path).read()
    b, e = "<!-- bench:campaign:begin -->", "<!-- bench:campaign:end -->"
    if b in text and e in text:
        text = text[:text.index(b) + len(b)] + "\n" + block + "\n" + text[text.index(e):]
        open(readme_path, "w").write(text)
        print("\nwritten into %s" % readme_path, file=sys.stderr)
EOF
