/* hashbench-probe: the one process in which hashbench runs submitted code
 * natively, whatever it asks of it (runner/start.h: every role started
 * alike). Its path is its only argument; its options come in its first line
 * (probe_wire.h, the configure line). Before the library is loaded it
 * reads that line, keeps its two pipes on descriptors 3 and 4 and closes
 * every other one, points its standard input, output and error at
 * /dev/null, gives every signal its default disposition, maps its shared
 * region, and stops itself once for hashbench to read it. Then by role:
 * - runner (probe_runner.c): the requests of runner/protocol.h (KATs,
 *   vector and variant checks, recomputed digests);
 * - trial: one measurement trial. It dlopens the library, prepares two
 *   message buffers of the requested size, each ending just before
 *   inaccessible pages, and checks on the fixed message (rule in
 *   probe_codes.h) that two calls give the same digest, leave the message
 *   unchanged, return 0 and write nothing outside the digest (guard
 *   bytes). It runs the warm-up calls, with memory=1 one call on a painted
 *   stack with heap tracking, and says "ready". Then it waits for the
 *   trial's seed: from it come the messages, one per call and each
 *   different (trial_msg.h), the timed loop runs exactly the asked calls
 *   over the two buffers in turn, each digest into its own slot, timed
 *   with the chosen counter and CLOCK_MONOTONIC_RAW, with the thread's CPU
 *   time and context switches read around the loop so the planner can tell
 *   a preempted trial. Every digest is folded after the clock stops, and
 *   ONE result line goes to the parent;
 * - session: many windows (probe_wire.h, "Sessions"; measure/session.h):
 *   the checks once at open, then one loop per "window" line over the
 *   messages hashbench wrote into the shared region, chained (chain.h),
 *   and the region's pages touched on a "touch" line.
 * Every failure has its own exit code (probe_codes.h) and a result line
 * with its status word and reason. Links only libc, libdl and libseccomp
 * (for its filter refusing new code after the load); runs under the
 * sandbox's SESSION profile in every role (no new processes, no threads,
 * no timers). */
#include "common/fdio.h"
#include "common/steplimit.h"
#include "counter_read.h"
#include "probe.h"
#include "probe_codes.h"
#include "probe_wire.h"
#include "chain.h"
#include "kat/guard.h"

#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define GUARD_BYTES 64
#define GUARD_FILL 0x5C
#define MEMORY_STACK_BYTES (8u << 20)
#define MAX_TRIAL_BYTES (256u << 20) /* digests and words of one trial */

typedef struct probe_args {
    const char *lib;
    unsigned long long size;
    unsigned long long calls;
    unsigned long long warmup;
    int cpu;
    counter_kind counter;
    int digest_bits;
    int memory;
    int session;                 /* 1: serve windows (probe_wire.h, sessions) */
    int runner;                  /* 1: answer requests (runner/protocol.h) */
    int shm_fd;                  /* with session: the shared region ... */
    unsigned long long shm_msgs; /* ... its message bytes ... */
    unsigned long long shm_bytes; /* ... and its whole size */
} probe_args;

/* The private ends of the two pipes and the parent's nonce. */
static struct {
    int in, out;
    int region; /* a session's shared region until it is mapped, or -1 */
    char nonce[PROBE_WIRE_NONCE_HEX];
} chan = {-1, -1, -1, ""};

/* One line from FD without its newline; -1 on end of input, an error, or a
 * line that does not fit CAP. */
static int read_line(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        n += (size_t)r;
        char *nl = memchr(buf, '\n', n);
        if (nl) {
            *nl = '\0';
            return nl + 1 == buf + n ? 0 : -1; /* one line per write */
        }
    }
    return -1;
}

static int is_hex(const char *s, size_t n)
{
    return strlen(s) == n && strspn(s, "0123456789abcdef") == n;
}

void probe_stop_self(void)
{
    raise(SIGSTOP);
    struct pollfd p = {chan.in, POLLIN, 0};
    if (poll(&p, 1, 0) == 1 && (p.revents & POLLHUP))
        _exit(PROBE_USAGE); /* hashbench is gone: nobody to tell */
}

/* The configure line (probe_wire.h), the first from hashbench: kept
 * until it is parsed, then wiped, so that no library finds it in memory. */
static char config_line[PROBE_WIRE_CONFIG_LINE];

/* Reads the configure line from standard input, moves both pipes to
 * descriptors 3 and 4 (the same in every role), closes every other one and
 * sends the standard streams to /dev/null, so that nothing the library
 * prints can be taken for the probe's lines. */
static int channel_open(void)
{
    if (read_line(0, config_line, sizeof config_line) != 0 ||
        strncmp(config_line, "nonce ", 6) != 0 || strlen(config_line) < 6 + 32 + 1 ||
        config_line[6 + PROBE_WIRE_NONCE_HEX - 1] != ' ')
        return -1;
    memcpy(chan.nonce, config_line + 6, PROBE_WIRE_NONCE_HEX - 1);
    chan.nonce[PROBE_WIRE_NONCE_HEX - 1] = '\0';
    if (!is_hex(chan.nonce, PROBE_WIRE_NONCE_HEX - 1))
        return -1;
    /* a session's region, inherited: kept at descriptor 5 until the
     * session maps it and closes it, before the load */
    long keep = -1;
    const char *fd = strstr(config_line, " fd=");
    if (fd)
        keep = strtol(fd + 4, NULL, 10);
    int in = fcntl(0, F_DUPFD_CLOEXEC, 128), out = fcntl(1, F_DUPFD_CLOEXEC, 128);
    int region = keep >= 0 && keep < 1024 ? fcntl((int)keep, F_DUPFD_CLOEXEC, 128) : -1;
    int null = open("/dev/null", O_RDWR);
    if (in < 0 || out < 0 || (keep >= 0 && region < 0) || null < 0 || dup2(null, 0) < 0 ||
        dup2(null, 1) < 0 || dup2(null, 2) < 0)
        return -1;
    if (null > 2)
        close(null);
    close_range(3, 127, 0);
    chan.in = dup3(in, 3, O_CLOEXEC);
    chan.out = dup3(out, 4, O_CLOEXEC);
    chan.region = region >= 0 ? dup3(region, 5, O_CLOEXEC) : -1;
    close_range(chan.region >= 0 ? 6 : 5, ~0U, 0);
    /* its input's I/O signal is SIGCONT: when hashbench's end closes, a
     * stopped probe runs again and finds the end (probe_stop_self); while
     * it runs, the signal does nothing. Best effort (an emulator may not
     * pass it on): hashbench's watcher ends the probe otherwise. */
    int fl = fcntl(chan.in, F_GETFL);
    if (fl >= 0 && fcntl(chan.in, F_SETOWN, getpid()) == 0 &&
        fcntl(chan.in, F_SETSIG, SIGCONT) == 0 && fcntl(chan.in, F_SETFL, fl | O_ASYNC) != 0) {
        /* left as it was */
    }
    return chan.in == 3 && chan.out == 4 && (region < 0 || chan.region == 5) ? 0 : -1;
}

static int fail(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int fail(int code, const char *fmt, ...)
{
    char msg[512], line[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    int n = snprintf(line, sizeof line, "result nonce=%s status=%s reason=%s\n",
                     chan.nonce, probe_exit_word(code), msg);
    hb_fd_write_all(chan.out, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    return code;
}

/* After the result: nothing more from the probe; it ends when the parent
 * closes its input (so that the parent can read its figures from outside
 * while it still exists). */
static int finish(int code)
{
    char buf[64];
    close(chan.out);
    while (read(chan.in, buf, sizeof buf) > 0)
        ;
    return code;
}

static int parse_ull(const char *s, size_t n, unsigned long long *out)
{
    char buf[32], *end;
    if (n == 0 || n >= sizeof buf || s[0] == '-')
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* The options of the configure line (probe_wire.h): "key=value" words after
 * the nonce, the library's path last (the rest of the line). */
static int parse_config(probe_args *a)
{
    memset(a, 0, sizeof *a);
    a->cpu = -1;
    a->counter = counter_arch_kind();
    const char *p = config_line + 6 + PROBE_WIRE_NONCE_HEX;
    while (*p) {
        if (!strncmp(p, "lib=", 4)) {
            a->lib = p + 4;
            break;
        }
        size_t klen = strcspn(p, "="), wlen = strcspn(p, " ");
        if (klen >= wlen)
            return fail(PROBE_USAGE, "a configure word without a value");
        const char *v = p + klen + 1;
        size_t vlen = wlen - klen - 1;
        unsigned long long n = 0;
#define KEY(k) (klen == strlen(k) && !strncmp(p, k, klen))
        if (KEY("role")) {
            a->session = vlen == 7 && !strncmp(v, "session", 7);
            a->runner = vlen == 6 && !strncmp(v, "runner", 6);
            if (!a->session && !a->runner && !(vlen == 5 && !strncmp(v, "trial", 5)))
                return fail(PROBE_USAGE, "unknown role");
        } else if (KEY("counter")) {
            char name[32];
            snprintf(name, sizeof name, "%.*s", (int)(vlen < 31 ? vlen : 31), v);
            if (counter_kind_parse(name, &a->counter) != 0)
                return fail(PROBE_USAGE, "unknown counter '%s'", name);
        } else if (KEY("fd")) {
            /* the inherited descriptor: channel_open's; -1 for none */
        } else if (parse_ull(v, vlen, &n) != 0) {
            return fail(PROBE_USAGE, "configure word %.*s needs a non-negative integer",
                        (int)klen, p);
        } else if (KEY("size")) {
            a->size = n;
        } else if (KEY("calls")) {
            a->calls = n;
        } else if (KEY("warmup")) {
            a->warmup = n;
        } else if (KEY("bits")) {
            a->digest_bits = n <= 65536 ? (int)n : 0;
        } else if (KEY("memory")) {
            a->memory = n != 0;
        } else if (KEY("msgs")) {
            a->shm_msgs = n;
        } else if (KEY("bytes")) {
            a->shm_bytes = n;
        } else {
            return fail(PROBE_USAGE, "unknown configure word %.*s", (int)klen, p);
        }
#undef KEY
        p += wlen;
        while (*p == ' ')
            p++;
    }
    a->shm_fd = chan.region;
    if (a->shm_fd < 0)
        return fail(PROBE_USAGE, "no shared region (fd=)");
    if (!a->lib || !a->lib[0] || a->digest_bits <= 0 || a->digest_bits % 8)
        return fail(PROBE_USAGE, "the configure line needs bits= (a multiple of 8) "
                                 "and lib=");
    if (a->runner)
        return 0;
    if (a->session) {
        if (a->shm_fd < 3 || a->shm_msgs < a->size || a->shm_bytes <= a->shm_msgs ||
            a->memory || a->size == 0)
            return fail(PROBE_USAGE, "a session needs size=, a region (fd=), msgs= (at "
                                     "least one message) and bytes=");
        a->calls = 1; /* the checks' digest slots */
        return 0;
    }
    if (a->calls == 0)
        return fail(PROBE_USAGE, "calls= must be at least 1");
    return 0;
}

/* A message of SIZE bytes ending just before 1 MiB of PROT_NONE pages
 * (kat/guard.h, as the runner places its messages), filled with the
 * fixed message; NULL when it cannot be mapped. */
static unsigned char *map_message(unsigned long long size, kat_guarded *g)
{
    hb_err e;
    if (kat_guarded_alloc(g, (size_t)size, &e) != 0)
        return NULL;
    unsigned char *msg = kat_guarded_msg(g, (size_t)size);
    for (unsigned long long i = 0; i < size; i++)
        msg[i] = probe_message_byte(i, size);
    return msg;
}

/* BYTES of zeroed memory, touched now so that no page fault falls inside
 * the timed loop; NULL when it cannot be had. */
static void *map_touched(size_t bytes)
{
    void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    memset(p, 0, bytes);
    return p;
}

/* The GUARD_BYTES before and after the N bytes at P still hold their fill. */
static int guards_intact(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < GUARD_BYTES; i++)
        if (p[(ptrdiff_t)i - GUARD_BYTES] != GUARD_FILL || p[n + i] != GUARD_FILL)
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
    unsigned char *msg[PROBE_WIRE_BUFFERS]; /* msg[0] carries the checks */
    unsigned char *copy, *digest, *first;
    unsigned char *digests; /* the timed calls' digests, one slot each */
    kat_guarded check;      /* the checks' message, before its guard pages */
    kat_guarded buffers[PROBE_WIRE_BUFFERS]; /* the timed messages' */
    uint64_t *delta;        /* probe_window_words */
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

/* One call of the checks (kat/guard.h, the runner's guarded call: guard
 * pages after the message, its bytes compared after the call, guard bytes
 * around the digest), the digest's bytes set to FILL before it; its digest
 * into OUT. */
static int checked_call(probe_ctx *c, unsigned long long size, int fill, unsigned char *out)
{
    kat_fault f;
    hb_err e;
    memset(&f, 0, sizeof f);
    int rc = kat_guarded_call_fill(c->fn, c->digest_bits, &c->check, 8 * size, out, fill,
                                   &f, &e);
    if (rc < 0)
        return fail(PROBE_SETUP, "%s", e.msg);
    if (rc == 0)
        return 0;
    int code = f.kind == KAT_FAULT_OVERFLOW ? PROBE_OVERFLOW
               : f.kind == KAT_FAULT_INPUT  ? PROBE_INPUT_MODIFIED
                                            : PROBE_ERROR_RETURN;
    return fail(code, "%s on a %llu-byte message", f.detail, size);
}

/* The checks before timing: return 0, input unchanged, no write outside the
 * digest, every digest byte written, the same digest twice. */
static int check_library(probe_ctx *c, unsigned long long size)
{
    unsigned char *m = kat_guarded_msg(&c->check, (size_t)size);
    for (unsigned long long i = 0; i < size; i++)
        m[i] = probe_message_byte(i, size);
    int rc = checked_call(c, size, 0x00, c->first);
    if (rc == 0)
        rc = checked_call(c, size, 0xFF, c->digest);
    if (rc)
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

/* Digest slots for CALLS calls between two guard runs. */
static unsigned char *map_digests(unsigned long long calls, size_t d)
{
    unsigned char *p = map_touched((size_t)calls * d + 2 * GUARD_BYTES);
    if (!p)
        return NULL;
    memset(p, GUARD_FILL, GUARD_BYTES);
    memset(p + GUARD_BYTES + (size_t)calls * d, GUARD_FILL, GUARD_BYTES);
    return p + GUARD_BYTES;
}

/* The shared region of a session: the window's messages from byte 0, one
 * digest slot per call from byte MSGS. Mapped before the load (its
 * descriptor closed then, so that the library finds the descriptors of
 * every role alike). Its pages are touched when hashbench asks ("touch N":
 * the messages and digest slots of N calls, once it knows how long its
 * windows will be), so that no page fault of the region falls inside a
 * timed window and no page hashbench will not use is made resident: a
 * campaign holds a session per cell open, and the whole region of each
 * made resident cost more than every timed window together on a host
 * whose fresh pages are slow. */
typedef struct session_region {
    unsigned char *base;
    unsigned long long msgs, bytes;
} session_region;

static session_region region;

static int map_region(const probe_args *a, session_region *r)
{
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(a->shm_fd, &st) == 0 && st.st_size > 0)
        p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, a->shm_fd, 0);
    close(a->shm_fd);
    chan.region = -1;
    if (p == MAP_FAILED)
        return fail(PROBE_SETUP, "cannot map the shared region: %s", strerror(errno));
    r->base = p;
    r->msgs = a->shm_msgs;
    r->bytes = (unsigned long long)st.st_size;
    if (a->session && r->bytes != a->shm_bytes)
        return fail(PROBE_SETUP, "the shared region has %llu bytes, not %llu", r->bytes,
                    a->shm_bytes);
    return 0;
}

/* Touches the pages of R that CALLS calls of SIZE bytes with DBYTES-byte
 * digests use: their messages (read) and their digest slots (zeroed). */
static void touch_region(const session_region *r, unsigned long long size, size_t dbytes,
                         unsigned long long calls)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    volatile unsigned char sink = 0;
    for (size_t off = 0; off < calls * size; off += page)
        sink ^= r->base[off];
    (void)sink;
    memset(r->base + r->msgs, 0, (size_t)(calls * dbytes));
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
    c->digest_bits = a->digest_bits;
    c->digest_bytes = (size_t)a->digest_bits / 8;
    c->bits = a->size * 8;
    if (a->calls > MAX_TRIAL_BYTES / (c->digest_bytes + sizeof(uint64_t)))
        return fail(PROBE_SETUP, "%llu calls of %zu-byte digests need more than "
                    "%u MiB; ask for fewer calls", a->calls, c->digest_bytes,
                    MAX_TRIAL_BYTES >> 20);
    for (int b = 0; b < PROBE_WIRE_BUFFERS; b++)
        c->msg[b] = map_message(a->size, &c->buffers[b]);
    hb_err e;
    if (kat_guarded_alloc(&c->check, (size_t)a->size, &e) != 0)
        return fail(PROBE_SETUP, "%s", e.msg);
    c->copy = malloc(a->size + 1);
    unsigned char *buf = malloc(c->digest_bytes + 2 * GUARD_BYTES);
    c->first = malloc(c->digest_bytes);
    c->digests = map_digests(a->calls, c->digest_bytes);
    c->delta = map_touched((size_t)a->calls * sizeof *c->delta);
    if (!c->msg[0] || !c->msg[1] || !c->copy || !buf || !c->first || !c->digests ||
        !c->delta)
        return fail(PROBE_SETUP, "cannot allocate a %llu-byte message and %llu "
                    "digests", a->size, a->calls);
    memcpy(c->copy, c->msg[0], a->size);
    memset(buf, GUARD_FILL, c->digest_bytes + 2 * GUARD_BYTES);
    c->digest = buf + GUARD_BYTES;
    /* every role stops here once, everything of its own in place and
     * nothing of the library's yet: what hashbench reads of its memory now
     * no library can have lowered or raised (probe_wire.h) */
    probe_stop_self();
    /* the memory run's heap figure holds what the library keeps from its
     * loading on (a table its constructor builds, the loader's records of
     * it) and from the calls before the painted one (the checks': a table
     * it builds on first use), as a timed session holds it */
    if (a->memory)
        probe_heap_carry();
    void *h = dlopen(a->lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return fail(PROBE_LOADFAIL, "dlopen: %s", dlerror());
    /* no new code from here on; under an emulator this fails, and
     * hashbench, which counts the filters of a native session, knows */
    probe_no_new_code();
    *(void **)&c->fn = dlsym(h, "CryptHash");
    if (!c->fn)
        return fail(PROBE_LOADFAIL, "no CryptHash in %s", a->lib);
    return 0;
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

/* Appends printf-style text to the line L (capacity PROBE_WIRE_MAX_LINE). */
typedef struct line_buf {
    char s[PROBE_WIRE_MAX_LINE];
    size_t n;
} line_buf;

static void append(line_buf *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void append(line_buf *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(l->s + l->n, sizeof l->s - l->n, fmt, ap);
    va_end(ap);
    if (w > 0)
        l->n = l->n + (size_t)w < sizeof l->s ? l->n + (size_t)w : sizeof l->s - 1;
}

/* What the probe measured before and around the timed loop. */
typedef struct probe_figures {
    uint64_t ticks, ns;
    unsigned long long cpu0, cpu1;
    long vcsw0, ivcsw0, vcsw1, ivcsw1;
    long rss_base;
    size_t stack_peak;
    probe_heap_stats heap;
    char fold[TM_FOLD_HEX];
} probe_figures;

static int send_result(const probe_args *a, const probe_ctx *c, const probe_figures *f)
{
    static line_buf l;
    l.n = 0;
    append(&l, "result nonce=%s status=ok counter=%s ticks=%llu ns=%llu calls=%llu "
               "warmup=%llu size=%llu rss_baseline_kb=%ld",
           chan.nonce, counter_kind_name(a->counter), (unsigned long long)f->ticks,
           (unsigned long long)f->ns, a->calls, a->warmup, a->size, f->rss_base);
    /* CPU time and switches are sent only when both reads worked. */
    if (f->cpu0 && f->cpu1 >= f->cpu0 && f->vcsw0 >= 0 && f->vcsw1 >= 0)
        append(&l, " cpu_ns=%llu vcsw=%ld ivcsw=%ld", f->cpu1 - f->cpu0,
               f->vcsw1 - f->vcsw0, f->ivcsw1 - f->ivcsw0);
    if (a->memory)
        append(&l, " stack_peak_bytes=%zu heap_peak_bytes=%zu heap_allocs=%zu "
                   "heap_approximate=%d",
               f->stack_peak, f->heap.peak_bytes, f->heap.allocs, f->heap.approximate);
    append(&l, " digest=");
    for (size_t i = 0; i < c->digest_bytes; i++)
        append(&l, "%02x", c->first[i]);
    append(&l, " fold=%s\n", f->fold);
    return hb_fd_write_all(chan.out, l.s, l.n) == 0 ? PROBE_OK
               : fail(PROBE_SETUP, "cannot send the result");
}

/* Everything before the window: checks, warm-up, the memory run. */
static int prepare(const probe_args *a, probe_ctx *c, probe_figures *f)
{
    int rc = setup(a, c);
    if (rc)
        return rc;
    f->rss_base = status_kb("VmRSS");
    if ((rc = check_library(c, a->size)) != 0)
        return rc;
    int bad = 0;
    for (unsigned long long i = 0; i < a->warmup; i++)
        bad |= c->fn(c->digest_bits, c->msg[i % PROBE_WIRE_BUFFERS], c->bits, c->digest);
    if (bad)
        return fail(PROBE_ERROR_RETURN, "CryptHash returned non-zero during warm-up");
    /* a rehearsal of the window's own work, so that its first run (page
     * faults, cold code) does not fall inside the window */
    tm_base(c->msg[1], a->size, 0);
    memcpy(c->msg[0], c->msg[1], a->size);
    probe_window_words(c->delta, a->calls, 0);
    probe_window_fold(c->digests, a->calls, c->digest_bytes, f->fold);
    memcpy(c->msg[0], c->copy, a->size);
    if (a->memory) {
        int mrc = 0;
        probe_heap_pause(); /* the probe's own thread set-up is not counted */
        if (probe_stack_run(c->fn, c->digest_bits, c->msg[0], c->bits, c->digest,
                            MEMORY_STACK_BYTES, &f->stack_peak, &f->heap, &mrc) != 0)
            return fail(PROBE_SETUP, "cannot run a call on a painted stack");
        if (mrc != 0)
            return fail(PROBE_ERROR_RETURN, "CryptHash returned %d", mrc);
    }
    return 0;
}

/* The seed the parent sends once the probe is ready. */
static int wait_seed(uint64_t *seed)
{
    char line[PROBE_WIRE_SHORT_LINE];
    int n = snprintf(line, sizeof line, "ready nonce=%s\n", chan.nonce);
    if (hb_fd_write_all(chan.out, line, (size_t)n) != 0 || read_line(chan.in, line, sizeof line) != 0 ||
        strncmp(line, "seed ", 5) != 0 || !is_hex(line + 5, 16))
        return fail(PROBE_USAGE, "no seed from hashbench");
    *seed = strtoull(line + 5, NULL, 16);
    return 0;
}

static int run(const probe_args *a)
{
    probe_ctx c;
    probe_figures f;
    memset(&c, 0, sizeof c);
    memset(&f, 0, sizeof f);
    int rc = prepare(a, &c, &f);
    if (rc)
        return rc;
    counter_reader r;
    if (counter_reader_open(&r, a->counter) != 0)
        return fail(PROBE_NOCOUNTER, "counter %s unavailable: %s",
                    counter_kind_name(a->counter), strerror(errno));
    uint64_t seed = 0;
    if ((rc = wait_seed(&seed)) != 0)
        return rc;
    /* the window: only this work and the loop until the result is sent */
    tm_base(c.msg[0], a->size, seed);
    memcpy(c.msg[1], c.msg[0], a->size);
    probe_window_words(c.delta, a->calls, seed);
    thread_switches(&f.vcsw0, &f.ivcsw0);
    f.cpu0 = thread_cpu_ns();
    uint64_t t0 = counter_clock_ns();
    uint64_t k0 = counter_reader_read(&r);
    int bad = probe_timed_loop(c.fn, c.digest_bits, c.msg, a->size, c.delta, a->calls,
                               c.digests, c.digest_bytes);
    uint64_t k1 = counter_reader_read(&r);
    uint64_t t1 = counter_clock_ns();
    f.cpu1 = thread_cpu_ns();
    thread_switches(&f.vcsw1, &f.ivcsw1);
    counter_reader_close(&r);
    f.ticks = k1 - k0;
    f.ns = t1 - t0;
    if (bad)
        return fail(PROBE_ERROR_RETURN, "CryptHash returned non-zero during timing");
    if (!guards_intact(c.digests, (size_t)a->calls * c.digest_bytes))
        return fail(PROBE_OVERFLOW, "CryptHash wrote outside the digests");
    probe_window_fold(c.digests, a->calls, c.digest_bytes, f.fold);
    return send_result(a, &c, &f);
}

/* ---- the session (probe_wire.h, "Sessions") ---- */

/* One window of CALLS calls: call i hashes message i of the region,
 * chained with digest i-1 (chain.h), its digest into slot i. Nothing else
 * happens between the counter's reads. */
static int session_window(const probe_ctx *c, const session_region *r,
                          unsigned long long size, unsigned long long calls,
                          counter_reader *cr, uint64_t *ticks, uint64_t *ns)
{
    unsigned char *dig = r->base + r->msgs;
    size_t d = c->digest_bytes;
    int bad = 0;
    uint64_t t0 = counter_clock_ns();
    uint64_t k0 = counter_reader_read(cr);
    for (unsigned long long i = 0; i < calls; i++) {
        unsigned char *m = r->base + i * size;
        if (i > 0)
            chain_apply(m, (size_t)size, chain_word(dig + (i - 1) * d, d));
        bad |= c->fn(c->digest_bits, m, 8 * size, dig + i * d);
    }
    uint64_t k1 = counter_reader_read(cr);
    uint64_t t1 = counter_clock_ns();
    *ticks = k1 - k0;
    *ns = t1 - t0;
    return bad;
}

/* Serves windows until "end" or the end of its input. */
static int run_session(const probe_args *a)
{
    probe_ctx c;
    memset(&c, 0, sizeof c);
    int rc = setup(a, &c);
    if (rc)
        return rc;
    if ((rc = check_library(&c, a->size)) != 0)
        return rc;
    session_region r = region;
    counter_reader cr;
    if (counter_reader_open(&cr, a->counter) != 0)
        return fail(PROBE_NOCOUNTER, "counter %s unavailable: %s",
                    counter_kind_name(a->counter), strerror(errno));
    unsigned long long max_calls = r.msgs / a->size;
    if ((r.bytes - r.msgs) / c.digest_bytes < max_calls)
        max_calls = (r.bytes - r.msgs) / c.digest_bytes;
    char line[PROBE_WIRE_SHORT_LINE];
    int n = snprintf(line, sizeof line, "ready nonce=%s\n", chan.nonce);
    if (hb_fd_write_all(chan.out, line, (size_t)n) != 0)
        return PROBE_SETUP;
    for (;;) {
        unsigned long long calls;
        if (read_line(chan.in, line, sizeof line) != 0 || strcmp(line, "end") == 0)
            return PROBE_OK;
        if (strncmp(line, "touch ", 6) == 0) {
            if (parse_ull(line + 6, strlen(line + 6), &calls) != 0 || calls > max_calls)
                return fail(PROBE_USAGE, "not a touch of at most %llu calls", max_calls);
            touch_region(&r, a->size, c.digest_bytes, calls);
            n = snprintf(line, sizeof line, "touched nonce=%s\n", chan.nonce);
            if (hb_fd_write_all(chan.out, line, (size_t)n) != 0)
                return PROBE_SETUP;
            continue;
        }
        if (strncmp(line, "window ", 7) != 0 || parse_ull(line + 7, strlen(line + 7), &calls) != 0 ||
            calls > max_calls)
            return fail(PROBE_USAGE, "not a window of at most %llu calls", max_calls);
        uint64_t ticks = 0, ns = 0;
        if (session_window(&c, &r, a->size, calls, &cr, &ticks, &ns))
            return fail(PROBE_ERROR_RETURN, "CryptHash returned non-zero during timing");
        n = snprintf(line, sizeof line, "done nonce=%s ticks=%llu ns=%llu\n", chan.nonce,
                     (unsigned long long)ticks, (unsigned long long)ns);
        if (hb_fd_write_all(chan.out, line, (size_t)n) != 0)
            return PROBE_SETUP;
    }
}

int main(void)
{
    static char lib[PATH_MAX];
    hb_step_limit_processes(); /* its threads, before the library is loaded */
    /* every signal as a fresh program has it, whatever the thread that
     * started it blocked or ignored (hashbench ignores SIGPIPE once it has
     * started a first child): a fault ends the process, and no role shows
     * in its dispositions or mask */
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (channel_open() != 0)
        return PROBE_USAGE; /* not started by hashbench: nobody to tell */
    probe_args a;
    int rc = parse_config(&a);
    /* nothing of the line stays in memory but what every role keeps */
    if (rc == 0)
        snprintf(lib, sizeof lib, "%s", a.lib);
    a.lib = lib;
    explicit_bzero(config_line, sizeof config_line);
    /* every role maps its region (a session's messages; one unused page
     * for the others) and closes its descriptor before the load */
    if (rc == 0)
        rc = map_region(&a, &region);
    if (rc == 0 && a.runner) {
        rc = probe_runner(lib, a.digest_bits, chan.in, chan.out);
        close(chan.out);
        return rc;
    }
    if (rc == 0)
        rc = a.session ? run_session(&a) : run(&a);
    return finish(rc);
}
