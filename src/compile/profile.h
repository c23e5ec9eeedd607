/* Compiler flags of the build profiles (NICCS x86 guide §3.2, SPEC §2) and
 * the permissive harness-default flags of the KAT fallback. Flags are
 * returned as one space-separated string of plain options (no quoting
 * needed): the caller splits it on blanks. Every set already ends with
 * "-fPIC -shared", which a shared library needs. */
#ifndef HB_COMPILE_PROFILE_H
#define HB_COMPILE_PROFILE_H

#define PROFILE_HARNESS_DEFAULT "harness-default"

/* 1 when NAME is reference, performance or resource. */
int profile_is_known(const char *name);

/* 1 when the compiler target triple (`cc -dumpmachine`) is AArch64. */
int profile_target_is_aarch64(const char *triple);

/* The flags of profile NAME (one of the three, or PROFILE_HARNESS_DEFAULT)
 * for an AArch64 or other (x86-64) target; a static string, NULL when the
 * name is unknown. */
const char *profile_flags(const char *name, int aarch64);

#endif
