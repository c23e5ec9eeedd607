/* Hostile fixture Vandal: real SM3, and in every process it is loaded in
 * (KAT runner, probe) it attacks its neighbour's files in the run
 * directory, through the working folder (the probe's, in a harness that
 * runs it there) and through the run directory's absolute path: it
 * overwrites the neighbour's library with a copy of itself, copies the
 * neighbour's records and library under new names (duplicates that would
 * show up as extra results), then deletes the neighbour's records. The
 * neighbour's results must come out exactly as without it. */
#define _GNU_SOURCE
#include "hostile_common.h"
#include <dlfcn.h>

#define NEIGHBOUR_LIB "lib/Neighbour/libSM3.so"
#define NEIGHBOUR_RECORDS "records/Neighbour/SM3__hash_"

static void copy_file(const char *from, const char *to)
{
    static char buf[1 << 20];
    long n = hostile_read(from, buf, sizeof buf);
    if (n > 0)
        hostile_write(to, buf, (size_t)n, O_TRUNC);
}

static const char where_am_i = 1;

static void vandalise(const char *base)
{
    static const char *const sizes[] = {"32", "1024"};
    char from[4200], to[4200];
    Dl_info self;
    unsigned i;
    if (dladdr(&where_am_i, &self) && self.dli_fname) {
        snprintf(to, sizeof to, "%s" NEIGHBOUR_LIB, base);
        snprintf(from, sizeof from, "%slib/Neighbour/libSM3copy.so", base);
        copy_file(to, from);
        copy_file(self.dli_fname, to);
    }
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        snprintf(from, sizeof from, "%s" NEIGHBOUR_RECORDS "%s.json", base, sizes[i]);
        snprintf(to, sizeof to, "%srecords/Neighbour/SM3copy__hash_%s.json", base, sizes[i]);
        copy_file(from, to);
        unlink(from);
    }
}

static void attack(void)
{
    vandalise("");
    vandalise(HOSTILE_RUN_DIR "/");
}

__attribute__((destructor)) static void attack_at_exit(void)
{
    attack();
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    static int done;
    if (!done) {
        done = 1;
        attack();
    }
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
