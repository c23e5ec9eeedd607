# The campaign: host check verdicts, sharding, settings, publish scan,
# progress and the closing table (cmocka); the end-to-end scripts (kills,
# resumes, shards, merge, publish) on the bundled examples; merge's
# refusals and run's option checks.
hb_add_test(test_check SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_check.c)
hb_add_test(test_campaign_unit SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_campaign_unit.c)
add_test(NAME test_campaign_e2e
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/campaign_e2e.sh)
set_tests_properties(test_campaign_e2e PROPERTIES TIMEOUT 600
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# Publishing texts that quote host paths, and validating what was published.
hb_add_test(test_publish SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_publish.c)
# The separate commands (build, kat, measure, publish) end to end, and the
# host check of `measure`.
add_test(NAME test_separate_e2e
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/separate_e2e.sh)
set_tests_properties(test_separate_e2e PROPERTIES TIMEOUT 300
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# The Slurm section of docs/CAMPAIGNS.md run as written on a one-node Slurm cluster the
# test starts itself: the job array, the merge job, a cancelled and
# resubmitted task (skipped where Slurm cannot start, a failure under CI).
add_test(NAME test_campaign_slurm
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/slurm_e2e.sh)
set_tests_properties(test_campaign_slurm PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# run --cpus: the shards of several cores measured side by side and merged.
add_test(NAME test_campaign_cores
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cores_e2e.sh)
set_tests_properties(test_campaign_cores PROPERTIES TIMEOUT 300
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# merge's refusals on crafted shard run directories (no measuring).
add_test(NAME test_campaign_merge_refusals
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/merge_refusals.sh)
set_tests_properties(test_campaign_merge_refusals PROPERTIES TIMEOUT 120
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# run's option checks: a bad value of each option is refused naming it.
add_test(NAME test_campaign_run_options
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/run_options.sh)
set_tests_properties(test_campaign_run_options PROPERTIES TIMEOUT 120
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# ctest -j starts the longest tests first (COST: seconds measured on 2 cores
# beside the rest of the suite; a build folder's own history, once ctest has
# run there, takes over).
set_tests_properties(test_campaign_e2e PROPERTIES COST 60)
set_tests_properties(test_campaign_slurm PROPERTIES COST 45)
set_tests_properties(test_campaign_cores PROPERTIES COST 21)
set_tests_properties(test_separate_e2e PROPERTIES COST 11)
set_tests_properties(test_campaign_run_options PROPERTIES COST 9)
set_tests_properties(test_campaign_merge_refusals PROPERTIES COST 8)
# The planning settings: defaults, ranges, JSON form, and a campaign.json
# with a setting out of range refused, naming it, before anything is written.
hb_add_test(test_settings SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_settings.c)
# One campaign per run directory and per core: the locks and the refusal of
# other submissions.
add_test(NAME test_campaign_run_lock
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/run_lock.sh)
set_tests_properties(test_campaign_run_lock PROPERTIES TIMEOUT 120 COST 35
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# Signed datasets: publish --sign, validate --key and every kind of edit.
add_test(NAME test_dataset_sign
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/sign_e2e.sh)
set_tests_properties(test_dataset_sign PROPERTIES TIMEOUT 120 COST 8
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# Ctrl-C and SIGTERM: what is kept, the command that resumes, and the resume.
add_test(NAME test_campaign_interrupt
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/interrupt_e2e.sh)
set_tests_properties(test_campaign_interrupt PROPERTIES TIMEOUT 300 COST 40
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# A campaign in which nothing could be compared is not called passed.
add_test(NAME test_campaign_nokat
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/nokat_e2e.sh)
set_tests_properties(test_campaign_nokat PROPERTIES TIMEOUT 120 COST 14
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# Nothing of a campaign outlives it: killed (SIGKILL, SIGINT, SIGTERM) at
# each stage, no process carrying its marker and no staging folder of it
# is left.
add_test(NAME test_campaign_lifetime
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/lifetime_e2e.sh)
set_tests_properties(test_campaign_lifetime PROPERTIES TIMEOUT 300 COST 45
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
# Each failure's reason (file:line), the missed targets and the total time
# under run's table, and the same from hashbench status.
add_test(NAME test_campaign_failures
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/failures_e2e.sh)
set_tests_properties(test_campaign_failures PROPERTIES TIMEOUT 120 COST 10
  ENVIRONMENT "HB_BUILD_DIR=${CMAKE_BINARY_DIR};HB_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
