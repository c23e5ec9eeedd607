/* The guard's rules and its checks on numbers: see guard.h. */
#include "measure/guard.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "rundir/ibudget.h"

const guard_rule guard_rules[GUARD_N] = {
    {GUARD_ANSWER_TIMEOUT, "answer-timeout", "TIMEOUT",
     "no answer within 60 s (a session's open or a window), or what is left of the "
     "instance's wall budget when less",
     "a library that does not answer gets no figure", "no answer "},
    {GUARD_BUDGET, "budget", "TIMEOUT",
     "the instance's wall budget (--instance-budget) spent over all its processes",
     "every process that runs the instance's code is charged to one budget",
     IBUDGET_REASON_START},
    {GUARD_CHANNEL, "channel", "INCONSISTENT",
     "any line on the probe's channel that the probe does not write",
     "only the probe speaks on its channel", "the probe's channel carried "},
    {GUARD_NEEDED_LIBRARY, "needed-library", "INCONSISTENT",
     "a DT_NEEDED library the probe does not itself load",
     "its code would count in the library's figure", "the library names "},
    {GUARD_FOREIGN_CODE, "foreign-code", "INCONSISTENT",
     "any executable mapping whose (device, inode) is not a file hashbench bound",
     "a figure must be the submitted code's own", "the probe runs code "},
    {GUARD_EXEC_FILTER, "exec-filter", "INCONSISTENT",
     "no more seccomp filters after the load than before it",
     "without the probe's filter, code could be made executable within a window",
     "the probe's filter against new code "},
    {GUARD_THREADS, "threads", "INCONSISTENT", "more than one thread",
     "work in another thread would escape the window's figure", "the probe runs "},
    {GUARD_NOT_STOPPED, "not-stopped", "INCONSISTENT",
     "the probe not stopped after its ready line or a window",
     "it could work where nothing is timed", "the probe did not stop "},
    {GUARD_REGION_RESIDENT, "region-resident", "INCONSISTENT",
     "any page of the message area neither resident nor swapped out after a window",
     "memory held in its place would be in no figure", "hashbench's message area "},
    {GUARD_REGION_CHANGED, "region-changed", "INCONSISTENT",
     "the shared message file no longer the size it was made",
     "the messages must reach the library as drawn", "the session's shared memory "},
    {GUARD_REGION_WRITTEN, "region-written", "INCONSISTENT",
     "any non-zero byte of the message area beyond what the windows used, at close",
     "memory kept there would be in no figure", "the library wrote into "},
    {GUARD_SAME_DIGESTS, "digests-unread", "INCONSISTENT",
     "the window's digests cannot be read back",
     "every window's digests are kept for the independent check",
     "the session's digests "},
    {GUARD_OUTPUT_AFTER_END, "output-after-end", "INCONSISTENT",
     "any byte the probe writes after the end of its session",
     "only the probe speaks on its channel", "the probe wrote "},
    {GUARD_GAINED_CPU, "gained-cpu", "INCONSISTENT",
     "any CPU time gained while stopped between windows",
     "work between windows escapes every figure", "the session used "},
    {GUARD_WAITS, "waits", "FAILED",
     "more voluntary switches in a window than an empty window's and 2",
     "a hash does not sleep; time it waits is not in its CPU time",
     "the library slept or waited "},
    {GUARD_WARMUPS, "warm-ups", "INCONSISTENT",
     "untimed warm-ups costing more than 3 times their calls and 50 ms, all of a "
     "cell's together",
     "work where nothing is timed", "its untimed warm-ups used "},
    {GUARD_PINNED_CPU, "pinned-cpu", "INCONSISTENT",
     "a window run on another core than the one it is pinned to",
     "the figure must be of the measuring core", "the session ran on CPU "},
    {GUARD_CALIBRATION, "calibration", "INCONSISTENT",
     "windows more than 3 times cheaper per call than calibration, taken twice",
     "a library slow only while it is calibrated steers its plan",
     "its windows cost "},
    {GUARD_CYCLES, "cycles", "FAILED",
     "the cycle counter not running for a whole window in 4 attempts",
     "a multiplexed count is a scaled guess", "the cycle counter on the probe "},
    {GUARD_DIGESTS, "digests", "INCONSISTENT",
     "any sampled timed digest the independent check does not reproduce",
     "a figure is only of code that computes the function",
     "the independent check of its digests: "},
    {GUARD_BASELINE_FAILED, "baseline-failed", "FAILED",
     "the session of the cell's primary baseline failed",
     "a ratio needs its baseline", "the baseline's session failed: "},
    {GUARD_GROWTH, "growth", "INCONSISTENT",
     "resident growth of the timed session beyond its image, the memory run's stack "
     "and heap, and 384 KiB plus twice the message",
     "its memory figures would not be those of the code timed",
     "the timed session grew by "},
};

void guard_text(char *out, size_t sz, guard_id id, const char *fmt, ...)
{
    const guard_rule *r = &guard_rules[id];
    int n = strcmp(r->status, "FAILED") == 0
                ? snprintf(out, sz, "%s", r->lead)
                : snprintf(out, sz, "%s: %s", r->status, r->lead);
    if (n < 0 || (size_t)n >= sz)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + n, sz - (size_t)n, fmt, ap);
    va_end(ap);
}

const guard_rule *guard_rule_of_text(const char *failure)
{
    const guard_rule *best = NULL;
    size_t best_len = 0;
    for (int i = 0; failure && i < GUARD_N; i++) {
        const guard_rule *r = &guard_rules[i];
        const char *p = failure;
        if (strcmp(r->status, "FAILED") != 0) {
            size_t k = strlen(r->status);
            if (strncmp(p, r->status, k) != 0 || strncmp(p + k, ": ", 2) != 0)
                continue;
            p += k + 2;
        }
        size_t len = strlen(r->lead);
        if (strncmp(p, r->lead, len) == 0 && len > best_len) {
            best = r;
            best_len = len;
        }
    }
    return best;
}

int guard_gained_cpu(long long gained_ns, char *out, size_t sz)
{
    if (gained_ns == 0)
        return 0;
    guard_text(out, sz, GUARD_GAINED_CPU, "%lld ns of CPU time outside its windows",
               gained_ns);
    return 1;
}

int guard_waits(long long waits, long long empty, unsigned long long calls, char *out,
                size_t sz)
{
    if (empty < 0 || waits <= empty + GUARD_WAIT_SLACK)
        return 0;
    guard_text(out, sz, GUARD_WAITS, "%lld times in a window of %llu calls (an empty "
               "window: %lld): hashing may not block, and the time it waits is not in its "
               "CPU time", waits, calls, empty);
    return 1;
}

int guard_warmups(double cpu_ns, double expect_ns, char *out, size_t sz)
{
    if (cpu_ns <= GUARD_CALIB_FACTOR * expect_ns + GUARD_WARMUP_SLACK_NS)
        return 0;
    guard_text(out, sz, GUARD_WARMUPS, "%.1f ms of CPU time where their calls cost %.1f ms: "
               "work outside the timed windows", cpu_ns / 1e6, expect_ns / 1e6);
    return 1;
}

int guard_pinned_cpu(int ran, int pinned, char *out, size_t sz)
{
    if (ran < 0 || pinned < 0 || ran == pinned)
        return 0;
    guard_text(out, sz, GUARD_PINNED_CPU, "%d, pinned to CPU %d", ran, pinned);
    return 1;
}

int guard_calibration(double per_ns, double calib_ns, int recalibrated, char *out,
                      size_t sz)
{
    if (per_ns * GUARD_CALIB_FACTOR >= calib_ns)
        return 0;
    if (!recalibrated)
        return 1;
    guard_text(out, sz, GUARD_CALIBRATION, "%.1f ns per call where calibration, taken "
               "twice, found %.1f (more than %.0fx apart)", per_ns, calib_ns,
               GUARD_CALIB_FACTOR);
    return 2;
}

int guard_growth(long long grew_kib, long long from_kib, int before_load, long long peak_kib,
                 long long image_kib, long long found_kib, long long slack_kib, char *out,
                 size_t sz)
{
    if (grew_kib <= found_kib + image_kib + slack_kib)
        return 0;
    guard_text(out, sz, GUARD_GROWTH, "%lld KiB of resident memory (%lld KiB %s to a peak "
               "of %lld KiB, read from outside), more than its loaded image (%lld KiB), the "
               "stack and heap its memory run found (%lld KiB) and %lld KiB of slack account "
               "for: its memory figures would not be those of the code timed (memory the "
               "library maps itself, not through malloc, is counted in neither)", grew_kib,
               from_kib, before_load ? "before it loaded the library" : "once open",
               peak_kib, image_kib, found_kib, slack_kib);
    return 1;
}
