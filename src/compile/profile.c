/* The flag sets of the build profiles: see profile.h. The strings are the
 * guide's, word for word, followed by what a shared library needs. */
#include "compile/profile.h"

#include <string.h>

#define PROFILE_SHARED " -fPIC -shared"

typedef struct profile_entry {
    const char *name;
    const char *x86;
    const char *aarch64;
} profile_entry;

static const profile_entry profiles[] = {
    {"reference",
     "-std=c99 -Wpedantic -Wall -Wextra -O2" PROFILE_SHARED,
     "-std=c99 -Wpedantic -Wall -Wextra -O2" PROFILE_SHARED},
    {"performance",
     "-O3 -march=x86-64 -mavx2 -mtune=native -flto -fomit-frame-pointer "
     "-std=c99 -Wpedantic -Wall -Wextra" PROFILE_SHARED,
     "-O3 -march=armv8.2-a+sve -flto -fomit-frame-pointer "
     "-std=c99 -Wpedantic -Wall -Wextra" PROFILE_SHARED},
    {"resource",
     "-Os -march=x86-64 -mavx2 -flto -fomit-frame-pointer "
     "-std=c99 -Wpedantic -Wall -Wextra" PROFILE_SHARED,
     "-Os -march=armv8-a -flto -fomit-frame-pointer "
     "-std=c99 -Wpedantic -Wall -Wextra" PROFILE_SHARED},
    {PROFILE_HARNESS_DEFAULT,
     "-O2 -std=gnu11 -w -fcommon" PROFILE_SHARED,
     "-O2 -std=gnu11 -w -fcommon" PROFILE_SHARED},
};

static const profile_entry *find(const char *name)
{
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
        if (strcmp(profiles[i].name, name) == 0)
            return &profiles[i];
    return NULL;
}

int profile_is_known(const char *name)
{
    return name && strcmp(name, PROFILE_HARNESS_DEFAULT) != 0 && find(name) != NULL;
}

int profile_target_is_aarch64(const char *triple)
{
    return triple && (strncmp(triple, "aarch64", 7) == 0 ||
                      strncmp(triple, "arm64", 5) == 0);
}

const char *profile_flags(const char *name, int aarch64)
{
    const profile_entry *p = name ? find(name) : NULL;
    if (!p)
        return NULL;
    return aarch64 ? p->aarch64 : p->x86;
}
