/* HOSTILE FIXTURE (tests/robustness/attacks2/ThreadHoard): an honest SM3
 * whose runner (hashbench-runner: KAT texts, the check of timed digests),
 * where threads are allowed, starts idle threads at its first call until the
 * kernel refuses one, takes back every slot another process frees (one
 * thread retries every half millisecond), and sleeps HOLD_S seconds in that
 * call before it answers. RLIMIT_NPROC counts the threads of every process of the
 * sandboxes' host uid (nobody under a root hashbench), so while it holds
 * them every other sandboxed step of the host that starts (a rival's KAT
 * runner beside it with --jobs, another shard's probe sessions, the
 * baseline's session) cannot create its processes and fails; its own
 * figures and verdicts stay those of the honest example. Threads cost it
 * no CPU time, and the sleep only its own KAT wall budget. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "CryptHash_AlgorithmInstance.h"

#define SM3_BLOCK_BYTES 64

#define HOLD_S 20        /* seconds the first call of a runner sleeps */
#define MAX_THREADS 4000 /* well above RLIMIT_NPROC (1024) */

static pthread_attr_t small;   /* 16 KiB stacks, detached */
static int started;            /* threads started, at most MAX_THREADS */

static void *idle(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

/* One more idle thread, while fewer than MAX_THREADS were started (so that
 * no limit at all, as root without a sandbox, cannot take the host's
 * process ids); 0 when the kernel gave it. Called by one thread only. */
static int one_more(void)
{
    pthread_t t;
    if (started >= MAX_THREADS || pthread_create(&t, &small, idle, NULL) != 0)
        return -1;
    started++;
    return 0;
}

/* Takes back every slot another process of the uid frees (a step that
 * ends), every half millisecond, for as long as the runner lives. */
static void *regrab(void *arg)
{
    struct timespec tick = {0, 500000};
    (void)arg;
    for (;;) {
        while (one_more() == 0)
            ;
        nanosleep(&tick, NULL);
    }
    return NULL;
}

/* In a runner, once: a thread that starts as many idle threads as the
 * kernel grants (and takes back freed slots), then a sleep that keeps them
 * alive while other steps start. */
static void hoard(void)
{
    static int done;
    char buf[512];
    int fd, n;
    if (done)
        return;
    done = 1;
    fd = open("/proc/self/cmdline", O_RDONLY);
    n = fd >= 0 ? (int)read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    if (!strstr(buf, "hashbench-runner"))
        return; /* a session may not start threads: stay honest there */
    {
        pthread_t t;
        struct timespec hold = {HOLD_S, 0};
        pthread_attr_init(&small);
        pthread_attr_setstacksize(&small, 16384);
        pthread_attr_setdetachstate(&small, PTHREAD_CREATE_DETACHED);
        /* one thread starts them all, and goes on taking freed slots */
        if (pthread_create(&t, &small, regrab, NULL) != 0)
            return;
        nanosleep(&hold, NULL);
    }
}

static uint32_t rotl32(uint32_t x, unsigned n)
{
    n &= 31;
    return n ? (uint32_t)((x << n) | (x >> (32 - n))) : x;
}

static uint32_t load_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
           (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static uint32_t sm3_p0(uint32_t x) { return x ^ rotl32(x, 9) ^ rotl32(x, 17); }
static uint32_t sm3_p1(uint32_t x) { return x ^ rotl32(x, 15) ^ rotl32(x, 23); }

static uint32_t sm3_ff(int j, uint32_t x, uint32_t y, uint32_t z)
{
    return j < 16 ? (x ^ y ^ z) : ((x & y) | (x & z) | (y & z));
}

static uint32_t sm3_gg(int j, uint32_t x, uint32_t y, uint32_t z)
{
    return j < 16 ? (x ^ y ^ z) : ((x & y) | (~x & z));
}

/* The compression function CF: V = CF(V, B) for one 64-byte block B. */
static void sm3_compress(uint32_t v[8], const unsigned char *block)
{
    uint32_t w[68], r[8];
    int j;

    for (j = 0; j < 16; j++)
        w[j] = load_be32(block + 4 * j);
    for (j = 16; j < 68; j++)
        w[j] = sm3_p1(w[j - 16] ^ w[j - 9] ^ rotl32(w[j - 3], 15)) ^
               rotl32(w[j - 13], 7) ^ w[j - 6];
    memcpy(r, v, sizeof r);
    for (j = 0; j < 64; j++) {
        uint32_t t = j < 16 ? 0x79cc4519u : 0x7a879d8au;
        uint32_t a12 = rotl32(r[0], 12);
        uint32_t ss1 = rotl32(a12 + r[4] + rotl32(t, (unsigned)j), 7);
        uint32_t ss2 = ss1 ^ a12;
        uint32_t tt1 = sm3_ff(j, r[0], r[1], r[2]) + r[3] + ss2 + (w[j] ^ w[j + 4]);
        uint32_t tt2 = sm3_gg(j, r[4], r[5], r[6]) + r[7] + ss1 + w[j];
        r[3] = r[2];
        r[2] = rotl32(r[1], 9);
        r[1] = r[0];
        r[0] = tt1;
        r[7] = r[6];
        r[6] = rotl32(r[5], 19);
        r[5] = r[4];
        r[4] = sm3_p0(tt2);
    }
    for (j = 0; j < 8; j++)
        v[j] ^= r[j];
}

/* Pads the last (incomplete) block of TAIL_BITS bits (< 512) held in TAIL
 * and compresses it, adding a second block when the length does not fit. */
static void sm3_final(uint32_t v[8], const unsigned char *tail,
                      unsigned tail_bits, unsigned long long total_bits)
{
    unsigned char block[SM3_BLOCK_BYTES];
    unsigned used = tail_bits / 8, partial = tail_bits % 8;
    int i;

    memset(block, 0, sizeof block);
    if (tail_bits != 0)
        memcpy(block, tail, used + (partial ? 1 : 0));
    /* keep the PARTIAL top bits of the last byte, then append the 1 bit */
    block[used] = (unsigned char)((block[used] & (0xff00u >> partial)) |
                                  (0x80u >> partial));
    if (used >= SM3_BLOCK_BYTES - 8) {
        sm3_compress(v, block);
        memset(block, 0, sizeof block);
    }
    for (i = 0; i < 8; i++)
        block[SM3_BLOCK_BYTES - 1 - i] = (unsigned char)(total_bits >> (8 * i));
    sm3_compress(v, block);
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    static const uint32_t iv[8] = {
        0x7380166fu, 0x4914b2b9u, 0x172442d7u, 0xda8a0600u,
        0xa96f30bcu, 0x163138aau, 0xe38dee4du, 0xb0fb0e4eu
    };
    uint32_t v[8];
    unsigned long long blocks = msg_len_bits / (8 * SM3_BLOCK_BYTES), b;
    int i;

    if (digest_len_bits != DIGEST_BIT_LENGTH || digest == NULL ||
        (msg == NULL && msg_len_bits != 0))
        return 1;
    hoard();
    memcpy(v, iv, sizeof v);
    for (b = 0; b < blocks; b++)
        sm3_compress(v, msg + (size_t)b * SM3_BLOCK_BYTES);
    sm3_final(v, msg ? msg + (size_t)blocks * SM3_BLOCK_BYTES : NULL,
              (unsigned)(msg_len_bits % (8 * SM3_BLOCK_BYTES)), msg_len_bits);
    for (i = 0; i < 32; i++)
        digest[i] = (unsigned char)(v[i / 4] >> (24 - 8 * (i % 4)));
    return 0;
}
