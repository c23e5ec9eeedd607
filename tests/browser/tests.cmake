# The report site in a real headless Chromium (Debian's chromium, driven over
# the DevTools protocol by tests/browser/check_site.py with python3 only), at
# 1400 px: no sideways scroll, one-line summary cells, no name or option
# broken mid-word in a table (also in columns squeezed by a wide one), the
# ratio chart's points and interval bars on a log axis, the method page in
# words, the linked comparison. Screenshots are left in <build>/browser/ as artifacts.
add_test(NAME browser_site
  COMMAND sh ${CMAKE_SOURCE_DIR}/tests/browser/run.sh $<TARGET_FILE:hashbench>
          ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(browser_site PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77)
# Under CI=true the browser test fails, never skips, when chromium is
# missing (run.sh pointed at a chromium that does not exist).
add_test(NAME browser_no_skip_under_ci
  COMMAND sh -c "out=$(CI=true HB_CHROMIUM=/nonexistent/chromium sh \"$0\" \"$1\" \"$2\" \"$3\"); rc=$?; echo \"$out\"; test $rc -eq 1 && echo \"$out\" | grep -q 'FAILED: chromium missing under CI=true'"
          ${CMAKE_SOURCE_DIR}/tests/browser/run.sh $<TARGET_FILE:hashbench>
          ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/browser-ci-check)
