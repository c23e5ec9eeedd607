/* The dataset's layout (see layout.h): the system id rule and what makes a
 * folder of DATA a system. */
#include <string.h>
#include "dataset/layout.h"
#include "common/fs.h"
#include "rundir/rundir.h"

int dataset_check_system(const char *s, hb_err *err)
{
    size_t n = strlen(s);
    int ok = n > 0 && n <= DATASET_SYSTEM_MAX;
    for (size_t i = 0; ok && i < n; i++) {
        char c = s[i];
        ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
             c == '_' || c == '-';
    }
    if (ok)
        return 0;
    return hb_fail(err, "--system '%s': use 1 to %d characters from [A-Za-z0-9_-], "
                   "e.g. x86_1", s, DATASET_SYSTEM_MAX);
}

int dataset_is_system_dir(const char *data, const char *name)
{
    static const char *const marks[] = {RUNDIR_CAMPAIGN_JSON, RUNDIR_BUILD_JSON,
                                        RUNDIR_KAT_JSON, RUNDIR_RECORDS};
    char dir[4096], path[4096];
    if (hb_path_join(dir, sizeof dir, data, name, NULL) < 0)
        return 0;
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
        if (hb_path_join(path, sizeof path, dir, marks[i], NULL) == 0 &&
            (hb_is_file(path) || hb_is_dir(path)))
            return 1;
    }
    return 0;
}
