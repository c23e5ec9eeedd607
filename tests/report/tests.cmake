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
hb_add_test(report_compare TIMEOUT 120
  SOURCES ${CMAKE_SOURCE_DIR}/tests/report/test_compare.c
          ${CMAKE_SOURCE_DIR}/tests/report/report_test_util.c)
target_include_directories(report_compare PRIVATE ${CMAKE_SOURCE_DIR}/tests/report)

# The commands as a user runs them: exit status 0 and the whole summary line
# (tests/expect_output.sh; the site's 32 pages are 11 HTML, 11 Markdown and
# 10 SVG files); the CSV's every figure against its record.
set(HB_EXPECT sh ${CMAKE_SOURCE_DIR}/tests/expect_output.sh)
add_test(NAME report_cli_validate
  COMMAND ${HB_EXPECT} --line
    "validate: 30 records, 11 KAT logs, 12 compiler logs, 0 pages checked; 0 problems"
    $<TARGET_FILE:hashbench> validate ${CMAKE_SOURCE_DIR}/tests/report/data)
add_test(NAME report_cli_site
  COMMAND ${HB_EXPECT} --line
    "validate: 30 records, 11 KAT logs, 12 compiler logs, 32 pages checked; 0 problems"
    sh -c "rm -rf report-cli-site && \"$0\" report \"$1\" --out report-cli-site && \"$0\" validate \"$1\" --site report-cli-site"
    $<TARGET_FILE:hashbench> ${CMAKE_SOURCE_DIR}/tests/report/data
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
add_test(NAME report_cli_export
  COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/report/check_export.py
    $<TARGET_FILE:hashbench> ${CMAKE_SOURCE_DIR}/tests/report/data report-cli.csv
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
