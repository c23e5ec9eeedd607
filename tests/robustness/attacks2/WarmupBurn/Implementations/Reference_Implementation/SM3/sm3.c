/* HOSTILE FIXTURE (tests/robustness/attacks2/WarmupBurn): an honest SM3
 * that spends BURN_MS of CPU time at the start of every untimed warm-up
 * window of its probe session. hashbench runs a few ms of untimed calls of
 * the same session before each timed window; those windows are not timed,
 * sampled nor held to any cost, and a library can tell them (the region
 * still holds the messages of the window before: call 0 of a warm-up hashes
 * the same bytes as call 0 of the window before it). Work there is free for
 * the library's figure: it cannot reach the next window's messages (written
 * after the warm-up), but it burns the host (a shard measured on the other
 * core shares its caches and memory bandwidth) and the campaign's time,
 * bounded only by the window timeout (60 s) and the instance's wall budget.
 * Its digests are the true SM3. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "CryptHash_AlgorithmInstance.h"


#define BURN_MS 20

/* The start of the session's shared region (the memfd "hb-session" in
 * /proc/self/maps), or NULL outside a session (and in the probe's checks,
 * before the region is mapped). */
static const unsigned char *region(void)
{
    static const unsigned char *base;
    char line[512];
    FILE *f;
    if (base)
        return base; /* looked for again until the region is mapped */
    f = fopen("/proc/self/maps", "r");
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "hb-session")) {
            base = (const unsigned char *)(size_t)strtoull(line, NULL, 16);
            break;
        }
    if (f)
        fclose(f);
    return base;
}

static double thread_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* At call 0 of a window (the message at the region's start): a warm-up
 * when the bytes are those of the window before, then BURN_MS of spinning. */
static void maybe_burn(const unsigned char *msg, unsigned long long bits)
{
    static unsigned char last[32];
    static int have;
    size_t n = bits / 8 < sizeof last ? (size_t)(bits / 8) : sizeof last;
    if (msg == NULL || msg != region() || n == 0)
        return;
    if (have && memcmp(last, msg, n) == 0) {
        double end = thread_ms() + BURN_MS;
        volatile unsigned long spin = 0;
        while (thread_ms() < end)
            spin++;
    }
    memcpy(last, msg, n);
    have = 1;
}

/* The example's SM3 (copied in as sm3_example.inc when the package is
 * assembled: tests/robustness/attacks2.sh) under another name; the real
 * CryptHash is declared above, so the example's own include of that
 * header declares nothing new. */
#define CryptHash example_sm3_hash
#include "sm3_example.inc"
#undef CryptHash

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    if (digest_len_bits == DIGEST_BIT_LENGTH && digest != NULL &&
        (msg != NULL || msg_len_bits == 0))
        maybe_burn(msg, msg_len_bits);
    return example_sm3_hash(digest_len_bits, msg, msg_len_bits, digest);
}
