# The AArch64 path under emulation: cross_run.sh cross-builds hashbench with
# cmake/aarch64-linux-gnu.cmake, runs it under qemu-aarch64 on the examples
# and checks the outputs with run_check (a native program: libelf, jansson).
# It skips (exit 77) when the cross tools are missing, unless the environment
# says HB_AARCH64_REQUIRED=1 or CI=true (CI installs them: scripts/deps.sh
# test runs scripts/cross-deps.sh).
if(NOT CMAKE_CROSSCOMPILING)
  add_executable(aarch64_run_check ${CMAKE_CURRENT_LIST_DIR}/run_check.c)
  target_link_libraries(aarch64_run_check PRIVATE hbcore)
  add_test(NAME aarch64_cross_run
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cross_run.sh ${CMAKE_SOURCE_DIR}
            ${CMAKE_BINARY_DIR} $<TARGET_FILE:aarch64_run_check> ${CMAKE_COMMAND})
  set_tests_properties(aarch64_cross_run PROPERTIES
    SKIP_RETURN_CODE 77
    TIMEOUT 1500
    ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
  # ctest -j starts the longest tests first (seconds measured on 2 cores:
  # the cross build of hashbench alone takes about 30 s of CPU on two cores
  # in a new build folder, little once it is there; then about 60 s of
  # emulated runs, one process at a time).
  set_tests_properties(aarch64_cross_run PROPERTIES COST 120)
endif()

# What needs no emulator: profiles by target triple, and the AArch64 host
# check (scaling min = max) on the captured texts of tests/aarch64/data.
hb_add_test(aarch64_unit SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_arm_unit.c)
