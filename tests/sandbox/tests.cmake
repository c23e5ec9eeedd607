# Tests of the sandbox itself: a program run inside it in each profile
# reports what it could do, and the staging area's liveness rule.
add_executable(sandbox_inside ${CMAKE_SOURCE_DIR}/tests/sandbox/inside.c)
hb_add_test(sandbox_rules SOURCES ${CMAKE_SOURCE_DIR}/tests/sandbox/test_sandbox.c
  TIMEOUT 120)
add_dependencies(sandbox_rules sandbox_inside)
hb_add_test(sandbox_memcg SOURCES ${CMAKE_SOURCE_DIR}/tests/sandbox/test_memcg.c)
