/* Whether the sandbox can run here, and how the records name it: the
 * parts of the sandbox that start processes (bubblewrap itself, through
 * common/proc.h), kept apart from sandbox.c, which proc.c uses to build a
 * sandboxed command. */
#include "sandbox/check.h"

#include <jansson.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/proc.h"
#include "sandbox/sandbox.h"
#include "sandbox/stage.h"

#define NO_SANDBOX "none (--no-sandbox)"

const char *hb_sandbox_describe(void)
{
    static char text[256];
    if (!hb_sandbox_enabled())
        return NO_SANDBOX;
    if (text[0])
        return text;
    char *out = NULL, version[64] = "unknown";
    char *argv[] = {HB_SANDBOX_BWRAP, "--version", NULL};
    hb_proc_opts o = hb_proc_defaults();
    hb_proc_result r;
    hb_err err;
    o.timeout_s = 10;
    o.capture = &out;
    o.capture_cap = 4096;
    if (hb_proc_exec(argv, &o, &r, &err) == 0 && out && !strncmp(out, "bubblewrap ", 11))
        snprintf(version, sizeof version, "%.*s", (int)strcspn(out + 11, " \r\n"),
                 out + 11);
    free(out);
    const struct scmp_version *v = seccomp_version();
    unsigned uid, gid;
    hb_stage_host_ids(&uid, &gid);
    snprintf(text, sizeof text, "bubblewrap %s, seccomp (libseccomp %u.%u.%u), uid %u",
             version, v ? v->major : 0, v ? v->minor : 0, v ? v->micro : 0, uid);
    return text;
}

void hb_sandbox_record(json_t *doc)
{
    const char *was = json_string_value(json_object_get(doc, "sandbox"));
    const char *now = hb_sandbox_describe();
    if (was && !strncmp(was, "none", 4) && strncmp(now, "none", 4) != 0)
        now = NO_SANDBOX " in an earlier run";
    json_object_set_new(doc, "sandbox", json_string(now));
}

/* ---- the check ---- */

int hb_sandbox_check(hb_err *err)
{
    static int checked, result;
    static hb_err saved;
    if (!hb_sandbox_enabled())
        return 0;
    if (checked) {
        if (result != 0 && err)
            *err = saved;
        return result;
    }
    checked = 1;
    result = -1;
    if (access(HB_SANDBOX_BWRAP, X_OK) != 0) {
        hb_fail(&saved, "the sandbox needs bubblewrap (%s is missing): run "
                "`apt-get install bubblewrap` as root, or give --no-sandbox to run "
                "submitted code unsandboxed (recorded in campaign.json)", HB_SANDBOX_BWRAP);
    } else {
        hb_sandbox sb;
        memset(&sb, 0, sizeof sb);
        sb.profile = HB_SANDBOX_RUN;
        char *argv[] = {"/bin/true", NULL};
        hb_proc_opts o = hb_proc_defaults();
        char *out = NULL;
        hb_proc_result r;
        o.timeout_s = 30;
        o.sandbox = &sb;
        o.capture = &out;
        o.stderr_to_stdout = 1;
        if (hb_proc_exec(argv, &o, &r, &saved) == 0) {
            if (r.exited && r.exit_code == 0) {
                result = 0;
            } else {
                char how[128];
                if (out)
                    hb_one_line(out);
                hb_fail(&saved, "the sandbox cannot start here (bubblewrap: %s%s%.300s): "
                        "user namespaces must be allowed (sysctl "
                        "user.max_user_namespaces > 0); or give --no-sandbox to run "
                        "submitted code unsandboxed (recorded in campaign.json)",
                        hb_proc_describe(&r, how, sizeof how), out && *out ? ": " : "",
                        out ? out : "");
            }
        }
        free(out);
    }
    if (result != 0 && err)
        *err = saved;
    return result;
}
