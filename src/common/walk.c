/* The directory walker: see walk.h. fts(3) with FTS_PHYSICAL (no link is
 * followed), FTS_COMFOLLOW (but the root, which the caller named, may be a
 * link to a folder) and FTS_NOCHDIR (the process's folder never changes), a name
 * comparison that sorts each folder's entries bytewise, and fts_set's
 * FTS_SKIP for folders at the depth limit or that the visitor skips. */
#include "common/walk.h"

#include <errno.h>
#include <fts.h>
#include <string.h>

static int by_name(const FTSENT **a, const FTSENT **b)
{
    return strcmp((*a)->fts_name, (*b)->fts_name);
}

static int entry_type(const FTSENT *f)
{
    switch (f->fts_info) {
    case FTS_F:
        return HB_WALK_FILE;
    case FTS_D:
        return HB_WALK_DIR;
    case FTS_DP:
        return HB_WALK_DIR_POST;
    case FTS_SL:
    case FTS_SLNONE:
        return HB_WALK_LINK;
    default:
        return HB_WALK_OTHER;
    }
}

int hb_walk(const char *root, int max_depth, unsigned flags, hb_walk_fn fn, void *ctx,
            hb_err *err)
{
    struct stat st;
    if (stat(root, &st) != 0) {
        if (errno == ENOENT && (flags & HB_WALK_MISSING_OK))
            return 0;
        return hb_fail_errno(err, "%s", root);
    }
    if (!S_ISDIR(st.st_mode))
        return hb_fail(err, "%s: not a folder", root);
    if (max_depth < 1 || max_depth > HB_WALK_MAX_DEPTH)
        max_depth = HB_WALK_MAX_DEPTH;
    char *argv[2] = {(char *)root, NULL};
    FTS *fts = fts_open(argv, FTS_PHYSICAL | FTS_COMFOLLOW | FTS_NOCHDIR, by_name);
    if (!fts)
        return hb_fail_errno(err, "%s: cannot list", root);
    size_t root_len = strlen(root);
    while (root_len > 1 && root[root_len - 1] == '/')
        root_len--;
    int rc = 0;
    FTSENT *f;
    errno = 0;
    while ((f = fts_read(fts)) != NULL) {
        switch (f->fts_info) {
        case FTS_DNR:
        case FTS_ERR:
        case FTS_NS:
            rc = hb_fail(err, "%s: %s", f->fts_path, strerror(f->fts_errno));
            goto done;
        case FTS_DC: /* a cycle cannot arise without following links */
            continue;
        default:
            break;
        }
        /* the root itself is not reported (unreadable, it failed above) */
        if (f->fts_level == 0 || (f->fts_info == FTS_DP && !(flags & HB_WALK_POST)))
            continue;
        const char *rel = f->fts_path + root_len;
        while (*rel == '/')
            rel++;
        hb_walk_entry e = {f->fts_path, rel, f->fts_name, (int)f->fts_level,
                           entry_type(f), f->fts_statp};
        int r = fn(&e, ctx, err);
        if (r < 0) {
            rc = r;
            goto done;
        }
        if (f->fts_info == FTS_D && (r == HB_WALK_SKIP || f->fts_level >= max_depth))
            fts_set(fts, f, FTS_SKIP);
        errno = 0;
    }
    if (errno != 0)
        rc = hb_fail_errno(err, "%s: cannot list", root);
done:
    fts_close(fts);
    return rc;
}
