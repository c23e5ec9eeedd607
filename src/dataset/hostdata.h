/* Host identifiers that must never reach a published dataset: this host's
 * boot_id (/proc/sys/kernel/random/boot_id) and the absolute path of the
 * run directory, each as it is and hex-encoded in either case (the form in
 * which a library's output, a digest, would carry it). A submitted library
 * runs on the host and can read both, so anything it computes could carry
 * them; publish redacts the paths it knows of in text, but not what is
 * encoded. `hashbench publish` withholds the instance whose file or entry
 * holds one (checked on the dataset it is about to put in place; a file of
 * no instance stops it), and `hashbench validate`
 * reports each file that holds one, with the boot_id of the host it runs on
 * and the run directory when it is given one. The search covers every byte
 * of every regular file of the dataset, not only JSON strings. */
#ifndef HB_DATASET_HOSTDATA_H
#define HB_DATASET_HOSTDATA_H

#include <stddef.h>
#include "common/err.h"

#define HOSTDATA_BOOT_ID "/proc/sys/kernel/random/boot_id"
#define HOSTDATA_MAX_NEEDLES 16
/* The shortest run-directory path searched for as it is (a shorter one,
 * such as "/r", would match ordinary text; its hex forms are still
 * searched). */
#define HOSTDATA_MIN_PLAIN_PATH 6

typedef struct hostdata_needle {
    char *text;        /* what is searched for */
    int any_case;      /* 1: ASCII case is ignored (hex, the boot_id) */
    char what[96];     /* "this host's boot_id, hex-encoded" */
} hostdata_needle;

typedef struct hostdata {
    hostdata_needle n[HOSTDATA_MAX_NEEDLES];
    int count;
} hostdata;

/* The needles of this host: its boot_id (when the kernel shows one), and
 * with RUN_DIR (may be NULL) the run directory as given when absolute and
 * as realpath resolves it. Free with hostdata_free. Fails only when out of
 * memory. */
int hostdata_init(hostdata *h, const char *run_dir, hb_err *err);
void hostdata_free(hostdata *h);

/* The first needle of H found in BUF (LEN bytes), or NULL. */
const hostdata_needle *hostdata_find(const hostdata *h, const char *buf, size_t len);

/* Called for each file of the tree that holds a needle: REL is its path
 * below the root; returns 0 to go on, negative to stop. */
typedef int (*hostdata_fn)(const char *rel, const hostdata_needle *found, void *ctx,
                           hb_err *err);

/* Searches every regular file below ROOT (links are not followed) for the
 * needles of H, calling FN for each file that holds one. *N_FOUND gets the
 * number of such files. Returns 0, or -1 with ERR when a file cannot be
 * read or FN stopped the search. */
int hostdata_scan(const hostdata *h, const char *root, hostdata_fn fn, void *ctx,
                  int *n_found, hb_err *err);

#endif
