# Tests of the long-run stability check (src/soak): the SM3 example soaked
# for 3 s is STABLE; copies of it that go wrong after a few thousand calls,
# leak memory or leak descriptors are found, the first with the message key
# and length that reproduce it, also for a function OpenSSL does not compute
# (about 20 s idle, 30 s busy).
add_test(NAME test_soak_e2e COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/soak_e2e.sh)
set_tests_properties(test_soak_e2e PROPERTIES TIMEOUT 180 COST 20
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
