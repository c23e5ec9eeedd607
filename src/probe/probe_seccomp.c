/* The probe's own seccomp filter, installed right after it has loaded the
 * library (probe_main.c): from then on no memory becomes executable, by
 * mapping a file or by changing a mapping's protection, so that the code a
 * window runs is what was mapped executable when hashbench read the
 * probe's mappings at open (measure/session_probe.c), and stays so. The
 * loader needs executable mappings during the load, so the filter cannot
 * come before it; the sandbox's own filter (sandbox/sandbox.c) refuses the
 * other ways from the start. Filters stack and every one of them is asked:
 * one a library's constructor installed first can refuse more, never allow
 * what this one refuses. hashbench counts the filters from outside
 * (Seccomp_filters in /proc/PID/status) to see that this one is there. */
#include "probe.h"

#include <errno.h>
#include <seccomp.h>
#include <sys/mman.h>

int probe_no_new_code(void)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        return -1;
    /* another architecture's calls are the sandbox filter's to judge (an
     * emulated probe's calls are the emulator's, which refuses the load) */
    int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
    const int calls[] = {SCMP_SYS(mmap), SCMP_SYS(mprotect), SCMP_SYS(pkey_mprotect)};
    for (size_t i = 0; i < sizeof calls / sizeof calls[0] && rc == 0; i++)
        if (calls[i] >= 0)
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), calls[i], 1,
                                  SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
    if (rc == 0)
        rc = seccomp_load(ctx);
    seccomp_release(ctx);
    return rc == 0 ? 0 : -1;
}
