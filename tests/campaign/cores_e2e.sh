#!/bin/sh
# `hashbench run --cpus LIST` on one package and the baseline at one size
# (one instance per core on a 2-core machine): measured on the
# usable cores side by side (two on this machine), each core's shard in
# DIR/cores/cpu<N> and merged into DIR. Checks that the merged run has the
# records and KAT verdicts of a one-core run, that every record names the
# core its shard was given (and every trial ran there), that campaign.json
# lists each core's shard with its own host check, that running the command
# again keeps every record, that the published dataset validates, and that
# --cpus refuses --cpu, a core given twice, a core this process may not use
# and a run directory measured without --cpus.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR; python3 reads JSON.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-cores.XXXXXX")
trap 'rm -rf "$T"' EXIT
OPTS="--sizes 64 --budget 0.3 --target-ci 5 --no-loop --allow-unfit-host"
PKGS="$SRC/examples/SM3"
. "$(dirname "$0")/../checks.sh"
# passed RC DIR: exit 0, or 1 for measurements a loaded host spoiled only
passed() { python3 "$SRC/tests/campaign/examples_passed.py" "$1" "$2"; }

# The usable cores, at most two of them, as a --cpus list.
CPUS=$(python3 -c "import os; print(','.join(map(str, sorted(os.sched_getaffinity(0))[:2])))")

summary() { python3 "$SRC/tests/campaign/run_summary.py" "$1"; }

# shellcheck disable=SC2086
"$B" run --run-dir "$T/cores" --cpus "$CPUS" $OPTS $PKGS >"$T/cores.log" 2>&1
rc=$?
if passed $rc "$T/cores" && [ -s "$T/cores/campaign.json" ]; then ok "run --cpus $CPUS (exit $rc)"
else bad "run --cpus $CPUS exited $rc"; cat "$T/cores.log"; exit 1; fi
# shellcheck disable=SC2086
"$B" run --run-dir "$T/one" $OPTS $PKGS >"$T/one.log" 2>&1
passed $? "$T/one" || { bad "the one-core run"; tail -5 "$T/one.log"; }
summary "$T/one" >"$T/one.sum"
summary "$T/cores" >"$T/cores.sum"
if [ -s "$T/one.sum" ] && cmp -s "$T/one.sum" "$T/cores.sum"; then
    ok "the same records and verdicts as a one-core run"
else
    bad "records or verdicts differ from the one-core run"; diff "$T/one.sum" "$T/cores.sum"
fi

python3 - "$T/cores" "$CPUS" <<'EOF' && ok "records name their core; each core's shard has its host check" || bad "cores in campaign.json or records"
import json, os, sys
run, cpus = sys.argv[1], [int(c) for c in sys.argv[2].split(",")]
c = json.load(open(os.path.join(run, "campaign.json")))
assert c["cpus"] == cpus, c["cpus"]
owner = {}
assert len(c["shards"]) == len(cpus), len(c["shards"])
for i, s in enumerate(c["shards"]):
    assert s["cpu"] == cpus[i] and s["k"] == i + 1 and s["n"] == len(cpus), s
    assert any(h["item"] == "pinning" and ("CPU %d" % cpus[i]) in h["detail"]
               for h in s["host_checks"]), s["host_checks"]
    for inst in s["instances"]:
        owner[inst] = s["cpu"]
n = 0
for d, _, files in os.walk(os.path.join(run, "records")):
    for f in files:
        r = json.load(open(os.path.join(d, f)))
        core = owner["%s/%s" % (r["candidate"], r["instance"])]
        assert r["environment"]["cpu"] == core, (f, r["environment"]["cpu"], core)
        assert all(t["cpu"] == core for t in r["trials"]), f
        n += 1
assert n > 0
if len(cpus) > 1:
    assert len(set(owner.values())) == len(cpus), owner
EOF

# Again: every shard resumes, every record is kept byte for byte.
(cd "$T/cores" && find records -name '*.json' -exec sha256sum {} + | sort) >"$T/before"
# shellcheck disable=SC2086
"$B" run --run-dir "$T/cores" --cpus "$CPUS" $OPTS $PKGS >"$T/again.log" 2>&1
rc=$?
(cd "$T/cores" && find records -name '*.json' -exec sha256sum {} + | sort) >"$T/after"
if passed $rc "$T/cores" && [ -s "$T/before" ] && cmp -s "$T/before" "$T/after"; then
    ok "run again: every record kept"
else
    bad "run again exited $rc or changed records"; diff "$T/before" "$T/after"; tail -5 "$T/again.log"
fi

"$B" publish --run-dir "$T/cores" --system cores_test --data "$T/data" >"$T/pub.log" 2>&1 &&
    "$B" validate "$T/data" >"$T/val.log" 2>&1 && grep -q "0 problems" "$T/val.log" &&
    ok "published and validated: 0 problems" ||
    { bad "publish or validate"; cat "$T/pub.log" "$T/val.log"; }

refused() {
    # shellcheck disable=SC2086
    "$B" run --run-dir "$1" $2 $OPTS $PKGS >"$T/refused.log" 2>&1
    rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$3" "$T/refused.log"; then ok "refused: $4"
    else bad "not refused ($rc): $4"; cat "$T/refused.log"; fi
}
refused "$T/x1" "--cpus $CPUS --cpu 0" "leave out" "--cpus with --cpu"
refused "$T/x2" "--cpus 0,0" "given twice" "a core given twice"
refused "$T/x3" "--cpus 0,4095" "not one this process may run on" "a core out of reach"
refused "$T/one" "--cpus $CPUS" "without --cpus" "a run directory measured without --cpus"

checks_summary
