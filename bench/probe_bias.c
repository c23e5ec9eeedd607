/* Does the probe add bias? Run by bench/probe_bias.sh, not by ctest (the
 * figures need a quiet machine). Three checks, each printed with its ratio:
 *  1. For one library at 4096 B, alternate a probe trial (a fresh pinned
 *     process, as the measurement stage runs it, here without the sandbox)
 *     and the probe's own timed loop run in this program (probe_timed_loop:
 *     same library through dlopen, same counter, same warm-up, messages from
 *     a seed); the medians of the mean ticks per call should agree within
 *     3%.
 *  2. A null instance measures below 100 ticks per call at 32 B.
 *  3. A linear-work instance gives ticks per byte flat within 5% from 4096
 *     to 65536 B.
 * Links libc and libdl only, like the probe, and shares its counter, loop
 * and exchange code (probe_wire.h). */
#include "../src/probe/counter_read.h"
#include "../src/probe/probe_codes.h"
#include "../src/probe/probe_wire.h"
#include "bench_util.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef probe_hash_fn hash_fn;

typedef struct bench_cfg {
    const char *probe, *lib, *null_lib, *linear_lib;
    int cpu, rounds;
    counter_kind counter;
} bench_cfg;

/* One line from FD into BUF (CAP bytes), without its newline; -1 when the
 * probe's output ends first. */
static int read_line(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t r = read(fd, buf + n, 1);
        if (r <= 0)
            return -1;
        if (buf[n] == '\n') {
            buf[n] = '\0';
            return 0;
        }
        n++;
    }
    return -1;
}

/* Mean ticks per call of one probe trial, or -1 on failure: the exchange
 * of probe_wire.h with a fixed nonce and the round number as seed. */
static double probe_trial(const bench_cfg *c, const char *lib, unsigned size,
                          unsigned long long calls, unsigned long long warmup)
{
    static unsigned long long seed;
    char a_size[32], a_calls[32], a_warm[32], a_cpu[32];
    snprintf(a_size, sizeof a_size, "%u", size);
    snprintf(a_calls, sizeof a_calls, "%llu", calls);
    snprintf(a_warm, sizeof a_warm, "%llu", warmup);
    snprintf(a_cpu, sizeof a_cpu, "%d", c->cpu);
    char *argv[] = {(char *)c->probe, "--lib", (char *)lib, "--size", a_size,
                    "--calls", a_calls, "--warmup", a_warm, "--cpu", a_cpu,
                    "--counter", (char *)counter_kind_name(c->counter),
                    "--digest-bits", "256", NULL};
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    static char line[PROBE_WIRE_MAX_LINE];
    char msg[PROBE_WIRE_SHORT_LINE];
    const char *nonce = "00000000000000000000000000000000";
    int n = snprintf(msg, sizeof msg, "nonce %s\n", nonce);
    int ok = write(in[1], msg, (size_t)n) == n && read_line(out[0], line, sizeof line) == 0 &&
             strncmp(line, "ready ", 6) == 0;
    n = snprintf(msg, sizeof msg, "seed %016llx\n", ++seed);
    ok = ok && write(in[1], msg, (size_t)n) == n && read_line(out[0], line, sizeof line) == 0;
    close(in[1]);
    close(out[0]);
    int status;
    waitpid(pid, &status, 0);
    const char *st = strstr(line, " status="), *t = strstr(line, " ticks="),
               *k = strstr(line, " calls=");
    if (!ok || !st || strncmp(st, " status=ok", 10) != 0 || !t || !k) {
        fprintf(stderr, "probe failed on %s: %s\n", lib, ok ? line : "no result");
        return -1;
    }
    return strtod(t + 7, NULL) / strtod(k + 7, NULL);
}

/* Mean ticks per call of the probe's loop run in this process, on the
 * messages of a fresh seed. */
static double plain_trial(const bench_cfg *c, hash_fn fn, unsigned char *msg[2],
                          unsigned size, unsigned long long calls,
                          unsigned long long warmup)
{
    static uint64_t seed;
    unsigned char *digests = malloc(32 * calls);
    uint64_t *delta = malloc(sizeof *delta * calls);
    counter_reader r;
    if (!digests || !delta || counter_reader_open(&r, c->counter) != 0) {
        free(digests);
        free(delta);
        return -1;
    }
    int bad = 0;
    for (unsigned long long i = 0; i < warmup; i++)
        bad |= fn(256, msg[i % 2], (unsigned long long)size * 8, digests);
    tm_base(msg[0], size, ++seed);
    memcpy(msg[1], msg[0], size);
    probe_window_words(delta, calls, seed);
    uint64_t k0 = counter_reader_read(&r);
    bad |= probe_timed_loop(fn, 256, msg, size, delta, calls, digests, 32);
    uint64_t k1 = counter_reader_read(&r);
    counter_reader_close(&r);
    free(digests);
    free(delta);
    return bad ? -1 : (double)(k1 - k0) / (double)calls;
}

static int probe_versus_plain(const bench_cfg *c)
{
    void *h = dlopen(c->lib, RTLD_NOW | RTLD_LOCAL);
    hash_fn fn = h ? (hash_fn)dlsym(h, "CryptHash") : NULL;
    if (!fn) {
        fprintf(stderr, "cannot load CryptHash from %s\n", c->lib);
        return 1;
    }
    const unsigned size = 4096;
    unsigned char *msg[2] = {malloc(size), malloc(size)};
    for (unsigned i = 0; i < size; i++)
        msg[0][i] = msg[1][i] = probe_message_byte(i, size);
    double probe[64], plain[64];
    int n = c->rounds > 64 ? 64 : c->rounds;
    for (int i = 0; i < n; i++) {
        probe[i] = probe_trial(c, c->lib, size, 2000, 200);
        plain[i] = plain_trial(c, fn, msg, size, 2000, 200);
        if (probe[i] < 0 || plain[i] < 0)
            return 1;
    }
    double mp = bench_median(probe, n), ml = bench_median(plain, n); /* sorted: [0] = min */
    printf("1. probe vs plain loop, %s at %u B, %d alternating rounds:\n"
           "   ticks/call median probe %.1f, plain %.1f; min probe %.1f, plain %.1f\n"
           "   ratio probe/plain of medians %.4f, of minima %.4f (target within 3%%: %s)\n",
           c->lib, size, n, mp, ml, probe[0], plain[0], mp / ml, probe[0] / plain[0],
           mp / ml > 0.97 && mp / ml < 1.03 ? "yes" : "NO");
    free(msg[0]);
    free(msg[1]);
    return 0;
}

static int null_instance(const bench_cfg *c)
{
    double v[64];
    int n = c->rounds > 64 ? 64 : c->rounds;
    for (int i = 0; i < n; i++)
        if ((v[i] = probe_trial(c, c->null_lib, 32, 100000, 1000)) < 0)
            return 1;
    double m = bench_median(v, n);
    printf("2. null instance at 32 B: median %.2f, min %.2f ticks/call "
           "(target below 100: %s)\n", m, v[0], m < 100 ? "yes" : "NO");
    return 0;
}

/* Sizes are interleaved within each round so that a drift of the machine
 * affects all of them alike; medians and minima are both shown. */
static int linear_instance(const bench_cfg *c)
{
    enum { NS = 4 };
    const unsigned sizes[NS] = {4096, 8192, 16384, 65536};
    double v[NS][64], med[NS], min[NS];
    int n = c->rounds > 64 ? 64 : c->rounds;
    for (int i = 0; i < n; i++)
        for (int s = 0; s < NS; s++) {
            unsigned long long calls = 4u * 1024 * 1024 / sizes[s];
            v[s][i] = probe_trial(c, c->linear_lib, sizes[s], calls, calls / 10);
            if (v[s][i] < 0)
                return 1;
            v[s][i] /= sizes[s];
        }
    printf("3. linear instance, ticks/byte (median / min):");
    for (int s = 0; s < NS; s++) {
        med[s] = bench_median(v[s], n); /* sorts: v[s][0] is then the minimum */
        min[s] = v[s][0];
        printf(" %u B %.4f / %.4f;", sizes[s], med[s], min[s]);
    }
    double mlo = med[0], mhi = med[0], nlo = min[0], nhi = min[0];
    for (int s = 1; s < NS; s++) {
        mlo = med[s] < mlo ? med[s] : mlo;
        mhi = med[s] > mhi ? med[s] : mhi;
        nlo = min[s] < nlo ? min[s] : nlo;
        nhi = min[s] > nhi ? min[s] : nhi;
    }
    printf("\n   max/min of medians %.4f, of minima %.4f (target flat within 5%%: %s)\n",
           mhi / mlo, nhi / nlo, mhi / mlo < 1.05 ? "yes" : "NO");
    return 0;
}

static int parse(int argc, char **argv, bench_cfg *c)
{
    c->cpu = -1;
    c->rounds = 15;
    c->counter = counter_arch_kind();
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--probe")) c->probe = argv[i + 1];
        else if (!strcmp(argv[i], "--lib")) c->lib = argv[i + 1];
        else if (!strcmp(argv[i], "--null")) c->null_lib = argv[i + 1];
        else if (!strcmp(argv[i], "--linear")) c->linear_lib = argv[i + 1];
        else if (!strcmp(argv[i], "--cpu")) c->cpu = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--rounds")) c->rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--counter")) {
            if (counter_kind_parse(argv[i + 1], &c->counter) != 0)
                return -1;
        } else
            return -1;
    }
    return c->probe && c->lib && c->null_lib && c->linear_lib && c->rounds > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    bench_cfg c;
    if (parse(argc, argv, &c) != 0) {
        fprintf(stderr, "usage: probe_bias --probe PATH --lib LIB --null LIB "
                        "--linear LIB [--cpu N] [--rounds R] [--counter NAME]\n");
        return 2;
    }
    if (c.cpu < 0) {
        cpu_set_t set;
        sched_getaffinity(0, sizeof set, &set);
        for (int i = 0; i < CPU_SETSIZE; i++)
            if (CPU_ISSET(i, &set))
                c.cpu = i;
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(c.cpu, &one);
    sched_setaffinity(0, sizeof one, &one);
    printf("counter %s, cpu %d\n", counter_kind_name(c.counter), c.cpu);
    return probe_versus_plain(&c) || null_instance(&c) || linear_instance(&c);
}
