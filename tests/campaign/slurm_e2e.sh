#!/bin/sh
# A campaign under a real Slurm: starts munged, slurmctld and slurmd on this
# machine as a one-node cluster (its CPUs the partition; its own slurm.conf,
# munge key and state in a private temporary folder, ports of its own), then
# runs the Slurm section of docs/CAMPAIGNS.md as written (the scripts between
# its "<!-- slurm:NAME -->" markers, copied out of that file, with the test's
# own campaign.env: two shards, two packages, one size):
#  1. the job array and the merge job (sbatch --array, --dependency=afterok):
#     the merged, published dataset has the same records and KAT verdicts as
#     an unsharded run of the same packages, and validate finds 0 problems;
#  2. the campaign again with one array task cancelled (scancel) while it
#     runs, resubmitted as docs/CAMPAIGNS.md says: the merged dataset equals the
#     unkilled one (records and verdicts), validate 0 problems.
# Stops the daemons it started. Skipped (exit 77) where Slurm cannot start
# (not root, packages missing, daemons refusing), except under CI=true,
# where that is a failure. Needs HB_BUILD_DIR and HB_SOURCE_DIR.
set -u
BUILD="${HB_BUILD_DIR:?}"
SRC="${HB_SOURCE_DIR:?}"
. "$(dirname "$0")/../checks.sh"

skip() {
    if [ "${CI:-}" = true ]; then
        echo "FAILED: Slurm cannot start under CI: $*"
        exit 1
    fi
    echo "skipped: Slurm cannot start here: $*"
    exit 77
}

[ "$(id -u)" = 0 ] || skip "slurmd must run as root to start jobs (run the tests as root)"
for tool in munged mungekey slurmctld slurmd sbatch squeue scancel sinfo; do
    command -v "$tool" >/dev/null 2>&1 ||
        PATH="$PATH:/usr/sbin:/sbin" command -v "$tool" >/dev/null 2>&1 ||
        skip "$tool not found: install slurm-wlm and munge (sh scripts/deps.sh test)"
done
export PATH="$BUILD:$PATH:/usr/sbin:/sbin"

T=$(mktemp -d "${TMPDIR:-/tmp}/hb-slurm.XXXXXX")
chmod 711 "$T"
PIDS=""
stop_daemons() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    for p in $PIDS; do
        i=0
        while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        kill -9 "$p" 2>/dev/null
    done
    PIDS=""
}
cleanup() {
    stop_daemons
    [ -n "${WATCHER:-}" ] && kill "$WATCHER" 2>/dev/null
    if [ "${HB_SLURM_KEEP:-}" = 1 ]; then echo "kept: $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- the one-node cluster ------------------------------------------------

mkdir -p "$T/munge" "$T/state" "$T/spool"
mungekey --create --keyfile="$T/munge/munge.key" >"$T/mungekey.log" 2>&1 ||
    skip "mungekey failed: $(cat "$T/mungekey.log")"
munged --foreground --force --socket="$T/munge/socket" --key-file="$T/munge/munge.key" \
    --log-file="$T/munge/munged.log" --pid-file="$T/munge/munged.pid" \
    --seed-file="$T/munge/seed" >/dev/null 2>&1 &
PIDS="$PIDS $!"

NODE=$(hostname -s)
CPUS=$(nproc)
PORT=$((20000 + $$ % 20000))
cat >"$T/slurm.conf" <<EOF
ClusterName=hbtest
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
KillWait=2
MinJobAge=600
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=hashbench Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$T/slurm.conf"
i=0
while [ ! -S "$T/munge/socket" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$T/munge/socket" ] || skip "munged did not start: $(tail -3 "$T/munge/munged.log" 2>/dev/null)"
slurmctld -D -f "$T/slurm.conf" >"$T/slurmctld.out" 2>&1 &
PIDS="$PIDS $!"
slurmd -D -f "$T/slurm.conf" >"$T/slurmd.out" 2>&1 &
PIDS="$PIDS $!"
i=0
until sinfo -h -o %t 2>/dev/null | grep -q idle; do
    i=$((i + 1))
    if [ $i -ge 150 ]; then
        skip "the node did not become idle in 15 s: $(tail -3 "$T/slurmctld.log" "$T/slurmd.log" 2>&1)"
    fi
    sleep 0.1
done
ok "one-node cluster up ($NODE, $CPUS CPUs, port $PORT)"
# Should this shell be killed outright (a ctest timeout), the daemons it
# started go with it.
(
    trap '' INT TERM
    while kill -0 $$ 2>/dev/null; do sleep 1; done
    for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
) >/dev/null 2>&1 &
WATCHER=$!

# ---- the scripts of docs/CAMPAIGNS.md --------------------------------------

# The code block after "<!-- slurm:$1 -->" in docs/CAMPAIGNS.md.
readme_block() {
    awk -v m="<!-- slurm:$1 -->" '
        $0 == m { found = 1; next }
        found == 1 && /^```/ { found = 2; next }
        found == 2 && /^```/ { exit }
        found == 2 { print }' "$SRC/docs/CAMPAIGNS.md"
}
for b in campaign.env campaign.sbatch merge.sbatch submit resubmit; do
    readme_block "$b" >"$T/$b"
    [ -s "$T/$b" ] || { bad "docs/CAMPAIGNS.md has no '<!-- slurm:$b -->' block"; exit 1; }
done

SIZES=64
OPTS="--sizes $SIZES --budget 0.3 --target-ci 5 --no-loop --allow-unfit-host"
# A campaign folder as docs/CAMPAIGNS.md expects it: the scripts, pkgs/, and the
# test's campaign.env.
new_campaign() {
    mkdir -p "$1/pkgs"
    ln -s "$SRC/examples/SM3" "$1/pkgs/SM3"
    ln -s "$SRC/examples/SHA2" "$1/pkgs/SHA2"
    cp "$T/campaign.sbatch" "$T/merge.sbatch" "$1/"
    cat >"$1/campaign.env" <<EOF
N=2
SYSTEM=slurm_test
PACKAGES="pkgs/*"
RUN_OPTIONS="$OPTS"
EOF
}

# Waits (up to $2 seconds) until job $1 has left the queue.
wait_job() {
    i=0
    while squeue -h -j "$1" 2>/dev/null | grep -q .; do
        i=$((i + 1))
        [ $i -ge $(($2 * 5)) ] && return 1
        sleep 0.2
    done
    return 0
}

# "candidate/instance/size" of every record, then "candidate/instance
# STATUS" of every kat.json entry, of the run directory $1.
summary() { python3 "$SRC/tests/campaign/run_summary.py" "$1"; }

validate_zero() {
    hashbench validate "$1" >"$T/validate.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q "0 problems" "$T/validate.out"; then ok "$2: validate finds 0 problems"
    else bad "$2: validate exited $rc"; cat "$T/validate.out"; fi
}

# ---- 1. the array and the merge as documented ----------------------------

C1="$T/campaign1"
new_campaign "$C1"
cd "$C1" || exit 1
. "$T/submit"
echo "array $ARRAY, merge $MERGE"
if wait_job "$MERGE" 240 && [ -s "$C1/DATA/slurm_test/campaign.json" ]; then
    ok "array $ARRAY and merge $MERGE ran; dataset published"
else
    bad "the merge job did not publish the dataset"
    squeue; tail -20 "$C1"/logs/*.log; exit 1
fi
SHARDS=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['shards']))" \
    "$C1/runs/all/campaign.json")
[ "$SHARDS" = 2 ] && ok "the merged campaign lists 2 shards" || bad "merged shards: $SHARDS"
[ -s "$C1/SITE/index.html" ] && ok "the site was rendered" || bad "no SITE/index.html"

# The same packages, unsharded, on this machine.
hashbench run --run-dir "$T/ref" --system slurm_test $OPTS "$C1"/pkgs/* >"$T/ref.log" 2>&1
rc=$?
python3 "$SRC/tests/campaign/examples_passed.py" $rc "$T/ref" ||
    { bad "the unsharded run exited $rc"; cat "$T/ref.log"; exit 1; }
summary "$T/ref" >"$T/ref.sum"
summary "$C1/DATA/slurm_test" >"$T/c1.sum"
if [ -s "$T/ref.sum" ] && cmp -s "$T/ref.sum" "$T/c1.sum"; then
    ok "the published dataset has the unsharded run's records and verdicts ($(grep -c '^record' "$T/ref.sum") records)"
else
    bad "merged dataset differs from the unsharded run"; diff "$T/ref.sum" "$T/c1.sum"
fi
validate_zero "$C1/DATA" "the array's dataset"

# ---- 2. one task cancelled while it runs, resubmitted --------------------

C2="$T/campaign2"
new_campaign "$C2"
cd "$C2" || exit 1
. "$T/submit"
K=2
# Cancel task K once it has started measuring or testing (its run
# directory holds a campaign.json).
i=0
until [ -s "runs/shard-$K/campaign.json" ] &&
      squeue -h -j "${ARRAY}_$K" -o %T 2>/dev/null | grep -q RUNNING; do
    i=$((i + 1))
    [ $i -ge 600 ] && { bad "task $K never ran"; squeue; exit 1; }
    sleep 0.1
done
scancel "${ARRAY}_$K"
wait_job "${ARRAY}_$K" 30 || bad "task $K did not end after scancel"
if grep -q '"outcome": "complete"' "runs/shard-$K/campaign.json" 2>/dev/null; then
    bad "task $K had finished before it was cancelled: the test proves nothing"
else
    ok "task $K cancelled while it ran"
fi
. "$T/resubmit"
echo "again $AGAIN, merge $MERGE"
if wait_job "$MERGE" 240 && [ -s "$C2/DATA/slurm_test/campaign.json" ]; then
    ok "resubmitted task $AGAIN and merge $MERGE ran; dataset published"
else
    bad "the merge after the resubmission did not publish"
    squeue; tail -20 "$C2"/logs/*.log; exit 1
fi
summary "$C2/DATA/slurm_test" >"$T/c2.sum"
if cmp -s "$T/c1.sum" "$T/c2.sum"; then
    ok "the resumed campaign's dataset equals the unkilled one"
else
    bad "resumed dataset differs from the unkilled one"; diff "$T/c1.sum" "$T/c2.sum"
fi
validate_zero "$C2/DATA" "the resumed campaign's dataset"
SESSIONS=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['sessions']))" \
    "runs/shard-$K/campaign.json")
[ "$SESSIONS" -ge 2 ] && ok "shard $K resumed its run directory ($SESSIONS sessions)" ||
    bad "shard $K has $SESSIONS session(s)"

cd "$T" || exit 1
stop_daemons
checks_summary
