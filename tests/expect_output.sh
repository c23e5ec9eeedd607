#!/bin/sh
# Runs one command for ctest and passes only when it exits 0 AND its
# standard output is what is expected (ctest's PASS_REGULAR_EXPRESSION alone
# would ignore the exit status):
#   expect_output.sh --exact FILE CMD [ARG...]  stdout equals FILE byte for byte
#   expect_output.sh --line TEXT CMD [ARG...]   some line of stdout is TEXT
# The command's standard error is passed through; on a failure the output
# and what was expected are shown.
set -u
mode=$1
want=$2
shift 2
out=$(mktemp "${TMPDIR:-/tmp}/hb-expect.XXXXXX")
trap 'rm -f "$out"' EXIT
"$@" >"$out"
rc=$?
cat "$out"
if [ "$rc" -ne 0 ]; then
    echo "FAILED: exit status $rc (0 expected): $*"
    exit 1
fi
case "$mode" in
    --exact)
        cmp -s "$want" "$out" && exit 0
        echo "FAILED: the output differs from $want:"
        diff "$want" "$out"
        exit 1 ;;
    --line)
        grep -qxF -- "$want" "$out" && exit 0
        echo "FAILED: no output line reads: $want"
        exit 1 ;;
    *)
        echo "expect_output.sh: unknown mode $mode (--exact FILE or --line TEXT)"
        exit 2 ;;
esac
