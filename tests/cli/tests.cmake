# The command line: the shared options' parsers and ranges (cmocka, on
# src/cli/options.c), the real hashbench refusing --cpu out of range in
# every command and `run --plan fast` before anything is built, and
# `make install` into a temporary DESTDIR, the installed copy building and
# running a small campaign on its own (with each stage's duration).
hb_add_test(test_cli_options SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_options.c
  ${CMAKE_SOURCE_DIR}/src/cli/options.c)
add_test(NAME test_cli_options_e2e
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/options_cli.sh)
set_tests_properties(test_cli_options_e2e PROPERTIES TIMEOUT 120
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
add_test(NAME test_install_e2e
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/install_e2e.sh)
set_tests_properties(test_install_e2e PROPERTIES TIMEOUT 300 COST 30
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# hashbench new: a renamed copy of an example that passes its KATs.
add_test(NAME test_cli_new
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/new_e2e.sh)
set_tests_properties(test_cli_new PROPERTIES TIMEOUT 120 COST 8
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# The build flags stated in full in help run, help build, README and the
# method page.
add_test(NAME test_cli_flags_stated
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/flags_stated.sh)
set_tests_properties(test_cli_flags_stated PROPERTIES TIMEOUT 60 COST 2
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# The plain shared build (--plain-shared): its flags and record, and the
# note on every page of a system built so.
add_test(NAME test_cli_plain_shared
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/plain_shared.sh)
set_tests_properties(test_cli_plain_shared PROPERTIES TIMEOUT 60 COST 2
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
