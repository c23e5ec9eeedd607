/* A published dataset loaded for reporting and validation: DATA/<system>/
 * with campaign.json, build.json, kat.json (each optional) and the record
 * files, in the run directory's layout (rundir/rundir.h). Systems are the sub-folders of DATA that hold
 * any of these, in byte order of their names; records are sorted by
 * candidate, instance and size. Everything is read-only after loading; the
 * dataset owns all memory, released by report_dataset_free. */
#ifndef HB_DATASET_DATASET_H
#define HB_DATASET_DATASET_H

#include <stddef.h>
#include <jansson.h>
#include "common/err.h"
#include "measure/drift.h"

typedef struct report_record {
    char *file;            /* relative to DATA: <system>/ and rundir_record_rel */
    json_t *json;          /* the record */
    const char *candidate; /* point into json */
    const char *instance;
    long long size;
    const json_t *derived; /* NULL for a record that is not OK (FAILED,
                              INCONSISTENT) */
} report_record;

typedef struct report_system {
    char *name;
    json_t *campaign;      /* NULL when campaign.json is absent */
    json_t *build;         /* NULL when build.json is absent */
    json_t *kat;           /* NULL when kat.json is absent */
    report_record *recs;
    size_t nrecs;
    json_t *candidates;    /* array of candidate names, byte order */
    json_t *ct;            /* constant-time records (ct/<cand>/<Inst>.json):
                              object "<cand>/<Inst>" -> {"file", "record"};
                              empty when there are none */
    json_t *count;         /* instruction-count records
                              (count/<cand>/<Inst>__count_<S>.json): object
                              "<cand>/<Inst>/<S>" -> {"file", "record"};
                              empty when there are none */
    json_t *soak;          /* long-run stability records (soak/<cand>/<Inst>.json):
                              as ct */
    json_t *count_cc;      /* the counts under other compilers than the
                              build's (count/count_cc.h,
                              count/<cand>/<Inst>__count_cc-<tag>.json):
                              object "<cand>/<Inst>/<tag>" -> {"file",
                              "record"}; not in COUNT */
    drift_series drift;    /* the host's drift over the measure stage, from
                              the baseline's records, computed once at load
                              (n = 0 without baseline trials) */
    json_t *notes;         /* the evaluator's notes (dataset/notes.h) of
                              <system>/notes.txt, or of report --notes;
                              an empty object when there are none */
    char *notes_file;      /* where they come from (DATA/<system>/notes.txt
                              or the --notes file); NULL when none */
    char *notes_error;     /* the file's parse error ("FILE:LINE: ..."),
                              NULL when it parsed (its notes are then empty) */
} report_system;

struct sa_file;

typedef struct report_dataset {
    char *root;            /* DATA as given */
    report_system *sys;
    size_t nsys;
    const struct sa_file *self_assessment; /* report --self-assessment
                              (report/selfassess.h), borrowed; NULL */
    int is_signed;         /* DATA holds a manifest or a signature (sign.h) */
    char key_fingerprint[65]; /* hex SHA-256 of the signing key DATA names
                              (sign_named_fingerprint), "" when it names none
                              or an unreadable one */
} report_dataset;

/* Loads DATA_DIR into DS (zeroed first). Fails with the file (and line) of
 * any unreadable JSON, a record without candidate/instance/size_bytes, or a
 * DATA_DIR holding no system. */
int report_dataset_load(const char *data_dir, report_dataset *ds, hb_err *err);
void report_dataset_free(report_dataset *ds);

/* Loads PATH into DS as report_dataset_load does when PATH is a dataset
 * folder; when PATH is itself a system folder (DATA/<system>, or a run
 * directory: it holds campaign.json, build.json, kat.json or records/),
 * DS gets that one system, named by PATH's last component, with the
 * folder above PATH as its root. */
int report_dataset_load_path(const char *path, report_dataset *ds, hb_err *err);

/* The entry of build.json / kat.json for (CAND, INST), or NULL. Borrowed. */
json_t *report_build_entry(const report_system *s, const char *cand, const char *inst);
json_t *report_kat_entry(const report_system *s, const char *cand, const char *inst);

/* The constant-time record of (CAND, INST), or NULL; *FILE (may be NULL)
 * gets its path relative to DATA. Borrowed. */
const json_t *report_ct_record(const report_system *s, const char *cand, const char *inst,
                               const char **file);

/* The long-run stability record of (CAND, INST) (soak/soak.h), or NULL;
 * *FILE as report_ct_record's. Borrowed. */
const json_t *report_soak_record(const report_system *s, const char *cand, const char *inst,
                                 const char **file);

/* The instruction-count record of (CAND, INST, SIZE), or NULL; *FILE (may
 * be NULL) gets its path relative to DATA. Borrowed. */
const json_t *report_count_record(const report_system *s, const char *cand, const char *inst,
                                  long long size, const char **file);

/* The instruction-count curve of (CAND, INST) (count/count.h), or NULL.
 * Borrowed. */
const json_t *report_count_curve(const report_system *s, const char *cand, const char *inst);

/* 1 when CAND is one of S's candidates (S->candidates). */
int report_has_candidate(const report_system *s, const char *cand);

/* 1 when CAND/INST is an instance of S: in build.json, kat.json or a
 * record. */
int report_has_instance(const report_system *s, const char *cand, const char *inst);

/* The first entry of NOTES (dataset/notes.h) that names no instance of S,
 * with *LINE its line in the notes file; NULL when every one is known. */
const char *report_notes_stranger(const report_system *s, const json_t *notes, long *line);

/* The record of (CAND, INST, SIZE), or NULL. */
const report_record *report_find_record(const report_system *s, const char *cand,
                                        const char *inst, long long size);

/* The instance names of CAND: those of build.json in its order (the
 * submission's: the override file's, else discovery's), then any other
 * from kat.json and the records in byte order; a new array owned by the
 * caller. */
json_t *report_instances(const report_system *s, const char *cand);

/* The instances of CAND (NULL: of every candidate) that publishing withheld
 * for host data: campaign.json's "withheld" entries ({candidate, instance,
 * reason}, the reason in hashbench's wording); a new array owned by the
 * caller. */
json_t *report_withheld(const report_system *s, const char *cand);

/* The distinct record sizes of the system (all candidates when CAND is NULL),
 * ascending, as an array of integers owned by the caller. */
json_t *report_sizes(const report_system *s, const char *cand);

/* A string field of OBJ, or DEF when absent or not a string. */
const char *report_str(const json_t *obj, const char *key, const char *def);

/* A number field of OBJ (integer or real), or NaN when absent. */
double report_num(const json_t *obj, const char *key);

#endif
