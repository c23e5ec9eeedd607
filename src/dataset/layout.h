/* The layout of a published dataset, in one place (as rundir/rundir.h is
 * the run directory's): DATA/ holds one folder per test system, DATA/<ID>/,
 * laid out as a run directory (campaign.json, build.json, kat.json,
 * records/, logs, ct/, count/: rundir.h) with every path field relative to
 * DATA (paths.h); beside the systems, a signed dataset holds
 * DATASET_MANIFEST, DATASET_SIGNATURE and DATASET_SIGNING_KEY (sign.h). A system is published
 * into the staging folder DATASET_STAGING_FMT and swapped in; the previous
 * one moves aside to the staging folder's name + DATASET_OLD_SUFFIX and is
 * removed (publish.h). The operations on a dataset live beside this file:
 * publish.h, merge.h (joining shards' run directories first), sign.h,
 * dataset.h (loading it), notes.h (the evaluator's notes each system may
 * hold as notes.txt), paths.h and hostdata.h (what must not be in it). */
#ifndef HB_DATASET_LAYOUT_H
#define HB_DATASET_LAYOUT_H

#include "common/err.h"

#define DATASET_MANIFEST "MANIFEST.sha256"
#define DATASET_SIGNATURE "MANIFEST.sha256.sig"
#define DATASET_SIGNING_KEY "MANIFEST.sha256.pub" /* the signer's public key, PEM:
                           named on the pages; trusted only when its
                           fingerprint matches one published elsewhere */
#define DATASET_STAGING_FMT ".%s.publishing" /* %s: the system id */
#define DATASET_OLD_SUFFIX ".old"
#define DATASET_SYSTEM_MAX 64 /* characters of a system id */

/* 0 when S is a valid test system id (1 to DATASET_SYSTEM_MAX characters
 * from [A-Za-z0-9_-]: it names a folder of the dataset); else -1 with ERR
 * saying what is accepted. */
int dataset_check_system(const char *s, hb_err *err);

/* 1 when DATA/NAME is a system folder: it holds campaign.json, build.json,
 * kat.json or records/ (a system published from part of a campaign still
 * counts), else 0. */
int dataset_is_system_dir(const char *data, const char *name);

#endif
