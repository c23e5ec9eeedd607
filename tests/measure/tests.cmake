# Measurement stage tests: counter selection, statistics, the probe on toy
# fixture libraries (one source built with a different FIXTURE_* definition
# per behaviour, the attacks on the figures among them: fixture_forge.h),
# and whole measure runs over a small run directory.
set(HB_MEASURE_FIXTURES PLAIN STACK64K HEAP1M NONDET MODIFY OVERFLOW ERROR OVERREAD
    FORGE_CTOR FORGE_DTOR INFORMED PARALLEL ADDRCACHE PROBEONLY REPLAY SLEEPY BORROW REGION
    REGIONDROP BORROWNAMED LAZYHEAP CTORHEAP EXECNAMED EXECWINDOW FILTERSKIP OBSERVER EXECDATA)
set(HB_MEASURE_FIXTURE_TARGETS "")
foreach(kind ${HB_MEASURE_FIXTURES})
  string(TOLOWER ${kind} lower)
  add_library(mfix_${lower} MODULE ${CMAKE_CURRENT_LIST_DIR}/fixtures/fixture_hash.c)
  target_compile_definitions(mfix_${lower} PRIVATE FIXTURE_${kind})
  target_compile_options(mfix_${lower} PRIVATE -O2)
  target_include_directories(mfix_${lower} PRIVATE ${CMAKE_SOURCE_DIR}/src)
  list(APPEND HB_MEASURE_FIXTURE_TARGETS mfix_${lower})
endforeach()
target_link_libraries(mfix_parallel PRIVATE pthread)
target_link_libraries(mfix_borrow PRIVATE ${CMAKE_DL_LIBS})
target_link_libraries(mfix_borrownamed PRIVATE ${CMAKE_DL_LIBS})

hb_add_test(test_measure_counter SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_counter.c)
# The guard: its rules table, the rule a failure text names, its thresholds.
hb_add_test(test_measure_guard SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_guard.c)
hb_add_test(test_measure_stats SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_stats.c)
hb_add_test(test_measure_settings SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_settings.c)
hb_add_test(test_measure_probe SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_probe.c
            TIMEOUT 120)
hb_add_test(test_measure_interleave SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_interleave.c)
hb_add_test(test_measure_plan SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_plan.c
            TIMEOUT 120)
hb_add_test(test_measure_run SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_run.c
            TIMEOUT 300)
if(TARGET hashbench-probe)
  add_dependencies(test_measure_probe hashbench-probe ${HB_MEASURE_FIXTURE_TARGETS})
  add_dependencies(test_measure_run hashbench-probe
                   ${HB_MEASURE_FIXTURE_TARGETS})
  add_dependencies(test_measure_plan hashbench-probe ${HB_MEASURE_FIXTURE_TARGETS})
endif()
# ctest -j starts the longest tests first (COST: seconds measured on 2 cores).
set_tests_properties(test_measure_run PROPERTIES COST 16)
hb_add_test(test_measure_windows SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_windows.c)
hb_add_test(test_measure_session SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_session.c TIMEOUT 120)
if(TARGET hashbench-probe)
  add_dependencies(test_measure_session hashbench-probe ${HB_MEASURE_FIXTURE_TARGETS})
endif()
# The harness cost estimate (what a window holds besides the hash): the
# median rule, a scripted session, and the real probe with the null library.
hb_add_test(test_measure_harness SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_harness.c TIMEOUT 60)
if(TARGET hashbench-probe)
  add_dependencies(test_measure_harness hashbench-probe hb_null)
endif()
set_tests_properties(test_measure_harness PROPERTIES COST 2)
# Every process that runs submitted code looks the same from inside: a KAT
# runner, a recomputing runner, a memory run and a timed session, each read
# from outside while the observer fixture holds it stopped.
hb_add_test(test_measure_sameproc SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sameproc.c
            LIBS pthread TIMEOUT 120)
add_dependencies(test_measure_sameproc hashbench-probe mfix_observer katfx_hang)
set_tests_properties(test_measure_sameproc PROPERTIES COST 5)

# Measurement v2's parent-side modules: the keyed message generator against
# RFC 8439 and an independent ChaCha20.
hb_add_test(test_measure_msggen SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_msggen.c)

# The independent check of timed digests: standard functions recognised
# from KAT vectors (NIST CAVP files as the oracle), the verifier chosen on
# the examples and on a fixture that is no standard function (SM3 with its
# output reversed: two copies, one that crashes on 777-byte messages, one
# true SM3 on short messages only),
# and one wrong digest caught by each kind of verifier.
set(HB_XFIX_DIR ${CMAKE_BINARY_DIR}/tests/measure)
foreach(copy a b crash)
  add_library(xfix_${copy} MODULE ${CMAKE_CURRENT_LIST_DIR}/fixtures/xcheck_fixture.c)
  set_target_properties(xfix_${copy} PROPERTIES PREFIX "lib"
    LIBRARY_OUTPUT_DIRECTORY ${HB_XFIX_DIR})
  target_link_libraries(xfix_${copy} PRIVATE PkgConfig::LIBCRYPTO)
endforeach()
target_compile_definitions(xfix_a PRIVATE XFIX_COPY=1)
target_compile_definitions(xfix_b PRIVATE XFIX_COPY=2)
target_compile_definitions(xfix_crash PRIVATE XFIX_COPY=3 XFIX_CRASH)
add_library(xfix_half MODULE ${CMAKE_CURRENT_LIST_DIR}/fixtures/xcheck_half.c)
set_target_properties(xfix_half PROPERTIES PREFIX "lib" LIBRARY_OUTPUT_DIRECTORY ${HB_XFIX_DIR})
target_include_directories(xfix_half PRIVATE
  ${CMAKE_SOURCE_DIR}/examples/SM3/Implementations/Reference_Implementation/SM3)
hb_add_test(test_measure_xcheck SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_xcheck.c
  ${CMAKE_SOURCE_DIR}/tests/kat/kat_test_util.c LIBS PkgConfig::LIBCRYPTO m TIMEOUT 300)
target_include_directories(test_measure_xcheck PRIVATE ${CMAKE_SOURCE_DIR}/tests/kat)
target_compile_definitions(test_measure_xcheck PRIVATE HB_EX_LIB_DIR="${CMAKE_BINARY_DIR}")
add_dependencies(test_measure_xcheck xfix_a xfix_b xfix_crash xfix_half hashbench-probe
  hbex_SM3 hbex_SHA256 hbex_SHA512 hbex_SHA3_256 hbex_SHA3_512 hbex_SHAKE256_768)
