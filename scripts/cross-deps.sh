#!/bin/sh
# Installs (as root) or names (otherwise) what the AArch64 path needs on an
# x86-64 Debian 12 machine: the cross compiler, qemu-user, and the arm64
# builds of the libraries hashbench links (Debian multiarch), so that
# cmake/aarch64-linux-gnu.cmake can cross-build hashbench and the test in
# tests/aarch64 can run it under emulation. Safe to run again: it only adds
# what is missing. It also registers qemu-aarch64 with the kernel's
# binfmt_misc, so that an emulated hashbench can start the AArch64 probe as
# an ordinary child process. `cross-deps.sh --check` changes nothing and
# exits 1 when something is missing.
set -eu

HOST_PKGS="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user qemu-user-binfmt cmake pkg-config make"
ARM_PKGS="libjansson-dev:arm64 libelf-dev:arm64 libssl-dev:arm64 libmd4c-dev:arm64 libmd4c-html0-dev:arm64 libseccomp-dev:arm64 libexpat1-dev:arm64 libcsv-dev:arm64"

CHECK_ONLY=0
case "${1:-}" in
  "") ;;
  --check) CHECK_ONLY=1 ;;
  *) echo "usage: scripts/cross-deps.sh [--check]" >&2; exit 2 ;;
esac

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"
}

has_arm64_arch() {
  [ "$(dpkg --print-architecture)" = arm64 ] ||
    dpkg --print-foreign-architectures | grep -qx arm64
}

BINFMT=/proc/sys/fs/binfmt_misc
BINFMT_CONF=/usr/lib/binfmt.d/qemu-aarch64.conf

binfmt_enabled() {
  [ -r "$BINFMT/qemu-aarch64" ] && head -n 1 "$BINFMT/qemu-aarch64" | grep -qx enabled
}

# Mounts binfmt_misc when needed and registers (or re-enables) the entry
# that qemu-user-binfmt ships for systemd-binfmt, which may not be running.
enable_binfmt() {
  binfmt_enabled && return 0
  if [ ! -e "$BINFMT/register" ]; then
    mount -t binfmt_misc binfmt_misc "$BINFMT"
  fi
  if [ -e "$BINFMT/qemu-aarch64" ]; then
    echo 1 > "$BINFMT/qemu-aarch64"
  else
    echo "registering qemu-aarch64 with binfmt_misc"
    grep -v '^#' "$BINFMT_CONF" > "$BINFMT/register"
  fi
  binfmt_enabled
}

MISSING=""
for p in $HOST_PKGS $ARM_PKGS; do
  installed "$p" || MISSING="$MISSING $p"
done
NEED_ARCH=0
has_arm64_arch || NEED_ARCH=1

if [ -z "$MISSING" ] && [ "$NEED_ARCH" = 0 ]; then
  binfmt_enabled && exit 0
  if [ "$CHECK_ONLY" = 1 ] || [ "$(id -u)" != 0 ]; then
    echo "the AArch64 test needs, as root: scripts/cross-deps.sh" >&2
    echo "  (registers qemu-aarch64 with binfmt_misc)" >&2
    exit 1
  fi
  enable_binfmt
  exit 0
fi

if [ "$CHECK_ONLY" = 1 ] || [ "$(id -u)" != 0 ]; then
  echo "the AArch64 cross build needs, as root:" >&2
  [ "$NEED_ARCH" = 1 ] && echo "  dpkg --add-architecture arm64" >&2
  echo "  apt-get update && apt-get install$MISSING" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
if [ "$NEED_ARCH" = 1 ]; then
  echo "adding the arm64 architecture to dpkg"
  dpkg --add-architecture arm64
fi
echo "installing:$MISSING"
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $MISSING
enable_binfmt
