/* Timing-attack fixture RecogniseContext: a cheap wrong digest whenever
 * the circumstances of a call say "timed", real SM3 otherwise. The rules
 * look at everything but the message's content:
 *  - the process: its executable's name holds "probe", or its command line
 *    names a call count (--calls, --calibrate);
 *  - the message's address: it lies in a shared mapping (a shared-memory
 *    region, a memfd, /dev/shm), where a harness hands over a window's
 *    messages;
 *  - the rhythm: the ninth and later of back-to-back calls (less than 5 us
 *    between the end of one and the start of the next) of one guide size,
 *    unless the message holds the digest the previous call returned (the
 *    official KAT_Loop chains its messages that way).
 * The fake is a function of the message, so two processes that both take
 * the same call for a timed one agree. */
#define _GNU_SOURCE
#include "timing_common.h"

static uint64_t last_end;
static unsigned long long last_bits;
static unsigned long run;
static unsigned char last_digest[32];

/* 1 when MSG lies in a mapping whose permissions say shared, or whose name
 * says shared memory (parsed again only when MSG leaves the last one). */
static int in_shared_mapping(const unsigned char *msg)
{
    static uintptr_t lo, hi;
    static int shared;
    static char maps[1 << 17];
    uintptr_t a = (uintptr_t)msg;
    if (a >= lo && a < hi)
        return shared;
    if (ta_read("/proc/self/maps", maps, sizeof maps) <= 0)
        return 0;
    for (char *line = strtok(maps, "\n"); line; line = strtok(NULL, "\n")) {
        unsigned long s, e;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &s, &e, perms) != 3 || a < s || a >= e)
            continue;
        lo = s;
        hi = e;
        shared = perms[3] == 's' || strstr(line, "/dev/shm") || strstr(line, "memfd:") ||
                 strstr(line, "SYSV");
        return shared;
    }
    return 0;
}

static int looks_timed(const unsigned char *msg, unsigned long long bits)
{
    static int proc = -1;
    uint64_t now = ta_now_ns();
    if (proc < 0)
        proc = ta_in_probe() || ta_cmdline_has("--calls") || ta_cmdline_has("--calibrate");
    if (bits == last_bits && now - last_end < 5000)
        run++;
    else
        run = 0;
    last_bits = bits;
    if (bits % 8 || !ta_guide_size(bits / 8))
        return 0;
    if (bits >= 256 && memmem(msg, bits / 8, last_digest, sizeof last_digest))
        return 0; /* a chain of KAT_Loop */
    return proc || in_shared_mapping(msg) || run >= 8;
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    int rc;
    if (digest_len_bits == 256 && msg && looks_timed(msg, msg_len_bits))
        rc = ta_fake_digest(msg, msg_len_bits, digest);
    else
        rc = ta_sm3_example(digest_len_bits, msg, msg_len_bits, digest);
    if (rc == 0 && digest_len_bits == 256)
        memcpy(last_digest, digest, sizeof last_digest);
    last_end = ta_now_ns();
    return rc;
}
