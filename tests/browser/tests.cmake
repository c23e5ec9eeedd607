# The report site in a real headless Chromium (Debian's chromium through
# playwright-core; install it with `npm ci --prefix tests/browser`).
# Screenshots are left in <build>/browser/ as artifacts.
add_test(NAME browser_site
  COMMAND sh ${CMAKE_SOURCE_DIR}/tests/browser/run.sh $<TARGET_FILE:hashbench>
          ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(browser_site PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77)
