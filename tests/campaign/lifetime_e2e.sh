#!/bin/sh
# Nothing of a campaign outlives it (ctest: test_campaign_lifetime). A
# small campaign of the SM3 example with the constant-time and count
# stages is killed while each stage has its processes running (a KAT
# runner; a probe session, stopped between its windows; Valgrind with the
# ct driver; Valgrind with the count driver), then resumed, until it ends:
#   SIGKILL and SIGTERM to hashbench, and SIGINT to its process group
#   (Ctrl-C), at each of KAT, measure, ct and count;
#   SIGKILL to hashbench and its watcher at once at measure (the processes
#   then end by their parent-death signals alone; the staging folders are
#   left to the next command, which removes them).
# Each time, within a few seconds of hashbench's end, no process carries
# the campaign's marker (HB_CAMPAIGN, which the test names), no staging
# folder is marked as the campaign's, and no session memory cgroup of it
# is left; a Ctrl-C or SIGTERM still prints
# the line that says how to resume.
# Needs HB_BUILD_DIR (with hashbench) and HB_SOURCE_DIR; setsid.
set -u
B="${HB_BUILD_DIR:?}/hashbench"
SRC="${HB_SOURCE_DIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/hb-lifetime.XXXXXX")
# the campaign's marker prefix: set for hashbench only, never exported, so
# that no process of the test itself carries it
ID="hblife$$"
. "$(dirname "$0")/../checks.sh"
HB_LOCK_DIR="$T/locks"
export HB_LOCK_DIR
mkdir -p "$HB_LOCK_DIR"
# a budget of 1.5 s per cell keeps the measure stage going for a few
# seconds, so that the kill the test sends once it sees a session lands in
# the stage (with 0.3 s the stage could end, records and all, in the time
# the test took to look at the session before its kill)
OPTS="--sizes 32 --budget 1.5 --target-ci 5 --allow-unfit-host --no-loop --cpu 0 --ct --count"

# the pids of the processes that carry the marker (of the command whose
# pid is $1, or of any)
marked() {
    grep -laz -e "^HB_CAMPAIGN=$ID[.]${1:-}" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3
}
# the staging folders marked as the campaign's
folders() {
    grep -ls -e "^$ID[.]" /tmp/hashbench-stage.*/.owner.lock 2>/dev/null | sed 's|/.owner.lock$||'
}
# the memory cgroups of the sessions of the command whose pid is $1 (where
# hashbench can make them: in its own memory cgroup, v1 or v2)
CG1="/sys/fs/cgroup/memory$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)"
CG2="/sys/fs/cgroup$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)"
memcgs() {
    for d in "$CG1" "$CG2" "$CG2/unified"; do
        ls -d "$d/hashbench-$1-session-"* 2>/dev/null
    done
}
# whatever is left when the test ends early is killed, never left behind
trap 'for p in $(marked); do kill -9 "$p" 2>/dev/null; done; rm -rf "$T"' EXIT

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# is_session PID: the process is a timed probe session (every process that
# runs submitted code has the same command line; a session's shared region,
# the memory file hb-session, is larger than the one page of the others)
is_session() {
    cat "/proc/$1/maps" 2>/dev/null | {
        while read -r range _ _ _ _ name; do
            case $name in
            */memfd:hb-session*)
                lo=${range%-*} hi=${range#*-}
                [ $((0x$hi - 0x$lo)) -gt 4096 ] && exit 0 ;;
            esac
        done
        exit 1
    }
}

# waitproc PATTERN PID [session]: waits (at most 90 s) until a marked
# process whose command line holds PATTERN (and that is a session, when
# asked) runs, while hashbench (PID) runs
waitproc() {
    i=0
    while [ $i -lt 1800 ] && kill -0 "$2" 2>/dev/null; do
        for p in $(marked "$2-"); do
            { tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | grep -q -e "$1" &&
                { [ "${3:-}" != session ] || is_session "$p"; } && return 0
        done
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

# hit STAGE PATTERN SIG HOW: starts (or resumes) the campaign, waits for
# a process of STAGE (its command line holds PATTERN), and sends SIG to
# hashbench alone (HOW=pid), its process group (group), or hashbench and
# its watcher (warden); then checks what is left.
RUNS=0
hit() {
    stage=$1 pattern=$2 sig=$3 how=$4
    RUNS=$((RUNS + 1))
    log="$T/run$RUNS.log"
    t0=$(now)
    HB_CAMPAIGN=$ID setsid "$B" run --run-dir "$T/run" $OPTS "$SRC/examples/SM3" >"$log" 2>&1 &
    pid=$!
    want=
    [ "$stage" = measure ] && want=session
    if ! waitproc "$pattern" $pid $want; then
        bad "$stage: no process of the stage ($pattern) seen; the campaign: $(tail -n 3 "$log")"
        kill -9 $pid 2>/dev/null
        wait $pid
        return
    fi
    if [ "$stage" = measure ]; then
        # the session's probe, stopped between windows or in one
        st=$(for p in $(marked); do
                 is_session "$p" &&
                     awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null
             done | tr '\n' ' ')
        echo "  measure: session probe state(s) when killed: $st; memory cgroups: $(memcgs $pid | grep -c .)"
    fi
    n=$(marked | wc -l)
    case $how in
        pid) kill -"$sig" $pid ;;
        group) kill -"$sig" -$pid ;;
        warden)
            for p in $(marked); do
                [ "$(cat "/proc/$p/comm" 2>/dev/null)" = hb-warden ] && kill -9 "$p"
            done
            kill -9 $pid ;;
    esac
    t1=$(now)
    wait $pid
    rc=$?
    left=x
    i=0
    while [ $i -lt 100 ]; do
        left=$(marked | wc -l)
        if [ "$how" = warden ]; then f=0; else f=$({ folders; memcgs $pid; } | grep -c .); fi
        [ "$left" -eq 0 ] && [ "$f" -eq 0 ] && break
        sleep 0.05
        i=$((i + 1))
    done
    what="$stage, SIG$sig to $how ($n processes of the campaign, run $(since "$t0") s)"
    if [ "$left" -eq 0 ] && [ "$f" -eq 0 ]; then
        ok "$what: nothing left $(since "$t1") s after the signal"
    else
        bad "$what: after 5 s, $left processes and $f staging folders or memory cgroups are left:"
        for p in $(marked); do
            echo "    $p $(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null) $({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | cut -c1-150)"
        done
        { folders; memcgs $pid; } | sed 's/^/    /'
        for p in $(marked); do kill -9 "$p" 2>/dev/null; done # not left to the next case
    fi
    if [ "$sig" != KILL ]; then
        want=130
        [ "$sig" = TERM ] && want=143
        [ $rc -eq $want ] && grep -q "^hashbench run: interrupted; kept in $T/run: " "$log" &&
            grep -q "^  hashbench run " "$log" &&
            ok "$stage, SIG$sig: exit $rc and the line saying how to resume" ||
            { bad "$stage, SIG$sig: exit $rc (want $want), or no resume line"; tail -n 3 "$log"; }
    fi
}

hit KAT hashbench-probe KILL pid
hit KAT hashbench-probe INT group
hit KAT hashbench-probe TERM pid
hit measure hashbench-probe KILL pid
hit measure hashbench-probe KILL warden
hit measure hashbench-probe TERM pid
hit measure hashbench-probe INT group
hit ct hashbench-ct KILL pid
hit ct hashbench-ct TERM pid
hit ct hashbench-ct INT group
hit count hashbench-count KILL pid
hit count hashbench-count INT group
hit count hashbench-count TERM pid
# the resumed campaign still ends, and leaves nothing either
HB_CAMPAIGN=$ID "$B" run --run-dir "$T/run" $OPTS "$SRC/examples/SM3" >"$T/last.log" 2>&1
rc=$?
[ $rc -le 1 ] && grep -q "^campaign complete" "$T/last.log" &&
    ok "the campaign resumed after $RUNS kills completes (exit $rc)" ||
    { bad "the last resume: exit $rc"; tail -n 5 "$T/last.log"; }
sleep 0.2
[ "$(marked | wc -l)" -eq 0 ] && [ "$(folders | wc -l)" -eq 0 ] &&
    ok "a campaign that ends by itself leaves nothing either" ||
    bad "a complete campaign left $(marked | wc -l) processes, $(folders | wc -l) staging folders"
checks_summary
