/* Checking that the sandbox (sandbox.h) can run on this host, and naming
 * it in the records. Used by the command line before any submitted code
 * runs, and by the stages that write build.json, kat.json and
 * campaign.json. */
#ifndef HB_SANDBOX_CHECK_H
#define HB_SANDBOX_CHECK_H

#include <jansson.h>
#include "common/err.h"

/* Checks once per process that a sandboxed child can be started here
 * (bubblewrap installed and able to create its namespaces, the seccomp
 * filter built), by running /bin/true inside one. Returns 0, or -1 with what
 * is missing and what to install; always 0 when the sandbox is disabled. */
int hb_sandbox_check(hb_err *err);

/* One line naming how this process isolates submitted code, for the
 * records: e.g. "bubblewrap 0.8.0, seccomp (libseccomp 2.5.4), uid 65534",
 * or "none (--no-sandbox)". */
const char *hb_sandbox_describe(void);

/* Sets DOC's "sandbox" field to hb_sandbox_describe(), except that a
 * record which says an earlier run was unsandboxed keeps saying so. */
void hb_sandbox_record(json_t *doc);

#endif
