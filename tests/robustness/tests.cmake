# Robustness (SPEC §8): the hostile-submission campaign, malformed inputs,
# and the libFuzzer smoke run (fuzz/CMakeLists.txt).
set(RB_DIR ${CMAKE_SOURCE_DIR}/tests/robustness)
hb_add_test(robustness_hostile
  SOURCES ${RB_DIR}/test_hostile.c ${RB_DIR}/rb_util.c
  LIBS PkgConfig::LIBCRYPTO m
  TIMEOUT 1200)
add_dependencies(robustness_hostile hashbench)
if(TARGET hashbench-probe)
  add_dependencies(robustness_hostile hashbench-probe)
endif()
hb_add_test(robustness_malformed
  SOURCES ${RB_DIR}/test_malformed.c
  TIMEOUT 120)
include(${CMAKE_SOURCE_DIR}/fuzz/CMakeLists.txt)
