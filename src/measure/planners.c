/* The planner table: see planners.h. */
#include "measure/planners.h"

#include <stdio.h>
#include <string.h>
#include "measure/settings.h"

const plan_planner plan_planners[] = {
    {"interleaved", SETTINGS_INTERLEAVED_MIN_TRIALS, PLAN_TAKES_SESSIONS, 0,
     "windows of one sandboxed probe session per instance and size, each beside a "
     "window of the baseline, figures read from outside (the default)"},
    {"interleaved-processes", SETTINGS_INTERLEAVED_MIN_TRIALS, PLAN_TAKES_ROUNDS, 1,
     "one probe process per trial, in shuffled rounds beside a baseline trial"},
    {"adaptive", SETTINGS_REFERENCE_TRIALS, PLAN_TAKES_SEQUENCE, 1,
     "one probe process per trial, cell after cell, until the interval is tight"},
    {"reference", SETTINGS_REFERENCE_TRIALS, PLAN_TAKES_SEQUENCE, 0,
     "the reference campaign's rule: " SETTINGS_TEXT(SETTINGS_REFERENCE_TRIALS)
     " trials of min(20000, max(ceil(1 s / t1), 20)) calls"},
};
const size_t plan_n_planners = sizeof plan_planners / sizeof plan_planners[0];

const plan_planner *plan_planner_find(const char *name)
{
    for (size_t i = 0; name && i < plan_n_planners; i++)
        if (strcmp(plan_planners[i].name, name) == 0)
            return &plan_planners[i];
    return NULL;
}

const char *plan_planner_names(char *buf, size_t sz)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < plan_n_planners; i++) {
        const char *sep = i == 0 ? "" : i + 1 == plan_n_planners ? " or " : ", ";
        int w = snprintf(buf + n, sz - n, "%s%s", sep, plan_planners[i].name);
        if (w < 0 || (size_t)w >= sz - n)
            break;
        n += (size_t)w;
    }
    return buf;
}
