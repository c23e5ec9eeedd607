# Tests of the instruction-count stage (src/count): the SHA-256 example
# counted twice must give identical counts and curves (equality), with the
# curve's block steps where SHA-256 needs another block; a library that
# does extra work in calls it chooses gets its honest copy's median and a
# flagged spread; code Valgrind cannot run is not countable, a library that
# answers differently under Valgrind, or writes into Valgrind's output, is
# inconsistent, one that holds a
# Valgrind client request is not countable; each function's share of the
# calls adds up to 100 % (the SHA-256 example at S1-S8, its symbol table
# zeroed as hashbench builds it), shared helpers called by name get their
# inclusive share; and the stage's records pass the record check `validate`
# applies, which catches a changed figure.
add_library(hbcount_liar MODULE ${CMAKE_SOURCE_DIR}/tests/count/fixtures/count_liar.c)
set_target_properties(hbcount_liar PROPERTIES PREFIX "lib")
target_compile_options(hbcount_liar PRIVATE -O2)
target_include_directories(hbcount_liar PRIVATE ${HB_VALGRIND_INCLUDE})

add_library(hbcount_liar_env MODULE ${CMAKE_SOURCE_DIR}/tests/count/fixtures/count_liar_env.c)
set_target_properties(hbcount_liar_env PROPERTIES PREFIX "lib")
target_compile_options(hbcount_liar_env PRIVATE -O2)

add_library(hbcount_steer MODULE ${CMAKE_SOURCE_DIR}/tests/count/fixtures/count_steer.c)
set_target_properties(hbcount_steer PROPERTIES PREFIX "lib")
target_compile_options(hbcount_steer PRIVATE -O2)
add_library(hbcount_honest MODULE ${CMAKE_SOURCE_DIR}/tests/count/fixtures/count_steer.c)
set_target_properties(hbcount_honest PROPERTIES PREFIX "lib")
target_compile_options(hbcount_honest PRIVATE -O2)
target_compile_definitions(hbcount_honest PRIVATE COUNT_HONEST)

add_library(hbcount_forge MODULE ${CMAKE_SOURCE_DIR}/tests/count/fixtures/count_forge.c)
set_target_properties(hbcount_forge PROPERTIES PREFIX "lib")
target_compile_options(hbcount_forge PRIVATE -O2)

add_library(hbcount_helpers MODULE ${CMAKE_SOURCE_DIR}/tests/count/fixtures/count_helpers.c)
set_target_properties(hbcount_helpers PROPERTIES PREFIX "lib")
target_compile_options(hbcount_helpers PRIVATE -O2)

hb_add_test(count_unit SOURCES ${CMAKE_SOURCE_DIR}/tests/count/test_count.c TIMEOUT 120)
add_dependencies(count_unit hashbench-count hbcount_liar hbcount_liar_env hbcount_steer
  hbcount_honest hbcount_forge hbcount_helpers hbct_sigill
  hbex_SHA256)
target_compile_definitions(count_unit PRIVATE HB_COUNT_LIB_DIR="${CMAKE_BINARY_DIR}")
set_tests_properties(count_unit PROPERTIES COST 8)
# count's terminal lines: sizes in numeric order, integer counts, skipped
# instances named with why (SM3 at three sizes, about 2 CPU-s).
add_test(NAME test_count_cli COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/count_cli.sh)
set_tests_properties(test_count_cli PROPERTIES TIMEOUT 120 COST 8
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# The compiler as a dimension: a campaign timed with run --cc clang and
# counted under gcc too (count --compilers), its records, pages and
# validate; Keccak moves by more than 10 % between the compilers.
add_test(NAME test_count_compilers COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/compilers_e2e.sh)
set_tests_properties(test_count_compilers PROPERTIES TIMEOUT 180 COST 26
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# The reader of callgrind's output giving each function's share of the
# counted calls, on text captured from the SHA-256 example.
hb_add_test(count_fns SOURCES ${CMAKE_SOURCE_DIR}/tests/count/test_count_fns.c)
target_compile_definitions(count_fns PRIVATE
  HB_COUNT_FIXTURES="${CMAKE_SOURCE_DIR}/tests/count/fixtures")
set_tests_properties(count_fns PROPERTIES COST 1)
# The length model of the counts (count_model.c) on synthetic staircases:
# blocks of 64, 136 and 168 bytes fitted, a fake 4 times cheaper per block
# past 512 bytes BELOW_MODEL, no staircase UNDETERMINED.
hb_add_test(count_model SOURCES ${CMAKE_SOURCE_DIR}/tests/count/test_count_model.c)
set_tests_properties(count_model PROPERTIES COST 1)
# The length model end to end: an SM3 copy that computes 16 rounds at the
# lengths no KAT vector covers is BELOW_MODEL, its record beyond 512 bytes
# inconsistent, with a failure line, a line on its page and a mark in the
# summary; its honest twin CONSISTENT (about 5 s).
add_test(NAME test_count_lenmodel COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/lenmodel_e2e.sh)
set_tests_properties(test_count_lenmodel PROPERTIES TIMEOUT 120 COST 3
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
