/* Assembling a measurement record (docs/FORMATS.md, "Measurement record")
 * from the build and KAT entries of an instance, the environment, the plan
 * and its raw trials, and deciding whether an existing record can be kept
 * when a measurement is resumed. The derived figures are computed from the
 * record's own trials with stats_derive_record, exactly as `validate` does. */
#ifndef HB_MEASURE_RECORD_H
#define HB_MEASURE_RECORD_H

#include <jansson.h>

#include "common/err.h"
#include "measure/host.h"
#include "measure/plan.h"
#include "measure/verify.h"

#define RECORD_SCHEMA 1

typedef struct record_input {
    const json_t *build;        /* the instance's build.json entry */
    const json_t *kat;          /* its kat.json entry, or NULL */
    const char *library;        /* path relative to the run directory */
    const char *library_sha256;
    const char *flags_kind;
    const char *flags;
    unsigned long long size;
    json_t *probe_command;      /* borrowed */
    json_t *environment;        /* borrowed */
    const plan_settings *settings;
    const plan_outcome *outcome;
    const trial_result *memory; /* the --memory run, or NULL */
    const char *failure;        /* non-empty: the record is FAILED ... */
    int inconsistent;           /* ... or, with 1, INCONSISTENT */
    const verify_report *verify; /* the runner's check of the digests */
    double exchange_ns;         /* one-shot trials: the outside rules' fixed
                                   allowance their requests carried */
} record_input;

/* The record object (new reference), or NULL with ERR set. */
json_t *record_build(const record_input *in, hb_err *err);

/* The record's "environment": host facts before and after (load average),
 * the compiler and the counter with its measured rate. New reference. */
json_t *record_environment(const host_info *before, const host_info *after,
                           const char *compiler, counter_kind counter,
                           double rate_hz);

/* 1 when PATH holds a parseable record made with the same planner,
 * min_trials, target_ci_percent, budget_s, max_retries and library SHA-256,
 * and with its digests checked (a "verification" object); *failed gets 1
 * when that record is not OK. 0 otherwise (missing, corrupt, other
 * settings, measured before trials were verified): the record is to be
 * redone. */
int record_is_current(const char *path, const plan_settings *s,
                      const char *library_sha256, int *failed);

/* A record's status: "OK" (with derived figures), "FAILED" (the instance
 * could not be measured) or "INCONSISTENT" (the probe's result disagreed
 * with hashbench's own checks); the last two have a one-line failure and
 * no figures. 1 when STATUS is one of them. */
int record_status_known(const char *status);

/* The outside figures (outside.h) and loop time of one of a record's
 * trials. Returns 0, or -1 when the trial has none. */
int record_trial_outside(const json_t *trial, trial_outside *o, unsigned long long *ns);

/* The "trials" array of a record for outcome O (new reference). */
json_t *record_trials_json(const plan_outcome *o);

/* One element of a "trials" array back into T (the interleaved stage's
 * journal keeps its rounds this way). Returns 0, or -1 when J is not a
 * trial this version writes. */
int record_trial_from_json(const json_t *j, plan_trial *t);

/* The message of SIZE bytes (rule PROBE_MESSAGE_RULE) and its SHA-256. */
void record_message_sha256(unsigned long long size, char hex[65]);

#endif
