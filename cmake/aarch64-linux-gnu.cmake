# CMake toolchain file for building hashbench, hashbench-probe and the
# baseline libraries for AArch64 Linux on an x86-64 Debian machine:
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -S . -B build-aarch64
# It uses Debian's cross compiler (aarch64-linux-gnu-gcc) and the arm64
# builds of jansson, libelf, md4c, OpenSSL, libseccomp, expat and libcsv
# installed through multiarch (scripts/cross-deps.sh installs all of them).
# pkg-config is pointed at the arm64 .pc files only, and libcsv (no .pc
# file) is searched in the arm64 library folder, so an x86-64 library can
# never be picked up by mistake. The test suite is off by default (cmocka is not needed here);
# when qemu-aarch64 is installed, CMake runs cross-built programs through it.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(HB_CROSS_TRIPLET aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${HB_CROSS_TRIPLET}-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE ${HB_CROSS_TRIPLET})

# Debian multiarch puts the arm64 libraries in /usr/lib/aarch64-linux-gnu
# and the cross C library in /usr/aarch64-linux-gnu: search both, and run
# host programs (pkg-config, qemu) from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${HB_CROSS_TRIPLET} /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# PKG_CONFIG_LIBDIR replaces pkg-config's default search path (the host's);
# PKG_CONFIG_PATH from the caller's environment would add x86-64 files back.
set(ENV{PKG_CONFIG_LIBDIR}
    "/usr/lib/${HB_CROSS_TRIPLET}/pkgconfig:/usr/share/pkgconfig")
unset(ENV{PKG_CONFIG_PATH})

# Cross builds leave the cmocka test suite out unless asked (-DHB_TESTS=ON).
set(HB_TESTS OFF CACHE BOOL "Build the test suite")

# The programs find their C library through Debian's libc6:arm64 (pulled in
# by the arm64 -dev packages), so qemu needs no -L prefix; with a prefix, an
# emulated fork() hangs in the child under qemu 7.2. Without libc6:arm64
# the cross C library in /usr/aarch64-linux-gnu serves, through -L.
find_program(HB_QEMU_AARCH64 qemu-aarch64)
if(HB_QEMU_AARCH64 AND EXISTS /lib/ld-linux-aarch64.so.1)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${HB_QEMU_AARCH64})
elseif(HB_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR
      ${HB_QEMU_AARCH64} -L /usr/${HB_CROSS_TRIPLET})
endif()
