/* HOSTILE FIXTURE (tests/robustness/publeak/ForgeClear): SM3 whose
 * constructor sends a failure line of its own in each probe session, with
 * this host's boot_id and the run directory as they are (publeak.inc). */
#define LEAK_SESSION 1
#define LEAK_CLEAR 1
#include "publeak.inc"
