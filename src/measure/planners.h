/* The planners, as one const table: each entry names a planner and carries
 * its properties, so that no part of hashbench compares planner names.
 * The settings layer (measure/settings.c) checks a name and takes its
 * default minimum from here, the planner code (plan.c, interleave.c,
 * windows.c) and the record (record.c) ask for the properties.
 *
 * To add a planner: one row here (its name, its minimum trials, a default
 * of measure/settings.h; how it takes its trials, whether a budget rule
 * applies and a line for --help), and the code that takes its trials;
 * the option parser, the settings' validation, campaign.json and the
 * record follow the row. */
#ifndef HB_MEASURE_PLANNERS_H
#define HB_MEASURE_PLANNERS_H

#include <stddef.h>

typedef enum plan_takes {
    PLAN_TAKES_SESSIONS,   /* windows of trial sessions, paired (windows.h) */
    PLAN_TAKES_ROUNDS,     /* one probe process per trial, paired in rounds
                              (interleave.h) */
    PLAN_TAKES_SEQUENCE    /* one probe process per trial, cell after cell
                              (plan_execute) */
} plan_takes;

typedef struct plan_planner {
    const char *name;
    int min_trials;        /* the default minimum of kept trials (pairs) */
    plan_takes takes;
    int budgeted;          /* 1: the adaptive rule and its budget apply */
    const char *summary;   /* one line for --help and the method page */
} plan_planner;

/* The planners, the default first. */
extern const plan_planner plan_planners[];
extern const size_t plan_n_planners;

/* The planner called NAME, or NULL. */
const plan_planner *plan_planner_find(const char *name);

/* "a, b, c or d": the names, for messages; into BUF of SZ bytes. */
const char *plan_planner_names(char *buf, size_t sz);

#endif
