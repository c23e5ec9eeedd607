# Tests of the build stage (src/compile): the override parser, discovery of
# instances in package layouts, and whole builds of small packages written
# by the tests into a temporary folder (compiled with the system compiler),
# plus the bundled examples when they are present.
hb_add_test(build_override
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_override.c ${CMAKE_CURRENT_LIST_DIR}/fixture.c)
hb_add_test(build_discover
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_discover.c ${CMAKE_CURRENT_LIST_DIR}/fixture.c)
hb_add_test(build_diag SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_diag.c)
hb_add_test(build_run
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_build.c ${CMAKE_CURRENT_LIST_DIR}/fixture.c
  TIMEOUT 600)
add_dependencies(build_run hashbench hb_baseline_sm3)
# ctest -j starts the longest tests first (COST: seconds measured on 2 cores).
set_tests_properties(build_run PROPERTIES COST 18)
