/* hashbench-probe: one measurement trial in a fresh process. It pins itself
 * to a core, dlopens one library, prepares the message of the requested size
 * (rule in probe_codes.h) so that its last byte sits just before an
 * inaccessible page, and checks before any timing that two calls give the
 * same digest, leave the message unchanged, return 0 and write nothing
 * outside the digest (guard bytes). It then runs the warm-up calls, times
 * exactly --calls calls in a loop with the chosen counter and
 * CLOCK_MONOTONIC_RAW, reads around that loop the thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID) and its voluntary and involuntary context
 * switches (getrusage RUSAGE_THREAD), so the planner can tell a preempted
 * trial from an undisturbed one, and prints ONE line of key=value pairs on its
 * original standard output (the library's own output goes to standard
 * error). With --memory it also runs one call on a painted stack with heap
 * tracking. Every failure has its own exit code (probe_codes.h) and a
 * "status=WORD reason=..." line. Links only libc and libdl. */
#include "counter_read.h"
#include "probe.h"
#include "probe_codes.h"

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define GUARD_BYTES 64
#define GUARD_FILL 0x5C
#define MEMORY_STACK_BYTES (8u << 20)

typedef struct probe_args {
    const char *lib;
    unsigned long long size;
    unsigned long long calls;
    unsigned long long warmup;
    int cpu;
    counter_kind counter;
    int digest_bits;
    int memory;
} probe_args;

static FILE *result_out; /* the original standard output */

static int fail(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int fail(int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    fprintf(result_out ? result_out : stdout, "status=%s reason=%s\n",
            probe_exit_word(code), msg);
    fflush(result_out ? result_out : stdout);
    return code;
}

static const char usage[] =
    "usage: hashbench-probe --lib PATH --size BYTES --calls N --warmup N\n"
    "         --cpu N --counter perf|tsc|cntvct|none --digest-bits B\n"
    "         [--calibrate K] [--memory]\n";

static int parse_ull(const char *s, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return -1;
    *out = v;
    return 0;
}

static int parse_args(int argc, char **argv, probe_args *a)
{
    memset(a, 0, sizeof *a);
    a->cpu = -1;
    a->counter = counter_arch_kind();
    unsigned long long v;
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i];
        if (!strcmp(k, "--memory")) {
            a->memory = 1;
            continue;
        }
        if (i + 1 >= argc)
            return fail(PROBE_USAGE, "option %s needs a value\n%s", k, usage);
        const char *val = argv[++i];
        if (!strcmp(k, "--lib")) {
            a->lib = val;
        } else if (!strcmp(k, "--counter")) {
            if (counter_kind_parse(val, &a->counter) != 0)
                return fail(PROBE_USAGE, "unknown counter '%s'", val);
        } else if (parse_ull(val, &v) != 0) {
            return fail(PROBE_USAGE, "option %s needs a non-negative integer, "
                                     "not '%s'", k, val);
        } else if (!strcmp(k, "--size")) {
            a->size = v;
        } else if (!strcmp(k, "--calls") || !strcmp(k, "--calibrate")) {
            a->calls = v;
        } else if (!strcmp(k, "--warmup")) {
            a->warmup = v;
        } else if (!strcmp(k, "--cpu")) {
            a->cpu = (int)v;
        } else if (!strcmp(k, "--digest-bits")) {
            a->digest_bits = (int)v;
        } else {
            return fail(PROBE_USAGE, "unknown option %s; %s", k, usage);
        }
    }
    if (!a->lib || a->digest_bits <= 0 || a->digest_bits % 8 || a->digest_bits > 65536)
        return fail(PROBE_USAGE, "--lib and --digest-bits (a multiple of 8) "
                                 "are required; %s", usage);
    return 0;
}

/* A message of SIZE bytes ending just before 1 MiB of PROT_NONE pages, so
 * that a read even far past its end faults (the span costs address space
 * only, no memory). */
#define MSG_GUARD_SPAN (1UL << 20)
static unsigned char *map_message(unsigned long long size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = (size_t)((size + page - 1) / page);
    size_t guard = (MSG_GUARD_SPAN + page - 1) / page * page;
    unsigned char *base = mmap(NULL, pages * page + guard, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    if (mprotect(base + pages * page, guard, PROT_NONE) != 0)
        return NULL;
    unsigned char *msg = base + pages * page - size;
    for (unsigned long long i = 0; i < size; i++)
        msg[i] = probe_message_byte(i, size);
    return msg;
}

static int guards_intact(const unsigned char *buf, size_t digest_bytes)
{
    for (size_t i = 0; i < GUARD_BYTES; i++)
        if (buf[i] != GUARD_FILL || buf[GUARD_BYTES + digest_bytes + i] != GUARD_FILL)
            return 0;
    return 1;
}

static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long v = -1;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == ':') {
            v = strtol(line + kl + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

typedef struct probe_ctx {
    probe_hash_fn fn;
    unsigned char *msg, *copy, *buf, *digest, *first;
    size_t digest_bytes;
    unsigned long long bits;
    int digest_bits;
} probe_ctx;

/* Not a failure yet: 1 when some byte kept its fill (0x00 in the first
 * call, 0xFF in the second), i.e. the function did not write it. */
static int unwritten(const unsigned char *first, const unsigned char *second,
                     size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (first[i] == 0x00 && second[i] == 0xFF)
            return 1;
    return 0;
}

/* One call of the checks; FILL is the digest's content before it. */
static int checked_call(probe_ctx *c, unsigned long long size, int fill)
{
    memset(c->digest, fill, c->digest_bytes);
    int rc = c->fn(c->digest_bits, c->msg, c->bits, c->digest);
    if (rc != 0)
        return fail(PROBE_ERROR_RETURN, "CryptHash returned %d on a %llu-byte message",
                    rc, size);
    if (memcmp(c->msg, c->copy, size) != 0)
        return fail(PROBE_INPUT_MODIFIED, "CryptHash changed its input message");
    if (!guards_intact(c->buf, c->digest_bytes))
        return fail(PROBE_OVERFLOW, "CryptHash wrote outside the %zu-byte digest",
                    c->digest_bytes);
    return 0;
}

/* The checks before timing: return 0, input unchanged, no write outside the
 * digest, every digest byte written, the same digest twice. */
static int check_library(probe_ctx *c, unsigned long long size)
{
    int rc = checked_call(c, size, 0x00);
    if (rc)
        return rc;
    memcpy(c->first, c->digest, c->digest_bytes);
    if ((rc = checked_call(c, size, 0xFF)) != 0)
        return rc;
    if (memcmp(c->first, c->digest, c->digest_bytes) != 0) {
        if (unwritten(c->first, c->digest, c->digest_bytes))
            return fail(PROBE_UNWRITTEN, "CryptHash left bytes of the %zu-byte "
                        "digest unwritten", c->digest_bytes);
        return fail(PROBE_NONDETERMINISTIC, "two calls on the same message gave "
                                            "different digests");
    }
    return 0;
}

static int setup(const probe_args *a, probe_ctx *c)
{
    if (a->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(a->cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0)
            return fail(PROBE_SETUP, "cannot pin to cpu %d: %s", a->cpu,
                        strerror(errno));
    }
    void *h = dlopen(a->lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return fail(PROBE_LOADFAIL, "dlopen: %s", dlerror());
    c->fn = (probe_hash_fn)dlsym(h, "CryptHash");
    if (!c->fn)
        return fail(PROBE_LOADFAIL, "no CryptHash in %s", a->lib);
    c->digest_bits = a->digest_bits;
    c->digest_bytes = (size_t)a->digest_bits / 8;
    c->bits = a->size * 8;
    c->msg = map_message(a->size);
    c->copy = malloc(a->size + 1);
    c->buf = malloc(c->digest_bytes + 2 * GUARD_BYTES);
    c->first = malloc(c->digest_bytes);
    if (!c->msg || !c->copy || !c->buf || !c->first)
        return fail(PROBE_SETUP, "cannot allocate a %llu-byte message", a->size);
    memcpy(c->copy, c->msg, a->size);
    memset(c->buf, GUARD_FILL, c->digest_bytes + 2 * GUARD_BYTES);
    c->digest = c->buf + GUARD_BYTES;
    return 0;
}

static void print_hex(FILE *f, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%02x", p[i]);
}

/* The thread's CPU time in ns, or 0 when the clock is unavailable. */
static unsigned long long thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* The thread's context switch counts; -1 each when getrusage fails. */
static void thread_switches(long *voluntary, long *involuntary)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0) {
        *voluntary = *involuntary = -1;
        return;
    }
    *voluntary = ru.ru_nvcsw;
    *involuntary = ru.ru_nivcsw;
}

static int run(const probe_args *a)
{
    probe_ctx c;
    memset(&c, 0, sizeof c);
    int rc = setup(a, &c);
    if (rc)
        return rc;
    long rss_base = status_kb("VmRSS");
    rc = check_library(&c, a->size);
    if (rc)
        return rc;
    counter_reader r;
    if (counter_reader_open(&r, a->counter) != 0)
        return fail(PROBE_NOCOUNTER, "counter %s unavailable: %s",
                    counter_kind_name(a->counter), strerror(errno));
    int bad = 0;
    for (unsigned long long i = 0; i < a->warmup; i++)
        bad |= c.fn(c.digest_bits, c.msg, c.bits, c.digest);
    long vcsw0, ivcsw0, vcsw1, ivcsw1;
    thread_switches(&vcsw0, &ivcsw0);
    unsigned long long cpu0 = thread_cpu_ns();
    uint64_t t0 = counter_clock_ns();
    uint64_t k0 = counter_reader_read(&r);
    for (unsigned long long i = 0; i < a->calls; i++)
        bad |= c.fn(c.digest_bits, c.msg, c.bits, c.digest);
    uint64_t k1 = counter_reader_read(&r);
    uint64_t t1 = counter_clock_ns();
    unsigned long long cpu1 = thread_cpu_ns();
    thread_switches(&vcsw1, &ivcsw1);
    counter_reader_close(&r);
    if (bad)
        return fail(PROBE_ERROR_RETURN, "CryptHash returned non-zero during timing");
    if (memcmp(c.msg, c.copy, a->size) != 0)
        return fail(PROBE_INPUT_MODIFIED, "CryptHash changed its input message");
    if (!guards_intact(c.buf, c.digest_bytes))
        return fail(PROBE_OVERFLOW, "CryptHash wrote outside the digest");
    if (memcmp(c.first, c.digest, c.digest_bytes) != 0)
        return fail(PROBE_NONDETERMINISTIC, "the digest changed during timing");

    size_t stack_peak = 0;
    probe_heap_stats heap = {0, 0, 0};
    if (a->memory) {
        int mrc = 0;
        if (probe_stack_run(c.fn, c.digest_bits, c.msg, c.bits, c.digest,
                            MEMORY_STACK_BYTES, &stack_peak, &heap, &mrc) != 0)
            return fail(PROBE_SETUP, "cannot run a call on a painted stack");
        if (mrc != 0)
            return fail(PROBE_ERROR_RETURN, "CryptHash returned %d", mrc);
    }
    FILE *o = result_out;
    fprintf(o, "status=ok counter=%s ticks=%llu ns=%llu calls=%llu warmup=%llu "
               "size=%llu pid=%ld cpu=%d rss_baseline_kb=%ld rss_peak_kb=%ld",
            counter_kind_name(a->counter), (unsigned long long)(k1 - k0),
            (unsigned long long)(t1 - t0), a->calls, a->warmup, a->size,
            (long)getpid(), sched_getcpu(), rss_base, status_kb("VmHWM"));
    /* CPU time and switches are printed only when both reads worked. */
    if (cpu0 && cpu1 >= cpu0 && vcsw0 >= 0 && vcsw1 >= 0)
        fprintf(o, " cpu_ns=%llu vcsw=%ld ivcsw=%ld", cpu1 - cpu0, vcsw1 - vcsw0,
                ivcsw1 - ivcsw0);
    if (a->memory)
        fprintf(o, " stack_peak_bytes=%zu heap_peak_bytes=%zu heap_allocs=%zu "
                   "heap_approximate=%d",
                stack_peak, heap.peak_bytes, heap.allocs, heap.approximate);
    fprintf(o, " digest=");
    print_hex(o, c.digest, c.digest_bytes);
    fprintf(o, "\n");
    fflush(o);
    return PROBE_OK;
}

int main(int argc, char **argv)
{
    /* Keep the original stdout for the result; the library's prints go to
     * stderr so they cannot be mistaken for it. */
    int fd = dup(1);
    if (fd >= 0 && dup2(2, 1) >= 0)
        result_out = fdopen(fd, "w");
    if (!result_out)
        result_out = stdout;
    probe_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc;
    return run(&a);
}
