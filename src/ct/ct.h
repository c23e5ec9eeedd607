/* The constant-time stage (`hashbench ct`, `hashbench run --ct`): evidence,
 * for every instance that passed its KAT (and the OpenSSL baseline), of
 * whether its code branches on or indexes memory with message bytes, and
 * whether its time depends on the message. Two methods, both running the
 * library in the sandbox through hashbench-ct (ct/ctdriver_main.c):
 *  - a taint check under Valgrind's memcheck, on a rebuild of the library
 *    with the KAT's flags plus -g (DIR/ct/<cand>/lib<Inst>-g.so), whose
 *    findings (file:line, deduplicated) come from memcheck's XML
 *    (ct/vgxml.h);
 *  - a dudect-style timing test: an all-zero message against random
 *    messages of the same length, interleaved at random, timed with the
 *    campaign's counter, compared with Welch's t.
 * Each instance gets a record DIR/ct/<cand>/<Inst>.json (docs/FORMATS.md)
 * with the raw findings, the per-class figures of the timing test and the
 * verdict; `validate` checks it with ct_record_check. The verdict never says
 * "constant-time": FOUND, NONE_FOUND ("none found by this analysis") or
 * NOT_ANALYSABLE (with the reason). */
#ifndef HB_CT_CT_H
#define HB_CT_CT_H

#include <stddef.h>
#include <jansson.h>

#include "common/err.h"
#include "common/progress.h"
#include "probe/counter_read.h"
#include "rundir/rundir.h"

#define CT_DIR RUNDIR_CT
#define CT_T_THRESHOLD 4.5         /* |t| above this is evidence */
#define CT_DEFAULT_BYTES 64        /* timed message length */
#define CT_DEFAULT_MEASUREMENTS 100000L
#define CT_CROP_PERCENTILE 95      /* the second test keeps measurements at
                                      or below this pooled percentile */
#define CT_TAINT_TIMEOUT_S 120.0
#define CT_XML_LIMIT (16ULL << 20) /* bytes of Valgrind XML read */

/* Why the guest could not go on, from the first line of the Valgrind log
 * TEXT (may be NULL) that says so: hashbench's class of it ("Valgrind met
 * an instruction it cannot run", ...) into OUT (CAP bytes), the line itself
 * into RAW (RAWCAP bytes: the guest writes into the same log, so the line
 * is raw text, common/untrusted.h); both "" when there is none. Also used
 * by the instruction-count stage. */
void ct_valgrind_reason(const char *text, char *out, size_t cap, char *raw, size_t rawcap);

/* Path of hashbench-ct: beside the running executable. */
const char *ct_driver_path(void);

/* The taint check of library LIB (DIGEST_BITS) under memcheck in the
 * sandbox. SOURCE_ROOT is the folder whose files may be quoted in excerpts
 * (the package; NULL: none are quoted, and file names are kept to their
 * last component). KEEP_PREFIX, when not NULL, is where Valgrind's output
 * is kept as evidence (KEEP_PREFIX.valgrind.xml and .valgrind.log). *OUT
 * gets the record's "taint" object: {"tool", "lengths_bits", "status"
 * (ANALYSED or NOT_ANALYSABLE), "reason", "findings", "other_errors"}.
 * Returns -1 only on hashbench's own failure. */
int ct_taint(const char *lib, int digest_bits, const char *source_root,
             const char *keep_prefix, json_t **out, hb_err *err);

/* ct_taint with a wall limit of TIMEOUT_S seconds (<= 0: CT_TAINT_TIMEOUT_S);
 * when the step runs out of it and TIMEOUT_REASON is not NULL, that is the
 * reason recorded (the instance's wall budget, rundir/ibudget.h). */
int ct_taint_within(const char *lib, int digest_bits, const char *source_root,
                    const char *keep_prefix, double timeout_s, const char *timeout_reason,
                    json_t **out, hb_err *err);

typedef struct ct_time_opts {
    counter_kind counter;
    size_t bytes;            /* message length; 0: CT_DEFAULT_BYTES */
    long measurements;       /* 0: CT_DEFAULT_MEASUREMENTS */
    double timeout_s;        /* 0: 120 s */
    const char *timeout_reason; /* NULL, or the reason recorded when the
                                   step runs out of TIMEOUT_S (the
                                   instance's wall budget) */
} ct_time_opts;

/* The timing test of LIB in the sandbox. *OUT gets the record's "timing"
 * object (status MEASURED with the two tests, or FAILED with a reason).
 * Returns -1 only on hashbench's own failure. */
int ct_timing(const char *lib, int digest_bits, const ct_time_opts *o, json_t **out,
              hb_err *err);

/* Welch's t of two classes from their counts, means and sample variances
 * (n - 1): (m0 - m1) / sqrt(v0/n0 + v1/n1); NaN when it is undefined. */
double ct_welch_t(double n0, double m0, double v0, double n1, double m1, double v1);

/* The verdict of a record from its taint and timing objects: FOUND,
 * NONE_FOUND or NOT_ANALYSABLE. */
const char *ct_verdict(const json_t *taint, const json_t *timing);

/* Checks record REC (read from FILE, relative to the dataset) for validate:
 * its shape, the timing figures (each t recomputed from the per-class
 * figures, the reported t and its verdict) and the overall verdict. */
int ct_record_check(const json_t *rec, const char *file, hb_err *err);

typedef struct ct_options {
    const char *run_dir;
    const char *const *instances;  /* Inst or Cand/Inst; NULL: all */
    int n_instances;
    size_t bytes;
    long measurements;
    double instance_budget_s;      /* each instance's wall budget over all its
                                      processes (rundir/ibudget.h); <= 0: none */
    hb_progress_fn progress;
    void *progress_ctx;
} ct_options;

/* The stage: every kat.json entry with status PASS or BASELINE gets its
 * record. *N_FOUND counts instances with findings, *N_NA those not
 * analysable. Returns -1 on an input error (no kat.json, ...). */
int ct_run(const ct_options *o, int *n_found, int *n_na, hb_err *err);

#endif
