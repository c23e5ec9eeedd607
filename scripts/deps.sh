#!/bin/sh
# Installs (as root) or names (otherwise) the Debian 12 packages hashbench
# needs. `deps.sh demo` covers building and running a campaign; `deps.sh test`
# adds what the test suite uses (vectors, cmocka, browser, cross tools, and
# Slurm with munge for the one-node cluster of tests/campaign/slurm_e2e.sh).
set -eu
DEMO="build-essential cmake pkg-config libssl-dev libjansson-dev libelf-dev libmd4c-dev libmd4c-html0-dev bubblewrap libseccomp-dev valgrind libexpat1-dev libcsv-dev"
TEST="$DEMO libcmocka-dev python3-cryptography-vectors clang libclang-rt-14-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user chromium procps python3 slurm-wlm munge"
case "${1:-demo}" in
  demo) WANT=$DEMO ;;
  test) WANT=$TEST ;;
  bench) WANT="$TEST libbenchmark-dev g++ openssl" ;;
  *) echo "usage: scripts/deps.sh [demo|test|bench]" >&2; exit 2 ;;
esac
# Installed for this machine's architecture (or architecture-independent):
# an arm64 build of a -dev package, which the cross test adds, does not
# count.
NATIVE=$(dpkg --print-architecture)
installed() {
  dpkg-query -W -f='${Status} ${Architecture}\n' "$1" 2>/dev/null |
    grep -Eq "ok installed ($NATIVE|all)\$"
}
MISSING=""
for p in $WANT; do
  installed "$p" || MISSING="$MISSING $p"
done
if [ -n "$MISSING" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "installing:$MISSING"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $MISSING
  else
    echo "hashbench needs these Debian packages; run as root:" >&2
    echo "  apt-get install$MISSING" >&2
    exit 1
  fi
fi
# The AArch64 test also needs the arm64 libraries (dpkg multiarch) and
# qemu-aarch64 registered with binfmt_misc: scripts/cross-deps.sh.
case "${1:-demo}" in
  test|bench) sh "$(dirname "$0")/cross-deps.sh" ;;
esac
