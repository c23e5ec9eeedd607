/* The closing table of a campaign: one line per instance of DIR/build.json
 * with its build status, how many of its records are finished and OK ("not
 * timed" for an instance that failed its KAT), and its KAT status from
 * DIR/kat.json with the submitted files it checked and not (last, being the
 * widest), so that a run ends by saying, instance by instance, what it has
 * and what it lacks. */
#ifndef HB_CAMPAIGN_TABLE_H
#define HB_CAMPAIGN_TABLE_H

#include <stdio.h>
#include "common/err.h"

/* Prints the table for RUN_DIR to OUT. Fails only when build.json cannot be
 * read; a missing kat.json or records folder prints "-" in their columns. */
int campaign_print_table(const char *run_dir, FILE *out, hb_err *err);

#endif
