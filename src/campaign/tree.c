/* Folder trees (see tree.h). */
#include "campaign/tree.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common/fs.h"

static int walk_dir(const char *root, const char *rel, tree_visit_fn fn,
                    void *ctx, hb_err *err)
{
    char dir[PATH_MAX];
    struct dirent **names;
    if (rel[0] ? hb_path_join(dir, sizeof dir, root, rel, err) < 0
               : hb_path_join(dir, sizeof dir, root, ".", err) < 0)
        return -1;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0)
        return errno == ENOENT ? 0 : hb_fail_errno(err, "%s: cannot list", dir);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        char sub[PATH_MAX], full[PATH_MAX];
        struct stat st;
        if (rc == 0 && strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
            if (rel[0])
                rc = hb_path_join(sub, sizeof sub, rel, name, err);
            else
                snprintf(sub, sizeof sub, "%s", name);
            if (rc == 0)
                rc = hb_path_join(full, sizeof full, root, sub, err);
            if (rc == 0 && lstat(full, &st) == 0) {
                if (S_ISDIR(st.st_mode))
                    rc = walk_dir(root, sub, fn, ctx, err);
                else if (S_ISREG(st.st_mode))
                    rc = fn(ctx, sub, err);
            }
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int tree_walk(const char *root, const char *sub, tree_visit_fn fn, void *ctx,
              hb_err *err)
{
    return walk_dir(root, sub ? sub : "", fn, ctx, err);
}

int tree_same_file(const char *a, const char *b)
{
    char *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    hb_err ignored;
    int same = hb_read_file(a, &x, &nx, &ignored) == 0 &&
               hb_read_file(b, &y, &ny, &ignored) == 0 && nx == ny &&
               memcmp(x, y, nx) == 0;
    free(x);
    free(y);
    return same;
}
