# The report site in a real headless Chromium (Debian's chromium, driven over
# the DevTools protocol by tests/browser/check_site.py with python3 only).
# Screenshots are left in <build>/browser/ as artifacts.
add_test(NAME browser_site
  COMMAND sh ${CMAKE_SOURCE_DIR}/tests/browser/run.sh $<TARGET_FILE:hashbench>
          ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(browser_site PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77)
