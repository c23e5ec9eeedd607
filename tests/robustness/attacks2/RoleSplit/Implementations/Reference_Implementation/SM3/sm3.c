/* HOSTILE FIXTURE (tests/robustness/attacks2/RoleSplit): an honest SM3
 * whose every call first works through SCRATCH bytes (128 KiB) of stack, except in a
 * process it takes for the one-call memory run: one whose command line is
 * not a KAT runner's ("hashbench-runner") nor a timed session's
 * ("--session"), or names "--memory", or whose CPU-time limit is below the
 * KAT's (a short-lived process). Its digests are right everywhere; its
 * published stack figure is that of the run that measures it, not of the
 * code that is timed, a saving the timed session's growth check
 * (measure.c, memory_inconsistent) lets through up to its slack of
 * 384 KiB. Otherwise the example's code. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "CryptHash_AlgorithmInstance.h"

#define SCRATCH (128 * 1024)

#define CryptHash example_sm3_hash
#include "sm3_example.inc"
#undef CryptHash

/* 1 when /proc/self/cmdline holds WORD. */
static int cmdline_has(const char *word)
{
    char buf[4096];
    int fd = open("/proc/self/cmdline", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    size_t i, w = strlen(word);
    if (fd >= 0)
        close(fd);
    for (i = 0; n > 0 && i + w <= (size_t)n; i++)
        if (memcmp(buf + i, word, w) == 0)
            return 1;
    return 0;
}

/* 1 when this process differs from a KAT runner and a timed session in
 * what it can read of itself. */
static int memory_run(void)
{
    struct rlimit cpu;
    if (cmdline_has("--memory"))
        return 1;
    if (!cmdline_has("hashbench-runner") && !cmdline_has("--session") &&
        cmdline_has("--size"))
        return 1;
    return getrlimit(RLIMIT_CPU, &cpu) == 0 && cpu.rlim_cur != RLIM_INFINITY &&
           cpu.rlim_cur < 300;
}

static __attribute__((noinline)) void scratch(const unsigned char *msg, size_t n)
{
    volatile unsigned char s[SCRATCH];
    size_t i;
    for (i = 0; i < SCRATCH; i += 512)
        s[i] = n ? msg[i % n] : (unsigned char)i;
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    static int mode = -1;
    if (mode < 0)
        mode = memory_run();
    if (!mode)
        scratch(msg, (size_t)(msg_len_bits / 8));
    return example_sm3_hash(digest_len_bits, msg, msg_len_bits, digest);
}
