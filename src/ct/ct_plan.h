/* The fixed plan of the constant-time stage, shared by hashbench (ct/ct.c)
 * and its sandboxed driver hashbench-ct (ct/ctdriver_main.c, which links
 * libc and libdl only, hence a header of constants): the message lengths of
 * the taint check and the limits of the timing test. */
#ifndef HB_CT_CT_PLAN_H
#define HB_CT_CT_PLAN_H

/* Taint check lengths in bits: 0, 1, 55, 64, 65 and 1024 bytes, and a
 * partial last byte (13 bits). */
#define CT_TAINT_LENGTHS 7
static const unsigned long long ct_taint_bits[CT_TAINT_LENGTHS] = {
    0, 8, 440, 512, 520, 8192, 13};

#define CT_MAX_DIGEST_BYTES 1024      /* as KAT_MAX_DIGEST_BYTES */
#define CT_MAX_TIME_BYTES 65536       /* longest timed message */
#define CT_MAX_MEASUREMENTS 10000000L /* most measurements of one test */

#endif
