/* hashbench-count: the small program the instruction-count stage
 * (count/count.h) runs under Valgrind's cachegrind, in the sandbox, on one
 * submitted library. Like the probe and the runner it links libc and libdl
 * only.
 *
 *   hashbench-count --lib PATH --digest-bits B --seed HEX16
 *                   --sizes S1,S2,... --calls C1,C2,...
 *
 * For each size Sk in turn it hashes COUNT_N2 messages of Sk bytes, the
 * messages of a probe trial (probe/trial_msg.h) of seed HEX16 + k, but
 * calls the library only for the first Ck of them; every other step
 * (making the next message, folding the digest) is done for all COUNT_N2,
 * so that two runs that differ only in one Ck differ, in instructions, by
 * the library's calls alone (and the few instructions of passing the
 * arguments). It prints "size Sk Ck ERRORS FOLD" per size, FOLD the fold of
 * the Ck digests, and "done" at the end: a run without "done" did not
 * finish. The library's own output goes to /dev/null; answers use a copy
 * of the original standard output. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/libload.h"
#include "common/steplimit.h"
#include "count/count_plan.h"
#include "probe/trial_msg.h"


static int out_fd = -1;

static int say(const char *line)
{
    return hb_fd_write_all(out_fd, line, strlen(line));
}

/* A comma-separated list of decimal numbers into V (at most CAP). Returns
 * how many, or -1. */
static int parse_list(const char *s, unsigned long *v, int cap)
{
    int n = 0;
    while (*s) {
        char *end;
        if (n == cap || *s < '0' || *s > '9')
            return -1;
        v[n++] = strtoul(s, &end, 10);
        if (*end == ',' && end[1])
            end++;
        else if (*end)
            return -1;
        s = end;
    }
    return n;
}

static int count_size(hb_crypthash_fn fn, int bits, uint64_t seed, size_t size, unsigned long calls)
{
    unsigned char digest[COUNT_MAX_DIGEST_BYTES];
    unsigned char *msg = malloc(size ? size : 1);
    if (!msg)
        return 3;
    tm_fold real, spare;
    tm_fold_init(&real);
    tm_fold_init(&spare);
    memset(digest, 0, sizeof digest);
    tm_base(msg, size, seed);
    uint64_t w = 0;
    unsigned long errors = 0;
    for (unsigned long i = 0; i < COUNT_N2; i++) {
        uint64_t next = tm_word(seed, i);
        tm_apply(msg, size, w ^ next);
        w = next;
        tm_fold *f = &spare;
        if (i < calls) {
            errors += fn(bits, msg, 8ULL * size, digest) != 0;
            f = &real;
        }
        tm_fold_add(f, digest, (size_t)bits / 8);
    }
    free(msg);
    char hex[TM_FOLD_HEX], line[160];
    tm_fold_hex(&real, hex);
    snprintf(line, sizeof line, "size %zu %lu %lu %s\n", size, calls, errors, hex);
    return say(line) == 0 ? 0 : 3;
}

static int usage(void)
{
    say("usage: hashbench-count --lib PATH --digest-bits B --seed HEX16 --sizes LIST "
        "--calls LIST\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *lib = NULL, *seed_hex = NULL, *sizes_s = NULL, *calls_s = NULL;
    int bits = 0;
    hb_step_limit_processes(); /* its threads, before the library is loaded */
    out_fd = dup(1);
    int null = open("/dev/null", O_WRONLY);
    if (out_fd < 0 || null < 0 || dup2(null, 1) < 0)
        return 3;
    close(null);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--lib") == 0)
            lib = argv[i + 1];
        else if (strcmp(argv[i], "--digest-bits") == 0)
            bits = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--seed") == 0)
            seed_hex = argv[i + 1];
        else if (strcmp(argv[i], "--sizes") == 0)
            sizes_s = argv[i + 1];
        else if (strcmp(argv[i], "--calls") == 0)
            calls_s = argv[i + 1];
        else
            return usage();
    }
    unsigned long sizes[COUNT_MAX_SIZES], calls[COUNT_MAX_SIZES];
    int ns = sizes_s ? parse_list(sizes_s, sizes, COUNT_MAX_SIZES) : -1;
    int nc = calls_s ? parse_list(calls_s, calls, COUNT_MAX_SIZES) : -1;
    char *end = NULL;
    uint64_t seed = seed_hex ? strtoull(seed_hex, &end, 16) : 0;
    if (argc != 11 || !lib || bits <= 0 || bits % 8 || bits > 8 * COUNT_MAX_DIGEST_BYTES ||
        !end || *end || ns < 1 || nc != ns)
        return usage();
    for (int k = 0; k < ns; k++)
        if (sizes[k] > COUNT_MAX_BYTES || calls[k] > COUNT_N2)
            return usage();
    hb_crypthash_fn fn = hb_load_crypthash(lib, out_fd);
    if (!fn)
        return 4;
    for (int k = 0; k < ns; k++) {
        int rc = count_size(fn, bits, seed + (uint64_t)k, (size_t)sizes[k], calls[k]);
        if (rc != 0)
            return rc;
    }
    return say("done\n") == 0 ? 0 : 3;
}
