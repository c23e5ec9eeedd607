/* Walking and comparing folder trees of a run directory or dataset: merge
 * and publish copy records and logs with these (hb_remove_tree in
 * common/fs.h removes a tree). Entries are visited in
 * byte order of their names, so every walk is deterministic. */
#ifndef HB_DATASET_TREE_H
#define HB_DATASET_TREE_H

#include "common/err.h"

/* Called with REL, the path of a regular file relative to the walk's ROOT. A
 * negative return stops the walk with that status. */
typedef int (*tree_visit_fn)(void *ctx, const char *rel, hb_err *err);

/* Visits every regular file under ROOT/SUB (SUB may be "" for ROOT itself);
 * a missing ROOT/SUB is an empty tree. Symbolic links are not followed, and
 * folders deeper than HB_WALK_MAX_DEPTH are not entered. */
int tree_walk(const char *root, const char *sub, tree_visit_fn fn, void *ctx,
              hb_err *err);

/* 1 when the files A and B have the same bytes; 0 otherwise (or unreadable). */
int tree_same_file(const char *a, const char *b);

#endif
