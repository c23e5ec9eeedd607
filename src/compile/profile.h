/* Compiler flags of the build profiles (NICCS x86 guide §3.2, SPEC §2) and
 * the permissive harness-default flags of the KAT fallback. Flags are
 * returned as one space-separated string of plain options (no quoting
 * needed): the caller splits it on blanks. Every set already ends with
 * "-fPIC -shared", which a shared library needs. */
#ifndef HB_COMPILE_PROFILE_H
#define HB_COMPILE_PROFILE_H

#define PROFILE_HARNESS_DEFAULT "harness-default"

/* What every guide build adds after the profile's flags, and why each,
 * as `help run`, `help build`, README.md and the method page state it: the
 * library then runs the code a static build of the same sources would (in
 * a shared library a function that is not static may be interposed, so
 * the compiler would neither inline calls between the package's own
 * functions nor call them directly). The two files are written by
 * hashbench; docs/FORMATS.md gives their text. */
#define PROFILE_ADDED_HELP \
    "Build flags: the profile's guide flags word for word, then:\n" \
    "  -fPIC -shared                 a shared library, which the probe loads\n" \
    "  -fvisibility=hidden           hides every symbol of the package...\n" \
    "  -include hashbench_visibility.h\n" \
    "                                ...but CryptHash, which this header declares\n" \
    "                                with default visibility\n" \
    "  -fno-semantic-interposition   calls between the package's functions stay\n" \
    "                                inside the library, as in a static build\n" \
    "  -Wl,--version-script=hashbench_exports.map\n" \
    "                                exports CryptHash alone\n" \
    "Without the last four a function of the package may be interposed, so the\n" \
    "compiler neither inlines calls between its functions nor calls them\n" \
    "directly: the figures would be those of different code than a static\n" \
    "build runs (docs/FORMATS.md, build.json).\n"

/* The same for the method page: one table row per addition (Markdown). */
#define PROFILE_ADDED_ROWS \
    "| -fPIC -shared | a shared library, which the probe loads |\n" \
    "| -fvisibility=hidden | hides every symbol of the package, but... |\n" \
    "| -include hashbench_visibility.h | ...CryptHash, which this header (written by " \
    "hashbench) declares with default visibility |\n" \
    "| -fno-semantic-interposition | calls between the package's own functions stay " \
    "inside the library, as in a static build |\n" \
    "| -Wl,--version-script=hashbench_exports.map | exports CryptHash alone (a " \
    "version script written by hashbench) |\n"

/* 1 when NAME is reference, performance or resource. */
int profile_is_known(const char *name);

/* 1 when the compiler target triple (`cc -dumpmachine`) is AArch64. */
int profile_target_is_aarch64(const char *triple);

/* The flags of profile NAME (one of the three, or PROFILE_HARNESS_DEFAULT)
 * for an AArch64 or other (x86-64) target; a static string, NULL when the
 * name is unknown. */
const char *profile_flags(const char *name, int aarch64);

#endif
