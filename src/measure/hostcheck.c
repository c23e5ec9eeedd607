/* The host check (see check.h): gathering the live facts and judging them.
 * Each judge_* function writes one verdict; a problem always carries the
 * command or setting that fixes it, because the person reading it is about
 * to run a campaign and needs to know what to change, not only what is
 * wrong. */
#include "measure/hostcheck.h"

#include <openssl/evp.h>

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "measure/stats.h"
#include "measure/counter.h"

static check_item *next_item(check_item *items, int *n, const char *name)
{
    check_item *it = &items[(*n)++];
    memset(it, 0, sizeof *it);
    snprintf(it->item, sizeof it->item, "%s", name);
    return it;
}

static void set_ok(check_item *it, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void set_ok(check_item *it, const char *fmt, ...)
{
    va_list ap;
    it->ok = 1;
    va_start(ap, fmt);
    vsnprintf(it->detail, sizeof it->detail, fmt, ap);
    va_end(ap);
}

static void set_problem(check_item *it, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_problem(check_item *it, const char *fix, const char *fmt, ...)
{
    va_list ap;
    it->ok = 0;
    va_start(ap, fmt);
    vsnprintf(it->detail, sizeof it->detail, fmt, ap);
    va_end(ap);
    snprintf(it->fix, sizeof it->fix, "%s", fix);
}

static int is_aarch64(const host_info *h)
{
    return strcmp(h->arch, "aarch64") == 0 || strcmp(h->arch, "arm64") == 0;
}

static int freq_pinned(const host_info *h)
{
    return h->scaling_min_khz > 0 && h->scaling_min_khz == h->scaling_max_khz;
}

static void judge_counter(const check_facts *f, check_item *it)
{
    if (f->counter == COUNTER_PERF_CYCLES) {
        set_ok(it, "hardware core cycles through perf_event_open");
        return;
    }
    const char *fix = "enable the kernel's perf events and the processor's PMU, "
                      "or measure on a host that has them";
    if (f->perf_errno == EACCES || f->perf_errno == EPERM)
        fix = "allow user-space counting: sudo sysctl kernel.perf_event_paranoid=2";
    else if (f->host.hypervisor)
        fix = "this VM exposes no PMU: measure on bare metal, or give the guest "
              "a virtual PMU (e.g. QEMU/KVM -cpu host,pmu=on)";
    set_problem(it, fix, "no hardware cycle counter (%s); timings are %s ticks, "
                "not core cycles", f->counter_reason, counter_name(f->counter));
}

static void judge_paranoid(const host_info *h, check_item *it)
{
    int p = h->perf_event_paranoid;
    if (p == -99)
        set_problem(it, "make /proc/sys/kernel/perf_event_paranoid readable "
                    "(mount procfs)", "unknown: perf_event_paranoid cannot be read");
    else if (p > 2)
        set_problem(it, "sudo sysctl kernel.perf_event_paranoid=2",
                    "%d forbids counting even a process's own user-space cycles", p);
    else
        set_ok(it, "%d (a process may count its own user-space cycles)", p);
}

static void judge_governor(const host_info *h, int cpu, check_item *it)
{
    char fix[256];
    if (!h->governor[0] && h->scaling_min_khz < 0) {
        if (is_aarch64(h))
            snprintf(fix, sizeof fix, "measure on a host that exposes cpufreq "
                     "for CPU %d, with scaling min = max: sudo cpupower -c %d "
                     "frequency-set -d FREQ -u FREQ", cpu, cpu);
        else
            snprintf(fix, sizeof fix, "measure on a host that exposes cpufreq "
                     "for CPU %d, with a fixed frequency: sudo cpupower -c %d "
                     "frequency-set -g performance", cpu, cpu);
        set_problem(it, fix, "no cpufreq for CPU %d: the frequency can be neither "
                    "read nor fixed (a VM, or no cpufreq driver)", cpu);
        return;
    }
    if (freq_pinned(h)) {
        set_ok(it, "%s, frequency pinned: scaling min = max = %ld kHz",
               h->governor[0] ? h->governor : "no governor", h->scaling_max_khz);
        return;
    }
    if (is_aarch64(h)) {
        snprintf(fix, sizeof fix, "pin the frequency: sudo cpupower -c %d "
                 "frequency-set -d %ldkHz -u %ldkHz", cpu, h->scaling_max_khz,
                 h->scaling_max_khz);
        set_problem(it, fix, "scaling min %ld kHz differs from max %ld kHz; on "
                    "AArch64 both must be equal", h->scaling_min_khz,
                    h->scaling_max_khz);
        return;
    }
    if (strcmp(h->governor, "performance") == 0) {
        set_ok(it, "performance (scaling %ld-%ld kHz)", h->scaling_min_khz,
               h->scaling_max_khz);
        return;
    }
    snprintf(fix, sizeof fix, "sudo cpupower -c %d frequency-set -g performance",
             cpu);
    set_problem(it, fix, "governor '%s' lets the frequency follow the load",
                h->governor[0] ? h->governor : "unknown");
}

static void judge_turbo(const host_info *h, check_item *it)
{
    if (h->turbo == 0) {
        set_ok(it, "off (%s)", h->turbo_source);
    } else if (h->turbo == 1) {
        const char *fix = strcmp(h->turbo_source, "intel_pstate/no_turbo") == 0
            ? "echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo"
            : "echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost";
        set_problem(it, fix, "on (%s): the clock rises above nominal while "
                    "thermal room lasts", h->turbo_source);
    } else if (is_aarch64(h) && freq_pinned(h)) {
        set_ok(it, "no boost control; the frequency is pinned (min = max)");
    } else {
        set_problem(it, "disable turbo/boost in the firmware (or the hypervisor) "
                    "and measure where its state is visible",
                    "unknown: neither intel_pstate/no_turbo nor cpufreq/boost "
                    "exists");
    }
}

static void judge_smt(const host_info *h, check_item *it)
{
    if (h->smt == 0) {
        set_ok(it, "off (%s%s%s)", h->smt_source,
               h->smt_control[0] ? ", control " : "", h->smt_control);
    } else if (h->smt == 1) {
        set_problem(it, "echo off | sudo tee /sys/devices/system/cpu/smt/control "
                    "(or disable SMT/Hyper-Threading in the firmware)",
                    "on: a sibling thread shares the measured core");
    } else {
        char control[48];
        snprintf(control, sizeof control, h->smt_control[0] ? "'%s'" : "absent",
                 h->smt_control);
        set_problem(it, "disable SMT in the firmware, or give the VM dedicated "
                    "physical cores, and confirm with lscpu",
                    "unknown: SMT control %s%s", control, h->hypervisor
                    ? ", and a VM's topology does not show the host's sibling "
                      "threads" : "");
    }
}

static void judge_pinning(const check_facts *f, check_item *it)
{
    char fix[256];
    snprintf(fix, sizeof fix, "choose a core this process may run on with "
             "--cpu (see taskset -cp $$); CPU %d failed", f->cpu);
    if (!f->pin_tested)
        set_problem(it, fix, "not tested");
    else if (f->pin_ok)
        set_ok(it, "%s", f->pin_detail);
    else
        set_problem(it, fix, "%s", f->pin_detail);
}

/* The windows of the two steadiness tests: MOST (CHECK_*_WINDOWS), or
 * fewer, 2 at least, when HB_TEST_CHECK_WINDOWS says so: the test suite
 * starts about a hundred campaigns, all with --allow-unfit-host, and sets it
 * to 2. The verdicts' texts give the number used. */
static int check_windows(int most)
{
    const char *v = getenv("HB_TEST_CHECK_WINDOWS");
    int n = v ? atoi(v) : 0;
    return n >= 2 && n < most ? n : most;
}

static void judge_steadiness(const check_facts *f, check_item *it)
{
    const char *fix = "stop other work, fix the frequency (governor, turbo) and "
                      "isolate the core (isolcpus=, nohz_full=)";
    if (!f->steady_tested)
        set_problem(it, fix, "not measured");
    else if (f->spread_percent <= CHECK_MAX_SPREAD_PERCENT)
        set_ok(it, "%s rate %.4g MHz, spread %.3f%% over %d windows of %g ms",
               counter_name(f->counter), f->rate_hz / 1e6, f->spread_percent,
               check_windows(CHECK_STEADY_WINDOWS), CHECK_STEADY_WINDOW_S * 1e3);
    else
        set_problem(it, fix, "%s rate spread %.3f%% over %d windows of %g ms "
                    "(more than %g%%)", counter_name(f->counter),
                    f->spread_percent, check_windows(CHECK_STEADY_WINDOWS),
                    CHECK_STEADY_WINDOW_S * 1e3, CHECK_MAX_SPREAD_PERCENT);
}

static void judge_throughput(const check_facts *f, check_item *it)
{
    const char *fix = "measure on a machine whose core is not shared (no other "
                      "virtual machine or job on it, fixed frequency); on a shared "
                      "host compare instances by their paired ratios to the baseline";
    if (!f->work_tested)
        set_problem(it, fix, "not measured");
    else if (f->work_spread_percent <= CHECK_MAX_WORK_SPREAD_PERCENT)
        set_ok(it, "a fixed workload's throughput spread %.2f%% over %d windows of "
               "%g ms", f->work_spread_percent, check_windows(CHECK_WORK_WINDOWS),
               CHECK_WORK_WINDOW_S * 1e3);
    else
        set_problem(it, fix, "a fixed workload's throughput spread %.1f%% over %d "
                    "windows of %g ms (more than %g%%): absolute figures from this "
                    "host move with the moment they are taken",
                    f->work_spread_percent, check_windows(CHECK_WORK_WINDOWS),
                    CHECK_WORK_WINDOW_S * 1e3, CHECK_MAX_WORK_SPREAD_PERCENT);
}

static void judge_load(const host_info *h, check_item *it)
{
    if (h->loadavg1 < 0)
        set_problem(it, "make /proc/loadavg readable (mount procfs)",
                    "unknown: /proc/loadavg cannot be read");
    else if (h->loadavg1 > CHECK_MAX_LOADAVG)
        set_problem(it, "wait for other jobs to finish, or move them off this "
                    "machine", "load average %.2f over the last minute (more "
                    "than %g)", h->loadavg1, CHECK_MAX_LOADAVG);
    else
        set_ok(it, "load average %.2f over the last minute", h->loadavg1);
}

int check_judge(const check_facts *f, check_item *items, int *n)
{
    int problems = 0;
    *n = 0;
    judge_counter(f, next_item(items, n, "counter"));
    judge_paranoid(&f->host, next_item(items, n, "perf_event_paranoid"));
    judge_governor(&f->host, f->cpu, next_item(items, n, "governor"));
    judge_turbo(&f->host, next_item(items, n, "turbo"));
    judge_smt(&f->host, next_item(items, n, "smt"));
    judge_pinning(f, next_item(items, n, "pinning"));
    judge_steadiness(f, next_item(items, n, "clock_steadiness"));
    judge_throughput(f, next_item(items, n, "throughput_steadiness"));
    judge_load(&f->host, next_item(items, n, "load"));
    for (int i = 0; i < *n; i++)
        problems += !items[i].ok;
    return problems;
}

/* The spread of a fixed workload's throughput (SHA-256 of 4 KiB, as many
 * as fit) over CHECK_WORK_WINDOWS windows: (max - min) / median * 100. */
static int work_steadiness(double *spread)
{
    unsigned char buf[4096], md[EVP_MAX_MD_SIZE];
    double rate[CHECK_WORK_WINDOWS];
    int windows = check_windows(CHECK_WORK_WINDOWS);
    memset(buf, 0x5a, sizeof buf);
    for (int w = 0; w < windows; w++) {
        double t0 = hb_mono_s(), t = t0;
        unsigned long n = 0;
        while ((t = hb_mono_s()) - t0 < CHECK_WORK_WINDOW_S) {
            for (int k = 0; k < 16; k++)
                if (EVP_Digest(buf, sizeof buf, md, NULL, EVP_sha256(), NULL) != 1)
                    return -1;
            buf[n++ % sizeof buf] ^= md[0];
        }
        rate[w] = (double)n / (t - t0);
    }
    double lo = rate[0], hi = rate[0];
    for (int w = 1; w < windows; w++) {
        lo = rate[w] < lo ? rate[w] : lo;
        hi = rate[w] > hi ? rate[w] : hi;
    }
    double med = stats_median(rate, (size_t)windows);
    if (!(med > 0))
        return -1;
    *spread = (hi - lo) / med * 100.0;
    return 0;
}

/* Pins the calling thread to F->cpu, measures the counter's steadiness
 * there, and restores the previous affinity. */
static void pin_and_measure(check_facts *f)
{
    cpu_set_t old, one;
    f->pin_tested = 1;
    if (sched_getaffinity(0, sizeof old, &old) != 0 || f->cpu < 0 ||
        f->cpu >= CPU_SETSIZE) {
        snprintf(f->pin_detail, sizeof f->pin_detail, "CPU %d is not a valid "
                 "core number", f->cpu);
        return;
    }
    CPU_ZERO(&one);
    CPU_SET(f->cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) {
        snprintf(f->pin_detail, sizeof f->pin_detail, "sched_setaffinity to "
                 "CPU %d: %s", f->cpu, strerror(errno));
        return;
    }
    int now = sched_getcpu();
    f->pin_ok = now == f->cpu;
    snprintf(f->pin_detail, sizeof f->pin_detail, "pinned to CPU %d; running "
             "on CPU %d", f->cpu, now);
    hb_err ignored;
    f->steady_tested = counter_steadiness(f->counter, check_windows(CHECK_STEADY_WINDOWS),
                                          CHECK_STEADY_WINDOW_S, &f->rate_hz,
                                          &f->spread_percent, &ignored) == 0;
    f->work_tested = work_steadiness(&f->work_spread_percent) == 0;
    sched_setaffinity(0, sizeof old, &old);
}

int check_gather(const char *root, int cpu, check_facts *f, hb_err *err)
{
    memset(f, 0, sizeof *f);
    f->cpu = cpu;
    if (host_read(root, cpu, &f->host, err) < 0)
        return -1;
    counter_state cs;
    if (counter_select(&cs, NULL, NULL, err) < 0)
        return -1;
    f->counter = cs.kind;
    f->perf_errno = cs.perf_errno;
    snprintf(f->counter_reason, sizeof f->counter_reason, "%s", cs.reason);
    pin_and_measure(f);
    return 0;
}

json_t *check_items_json(const check_item *items, int n)
{
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "item", json_string(items[i].item));
        json_object_set_new(o, "ok", json_boolean(items[i].ok));
        json_object_set_new(o, "detail", json_string(items[i].detail));
        json_object_set_new(o, "fix", json_string(items[i].fix));
        json_array_append_new(arr, o);
    }
    return arr;
}

json_t *check_counter_json(const check_facts *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(counter_name(f->counter)));
    json_object_set_new(o, "is_cycles", json_boolean(counter_is_cycles(f->counter)));
    json_object_set_new(o, "reason", json_string(f->counter_reason));
    json_object_set_new(o, "rate_hz", f->steady_tested ? json_real(f->rate_hz)
                                                       : json_null());
    json_object_set_new(o, "spread_percent", f->steady_tested
                        ? json_real(f->spread_percent) : json_null());
    json_object_set_new(o, "throughput_spread_percent", f->work_tested
                        ? json_real(f->work_spread_percent) : json_null());
    return o;
}

void check_print(FILE *fp, const check_item *items, int n)
{
    for (int i = 0; i < n; i++) {
        fprintf(fp, "  %-8s %-19s %s\n", items[i].ok ? "ok" : "PROBLEM",
                items[i].item, items[i].detail);
        if (!items[i].ok)
            fprintf(fp, "  %-8s %-19s fix: %s\n", "", "", items[i].fix);
    }
}
