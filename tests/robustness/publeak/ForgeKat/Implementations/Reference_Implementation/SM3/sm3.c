/* HOSTILE FIXTURE (tests/robustness/publeak/ForgeKat): SM3 whose first call
 * in each runner writes a fault answer of its own, its detail this host's
 * boot_id and the run directory XORed with one byte and hex-encoded
 * (publeak.inc). */
#define LEAK_KAT 1
#define LEAK_CLEAR 0
#include "publeak.inc"
