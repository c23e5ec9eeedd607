# Sourced by the shell tests: each check prints one line, "ok: ..." or
# "FAILED: ...", and checks_summary ends the test with the counts and an
# exit status that fails when any check failed (ctest reads the status).
FAILS=0
PASSES=0
ok() { PASSES=$((PASSES + 1)); echo "ok: $*"; }
bad() { FAILS=$((FAILS + 1)); echo "FAILED: $*"; }
checks_summary() {
    echo "$PASSES passed, $FAILS failed"
    [ "$FAILS" -eq 0 ]
}
