# Tests of the sandbox itself: a program run inside it in each profile
# reports what it could do, and the staging area's liveness rule.
add_executable(sandbox_inside ${CMAKE_SOURCE_DIR}/tests/sandbox/inside.c)
hb_add_test(sandbox_rules SOURCES ${CMAKE_SOURCE_DIR}/tests/sandbox/test_sandbox.c
  TIMEOUT 120)
add_dependencies(sandbox_rules sandbox_inside)
hb_add_test(sandbox_memcg SOURCES ${CMAKE_SOURCE_DIR}/tests/sandbox/test_memcg.c)
# A step's threads are its own: a runner that holds every thread it can
# get stops no other sandboxed step from starting.
add_library(nproc_hoard MODULE ${CMAKE_SOURCE_DIR}/tests/sandbox/fixtures/nproc_hoard.c)
set_target_properties(nproc_hoard PROPERTIES PREFIX "lib"
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/sandbox)
hb_add_test(sandbox_nproc SOURCES ${CMAKE_SOURCE_DIR}/tests/sandbox/test_nproc.c TIMEOUT 120)
target_compile_definitions(sandbox_nproc PRIVATE
  HB_NPROC_LIB="${CMAKE_BINARY_DIR}/tests/sandbox/libnproc_hoard.so")
add_dependencies(sandbox_nproc nproc_hoard hashbench-probe)
# The marker by which a command's watcher finds the processes it kills.
hb_add_test(sandbox_warden SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_warden.c TIMEOUT 60)
