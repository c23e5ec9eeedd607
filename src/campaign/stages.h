/* The campaign's calls into the other stages' libraries (build_run, kat_run
 * with the build stage's harness-default rebuilds between two passes,
 * measure_run), translating the campaign's options and settings into each
 * stage's options, and reading the instance list back from build.json. */
#ifndef HB_CAMPAIGN_STAGES_H
#define HB_CAMPAIGN_STAGES_H

#include "common/strlist.h"
#include "campaign/opts.h"
#include "common/err.h"
#include "kat/kat.h"

/* The instances of DIR/build.json as "candidate/instance", in file order,
 * appended to OUT (the caller frees it with strlist_free). */
int stages_instances(const char *run_dir, strlist *out, hb_err *err);

/* Each runs its stage; *N_FAILED gets the stage's failure count. INSTANCES
 * restricts KAT and measurement to this shard's "candidate/instance" names. */
int stages_build(const campaign_options *o, const campaign_settings *s,
                 int *n_failed, hb_err *err);
int stages_kat(const campaign_options *o, const campaign_settings *s,
               const strlist *instances, int *n_failed, hb_err *err);

/* The KAT stage with the flag fallback of SPEC §2: kat_run, then the
 * harness-default rebuilds the failed guide builds call for
 * (kat_rebuilds_wanted), made by the build stage (build_harness_default),
 * then kat_run again, which tests them. A compiler build.json records for
 * such a rebuild that cannot be run is an error before any instance is
 * tested. */
int stages_kat_with_rebuilds(const kat_options *k, int *n_failed, hb_err *err);
int stages_measure(const campaign_options *o, const campaign_settings *s,
                   const strlist *instances, int *n_failed, hb_err *err);

/* The host's drift over the measure stage from the baseline's records in
 * RUN_DIR (measure/drift.h): campaign.json's "host_drift" object, or NULL
 * when there are none. */
json_t *stages_host_drift(const char *run_dir);

/* The host's ratio drift over the measure stage from every record in
 * RUN_DIR (report/ratiodrift.h): campaign.json's "ratio_drift" object, or
 * NULL when no group held both built-in baselines. */
json_t *stages_ratio_drift(const char *run_dir);

#endif
