/* The planner table: see planners.h. */
#include "measure/planners.h"

#include <stdio.h>
#include <string.h>
#include "measure/interleave.h"
#include "measure/plan.h"
#include "measure/settings.h"
#include "measure/windows.h"

const plan_planner plan_planners[] = {
    {.name = "interleaved", .min_trials = SETTINGS_INTERLEAVED_MIN_TRIALS, .budgeted = 0,
     .seeded = 1, .pairs = PLAN_MAX_PAIRS,
     .summary = "windows of one sandboxed probe session per instance and size, each "
                "beside a window of the baseline, figures read from outside (the default)",
     .rule = NULL, .run = windows_stage_run, .counter = windows_counter,
     .cell_cost_s = windows_stage_cost_s},
    {.name = "interleaved-processes", .min_trials = SETTINGS_INTERLEAVED_MIN_TRIALS,
     .budgeted = 1, .seeded = 1, .pairs = 1,
     .summary = "one probe process per trial, in shuffled rounds beside a baseline trial",
     .rule = &ilv_rule, .run = ilv_stage_run, .counter = NULL,
     .cell_cost_s = ilv_cell_cost_s},
    {.name = "adaptive", .min_trials = SETTINGS_REFERENCE_TRIALS, .budgeted = 1, .seeded = 0,
     .pairs = 0,
     .summary = "one probe process per trial, cell after cell, until the interval is tight",
     .rule = &plan_rule_adaptive, .run = plan_sequence_run, .counter = NULL,
     .cell_cost_s = plan_sequence_cost_s},
    {.name = "reference", .min_trials = SETTINGS_REFERENCE_TRIALS, .budgeted = 0, .seeded = 0,
     .pairs = 0,
     .summary = "the reference campaign's rule: " SETTINGS_TEXT(SETTINGS_REFERENCE_TRIALS)
                " trials of min(20000, max(ceil(1 s / t1), 20)) calls",
     .rule = &plan_rule_reference, .run = plan_sequence_run, .counter = NULL,
     .cell_cost_s = plan_sequence_cost_s},
};
const size_t plan_n_planners = sizeof plan_planners / sizeof plan_planners[0];

const plan_planner *plan_planner_find(const char *name)
{
    for (size_t i = 0; name && i < plan_n_planners; i++)
        if (strcmp(plan_planners[i].name, name) == 0)
            return &plan_planners[i];
    return NULL;
}

const plan_planner *plan_planner_of(const plan_settings *s)
{
    const plan_planner *p = plan_planner_find(s->planner);
    return p ? p : plan_planner_find("adaptive");
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
