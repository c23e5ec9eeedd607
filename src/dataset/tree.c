/* Folder trees (see tree.h), walked with common/walk.h. */
#include "dataset/tree.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/fs.h"
#include "common/walk.h"

typedef struct tree_ctx {
    const char *sub;
    tree_visit_fn fn;
    void *ctx;
} tree_ctx;

/* tree_walk's visitor: regular files, named from the walk's root. */
static int visit_file(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    tree_ctx *t = ctx;
    char rel[PATH_MAX];
    if (e->type != HB_WALK_FILE)
        return HB_WALK_CONTINUE;
    if (t->sub[0] ? hb_path_join(rel, sizeof rel, t->sub, e->rel, err) < 0
                  : hb_path_join(rel, sizeof rel, "", e->rel, err) < 0)
        return -1;
    int rc = t->fn(t->ctx, rel, err);
    return rc < 0 ? rc : HB_WALK_CONTINUE;
}

int tree_walk(const char *root, const char *sub, tree_visit_fn fn, void *ctx,
              hb_err *err)
{
    char dir[PATH_MAX];
    tree_ctx t = {sub ? sub : "", fn, ctx};
    if (hb_path_join(dir, sizeof dir, root, t.sub[0] ? t.sub : ".", err) < 0)
        return -1;
    return hb_walk(dir, HB_WALK_MAX_DEPTH, HB_WALK_MISSING_OK, visit_file, &t, err);
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
