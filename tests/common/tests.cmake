# Tests of the helpers shared by every stage (src/common): size-limited
# reads of submitted files and the clean-up of stale temporary files.
hb_add_test(common_fs SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_fs.c TIMEOUT 60)
