/* The closing table of a campaign: one line per instance of DIR/build.json
 * with its build status, how many of its records are finished and OK ("not
 * timed" for an instance that failed its KAT), and its KAT status from
 * DIR/kat.json with the submitted files it checked and not (last, being the
 * widest), so that a run ends by saying, instance by instance, what it has
 * and what it lacks; under it, each failure's reason, the figures that
 * missed their confidence target and the time taken. */
#ifndef HB_CAMPAIGN_TABLE_H
#define HB_CAMPAIGN_TABLE_H

#include <stdio.h>
#include "common/err.h"

/* Prints the table for RUN_DIR to OUT. Fails only when build.json cannot be
 * read; a missing kat.json or records folder prints "-" in their columns. */
int campaign_print_table(const char *run_dir, FILE *out, hb_err *err);

/* What the table cannot say, printed under it: one line per instance that
 * failed (a build status other than BUILT, a failed KAT status, a FAILED
 * record) with its status and the reason the run directory holds (the
 * compiler's file:line, the manifest's file:line, the KAT file and message
 * length of a crash); one line per record whose 95 % confidence interval is
 * wider than its plan's target, and one when the host's drift exceeded
 * DRIFT_WARN_PERCENT, each with what to do; then the total time: WALL_S
 * seconds of this command when not negative, and the seconds campaign.json
 * records for each stage. Returns the number of failure lines, or -1 with
 * ERR when build.json cannot be read. */
int campaign_print_explained(const char *run_dir, double wall_s, FILE *out, hb_err *err);

#endif
