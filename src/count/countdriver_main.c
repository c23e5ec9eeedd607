/* hashbench-count: the small program the instruction-count stage
 * (count/count.h) runs under Valgrind's callgrind, in the sandbox, on one
 * submitted library. Like the probe and the runner it links libc and libdl
 * only; callgrind's client requests are macros of a header.
 *
 *   hashbench-count --lib PATH --digest-bits B
 *
 * Callgrind runs with collection off (--collect-atstart=no); the driver
 * turns it on just before each call of CryptHash and off just after
 * (CALLGRIND_TOGGLE_COLLECT), then asks for a dump (a part of the combined
 * output file, CALLGRIND_DUMP_STATS_AT, which also zeroes the counters), so
 * each part holds the instructions of one call and nothing else. After
 * loading the library it makes one call that is not counted (the process is
 * warm: lazy binding, tables a library builds on its first call, as in the
 * timed windows), then COUNT_EMPTY_WINDOWS empty windows (on, off, dump:
 * the cost of the window itself, which hashbench subtracts), and says
 * "ready". Then, one request at a time on its standard input:
 *
 *   hash BYTES SEED16   one call on call 0 of a probe trial's messages
 *                       (probe/trial_msg.h) of that seed; answers
 *                       "ok N ERROR FOLD", N the call's number, FOLD the
 *                       fold of its digest
 *   end                 answers "done" and ends
 *
 * hashbench sends a request only once it has read the part of the call
 * before, and draws each call's seed afresh, so nothing in the process
 * tells the library which message, which length or how many calls come
 * next. The library's own output goes to /dev/null; answers use a copy of
 * the original standard output. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include "common/libload.h"
#include "common/steplimit.h"
#include "count/count_plan.h"
#include "probe/trial_msg.h"

static int out_fd = -1;

static int say(const char *line)
{
    return hb_fd_write_all(out_fd, line, strlen(line));
}

/* One counted call: collection on for the call alone. */
static __attribute__((noinline)) int window(hb_crypthash_fn fn, int bits,
                                             const unsigned char *msg, size_t size,
                                             unsigned char *digest)
{
    CALLGRIND_TOGGLE_COLLECT;
    int rc = fn(bits, msg, 8ULL * size, digest);
    CALLGRIND_TOGGLE_COLLECT;
    return rc;
}

/* The same window around nothing. */
static __attribute__((noinline)) void empty_window(void)
{
    CALLGRIND_TOGGLE_COLLECT;
    __asm__ volatile("" ::: "memory");
    CALLGRIND_TOGGLE_COLLECT;
}

static char dump_name[64];

static void dump(const char *what, unsigned long k, unsigned long i)
{
    snprintf(dump_name, sizeof dump_name, "%s %lu %lu", what, k, i);
    CALLGRIND_DUMP_STATS_AT(dump_name);
}

/* One request line from FD into LINE (at most CAP - 1 bytes, without the
 * newline), read a byte at a time so that nothing after it is taken.
 * Returns 0, or -1 at the end of input or on a line too long. */
static int read_line(int fd, char *line, size_t cap)
{
    size_t n = 0;
    for (;;) {
        char c;
        ssize_t r = read(fd, &c, 1);
        if (r != 1)
            return -1;
        if (c == '\n')
            break;
        if (n + 1 >= cap)
            return -1;
        line[n++] = c;
    }
    line[n] = '\0';
    return 0;
}

static int usage(void)
{
    say("usage: hashbench-count --lib PATH --digest-bits B\n");
    return 2;
}

int main(int argc, char **argv)
{
    static unsigned char digest[COUNT_MAX_DIGEST_BYTES];
    hb_step_limit_processes(); /* its threads, before the library is loaded */
    out_fd = dup(1);
    int in_fd = dup(0);
    int null = open("/dev/null", O_RDWR);
    if (out_fd < 0 || in_fd < 0 || null < 0 || dup2(null, 1) < 0 || dup2(null, 0) < 0)
        return 3;
    close(null);
    const char *lib = NULL;
    int bits = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--lib") == 0)
            lib = argv[i + 1];
        else if (strcmp(argv[i], "--digest-bits") == 0)
            bits = atoi(argv[i + 1]);
        else
            return usage();
    }
    if (argc != 5 || !lib || bits <= 0 || bits % 8 || bits > 8 * COUNT_MAX_DIGEST_BYTES)
        return usage();
    hb_crypthash_fn fn = hb_load_crypthash(lib, out_fd);
    if (!fn)
        return 4;
    { /* the warming call, not counted */
        unsigned char msg[64];
        tm_base(msg, sizeof msg, 0);
        fn(bits, msg, 8ULL * sizeof msg, digest);
    }
    for (unsigned long i = 0; i < COUNT_EMPTY_WINDOWS; i++) {
        empty_window();
        dump("empty", 0, i);
    }
    if (say("ready\n") != 0)
        return 3;
    unsigned char *msg = malloc(COUNT_MAX_BYTES);
    if (!msg)
        return 3;
    for (unsigned long n = 0;; n++) {
        char line[96], hex[TM_FOLD_HEX], answer[160];
        unsigned long size;
        char seed_hex[20], *end = NULL;
        if (read_line(in_fd, line, sizeof line) != 0)
            return 3;
        if (strcmp(line, "end") == 0)
            break;
        if (sscanf(line, "hash %lu %16s", &size, seed_hex) != 2 || size > COUNT_MAX_BYTES ||
            strlen(seed_hex) != 16)
            return usage();
        uint64_t seed = strtoull(seed_hex, &end, 16);
        if (*end)
            return usage();
        tm_base(msg, size, seed);
        tm_apply(msg, size, tm_word(seed, 0));
        memset(digest, 0, sizeof digest);
        int rc = window(fn, bits, msg, size, digest);
        dump("call", n, 0);
        tm_fold fold;
        tm_fold_init(&fold);
        tm_fold_add(&fold, digest, (size_t)bits / 8);
        tm_fold_hex(&fold, hex);
        snprintf(answer, sizeof answer, "ok %lu %d %s\n", n, rc != 0, hex);
        if (say(answer) != 0)
            return 3;
    }
    free(msg);
    return say("done\n") == 0 ? 0 : 3;
}
