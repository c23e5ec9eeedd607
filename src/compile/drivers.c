/* Drivers told by their compiled objects: see drivers.h. */
#include "compile/drivers.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile/elfsize.h"
#include "compile/profile.h"
#include "common/fs.h"

int drivers_object_flags(int aarch64, const discover_instance *in, strlist *flags)
{
    char *words = strdup(profile_flags("reference", aarch64));
    int rc = words ? 0 : -1;
    for (char *save = NULL, *w = words ? strtok_r(words, " ", &save) : NULL; w && rc == 0;
         w = strtok_r(NULL, " ", &save))
        if (strcmp(w, "-shared") != 0)
            rc = strlist_push(flags, w);
    free(words);
    if (rc == 0)
        rc = strlist_push(flags, "-c");
    for (int i = 0; rc == 0 && i < in->defines.n; i++) {
        char w[4200];
        snprintf(w, sizeof w, "-D%s", in->defines.v[i]);
        rc = strlist_push(flags, w);
    }
    for (int i = 0; rc == 0 && i < in->includes.n; i++) {
        char w[4200];
        snprintf(w, sizeof w, "-I%s", in->includes.v[i]);
        rc = strlist_push(flags, w);
    }
    return rc;
}

/* Removes from L the entry that is REL or starts with "REL (". */
static void drop(strlist *l, const char *rel)
{
    size_t n = strlen(rel);
    for (int i = 0; i < l->n; i++)
        if (strncmp(l->v[i], rel, n) == 0 && (l->v[i][n] == '\0' ||
                                              strncmp(l->v[i] + n, " (", 2) == 0)) {
            free(l->v[i]);
            memmove(&l->v[i], &l->v[i + 1], (size_t)(l->n - i) * sizeof l->v[0]); /* and NULL */
            l->n--;
            return;
        }
}

/* Settles suspect REL of IN: compiled alone (object OBJ), main looked up;
 * with OBJ NULL (too many suspects) not compiled. */
static int settle_one(discover_instance *in, const compile_toolchain *tc,
                      const strlist *flags, const char *rel, const char *obj, hb_err *err)
{
    char why[400] = "";
    strlist one = {0}, defs = {0};
    int compiled = 0, has_main = -1, rc = 0;
    if (!obj) {
        snprintf(why, sizeof why, "more than %d files of the folder name main",
                 DRIVERS_MAX_COMPILED);
    } else {
        if (strlist_push(&one, rel) != 0)
            return hb_fail(err, "out of memory");
        compile_job job = {tc, in->package, flags, &one, NULL, obj, NULL,
                           DRIVERS_COMPILE_TIMEOUT_S, NULL, 0};
        rc = compile_object(&job, &compiled, why, sizeof why, err);
        strlist_free(&one);
    }
    if (rc != 0)
        return -1;
    if (compiled) {
        hb_err eerr;
        if (elfsize_defined_globals(obj, &defs, &eerr) == 0)
            has_main = strlist_contains(&defs, "main");
        else
            snprintf(why, sizeof why, "%.300s", eerr.msg);
        strlist_free(&defs);
        unlink(obj);
    }
    char line[PATH_MAX + 600];
    if (has_main < 0) {
        /* discovery's verdict from the text stands; its reason says why */
        int driver = 0;
        size_t n = strlen(rel);
        for (int i = 0; i < in->excluded.n && !driver; i++)
            driver = strncmp(in->excluded.v[i], rel, n) == 0 &&
                     strncmp(in->excluded.v[i] + n, " (", 2) == 0;
        if (!driver)
            return 0;
        drop(&in->excluded, rel);
        snprintf(line, sizeof line, "%s (driver: defines main(), read as text: %s%.300s)",
                 rel, obj ? "it does not compile on its own: " : "", why);
        return strlist_push(&in->excluded, line) != 0 ? hb_fail(err, "out of memory") : 0;
    }
    drop(&in->excluded, rel);
    drop(&in->sources, rel);
    if (has_main) {
        snprintf(line, sizeof line, "%s (driver: defines main(), read from its compiled "
                 "object)", rel);
        rc = strlist_push(&in->excluded, line);
    } else {
        rc = strlist_push(&in->sources, rel);
    }
    strlist_sort(&in->sources);
    return rc != 0 ? hb_fail(err, "out of memory") : 0;
}

int drivers_settle(discover_list *l, int from, const compile_toolchain *tc, hb_err *err)
{
    int any = 0;
    for (int i = from; i < l->n; i++)
        any |= l->v[i].suspects.n > 0;
    if (!any)
        return 0;
    const char *tmpdir = getenv("TMPDIR");
    char tmp[PATH_MAX], obj[PATH_MAX + 32];
    if (snprintf(tmp, sizeof tmp, "%s/hashbench-drivers.XXXXXX",
                 tmpdir && *tmpdir ? tmpdir : "/tmp") >= (int)sizeof tmp || !mkdtemp(tmp))
        return hb_fail_errno(err, "cannot make a temporary folder under %s; set TMPDIR "
                             "to a writable folder", tmpdir && *tmpdir ? tmpdir : "/tmp");
    int rc = 0, n_obj = 0, aarch64 = profile_target_is_aarch64(tc->target);
    for (int i = from; rc == 0 && i < l->n; i++) {
        discover_instance *in = &l->v[i];
        strlist flags = {0};
        if (in->suspects.n && drivers_object_flags(aarch64, in, &flags) != 0)
            rc = hb_fail(err, "out of memory");
        for (int k = 0; rc == 0 && k < in->suspects.n; k++) {
            snprintf(obj, sizeof obj, "%s/%d.o", tmp, n_obj++);
            rc = settle_one(in, tc, &flags, in->suspects.v[k],
                            k < DRIVERS_MAX_COMPILED ? obj : NULL, err);
        }
        strlist_free(&flags);
        strlist_free(&in->suspects);
    }
    hb_err ignored;
    hb_remove_tree(tmp, &ignored);
    return rc;
}
