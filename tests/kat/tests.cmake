# Tests of the KAT stage: the official DRNG against SPEC check values, the
# text format and manifests, the whole gate on fixture libraries (one per
# failure class), the comparison of an instance's variants, and the example
# instances against OpenSSL.
set(HB_KAT_T ${CMAKE_SOURCE_DIR}/tests/kat)
set(HB_KAT_FX_DIR ${CMAKE_BINARY_DIR}/tests/kat/fixtures)

set(HB_KAT_FIXTURES good wrong error overflow crash readpast hang nosym exit input strict
  alt partial long crashlong)
foreach(fx ${HB_KAT_FIXTURES})
  add_library(katfx_${fx} MODULE ${HB_KAT_T}/fixtures/fx_${fx}.c)
  set_target_properties(katfx_${fx} PROPERTIES PREFIX "lib"
    LIBRARY_OUTPUT_DIRECTORY ${HB_KAT_FX_DIR})
  target_link_libraries(katfx_${fx} PRIVATE PkgConfig::LIBCRYPTO)
  # The faults are deliberate: keep the compiler from optimising them away.
  target_compile_options(katfx_${fx} PRIVATE -O1)
endforeach()

hb_add_test(kat_drng SOURCES ${HB_KAT_T}/test_drng.c TIMEOUT 60)

hb_add_test(kat_textfile SOURCES ${HB_KAT_T}/test_katfile.c ${HB_KAT_T}/kat_test_util.c
  TIMEOUT 60)
target_include_directories(kat_textfile PRIVATE ${HB_KAT_T})

hb_add_test(kat_gate SOURCES ${HB_KAT_T}/test_kat_run.c ${HB_KAT_T}/kat_test_util.c
  TIMEOUT 300)
target_include_directories(kat_gate PRIVATE ${HB_KAT_T})
target_compile_definitions(kat_gate PRIVATE KAT_FIXTURE_DIR="${HB_KAT_FX_DIR}")
foreach(fx ${HB_KAT_FIXTURES})
  add_dependencies(kat_gate katfx_${fx})
endforeach()
add_dependencies(kat_gate hashbench)

# `hashbench drng KAT_2_12 0 ... 19` exits 0 and prints exactly SPEC §3's
# check values (drng_kat_2_12.expected).
add_test(NAME kat_drng_cli COMMAND sh ${CMAKE_SOURCE_DIR}/tests/expect_output.sh
  --exact ${HB_KAT_T}/drng_kat_2_12.expected
  $<TARGET_FILE:hashbench> drng KAT_2_12
  0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19)

# The flag fallback: a guide build that fails its vectors is rebuilt once
# with harness-default flags; both results are kept; a rebuild that fails
# too stops at its first failing file.
hb_add_test(kat_fallback SOURCES ${HB_KAT_T}/test_kat_fallback.c ${HB_KAT_T}/kat_test_util.c
  TIMEOUT 300)
target_include_directories(kat_fallback PRIVATE ${HB_KAT_T})
target_compile_definitions(kat_fallback PRIVATE KAT_FIXTURE_DIR="${HB_KAT_FX_DIR}"
  KAT_FIXTURE_SRC_DIR="${HB_KAT_T}/fixtures")
add_dependencies(kat_fallback katfx_strict)
# GNU mode, as the harness-default rebuild: the reference answers.
set_target_properties(katfx_strict PROPERTIES C_EXTENSIONS ON)

# The KAT texts generated for the examples against OpenSSL (the example
# modules are built by tests/examples/tests.cmake).
hb_add_test(kat_openssl SOURCES ${HB_KAT_T}/test_kat_openssl.c ${HB_KAT_T}/kat_test_util.c
  LIBS PkgConfig::LIBCRYPTO TIMEOUT 300)
target_include_directories(kat_openssl PRIVATE ${HB_KAT_T})
target_compile_definitions(kat_openssl PRIVATE HB_EX_LIB_DIR="${CMAKE_BINARY_DIR}")
add_dependencies(kat_openssl hbex_SM3 hbex_SHA256 hbex_SHA512 hbex_SHA3_256 hbex_SHA3_512)

# Reference against optimized: variants of one instance compared in their
# sandboxed runners (agree, disagree on partial bytes or long messages,
# crash, no CryptHash), resumed, and reproduced with `hashbench drng`.
hb_add_test(kat_variants SOURCES ${HB_KAT_T}/test_kat_variants.c ${HB_KAT_T}/kat_test_util.c
  TIMEOUT 300)
target_include_directories(kat_variants PRIVATE ${HB_KAT_T})
target_compile_definitions(kat_variants PRIVATE KAT_FIXTURE_DIR="${HB_KAT_FX_DIR}")
foreach(fx good alt partial long crashlong nosym)
  add_dependencies(kat_variants katfx_${fx})
endforeach()
add_dependencies(kat_variants hashbench hashbench-runner)
# ctest -j starts the longest tests first (COST: seconds measured on 2 cores).
set_tests_properties(kat_gate PROPERTIES COST 25)
set_tests_properties(kat_variants PROPERTIES COST 12)

# Slow and hung instances: the KAT limit scaled by a calibration call, no
# rebuild for a TIMEOUT, --retry-timeout.
add_test(NAME kat_slow_e2e COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/slow_e2e.sh)
set_tests_properties(kat_slow_e2e PROPERTIES TIMEOUT 180 COST 15
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")

# The manifest's canonical form reproduced by hand as docs/FORMATS.md says,
# kat --digest, and publish's system from campaign.json.
add_test(NAME kat_manifest_doc_e2e COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/manifest_doc_e2e.sh)
set_tests_properties(kat_manifest_doc_e2e PROPERTIES TIMEOUT 120 COST 4
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
