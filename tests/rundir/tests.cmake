# Tests of the run directory's layout (src/rundir): the paths of every
# stage's files, the record-name rule and the record listing built on it,
# and the one answer to which library an instance uses.
hb_add_test(rundir SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rundir.c TIMEOUT 60)
# The wall budget each instance's processes share, kept in the run directory.
hb_add_test(rundir_ibudget SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ibudget.c TIMEOUT 60)
