# The published dataset's layout (src/dataset/layout.h): the system id rule
# and what makes a folder a system.
hb_add_test(test_dataset_layout SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_layout.c)
