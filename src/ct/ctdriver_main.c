/* hashbench-ct: the small program the constant-time stage (ct/ct.h) runs in
 * the sandbox on one submitted library. Like the runner and the probe it
 * links libc and libdl only. Two modes:
 *   --taint: meant to run under Valgrind's memcheck. For each message length
 *     of the taint plan (ct/ct_plan.h) it allocates the message, marks its
 *     bytes undefined with a memcheck client request (the message is the
 *     secret; its length stays defined, as it is public), calls CryptHash,
 *     then marks the digest and the return value defined again so that the
 *     driver's own use of them is not reported. It prints one line per call
 *     and "done" at the end: a run without "done" did not finish. Outside
 *     Valgrind the client requests do nothing.
 *   --time: the dudect-style timing test. Measurements come in batches; in
 *     each batch every slot is given a class at random (0: the fixed
 *     message, all zero bytes; 1: fresh random bytes), all messages are
 *     prepared first, then each call is timed with the counter hashbench
 *     names. Each measurement is written to standard output as a 64-bit
 *     little-endian word: the ticks, with the class in the top bit. The
 *     statistics are computed by hashbench, not here.
 * The library's own output goes to /dev/null; answers use a copy of the
 * original standard output. Its standard error goes to /dev/null too, before
 * the library is loaded: under Valgrind the original one carries memcheck's
 * XML (ct.c gives --xml-fd=2; Valgrind keeps its own copy of it), which the
 * library must not write into. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include <valgrind/memcheck.h>

#include "common/libload.h"
#include "common/steplimit.h"
#include "ct/ct_plan.h"
#include "probe/counter_read.h"


static int out_fd = -1;

static int say(const char *line)
{
    return hb_fd_write_all(out_fd, line, strlen(line));
}

/* xorshift64*: the driver's own fast generator for classes and random
 * messages, seeded from getrandom. */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static void rng_fill(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = rng_next();
        size_t k = n - i < 8 ? n - i : 8;
        memcpy(p + i, &v, k);
    }
}

static int taint(hb_crypthash_fn fn, int bits)
{
    unsigned char digest[CT_MAX_DIGEST_BYTES];
    char line[128];
    for (int i = 0; i < CT_TAINT_LENGTHS; i++) {
        unsigned long long len = ct_taint_bits[i];
        size_t bytes = (size_t)((len + 7) / 8);
        unsigned char *msg = malloc(bytes ? bytes : 1);
        if (!msg)
            return 3;
        rng_fill(msg, bytes);
        VALGRIND_MAKE_MEM_UNDEFINED(msg, bytes);
        memset(digest, 0, sizeof digest);
        volatile int rc = fn(bits, bytes ? msg : NULL, len, digest);
        VALGRIND_MAKE_MEM_DEFINED(digest, sizeof digest);
        VALGRIND_MAKE_MEM_DEFINED(&rc, sizeof rc);
        free(msg);
        snprintf(line, sizeof line, "call %llu %d\n", len, (int)rc);
        if (say(line) != 0)
            return 3;
    }
    return say("done\n") == 0 ? 0 : 3;
}

static int timing(hb_crypthash_fn fn, int bits, counter_kind kind, size_t bytes, long n)
{
    enum { BATCH = 1000, WARMUP = 2000 };
    unsigned char digest[CT_MAX_DIGEST_BYTES];
    unsigned char *msgs = malloc(BATCH * (bytes ? bytes : 1));
    unsigned char cls[BATCH];
    uint64_t out[BATCH];
    counter_reader r;
    if (!msgs || counter_reader_open(&r, kind) != 0)
        return 3;
    for (long i = 0; i < WARMUP; i++) {
        rng_fill(msgs, bytes);
        fn(bits, msgs, 8ull * bytes, digest);
    }
    for (long done = 0; done < n;) {
        int m = n - done < BATCH ? (int)(n - done) : BATCH;
        for (int i = 0; i < m; i++) {
            cls[i] = (unsigned char)(rng_next() >> 63);
            if (cls[i])
                rng_fill(msgs + (size_t)i * bytes, bytes);
            else
                memset(msgs + (size_t)i * bytes, 0, bytes);
        }
        for (int i = 0; i < m; i++) {
            uint64_t t0 = counter_reader_read(&r);
            fn(bits, msgs + (size_t)i * bytes, 8ull * bytes, digest);
            uint64_t t1 = counter_reader_read(&r);
            uint64_t d = t1 - t0;
            if (d >> 63)
                d = (1ull << 63) - 1;
            out[i] = d | ((uint64_t)cls[i] << 63);
        }
        if (hb_fd_write_all(out_fd, out, (size_t)m * sizeof out[0]) != 0)
            return 3;
        done += m;
    }
    counter_reader_close(&r);
    free(msgs);
    return 0;
}

static int usage(void)
{
    if (out_fd >= 0)
        say("usage: hashbench-ct --lib PATH --digest-bits B (--taint | --time COUNTER "
            "BYTES N)\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *lib = NULL, *counter = NULL;
    int bits = 0, mode = 0;
    long bytes = 0, n = 0;
    hb_step_limit_processes(); /* its threads, before the library is loaded */
    out_fd = dup(1);
    int null = open("/dev/null", O_WRONLY);
    if (out_fd < 0 || null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
        return 3;
    close(null);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--lib") == 0 && i + 1 < argc)
            lib = argv[++i];
        else if (strcmp(argv[i], "--digest-bits") == 0 && i + 1 < argc)
            bits = atoi(argv[++i]);
        else if (strcmp(argv[i], "--taint") == 0)
            mode = 1;
        else if (strcmp(argv[i], "--time") == 0 && i + 3 < argc) {
            mode = 2;
            counter = argv[++i];
            bytes = atol(argv[++i]);
            n = atol(argv[++i]);
        } else
            return usage();
    }
    counter_kind kind = COUNTER_NONE;
    if (!lib || bits <= 0 || bits % 8 || bits > 8 * CT_MAX_DIGEST_BYTES || !mode ||
        (mode == 2 && (counter_kind_parse(counter, &kind) != 0 || bytes < 1 ||
                       bytes > CT_MAX_TIME_BYTES || n < 2 || n > CT_MAX_MEASUREMENTS)))
        return usage();
    if (getrandom(&rng_state, sizeof rng_state, 0) != sizeof rng_state)
        return 3;
    rng_state |= 1;
    hb_crypthash_fn fn = hb_load_crypthash(lib, out_fd);
    if (!fn)
        return 4;
    return mode == 1 ? taint(fn, bits) : timing(fn, bits, kind, (size_t)bytes, n);
}
