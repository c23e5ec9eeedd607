/* HOSTILE FIXTURE (tests/robustness/publeak/ForgeSession): SM3 whose
 * constructor sends a failure line of its own in each probe session, with
 * this host's boot_id and the run directory XORed with one byte and
 * hex-encoded (publeak.inc). */
#define LEAK_SESSION 1
#define LEAK_CLEAR 0
#include "publeak.inc"
