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
        hoard();
    return example_sm3_hash(digest_len_bits, msg, msg_len_bits, digest);
}
