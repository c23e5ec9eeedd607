# Report module: number style, pages (sections, escaping, determinism),
# validate and export, all on the synthetic dataset in tests/report/data
# (written by tests/report/make_data.py), plus the command-line front ends.
hb_add_test(report_numfmt SOURCES ${CMAKE_SOURCE_DIR}/tests/report/test_report_numfmt.c)
hb_add_test(report_svg SOURCES ${CMAKE_SOURCE_DIR}/tests/report/test_report_svg.c LIBS m)
hb_add_test(report_esc SOURCES ${CMAKE_SOURCE_DIR}/tests/report/test_report_esc.c)
# One figure per instance: geometric mean of per-size figures and its interval.
hb_add_test(report_geomean SOURCES ${CMAKE_SOURCE_DIR}/tests/report/test_report_geomean.c LIBS m)
hb_add_test(report_pages TIMEOUT 120
  SOURCES ${CMAKE_SOURCE_DIR}/tests/report/test_report_pages.c
          ${CMAKE_SOURCE_DIR}/tests/report/report_test_util.c)
target_include_directories(report_pages PRIVATE ${CMAKE_SOURCE_DIR}/tests/report)
# The candidate page against the published layout (sections 4, 5 and 7 row
# by row with tests/report/published_x86_1_Whirl.txt, the page's top), and
# the evaluator's notes file (parse errors, where notes show, validate).
hb_add_test(report_layout TIMEOUT 120
  SOURCES ${CMAKE_SOURCE_DIR}/tests/report/test_report_layout.c
          ${CMAKE_SOURCE_DIR}/tests/report/report_test_util.c)
target_include_directories(report_layout PRIVATE ${CMAKE_SOURCE_DIR}/tests/report)
hb_add_test(report_notes TIMEOUT 120
  SOURCES ${CMAKE_SOURCE_DIR}/tests/report/test_report_notes.c
          ${CMAKE_SOURCE_DIR}/tests/report/report_test_util.c
  LIBS PkgConfig::LIBCRYPTO)
target_include_directories(report_notes PRIVATE ${CMAKE_SOURCE_DIR}/tests/report)
hb_add_test(report_validate TIMEOUT 120
  SOURCES ${CMAKE_SOURCE_DIR}/tests/report/test_report_validate.c
          ${CMAKE_SOURCE_DIR}/tests/report/report_test_util.c)
target_include_directories(report_validate PRIVATE ${CMAKE_SOURCE_DIR}/tests/report)
hb_add_test(report_compare TIMEOUT 120
  SOURCES ${CMAKE_SOURCE_DIR}/tests/report/test_compare.c
          ${CMAKE_SOURCE_DIR}/tests/report/report_test_util.c)
target_include_directories(report_compare PRIVATE ${CMAKE_SOURCE_DIR}/tests/report)
# The host's ratio drift as the campaign records it (every size, its margin)
# and as the pages and exports publish it: each paired interval widened by
# its size's margin, checked against the formula; validate names a margin
# changed in campaign.json.
hb_add_test(report_ratio_drift TIMEOUT 120
  SOURCES ${CMAKE_SOURCE_DIR}/tests/report/test_ratio_drift.c
          ${CMAKE_SOURCE_DIR}/tests/report/report_test_util.c)
target_include_directories(report_ratio_drift PRIVATE ${CMAKE_SOURCE_DIR}/tests/report)

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
# A comparison linked from the site (compare --out, report --compare): the
# index lists it, and validate regenerates the site with it, 4 more files
# (compare.md, .svg, .html, .json).
add_test(NAME report_cli_site_compare
  COMMAND ${HB_EXPECT} --line
    "validate: 30 records, 11 KAT logs, 12 compiler logs, 36 pages checked; 0 problems"
    sh -c "rm -rf report-cli-sc report-cli-sc-cmp && \"$0\" compare \"$1/x86_1\" \"$1/arm_1\" --out report-cli-sc-cmp >/dev/null && \"$0\" report \"$1\" --out report-cli-sc --compare report-cli-sc-cmp >/dev/null && grep -qF '[arm_1 against x86_1](compare/report-cli-sc-cmp/compare.md)' report-cli-sc/index.md && \"$0\" validate \"$1\" --site report-cli-sc"
    $<TARGET_FILE:hashbench> ${CMAKE_SOURCE_DIR}/tests/report/data
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
# report --notes FILE through the command line: a section naming no
# instance stops it with exit status 2 and one line naming FILE:LINE and
# what to do; a good file's caveat reaches the summary.
add_test(NAME report_cli_notes
  COMMAND ${HB_EXPECT} --line
    "hashbench report: notes-cli.txt:3: [Whirl/Nope]: no system of the dataset has such an instance; name CANDIDATE/INSTANCE as its pages do, or remove the section"
    sh -c "rm -rf report-cli-notes && printf '[Whirl/Whirl_256]\\ncaveat = cli caveat\\n[Whirl/Nope]\\ncaveat = x\\n' >notes-cli.txt && \"$0\" report \"$1\" --out report-cli-notes --notes notes-cli.txt 2>&1; test $? -eq 2 || exit 1; printf '[Whirl/Whirl_256]\\ncaveat = cli caveat\\n' >notes-cli.txt && \"$0\" report \"$1\" --out report-cli-notes --notes notes-cli.txt >/dev/null && grep -q 'cli caveat' report-cli-notes/x86_1/summary.md"
    $<TARGET_FILE:hashbench> ${CMAKE_SOURCE_DIR}/tests/report/data
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
add_test(NAME report_cli_export
  COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/report/check_export.py
    $<TARGET_FILE:hashbench> ${CMAKE_SOURCE_DIR}/tests/report/data report-cli.csv
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
add_test(NAME report_cli_export_json
  COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/report/check_export_json.py
    $<TARGET_FILE:hashbench> ${CMAKE_SOURCE_DIR}/tests/report/data
    ${CMAKE_SOURCE_DIR}/docs/FORMATS.md report-cli-export.json
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR})

# compare from the command line: no verdict of change on unpaired rows
# without a recorded host drift; with a drift of 0 on both, its exit status
# for CI both ways (arm_1's times are about 5 % above x86_1's) and its
# pages (compare_cli.sh says how).
set(HB_DATA ${CMAKE_SOURCE_DIR}/tests/report/data)
add_test(NAME report_cli_compare
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/compare_cli.sh $<TARGET_FILE:hashbench> ${HB_DATA})
# The worked example of docs/SELF_ASSESSMENT.md: its claims file gives the
# two OUTSIDE rows the page shows (the 64 KiB mean and cycles/byte, 30 %
# high) and exit status 1.
add_test(NAME report_cli_self_assessment
  COMMAND sh -c "\"$0\" compare \"$1/x86_1\" --self-assessment \"$2\" >sa-example.txt; test $? -eq 1 && cat sa-example.txt && test $(grep -c OUTSIDE sa-example.txt) -eq 2 && grep -q '64 KiB mean cycles  ns                       402449     310016     271740 – 348292   +29.8 %  OUTSIDE' sa-example.txt"
    $<TARGET_FILE:hashbench> ${HB_DATA} ${CMAKE_SOURCE_DIR}/tests/report/self_assessment_whirl.csv
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
