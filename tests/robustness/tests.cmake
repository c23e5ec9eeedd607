# Robustness (SPEC §8): the hostile-submission suite (campaigns side by
# side, about a minute on two cores), malformed inputs, and the libFuzzer
# smoke run (fuzz/CMakeLists.txt).
set(RB_DIR ${CMAKE_SOURCE_DIR}/tests/robustness)
hb_add_test(robustness_hostile
  SOURCES ${RB_DIR}/test_hostile.c ${RB_DIR}/rb_util.c
  LIBS PkgConfig::LIBCRYPTO m
  TIMEOUT 300)
add_dependencies(robustness_hostile hashbench)
if(TARGET hashbench-probe)
  add_dependencies(robustness_hostile hashbench-probe)
endif()
hb_add_test(robustness_malformed
  SOURCES ${RB_DIR}/test_malformed.c
  TIMEOUT 120)
# The same malformed inputs through the hashbench command line on copies of
# examples/SM3: one error line naming file and line, the exit status, and
# the run directory, dataset and site left as they were.
add_test(NAME robustness_malformed_cli
  COMMAND sh ${RB_DIR}/malformed_cli.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(robustness_malformed_cli PROPERTIES TIMEOUT 120)
# Timing attacks: one campaign of the fixtures of tests/robustness/timing/
# beside an honest copy of examples/SM3 at two sizes; each fixture caught
# (its record's status) or no more than 2 % better than the honest copy,
# validate refusing their figures lowered, nothing left on the host.
add_test(NAME robustness_timing_attacks
  COMMAND sh ${RB_DIR}/timing_attacks.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(robustness_timing_attacks PROPERTIES TIMEOUT 600)
# Hostile packages of tests/robustness/attacks2/ caught in one small
# campaign: a library that ships only KAT_2_23 is still verified by OpenSSL,
# and work in the untimed warm-up windows gets no figure.
add_test(NAME robustness_attacks2
  COMMAND sh ${RB_DIR}/attacks2.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(robustness_attacks2 PROPERTIES TIMEOUT 120 COST 25)
# A standard function cannot be opted out of: NearFake and NearHonest of
# tests/robustness/attacks2/ (vectors that differ from SM3 on one record)
# beside an honest copy, at 32 bytes; the fake INCONSISTENT by openssl:SM3,
# the others OK, the pages naming the difference.
add_test(NAME robustness_near_standard
  COMMAND sh ${RB_DIR}/near_standard.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(robustness_near_standard PROPERTIES TIMEOUT 120 COST 10)
# Every process charged: BudgetSleeper of tests/robustness/attacks2/ (sleeps
# in the memory run and in the count's Valgrind runs) with --count and an 8 s
# instance budget ends TIMEOUT within a few seconds of it, and so does the
# count alone with the whole budget left.
add_test(NAME robustness_budget_sleeper
  COMMAND sh ${RB_DIR}/budget_sleeper.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(robustness_budget_sleeper PROPERTIES TIMEOUT 180 COST 28)
# Host data through failure text (tests/robustness/publeak/): forged
# session failure lines and runner fault answers carrying the boot_id and
# the run directory, XORed and in hex or as they are, beside an honest copy;
# none of their text published, the raw text in the run directory, only the
# clear-text one withheld, validate agreeing.
add_test(NAME robustness_publeak
  COMMAND sh ${RB_DIR}/publeak.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(robustness_publeak PROPERTIES TIMEOUT 120 COST 12)
# The recomputing process cannot be told from a KAT runner: ContextFake of
# tests/robustness/attacks2/ verified by itself (--no-independent-check)
# beside an honest copy, at 32 bytes; the fake INCONSISTENT, the copy OK.
add_test(NAME robustness_self_mixed
  COMMAND sh ${RB_DIR}/self_mixed.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(robustness_self_mixed PROPERTIES TIMEOUT 120 COST 8)
# One kind of process for submitted code: RoleSplit of
# tests/robustness/attacks2/ (saves 128 KiB of stack where it takes its
# process for the memory run) beside an honest copy, at 32 bytes; its
# record INCONSISTENT or its stack figure at least 99 % of what it uses.
add_test(NAME robustness_role_split
  COMMAND sh ${RB_DIR}/role_split.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(robustness_role_split PROPERTIES TIMEOUT 120 COST 8)
include(${CMAKE_SOURCE_DIR}/fuzz/CMakeLists.txt)
# ctest -j starts the longest tests first (COST: seconds measured on 2 cores
# beside the rest of the suite; the fuzz smoke test builds its targets with
# clang first, about 20 s in a new build folder). The hostile suite runs
# five campaigns at once: PROCESSORS 2, two of the four tests `make test`
# runs at once.
set_tests_properties(robustness_hostile PROPERTIES COST 100 PROCESSORS 2)
set_tests_properties(robustness_malformed_cli PROPERTIES COST 18)
set_tests_properties(robustness_timing_attacks PROPERTIES COST 40)
if(TEST robustness_fuzz)
  set_tests_properties(robustness_fuzz PROPERTIES COST 45)
endif()
# The timing attacks are judged on the figures of one campaign, and the
# budget sleeper on the wall time its campaign takes: neither beside the
# hostile suite's five campaigns at once, whose load widens every interval
# (and lengthens every cell) on a two-core machine, nor beside each other.
set_tests_properties(robustness_hostile robustness_timing_attacks
  robustness_budget_sleeper PROPERTIES RESOURCE_LOCK hb_heavy_campaigns)
