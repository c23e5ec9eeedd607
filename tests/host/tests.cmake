# Host facts read from captured procfs/sysfs texts of three hosts.
hb_add_test(test_host SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_host.c)
