#!/bin/sh
# Every process charged (ctest robustness_budget_sleeper): BudgetSleeper of
# tests/robustness/attacks2/ (an honest SM3 that sleeps 30 s in the one-call
# memory run and in every Valgrind run of the instruction count) in one
# campaign with --count at 32 bytes and --instance-budget BUDGET. The
# instance must end TIMEOUT, its record naming the wall budget, within a few
# seconds of its budget: the campaign takes no more than BUDGET + SLACK s
# (what is not the instance's: the build, the baselines, the stages'
# start), and the budget file's spent time is the budget, within a few
# seconds. Then the count alone, its budget file removed: its first Valgrind
# run is ended by the budget, within a few seconds of it. Without the charge
# the memory run and each Valgrind run slept their 30 s each.
#   budget_sleeper.sh BUILD SOURCE
set -eu

BUILD=$1
SRC=$2
B=$BUILD/hashbench
BUDGET=8
# what is not the instance's: at load 5 to 6 from other tenants the
# baselines' measure windows and their instruction counts under Valgrind
# took 14 s (22 s in all, spent 8.0 s); on an idle machine 4 s (12 s in all)
SLACK=18
DIR=$(mktemp -d /tmp/hb-sleeper.XXXXXX)
trap '[ -n "${HB_KEEP:-}" ] || rm -rf "$DIR"' EXIT
A=$DIR/packages
mkdir -p "$A"
sh "$SRC/tests/robustness/attacks2.sh" --assemble "$A" "$SRC"

status=0
start=$(date +%s)
"$B" run --run-dir "$DIR/run" --sizes 32 --no-loop --allow-unfit-host --count \
    --instance-budget "$BUDGET" "$A/BudgetSleeper" >"$DIR/log" 2>&1 || status=$?
wall=$(($(date +%s) - start))
if [ "$status" -gt 1 ]; then
    echo "FAIL: the campaign ended with $status"
    tail -20 "$DIR/log"
    exit 1
fi

fail=0
rec=$DIR/run/records/BudgetSleeper/SM3__hash_32.json
cnt=$DIR/run/count/BudgetSleeper/SM3__count_32.json
bud=$DIR/run/budget/BudgetSleeper/SM3.json
python3 - "$rec" "$cnt" "$bud" "$BUDGET" "$wall" <<'PY' || fail=1
import json, sys
rec, cnt, bud, budget, wall = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
ok = True
def load(p):
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print("FAIL: %s: %s" % (p, e))
        return {}
r, c, b = load(rec), load(cnt), load(bud)
spent = b.get("spent_s", -1)
print("campaign %d s, budget %g s, spent %.1f s %s" % (wall, budget, spent, b.get("stages")))
print("timing record: %s: %s" % (r.get("status"), r.get("failure")))
print("count record: %s: %s" % (c.get("status"), c.get("reason")))
if not str(r.get("failure", "")).startswith("TIMEOUT: wall budget of the instance spent"):
    print("FAIL: the timing record is not ended by the instance's budget"); ok = False
if c.get("status") != "TIMEOUT" or "wall budget of the instance spent" not in str(c.get("reason")):
    print("FAIL: the count record is not TIMEOUT by the instance's budget"); ok = False
if not (budget - 1 <= spent <= budget + 3):
    print("FAIL: the budget file shows %.1f s spent of a %g s budget" % (spent, budget)); ok = False
sys.exit(0 if ok else 1)
PY
[ "$wall" -le $((BUDGET + SLACK)) ] ||
    { echo "FAIL: the campaign took $wall s for a $BUDGET s budget"; fail=1; }

# The count alone with the whole budget left (its file removed): the
# Valgrind run is started with no more than the budget and ended by it.
rm -f "$bud" "$cnt"
start=$(date +%s)
"$B" count --run-dir "$DIR/run" --sizes 32 >"$DIR/count.log" 2>&1 || true
wall=$(($(date +%s) - start))
python3 - "$cnt" "$bud" "$BUDGET" "$wall" <<'PY' || fail=1
import json, sys
cnt, bud, budget, wall = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
try:
    c, b = json.load(open(cnt)), json.load(open(bud))
except (OSError, ValueError) as e:
    print("FAIL: %s" % e)
    sys.exit(1)
spent = b.get("spent_s", -1)
print("count alone: %d s, spent %.1f s %s; %s: %s" % (wall, spent, b.get("stages"),
      c.get("status"), c.get("reason")))
ok = c.get("status") == "TIMEOUT" and budget - 1 <= spent <= budget + 3 and wall <= budget + 6
if not ok:
    print("FAIL: the count alone was not ended by the budget within a few seconds")
sys.exit(0 if ok else 1)
PY
[ "$fail" -eq 0 ] || { echo "FAIL"; tail -5 "$DIR/log"; exit 1; }
echo "ok: the sleeper ended TIMEOUT by its budget"
