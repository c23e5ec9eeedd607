# Tests of the constant-time stage (src/ct): the fixtures of tests/ct/fixtures
# are built with -g whatever the build type (the taint check names lines),
# then the taint check runs each under Valgrind in the sandbox, the bundled
# examples and the OpenSSL baseline included; the timing test must separate
# the message-dependent fixture. Valgrind is slow to start, so each library
# is analysed once, on the stage's own short message list.
set(HB_CT_FIXTURES ${CMAKE_SOURCE_DIR}/tests/ct/fixtures)
set(HB_CT_LIBS "")
foreach(fx sbox early public sigill vgreq)
  add_library(hbct_${fx} MODULE ${HB_CT_FIXTURES}/ct_${fx}.c)
  set_target_properties(hbct_${fx} PROPERTIES PREFIX "lib")
  target_compile_options(hbct_${fx} PRIVATE -g -O2)
  target_include_directories(hbct_${fx} PRIVATE ${HB_VALGRIND_INCLUDE})
  list(APPEND HB_CT_LIBS hbct_${fx})
endforeach()

hb_add_test(ct_unit SOURCES ${CMAKE_SOURCE_DIR}/tests/ct/test_ct.c TIMEOUT 120)
add_dependencies(ct_unit ${HB_CT_LIBS} hbex_SHA256 hbex_SM3 hbex_SHA3_256
  hb_baseline_sm3 hb_baseline_sha256)
target_compile_definitions(ct_unit PRIVATE
  HB_CT_FIXTURE_DIR="${HB_CT_FIXTURES}"
  HB_CT_LIB_DIR="${CMAKE_BINARY_DIR}")
# ctest -j starts the longest tests first (COST: seconds measured on 2 cores).
set_tests_properties(ct_unit PROPERTIES COST 13)
