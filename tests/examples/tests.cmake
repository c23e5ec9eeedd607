# Tests of the bundled example submissions and of the CAVP .rsp reader. Each
# example instance is built here as a MODULE library straight from its
# sources (C99, pedantic, drivers with a main() left out; the SHA-3 instances
# with the defines read from the package's hashbench.ini), then loaded with
# dlopen and checked against the NIST CAVP vectors of Debian's
# python3-cryptography-vectors and against OpenSSL.
set(HB_EX_REF ${CMAKE_SOURCE_DIR}/examples)
set(HB_EX_VECTORS /usr/lib/python3/dist-packages/cryptography_vectors/hashes)

# hb_example_module(NAME DIR [DEFINE...]): libNAME.so from the .c files of DIR.
function(hb_example_module name dir)
  file(GLOB srcs CONFIGURE_DEPENDS ${dir}/*.c)
  list(FILTER srcs EXCLUDE REGEX "/(KAT_|main|test|bench|speed)[^/]*\\.c$")
  add_library(${name} MODULE ${srcs})
  set_target_properties(${name} PROPERTIES PREFIX "lib" C_STANDARD 99
    C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  target_compile_options(${name} PRIVATE -Wpedantic)
  target_compile_definitions(${name} PRIVATE ${ARGN})
endfunction()

# hb_example_ini_defines(INI INSTANCE OUTVAR): the `defines =` list of
# [instance INSTANCE] in the override file INI.
function(hb_example_ini_defines ini instance outvar)
  file(STRINGS ${ini} lines)
  set(section "")
  set(found "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ \t]*\\[instance[ \t]+([^] \t]+)[ \t]*\\]")
      set(section ${CMAKE_MATCH_1})
    elseif(line MATCHES "^[ \t]*\\[")
      set(section "")
    elseif(section STREQUAL instance AND line MATCHES "^[ \t]*defines[ \t]*=[ \t]*([^#]*)")
      string(STRIP "${CMAKE_MATCH_1}" value)
      string(REGEX REPLACE "[ \t]+" ";" found "${value}")
    endif()
  endforeach()
  if(NOT found)
    message(FATAL_ERROR "${ini}: no 'defines' for [instance ${instance}]")
  endif()
  set(${outvar} ${found} PARENT_SCOPE)
endfunction()

set(HB_EX_MODULES hbex_SM3 hbex_SHA256 hbex_SHA512)
hb_example_module(hbex_SM3 ${HB_EX_REF}/SM3/Implementations/Reference_Implementation/SM3)
hb_example_module(hbex_SHA256 ${HB_EX_REF}/SHA2/Implementations/Reference_Implementation/SHA256)
hb_example_module(hbex_SHA512 ${HB_EX_REF}/SHA2/Implementations/Reference_Implementation/SHA512)
foreach(inst SHA3_256 SHA3_512 SHAKE256_768 SHAKE256_1024)
  hb_example_ini_defines(${HB_EX_REF}/SHA3/hashbench.ini ${inst} defs)
  hb_example_module(hbex_${inst}
    ${HB_EX_REF}/SHA3/Implementations/Reference_Implementation/Keccak ${defs})
  list(APPEND HB_EX_MODULES hbex_${inst})
endforeach()

foreach(t examples_vectors examples_bits)
  hb_add_test(${t} SOURCES ${CMAKE_SOURCE_DIR}/tests/examples/${t}.c
    ${CMAKE_SOURCE_DIR}/tests/examples/example_load.c TIMEOUT 300)
  add_dependencies(${t} ${HB_EX_MODULES})
  target_compile_definitions(${t} PRIVATE
    HB_EX_LIB_DIR="${CMAKE_CURRENT_BINARY_DIR}" HB_EX_VECTORS="${HB_EX_VECTORS}")
endforeach()

hb_add_test(kat_rsp SOURCES ${CMAKE_SOURCE_DIR}/tests/examples/kat_rsp.c TIMEOUT 120)
target_compile_definitions(kat_rsp PRIVATE HB_EX_VECTORS="${HB_EX_VECTORS}")

# The SM3 package's own driver, built with its instance: it must print the
# digest of "abc" given in the standard (GB/T 32905-2016, example A.1) and
# exit 0.
add_executable(hbex_sm3_driver
  ${HB_EX_REF}/SM3/Implementations/Reference_Implementation/SM3/KAT_CryptHash.c
  ${HB_EX_REF}/SM3/Implementations/Reference_Implementation/SM3/sm3.c)
set_target_properties(hbex_sm3_driver PROPERTIES C_STANDARD 99 C_EXTENSIONS OFF)
target_compile_options(hbex_sm3_driver PRIVATE -Wpedantic)
add_test(NAME examples_sm3_driver COMMAND sh ${CMAKE_SOURCE_DIR}/tests/expect_output.sh
  --line "SM3(\"abc\") = 66C7F0F462EEEDD9D1F2D46BDC10E4E24167C4875CF2F7A2297DA02B8F4BA8E0"
  $<TARGET_FILE:hbex_sm3_driver>)
