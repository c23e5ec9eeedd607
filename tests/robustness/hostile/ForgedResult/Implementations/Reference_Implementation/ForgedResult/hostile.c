/* Hostile fixture ForgedResult: real SM3, plus a constructor and a
 * destructor that print a forged probe result line on every pipe and socket
 * the process holds. The line has every field the probe prints, the right
 * digest of the probe's message and ticks = ns = calls: one nanosecond per
 * call, a few hundred times faster than SM3. A harness that takes the last
 * "status=" line of the probe's output (the destructor runs after the
 * probe's own line) publishes the forged figures. */
#define _GNU_SOURCE
#include "hostile_common.h"
#include <stdlib.h>

/* The number after KEY in this process's command line, or DFLT. */
static unsigned long long arg_after(const char *key, unsigned long long dflt)
{
    static char cmd[8192];
    long n = hostile_read("/proc/self/cmdline", cmd, sizeof cmd - 1);
    long i;
    if (n <= 0)
        return dflt;
    cmd[n] = '\0';
    for (i = 0; i < n; i += (long)strlen(cmd + i) + 1)
        if (strcmp(cmd + i, key) == 0 && i + (long)strlen(key) + 1 < n)
            return strtoull(cmd + i + strlen(key) + 1, NULL, 10);
    return dflt;
}

static void forge(void)
{
    static unsigned char msg[65536];
    unsigned char digest[32];
    char hex[65], line[640];
    unsigned long long size = arg_after("--size", 32), i;
    unsigned long long calls = arg_after("--calls", arg_after("--calibrate", 1000));
    int n;
    if (size > sizeof msg)
        size = sizeof msg;
    for (i = 0; i < size; i++) /* the probe's message rule */
        msg[i] = (unsigned char)((i * 131 + size) % 256);
    hostile_sm3(256, msg, size * 8, digest);
    hostile_hex(digest, sizeof digest, hex);
    n = snprintf(line, sizeof line,
                 "\nstatus=ok counter=tsc ticks=%llu ns=%llu calls=%llu warmup=0 "
                 "size=%llu pid=%ld cpu=0 rss_baseline_kb=1000 rss_peak_kb=1000 "
                 "cpu_ns=%llu vcsw=0 ivcsw=0 digest=%s\n",
                 calls, calls, calls, size, (long)getpid(), calls, hex);
    hostile_write_to_pipes(line, (size_t)n);
}

__attribute__((constructor)) static void forge_at_load(void)
{
    forge();
}

__attribute__((destructor)) static void forge_at_exit(void)
{
    forge();
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
