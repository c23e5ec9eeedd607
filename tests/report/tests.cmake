# Report module: number style, pages (sections, escaping, determinism),
# validate and export, all on the synthetic dataset in tests/report/data
# (written by tests/report/make_data.py), plus the command-line front ends.
hb_add_test(report_numfmt SOURCES ${CMAKE_SOURCE_DIR}/tests/report/test_report_numfmt.c)
hb_add_test(report_svg SOURCES ${CMAKE_SOURCE_DIR}/tests/report/test_report_svg.c LIBS m)
hb_add_test(report_pages TIMEOUT 120
  SOURCES ${CMAKE_SOURCE_DIR}/tests/report/test_report_pages.c
          ${CMAKE_SOURCE_DIR}/tests/report/report_test_util.c)
target_include_directories(report_pages PRIVATE ${CMAKE_SOURCE_DIR}/tests/report)
hb_add_test(report_validate TIMEOUT 120
  SOURCES ${CMAKE_SOURCE_DIR}/tests/report/test_report_validate.c
          ${CMAKE_SOURCE_DIR}/tests/report/report_test_util.c)
target_include_directories(report_validate PRIVATE ${CMAKE_SOURCE_DIR}/tests/report)

# The commands as a user runs them: exit status and summary lines.
add_test(NAME report_cli_validate
  COMMAND hashbench validate ${CMAKE_SOURCE_DIR}/tests/report/data)
set_tests_properties(report_cli_validate PROPERTIES
  PASS_REGULAR_EXPRESSION "validate: 30 records, 11 KAT logs, 12 compiler logs, 0 pages checked; 0 problems")
add_test(NAME report_cli_site
  COMMAND sh -c "rm -rf report-cli-site && \"$0\" report \"$1\" --out report-cli-site && \"$0\" validate \"$1\" --site report-cli-site"
          $<TARGET_FILE:hashbench> ${CMAKE_SOURCE_DIR}/tests/report/data
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(report_cli_site PROPERTIES
  PASS_REGULAR_EXPRESSION "validate: 30 records, 11 KAT logs, 12 compiler logs, 30 pages checked; 0 problems")
add_test(NAME report_cli_export
  COMMAND sh -c "\"$0\" export \"$1\" --csv report-cli.csv && test $(wc -l < report-cli.csv) -eq 31"
          $<TARGET_FILE:hashbench> ${CMAKE_SOURCE_DIR}/tests/report/data
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
