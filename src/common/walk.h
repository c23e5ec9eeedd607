/* The one directory walker of hashbench, on glibc's fts(3): every folder
 * hashbench lists (a submitted package, a run directory, a dataset, a site,
 * a staging folder) is walked here, with one rule for symbolic links (never
 * followed: a link is reported as a link, whatever it points at), entries
 * of a folder in bytewise name order, and a depth limit, so that no walk
 * loops or depends on the order the file system returns names in. */
#ifndef HB_COMMON_WALK_H
#define HB_COMMON_WALK_H

#include <sys/stat.h>
#include "common/err.h"

/* What an entry is, from lstat: links are never followed. */
enum {
    HB_WALK_FILE = 1,  /* a regular file */
    HB_WALK_DIR,       /* a folder, before its entries */
    HB_WALK_DIR_POST,  /* the same folder after its entries, also when it was not
                          entered (HB_WALK_POST only) */
    HB_WALK_LINK,      /* a symbolic link */
    HB_WALK_OTHER      /* a FIFO, socket or device */
};

/* hb_walk's flags. */
#define HB_WALK_MISSING_OK 1u /* a missing root is an empty walk, not an error */
#define HB_WALK_POST 2u       /* report folders again after their entries */

/* The deepest any walk goes below its root unless told less. */
#define HB_WALK_MAX_DEPTH 64

typedef struct hb_walk_entry {
    const char *path;      /* ROOT/REL */
    const char *rel;       /* the path below the root, without a leading '/' */
    const char *name;      /* the last component */
    int depth;             /* 1 for the root's own entries */
    int type;              /* HB_WALK_* */
    const struct stat *st; /* lstat of the entry */
} hb_walk_entry;

/* What a visitor returns. */
enum {
    HB_WALK_CONTINUE = 0,
    HB_WALK_SKIP = 1 /* for HB_WALK_DIR: do not enter this folder */
};

/* Called for each entry; returns HB_WALK_CONTINUE, HB_WALK_SKIP, or a
 * negative value to stop the walk (filling ERR), which hb_walk returns. */
typedef int (*hb_walk_fn)(const hb_walk_entry *e, void *ctx, hb_err *err);

/* Walks the folder ROOT (itself not reported) down to MAX_DEPTH levels (1:
 * its own entries only; at most HB_WALK_MAX_DEPTH), calling FN on every
 * entry in preorder. Folders deeper than MAX_DEPTH are reported but not
 * entered. ROOT itself may be a symbolic link to a folder (the caller named
 * it); no link below it is followed. Returns 0; -1 with ERR naming the path when ROOT is missing
 * (unless HB_WALK_MISSING_OK), is not a folder, or a folder or entry below
 * it cannot be read; or what FN returned when it stopped the walk. */
int hb_walk(const char *root, int max_depth, unsigned flags, hb_walk_fn fn, void *ctx,
            hb_err *err);

#endif
