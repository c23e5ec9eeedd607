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
# Packages as submitted: the official tree and vectors below the package
# folder under non-ASCII names with spaces, init over an existing file.
add_test(NAME build_layout_e2e COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/layout_e2e.sh)
set_tests_properties(build_layout_e2e PROPERTIES TIMEOUT 120 COST 8
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# Drivers told by the compiled object's main, not by text.
add_test(NAME build_drivers_e2e COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/drivers_e2e.sh)
set_tests_properties(build_drivers_e2e PROPERTIES TIMEOUT 120 COST 6
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
