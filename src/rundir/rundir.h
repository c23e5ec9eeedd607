/* The run directory's layout, in one place: the names of its JSON files
 * (build.json, kat.json, campaign.json, the measure journal), where the
 * build stage puts libraries and compiler logs (lib/, logs/build/), where
 * the KAT stage puts its logs and texts (kat/), where records (records/),
 * constant-time results (ct/), instruction counts (count/) and the
 * per-core shards (cores/) live, the record-name rule (records/<cand>/<Inst>__hash_<bytes>.json maps to one
 * (instance, size) and back), the one listing of records, and the one
 * answer to "which library does this instance use". Every stage, publish,
 * merge, validate and the report build their paths here; a published
 * dataset's system folder has the same layout, so the report and the
 * validator use this module too. Paths are built with checked joins: a
 * path that does not fit fails with an error naming it. */
#ifndef HB_RUNDIR_RUNDIR_H
#define HB_RUNDIR_RUNDIR_H

#include <stddef.h>
#include <jansson.h>

#include "common/err.h"

/* Files directly in the run directory (and in a dataset's system folder). */
#define RUNDIR_BUILD_JSON "build.json"
#define RUNDIR_KAT_JSON "kat.json"
#define RUNDIR_CAMPAIGN_JSON "campaign.json"
#define RUNDIR_JOURNAL "measure-journal.json"

/* Folders directly in the run directory. */
#define RUNDIR_LIB "lib"             /* lib/<cand>/lib<Inst>.so */
#define RUNDIR_LOGS "logs"           /* logs/build/<cand>/<Inst>.log */
#define RUNDIR_BUILD_LOGS "logs/build"
#define RUNDIR_KAT "kat"             /* kat/<cand>/<Inst>.log, kat/<cand>/<Inst>/ */
#define RUNDIR_RECORDS "records"     /* records/<cand>/<Inst>__hash_<bytes>.json */
#define RUNDIR_CT "ct"               /* ct/<cand>/<Inst>.json */
#define RUNDIR_COUNT "count"         /* count/<cand>/<Inst>__count_<bytes>.json */
#define RUNDIR_SOAK "soak"           /* soak/<cand>/<Inst>.json */
#define RUNDIR_CORES "cores"         /* cores/cpu<N>/, cores/all/: one run each */

/* How help texts name the layout's files. */
#define RUNDIR_KAT_TEXTS_PATTERN RUNDIR_KAT "/<cand>/<Inst>/"
#define RUNDIR_KAT_LOG_PATTERN RUNDIR_KAT "/<cand>/<Inst>.log"
#define RUNDIR_RECORD_PATTERN RUNDIR_RECORDS "/<cand>/<Inst>__hash_<bytes>.json"

/* The candidate of hashbench's built-in baselines; their instances, files
 * and digests are the rows of rundir/baselines.h. */
#define RUNDIR_BASELINE_CANDIDATE "baseline"

/* The flavour of the fallback build with harness-default flags; NULL or ""
 * is the build with the profile's (guide) flags. */
#define RUNDIR_HARNESS_DEFAULT "harness-default"

/* The key of a build.json entry that records its harness-default rebuild
 * (compile/build.h: build_harness_default). */
#define RUNDIR_HARNESS_DEFAULT_KEY "harness_default"

/* The path of REL (a relative path of this module, or a file name above)
 * in the run directory RUN_DIR into OUT (size SZ). Fails, naming the path,
 * when it does not fit. */
int rundir_path(char *out, size_t sz, const char *run_dir, const char *rel, hb_err *err);

/* The relative paths below the run directory, into OUT (size SZ); each fails
 * with ERR when the path does not fit. CAND and INST are plain names (as
 * build.json holds them). */

/* lib/<cand>/lib<Inst>.so, or lib/<cand>/<FLAVOUR>/lib<Inst>.so. */
int rundir_library_rel(char *out, size_t sz, const char *cand, const char *inst,
                       const char *flavour, hb_err *err);

/* logs/build/<cand>/<Inst>.log, or logs/build/<cand>/<Inst>.<SUFFIX>.log
 * (SUFFIX: a flavour, or the place "2", "3" of instances sharing a name). */
int rundir_build_log_rel(char *out, size_t sz, const char *cand, const char *inst,
                         const char *suffix, hb_err *err);

/* kat/<cand>/<Inst>.log, or kat/<cand>/<Inst>.<FLAVOUR>.log. */
int rundir_kat_log_rel(char *out, size_t sz, const char *cand, const char *inst,
                       const char *flavour, hb_err *err);

/* The folder of the generated KAT texts: kat/<cand>/<Inst>, or
 * kat/<cand>/<Inst>/<FLAVOUR>. */
int rundir_kat_texts_rel(char *out, size_t sz, const char *cand, const char *inst,
                         const char *flavour, hb_err *err);

/* 1 when REL (a path below the run directory) is a KAT log,
 * kat/<cand>/<NAME>.log, not a file of the texts folders below it. */
int rundir_is_kat_log(const char *rel);

/* 1 when REL (kat/<cand>/NAME...) belongs to instance INST: NAME is INST
 * (its texts folder, and the rebuild's below it), "INST.log" or the
 * rebuild's "INST.harness-default.log"; never another instance's, such as
 * INST.x's. */
int rundir_kat_rel_of(const char *rel, const char *cand, const char *inst);

/* ct/<cand>/<Inst>.json; the prefix ct/<cand>/<Inst> of the Valgrind
 * output; the debug build ct/<cand>/lib<Inst>-g.so and its compiler log
 * ct/<cand>/<Inst>.build.log. */
int rundir_ct_rel(char *out, size_t sz, const char *cand, const char *inst, hb_err *err);
int rundir_ct_dir_rel(char *out, size_t sz, const char *cand, const char *inst,
                      hb_err *err);
int rundir_ct_debug_library_rel(char *out, size_t sz, const char *cand, const char *inst,
                                hb_err *err);
int rundir_ct_debug_log_rel(char *out, size_t sz, const char *cand, const char *inst,
                            hb_err *err);

/* count/<cand>/<Inst>__count_<SIZE>.json: the instruction-count record of
 * INST at SIZE bytes (count/count.h). */
int rundir_count_rel(char *out, size_t sz, const char *cand, const char *inst,
                     unsigned long long size, hb_err *err);

/* cores/<NAME>: the run directory of one core's shard (cpu<N>) or of the
 * merged campaign (all). */
int rundir_core_rel(char *out, size_t sz, const char *name, hb_err *err);

/* ---- records ---------------------------------------------------------- */

/* The file name of the record of INST at SIZE bytes: <Inst>__hash_<SIZE>.json. */
int rundir_record_name(char *out, size_t sz, const char *inst, unsigned long long size,
                       hb_err *err);

/* records/<cand>/<Inst>__hash_<SIZE>.json. */
int rundir_record_rel(char *out, size_t sz, const char *cand, const char *inst,
                      unsigned long long size, hb_err *err);

/* The record-name rule, the inverse of rundir_record_name: 1 when NAME is
 * exactly <Inst>__hash_<SIZE>.json with a plain, non-empty Inst and SIZE a
 * decimal number without leading zeros, then INST (size INST_SZ, may be
 * NULL) gets Inst and *SIZE (may be NULL) the size; 0 for any other name
 * (or an Inst longer than INST_SZ). Instance X and instance X_ never share
 * a record name. */
int rundir_parse_record_name(const char *name, char *inst, size_t inst_sz,
                             unsigned long long *size);

/* One record file found by rundir_list_records. */
typedef struct rundir_record {
    const char *path;          /* ROOT/records/<cand>/<name> */
    const char *rel;           /* records/<cand>/<name> */
    const char *candidate;
    const char *instance;
    unsigned long long size;
} rundir_record;

/* Called for each record; returns 0 to go on, or a negative value (filling
 * ERR) to stop the listing, which rundir_list_records then returns. */
typedef int (*rundir_record_fn)(const rundir_record *r, void *ctx, hb_err *err);

/* The records of the run directory (or a dataset's system folder) ROOT, in
 * bytewise order of candidate then file name: those of candidate CAND
 * (NULL: every candidate) and instance INST (NULL: every instance). Only
 * regular files whose names follow the record-name rule count; symbolic
 * links are not followed. A missing records folder lists nothing. */
int rundir_list_records(const char *root, const char *cand, const char *inst,
                        rundir_record_fn fn, void *ctx, hb_err *err);

/* The number of records rundir_list_records finds for CAND and INST (NULL:
 * all); -1 with ERR when the folder cannot be read. */
int rundir_count_records(const char *root, const char *cand, const char *inst, hb_err *err);

/* The records rundir_list_records finds, parsed, in its order; a file that
 * does not parse is left out. */
typedef struct rundir_loaded {
    json_t **v;
    size_t n, cap;
} rundir_loaded;

/* Loads into *OUT (zeroed first) the records of ROOT for CAND and INST
 * (NULL: all); -1 with ERR when the folder cannot be read or memory runs
 * out. Release with rundir_loaded_free, also after a failure. */
int rundir_load_records(const char *root, const char *cand, const char *inst,
                        rundir_loaded *out, hb_err *err);
void rundir_loaded_free(rundir_loaded *l);

/* 1 when CAND/INST is hashbench's baseline. */
int rundir_is_baseline(const char *cand, const char *inst);

/* 1 when build.json entry E is one of hashbench's built-in baselines
 * ("baseline": true, not "baseline_package": hashbench's own code, not
 * built, KAT-checked or rebuilt like a submission); a package the
 * evaluator named as a baseline is 0. */
int rundir_entry_builtin_baseline(const json_t *e);

/* ---- the library of an instance --------------------------------------- */

/* The library an instance is measured, analysed and reported with. Strings
 * are borrowed from the JSON entries; a field the entries lack is NULL. */
typedef struct rundir_library {
    const char *library;         /* relative to the run directory */
    const char *library_sha256;
    const char *flags_kind;      /* guide, harness-default or hashbench */
    const char *flags;
} rundir_library;

/* The one answer to "which library does this instance use", from its
 * build.json entry BUILD and its kat.json entry KAT (NULL when not tested):
 * the harness-default rebuild of build.json ("harness_default") when the
 * KAT stage kept it (KAT holds the "guide" result it replaced); else the
 * library the KAT stage tested (its "library"; an older run directory's
 * build.json does not record the rebuild); else the build of BUILD. */
void rundir_instance_library(const json_t *build, const json_t *kat, rundir_library *out);

#endif
