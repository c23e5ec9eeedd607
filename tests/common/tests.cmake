# Tests of the helpers shared by every stage (src/common): size-limited
# reads of submitted files, the clean-up of stale temporary files, and the
# one directory walker.
hb_add_test(common_fs SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_fs.c TIMEOUT 60)
hb_add_test(common_walk SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_walk.c TIMEOUT 60)
