/* The KAT of one built library: generation in a child process with a
 * timeout and resource limits (kat_gen.c does the guarded calls), then, in
 * the parent, classification of how the child ended, comparison with the
 * submitted vectors (manifest.h, katfile.h), the instance's log and its
 * kat.json entry. kat.c drives it over build.json and adds the flag
 * fallback. */
#ifndef HB_KAT_KAT_INSTANCE_H
#define HB_KAT_KAT_INSTANCE_H

#include <jansson.h>
#include "common/digest.h"
#include "common/err.h"

typedef struct kat_instance_spec {
    const char *run_dir;
    const json_t *build;   /* build.json entry of a BUILT library (read only) */
    const char *log_rel;   /* log path, relative to run_dir */
    const char *texts_rel; /* folder of the generated texts, relative */
    int loop;              /* KAT_Loop: KAT_LOOP_SUBMITTED, _ALWAYS, _NEVER
                              (kat.h) */
    int full;              /* also KAT_2_33 (1 GiB message) */
    double timeout_s;      /* for the whole generation; <= 0: 600 s */
    double instance_budget_s; /* the instance's wall budget over all its
                                 processes (rundir/ibudget.h); <= 0: none */
    int stop_at_first_failure; /* 1: compare each file as soon as it is
                                  generated and stop at the first that does
                                  not match its submitted vectors (the
                                  harness-default rebuild of a guide build
                                  that already failed): the files after it
                                  are NOTRUN and the reason says so */
} kat_instance_spec;

/* Runs the KATs of S->build's library and writes its log. *out gets a new
 * kat.json entry (owned by the caller) in the docs/FORMATS.md layout with
 * "guide": null. Returns -1 (err) only for hashbench's own failures (bad
 * build entry, unwritable run directory); every misbehaviour of the library
 * is a status in the entry. */
int kat_instance_run(const kat_instance_spec *s, json_t **out, hb_err *err);

/* The expected canonical SHA-256 of the KAT file NAME for the build.json
 * entry BUILD, from its package's vectors as they are now (the same lookup
 * as kat_instance_run): 1 with SHA filled, 0 when there is none, -1 when
 * they cannot be read (a malformed manifest or text file). */
int kat_instance_expected(const json_t *build, const char *name, char sha[HB_SHA256_HEX]);

/* The submitted KAT files of BUILD (build.json entry) that LOOP and FULL
 * leave unchecked, as a new JSON array of {"name", "why"} ("why": "needs
 * --full" for KAT_2_33, "skipped with --no-loop" for KAT_Loop); empty when
 * every submitted file is checked. Vectors that cannot be read count as
 * not submitted (the run itself reports them). */
json_t *kat_instance_not_checked(const json_t *build, int loop, int full);

/* 1 when KAT_Loop is run for BUILD under LOOP: always, never, or when its
 * submitted vectors include KAT_Loop. */
int kat_instance_runs_loop(const json_t *build, int loop);

/* The status (and file verdict) of submitted vectors that cannot be read
 * as KAT text or a manifest: the submission's fault, named file:line in
 * the reason; no flag fallback is tried for it. */
#define KAT_BADVECTORS "BADVECTORS"

/* 1 when STATUS is one of the failure statuses (neither PASS, NOKAT nor
 * BASELINE). */
int kat_status_failed(const char *status);

#endif
