/* What do varying messages cost? Run by bench/variation.sh (through
 * bench/hbbench.py), not by ctest. For each library and message size it
 * alternates, round after round, two timed loops of about 2 ms on the same
 * core: the loop the probe timed before its messages varied (one message at
 * one address, one digest buffer), and the probe's loop
 * (probe_timed_loop in src/probe/probe_wire.h: call i's message from the
 * trial's seed, two buffers in turn, a digest slot per call, the words
 * prepared before the clock starts, exactly as the probe does). It prints
 * one line per (library, size): the median counter ticks per call of each
 * loop over the rounds, the median, lowest and highest of the per-round
 * ratios varying / same, and the untimed work the probe adds around its
 * loop (message, words, fold) in ns per call. Links libc and libdl only,
 * like the probe, and shares its counter and loop code.
 *   variation --cpu N --rounds R --sizes 32,128,... NAME:BITS:LIB...   */
#include "../src/probe/counter_read.h"
#include "../src/probe/probe_codes.h"
#include "../src/probe/probe_wire.h"
#include "bench_util.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRIAL_NS 2e6
#define MAX_ROUNDS 64
#define MAX_SIZES 16

typedef struct loop_buffers {
    unsigned char *msg[PROBE_WIRE_BUFFERS];
    unsigned char *digests;
    uint64_t *delta;
    unsigned long long calls, size;
    size_t d;
} loop_buffers;

static double now_ns(void)
{
    return (double)counter_clock_ns();
}

/* The old loop: the same message and digest buffer for every call. */
static double same_message(probe_hash_fn fn, int bits, loop_buffers *b, counter_reader *r)
{
    int bad = 0;
    for (unsigned long long i = 0; i < b->size; i++)
        b->msg[0][i] = probe_message_byte(i, b->size);
    uint64_t k0 = counter_reader_read(r);
    for (unsigned long long i = 0; i < b->calls; i++)
        bad |= fn(bits, b->msg[0], 8 * b->size, b->digests);
    uint64_t k1 = counter_reader_read(r);
    return bad ? -1 : (double)(k1 - k0) / (double)b->calls;
}

/* The probe's loop on the trial SEED; *UNTIMED gets the ns per call of the
 * work the probe does around it (message, words, fold). */
static double varying(probe_hash_fn fn, int bits, loop_buffers *b, counter_reader *r,
                      uint64_t seed, double *untimed)
{
    char fold[TM_FOLD_HEX];
    double t0 = now_ns();
    tm_base(b->msg[0], b->size, seed);
    memcpy(b->msg[1], b->msg[0], b->size);
    probe_window_words(b->delta, b->calls, seed);
    double t1 = now_ns();
    uint64_t k0 = counter_reader_read(r);
    int bad = probe_timed_loop(fn, bits, b->msg, b->size, b->delta, b->calls, b->digests, b->d);
    uint64_t k1 = counter_reader_read(r);
    double t2 = now_ns();
    probe_window_fold(b->digests, b->calls, b->d, fold);
    double t3 = now_ns();
    *untimed = (t1 - t0 + t3 - t2) / (double)b->calls;
    return bad || !fold[0] ? -1 : (double)(k1 - k0) / (double)b->calls;
}

/* Calls for a loop of about TRIAL_NS, from a short run of the old loop. */
static unsigned long long plan_calls(probe_hash_fn fn, int bits, loop_buffers *b)
{
    b->calls = 8;
    for (;;) {
        double t0 = now_ns();
        for (unsigned long long i = 0; i < b->calls; i++)
            fn(bits, b->msg[0], 8 * b->size, b->digests);
        double t = now_ns() - t0;
        if (t >= TRIAL_NS / 4 || b->calls >= (1ull << 24))
            return (unsigned long long)(TRIAL_NS / (t / (double)b->calls)) + 1;
        b->calls *= 4;
    }
}

static int one_size(const char *name, probe_hash_fn fn, int bits, unsigned long long size,
                    int rounds, counter_reader *r)
{
    loop_buffers b;
    memset(&b, 0, sizeof b);
    b.size = size;
    b.d = (size_t)bits / 8;
    for (int k = 0; k < PROBE_WIRE_BUFFERS; k++)
        b.msg[k] = malloc(size ? size : 1);
    b.digests = malloc(b.d);
    if (!b.msg[0] || !b.msg[1] || !b.digests)
        return -1;
    for (unsigned long long i = 0; i < size; i++)
        b.msg[0][i] = probe_message_byte(i, size);
    unsigned long long calls = plan_calls(fn, bits, &b);
    free(b.digests);
    b.calls = calls;
    b.digests = malloc(b.d * calls);
    b.delta = malloc(sizeof *b.delta * calls);
    if (!b.msg[0] || !b.msg[1] || !b.digests || !b.delta)
        return -1;
    double old[MAX_ROUNDS], new[MAX_ROUNDS], ratio[MAX_ROUNDS], extra[MAX_ROUNDS], u;
    same_message(fn, bits, &b, r); /* warm-up of both */
    varying(fn, bits, &b, r, 0, &u);
    for (int k = 0; k < rounds; k++) {
        if (k % 2) {
            new[k] = varying(fn, bits, &b, r, (uint64_t)k + 1, &extra[k]);
            old[k] = same_message(fn, bits, &b, r);
        } else {
            old[k] = same_message(fn, bits, &b, r);
            new[k] = varying(fn, bits, &b, r, (uint64_t)k + 1, &extra[k]);
        }
        if (old[k] <= 0 || new[k] <= 0)
            return -1;
        ratio[k] = new[k] / old[k];
    }
    double mr = bench_median(ratio, rounds); /* sorted: [0] lowest */
    printf("%s %llu %llu %.2f %.2f %.4f %.4f %.4f %.2f\n", name, size, calls,
           bench_median(old, rounds), bench_median(new, rounds), mr, ratio[0],
           ratio[rounds - 1], bench_median(extra, rounds));
    fflush(stdout);
    for (int k = 0; k < PROBE_WIRE_BUFFERS; k++)
        free(b.msg[k]);
    free(b.digests);
    free(b.delta);
    return 0;
}

int main(int argc, char **argv)
{
    int cpu = -1, rounds = 11, nsizes = 0, first = argc;
    unsigned long long sizes[MAX_SIZES];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cpu") && i + 1 < argc) {
            cpu = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
            rounds = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            for (char *p = argv[++i]; *p && nsizes < MAX_SIZES; p += *p == ',')
                sizes[nsizes++] = strtoull(p, &p, 10);
        } else {
            first = i;
            break;
        }
    }
    if (rounds < 1 || rounds > MAX_ROUNDS || nsizes == 0 || first >= argc) {
        fprintf(stderr, "usage: variation --cpu N --rounds R (1-%d) --sizes LIST "
                        "NAME:BITS:LIB...\n", MAX_ROUNDS);
        return 2;
    }
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0) {
            perror("sched_setaffinity");
            return 1;
        }
    }
    counter_reader r;
    if (counter_reader_open(&r, counter_arch_kind()) != 0) {
        perror("counter");
        return 1;
    }
    double t0 = now_ns();
    uint64_t k0 = counter_reader_read(&r);
    while (now_ns() - t0 < 5e7)
        ;
    printf("counter %s %.6g\n", counter_kind_name(counter_arch_kind()),
           (double)(counter_reader_read(&r) - k0) / ((now_ns() - t0) * 1e-9));
    for (int i = first; i < argc; i++) {
        char name[128];
        int bits = 0, at = 0;
        if (sscanf(argv[i], "%127[^:]:%d:%n", name, &bits, &at) != 2 || bits <= 0 ||
            bits % 8) {
            fprintf(stderr, "bad library argument '%s' (NAME:BITS:LIB)\n", argv[i]);
            return 2;
        }
        void *h = dlopen(argv[i] + at, RTLD_NOW | RTLD_LOCAL);
        probe_hash_fn fn = NULL;
        if (h)
            *(void **)&fn = dlsym(h, "CryptHash");
        if (!fn) {
            fprintf(stderr, "cannot load CryptHash from %s\n", argv[i] + at);
            return 1;
        }
        for (int s = 0; s < nsizes; s++)
            if (one_size(name, fn, bits, sizes[s], rounds, &r) != 0) {
                fprintf(stderr, "%s at %llu B failed\n", name, sizes[s]);
                return 1;
            }
    }
    counter_reader_close(&r);
    return 0;
}
