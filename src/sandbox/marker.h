/* The command's marker, HB_CAMPAIGN=<marker> in the environment of every
 * process it starts (sandbox/warden.h makes it and starts the watcher that
 * kills by it); read by what labels the command's leftovers: the sandbox's
 * environment and the staging folders' lock files (stage.c). Kept apart
 * from the watcher so that the staging code, which the watcher calls to
 * clear up, needs nothing of the watcher. */
#ifndef HB_SANDBOX_MARKER_H
#define HB_SANDBOX_MARKER_H

#define HB_WARDEN_ENV "HB_CAMPAIGN"

/* The marker ("" before the watcher started, or when it did not start). */
const char *hb_warden_marker(void);

/* Sets it (the watcher's start alone): at most 95 bytes are kept. */
void hb_warden_set_marker(const char *m);

#endif
