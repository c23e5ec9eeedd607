/* hashbench-count: the small program the instruction-count stage
 * (count/count.h) runs under Valgrind's callgrind, in the sandbox, on one
 * submitted library. Like the probe and the runner it links libc and libdl
 * only; callgrind's client requests are macros of a header.
 *
 *   hashbench-count --lib PATH --digest-bits B   (the plan on standard input,
 *                                                 count/count_plan.h)
 *
 * It reads the whole plan and puts /dev/null in place of its standard input
 * before it loads the library, so the library sees no plan but the calls it
 * gets. Callgrind runs with collection off (--collect-atstart=no); the
 * driver turns it on just before each call of CryptHash and off just after
 * (CALLGRIND_TOGGLE_COLLECT) and then asks for a dump (a part of the
 * combined output file, CALLGRIND_DUMP_STATS_AT, which also zeroes the
 * counters), so each part holds the instructions of one call, nothing
 * else. First come COUNT_EMPTY_WINDOWS empty windows (on, off, dump): the
 * cost of the window itself, which hashbench subtracts. One call before
 * them, not counted, makes the process warm (lazy binding, tables a library
 * builds on its first call), as in the timed windows.
 * Entry k of the plan hashes CALLS messages of BYTES bytes, the messages of
 * a probe trial (probe/trial_msg.h) of seed + k, one call each. It prints
 * "size BYTES CALLS ERRORS FOLD" per entry, FOLD the fold of its digests,
 * and "done" at the end: a run without "done" did not finish. The library's
 * own output goes to /dev/null; answers use a copy of the original standard
 * output. */
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

#define PLAN_LIMIT (64 * 1024)

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

static int count_entry(hb_crypthash_fn fn, int bits, uint64_t seed, unsigned long k,
                       size_t size, unsigned long calls)
{
    unsigned char digest[COUNT_MAX_DIGEST_BYTES];
    unsigned char *msg = malloc(size ? size : 1);
    if (!msg)
        return 3;
    tm_fold fold;
    tm_fold_init(&fold);
    memset(digest, 0, sizeof digest);
    tm_base(msg, size, seed);
    uint64_t w = 0;
    unsigned long errors = 0;
    for (unsigned long i = 0; i < calls; i++) {
        uint64_t next = tm_word(seed, i);
        tm_apply(msg, size, w ^ next);
        w = next;
        errors += window(fn, bits, msg, size, digest) != 0;
        dump("call", k, i);
        tm_fold_add(&fold, digest, (size_t)bits / 8);
    }
    free(msg);
    char hex[TM_FOLD_HEX], line[160];
    tm_fold_hex(&fold, hex);
    snprintf(line, sizeof line, "size %zu %lu %lu %s\n", size, calls, errors, hex);
    return say(line) == 0 ? 0 : 3;
}

/* The plan from standard input into SEED, SIZES and CALLS. Returns the
 * number of entries, or -1. */
static int read_plan(uint64_t *seed, unsigned long *sizes, unsigned long *calls)
{
    static char text[PLAN_LIMIT + 1];
    size_t len = 0;
    for (;;) {
        ssize_t r = read(0, text + len, PLAN_LIMIT - len);
        if (r < 0)
            return -1;
        if (r == 0 || (len += (size_t)r) == PLAN_LIMIT)
            break;
    }
    text[len] = '\0';
    int n = -1, ended = 0;
    for (char *line = text, *next; line && *line && !ended; line = next) {
        next = strchr(line, '\n');
        if (!next)
            return -1;
        *next++ = '\0';
        char *end;
        if (n < 0 && strncmp(line, "seed ", 5) == 0 && strlen(line) == 21) {
            *seed = strtoull(line + 5, &end, 16);
            if (*end)
                return -1;
            n = 0;
        } else if (n >= 0 && strcmp(line, "end") == 0) {
            ended = 1;
        } else if (n >= 0 && n < COUNT_MAX_ENTRIES &&
                   sscanf(line, "size %lu %lu", &sizes[n], &calls[n]) == 2) {
            if (sizes[n] > COUNT_MAX_BYTES || calls[n] < 1 || calls[n] > COUNT_MAX_CALLS)
                return -1;
            n++;
        } else {
            return -1;
        }
    }
    return ended && n > 0 ? n : -1;
}

static int usage(void)
{
    say("usage: hashbench-count --lib PATH --digest-bits B < PLAN\n");
    return 2;
}

int main(int argc, char **argv)
{
    static unsigned long sizes[COUNT_MAX_ENTRIES], calls[COUNT_MAX_ENTRIES];
    uint64_t seed = 0;
    hb_step_limit_processes(); /* its threads, before the library is loaded */
    out_fd = dup(1);
    int null = open("/dev/null", O_RDWR);
    if (out_fd < 0 || null < 0 || dup2(null, 1) < 0)
        return 3;
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
    int n = read_plan(&seed, sizes, calls);
    if (n < 1 || dup2(null, 0) < 0) /* the library reads nothing of it */
        return usage();
    close(null);
    hb_crypthash_fn fn = hb_load_crypthash(lib, out_fd);
    if (!fn)
        return 4;
    { /* the warming call, not counted */
        unsigned char digest[COUNT_MAX_DIGEST_BYTES], msg[64];
        tm_base(msg, sizeof msg, ~seed);
        fn(bits, msg, 8ULL * sizeof msg, digest);
    }
    for (unsigned long i = 0; i < COUNT_EMPTY_WINDOWS; i++) {
        empty_window();
        dump("empty", 0, i);
    }
    for (int k = 0; k < n; k++) {
        int rc = count_entry(fn, bits, seed + (uint64_t)k, (unsigned long)k,
                             (size_t)sizes[k], calls[k]);
        if (rc != 0)
            return rc;
    }
    return say("done\n") == 0 ? 0 : 3;
}
