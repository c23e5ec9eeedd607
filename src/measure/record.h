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
    const char *failure;        /* non-empty: the record is FAILED */
} record_input;

/* The record object (new reference), or NULL with ERR set. */
json_t *record_build(const record_input *in, hb_err *err);

/* The record's "environment": host facts before and after (load average),
 * the compiler and the counter with its measured rate. New reference. */
json_t *record_environment(const host_info *before, const host_info *after,
                           const char *compiler, counter_kind counter,
                           double rate_hz);

/* 1 when PATH holds a parseable record made with the same planner,
 * min_trials, target_ci_percent, budget_s, max_retries and library SHA-256;
 * *failed gets 1 when that record is FAILED. 0 otherwise (missing, corrupt,
 * other settings): the record is to be redone. */
int record_is_current(const char *path, const plan_settings *s,
                      const char *library_sha256, int *failed);

/* The message of SIZE bytes (rule PROBE_MESSAGE_RULE) and its SHA-256. */
void record_message_sha256(unsigned long long size, char hex[65]);

#endif
