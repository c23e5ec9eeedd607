/* What the timing-attack fixtures of tests/robustness/timing_attacks.sh
 * share. Each fixture is a submission package in the official layout whose
 * CryptHash wraps the SM3 example of examples/SM3 and tries one way of
 * getting a better timing than its code deserves, using only what a
 * dlopen'ed library has: its constructor, its calls, and the whole address
 * space of whatever process loaded it. The test copies this header and the
 * example's sm3.c (as sm3_example.inc) beside every timing.c before the
 * campaign. Everything here is static; the library exports CryptHash only.
 * The fixtures are compiled with the guide's -std=c99 flags, so each
 * defines _GNU_SOURCE before including this. */
#ifndef TIMING_COMMON_H
#define TIMING_COMMON_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "CryptHash_AlgorithmInstance.h"

/* The SM3 example, its CryptHash renamed. */
#define CryptHash ta_sm3_example
#include "sm3_example.inc"
#undef CryptHash

#define TA_UNUSED __attribute__((unused))

/* The guide's message sizes in bytes. */
TA_UNUSED static int ta_guide_size(unsigned long long bytes)
{
    static const unsigned long long s[] = {32, 128, 512, 1024, 4096, 8192, 16384, 65536};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        if (bytes == s[i])
            return 1;
    return 0;
}

/* CLOCK_MONOTONIC_RAW in ns (the vDSO: no system call). */
TA_UNUSED static uint64_t ta_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A cheap cycle-ish counter: the TSC on x86-64, else the clock. */
TA_UNUSED static uint64_t ta_ticks(void)
{
#if defined(__x86_64__)
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
#else
    return ta_now_ns();
#endif
}

/* At most CAP - 1 bytes of PATH, NUL-terminated; the count or -1. */
TA_UNUSED static long ta_read(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    long total = 0;
    if (fd < 0)
        return -1;
    while ((size_t)total + 1 < cap) {
        ssize_t n = read(fd, buf + total, cap - 1 - (size_t)total);
        if (n <= 0)
            break;
        total += n;
    }
    close(fd);
    buf[total] = '\0';
    return total;
}

/* 1 when some argument of this process's command line contains NEEDLE. */
TA_UNUSED static int ta_cmdline_has(const char *needle)
{
    static char cmd[16384];
    long n = ta_read("/proc/self/cmdline", cmd, sizeof cmd);
    for (long i = 0; i < n; i += (long)strlen(cmd + i) + 1)
        if (strstr(cmd + i, needle))
            return 1;
    return 0;
}

/* 1 when the executable's name contains "probe" (hashbench's timer). */
TA_UNUSED static int ta_in_probe(void)
{
    static int cached = -1;
    char exe[4096];
    if (cached < 0) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = '\0';
        cached = strstr(exe, "probe") != NULL;
    }
    return cached;
}

/* ---- hashbench's published trial-message rule (docs/TIMING.md, "The
 * messages vary"): word k of the base message is splitmix64's finalizer of
 * seed + (k + 1) * golden, and call i XORs a word into the first eight
 * bytes of every 64-byte block. Word 1 (bytes 8..15) is never XORed, and
 * the finalizer is a bijection, so one word gives the seed back. */
#define TA_GOLDEN 0x9e3779b97f4a7c15ULL

TA_UNUSED static uint64_t ta_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t ta_unshift(uint64_t x, unsigned s)
{
    uint64_t y = x;
    for (unsigned i = 0; i < 64 / s + 1; i++)
        y = x ^ (y >> s);
    return y;
}

static uint64_t ta_inverse(uint64_t a) /* a odd: a * inverse = 1 mod 2^64 */
{
    uint64_t x = a;
    for (int i = 0; i < 6; i++)
        x *= 2 - a * x;
    return x;
}

TA_UNUSED static uint64_t ta_unmix64(uint64_t z)
{
    z = ta_unshift(z, 31) * ta_inverse(0x94d049bb133111ebULL);
    z = ta_unshift(z, 27) * ta_inverse(0xbf58476d1ce4e5b9ULL);
    return ta_unshift(z, 30);
}

TA_UNUSED static uint64_t ta_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--)
        v = v << 8 | p[k];
    return v;
}

/* The seed of a message made by the published rule, found from bytes 8..15
 * and confirmed on bytes 16..23; 0 when the message does not follow it. */
TA_UNUSED static int ta_rule_seed(const unsigned char *msg, unsigned long long bits,
                                  uint64_t *seed)
{
    if (bits % 8 || bits < 8 * 24 || !ta_guide_size(bits / 8))
        return 0;
    uint64_t s = ta_unmix64(ta_le64(msg + 8)) - 2 * TA_GOLDEN;
    if (ta_mix64(s + 3 * TA_GOLDEN) != ta_le64(msg + 16))
        return 0;
    *seed = s;
    return 1;
}

/* The published rule's word of call I and its messages. */
TA_UNUSED static uint64_t ta_rule_word(uint64_t seed, uint64_t i)
{
    return ta_mix64(seed ^ ta_mix64(i + TA_GOLDEN));
}

/* Message I of the trial SEED (SIZE bytes) into OUT. */
TA_UNUSED static void ta_rule_message(unsigned char *out, size_t size, uint64_t seed, uint64_t i)
{
    uint64_t s = seed, w = ta_rule_word(seed, i);
    for (size_t k = 0; k < size; k += 8) {
        s += TA_GOLDEN;
        uint64_t v = ta_mix64(s);
        for (size_t b = 0; b < 8 && k + b < size; b++)
            out[k + b] = (unsigned char)(v >> (8 * b));
    }
    for (size_t j = 0; j + 8 <= size; j += 64)
        for (int b = 0; b < 8; b++)
            out[j + b] ^= (unsigned char)(w >> (8 * b));
}

/* The call index of a message of the trial SEED: the I (searched from
 * FROM, up to LIMIT more) whose word its first eight bytes carry; -1. */
TA_UNUSED static long long ta_rule_index(const unsigned char *msg, uint64_t seed,
                                         uint64_t from, uint64_t limit)
{
    uint64_t w0 = ta_le64(msg) ^ ta_mix64(seed + TA_GOLDEN);
    for (uint64_t i = from; i < from + limit; i++)
        if (ta_rule_word(seed, i) == w0)
            return (long long)i;
    if (from)
        for (uint64_t i = 0; i < from && i < limit; i++)
            if (ta_rule_word(seed, i) == w0)
                return (long long)i;
    return -1;
}

/* A cheap digest that is not SM3: one compression over the first block,
 * mixed with the length. A pure function of the message, so that any
 * process that recomputes it with this library agrees. */
TA_UNUSED static int ta_fake_digest(const unsigned char *msg, unsigned long long bits,
                                    unsigned char *digest)
{
    int rc = ta_sm3_example(256, msg, bits < 512 ? bits : 512, digest);
    for (int k = 0; k < 8; k++)
        digest[k] ^= (unsigned char)(bits >> (8 * k));
    return rc;
}

/* Leaves a marker named hbta-NAME in the folders a library might hope to
 * reach on the host (its working folder, /tmp, /dev/shm); the test checks
 * that none survives anywhere it can see. */
TA_UNUSED static void ta_leave_marker(const char *name, size_t bytes)
{
    static const char *const dirs[] = {".", "/tmp", "/dev/shm", "/var/tmp"};
    static unsigned char junk[4096];
    char path[256];
    memset(junk, 0xA5, sizeof junk);
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        snprintf(path, sizeof path, "%s/hbta-%s", dirs[d], name);
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            continue;
        for (size_t n = 0; n < bytes; n += sizeof junk)
            if (write(fd, junk, sizeof junk) < 0)
                break;
        close(fd);
    }
}

#endif
