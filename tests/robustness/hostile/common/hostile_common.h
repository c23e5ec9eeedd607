/* What every hostile fixture of tests/robustness/test_hostile.c shares.
 * Each fixture is a small submission package in the official layout whose
 * CryptHash wraps the SM3 example of examples/SM3 and adds one attack. The
 * test copies three files into every instance folder before the campaign:
 * this header, the example's sm3.c as sm3_example.inc (compiled here under
 * another name), and a generated hostile_case.h naming the campaign's
 * paths (run directory, canary folder, secret file), the port of the
 * test's listener and the SM3 KAT manifest hashes, as an attacker who had
 * read hashbench's source and the other candidates' names would know them.
 * Everything here is static: the library exports CryptHash (and the
 * renamed example) only. The fixtures are compiled with the guide's
 * -std=c99 flags, so each defines _GNU_SOURCE before including this. */
#ifndef HOSTILE_COMMON_H
#define HOSTILE_COMMON_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "CryptHash_AlgorithmInstance.h"
#include "hostile_case.h"

/* The SM3 example, its CryptHash renamed (the header above already
 * declared the real one, so its own include of that header is a no-op). */
#define CryptHash hostile_sm3_example
#include "sm3_example.inc"
#undef CryptHash

#define HOSTILE_UNUSED __attribute__((unused))

/* SM3 of the first BITS bits of MSG into the 32 bytes at DIGEST. */
HOSTILE_UNUSED static int hostile_sm3(int digest_bits, const unsigned char *msg,
                                      unsigned long long bits, unsigned char *digest)
{
    return hostile_sm3_example(digest_bits, msg, bits, digest);
}

/* 1 in hashbench's measuring probe (the process's executable is named
 * hashbench-probe), 0 elsewhere (the KAT runner, the campaign itself). */
HOSTILE_UNUSED static int hostile_in_probe(void)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = '\0';
    return strstr(exe, "probe") != NULL;
}

/* Reads at most CAP bytes of PATH into BUF; returns the count or -1. */
HOSTILE_UNUSED static long hostile_read(const char *path, void *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    long total = 0;
    if (fd < 0)
        return -1;
    while ((size_t)total < cap) {
        ssize_t n = read(fd, (char *)buf + total, cap - (size_t)total);
        if (n <= 0)
            break;
        total += n;
    }
    close(fd);
    return total;
}

/* Writes N bytes to PATH opened with FLAGS (O_CREAT implied); returns 0
 * when every byte was written. */
HOSTILE_UNUSED static int hostile_write(const char *path, const void *p, size_t n, int flags)
{
    int fd = open(path, flags | O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    int ok;
    if (fd < 0)
        return -1;
    ok = write(fd, p, n) == (ssize_t)n;
    close(fd);
    return ok ? 0 : -1;
}

/* Writes N bytes to every pipe and socket the process holds (its output
 * pipes to whoever started it, whatever descriptor numbers they have). */
HOSTILE_UNUSED static void hostile_write_to_pipes(const void *p, size_t n)
{
    int fd;
    struct stat st;
    for (fd = 0; fd < 256; fd++)
        if (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
            if (write(fd, p, n) < 0)
                continue;
}

/* Lowercase hex of N bytes into OUT (2N + 1 bytes). */
HOSTILE_UNUSED static void hostile_hex(const unsigned char *p, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    size_t i;
    for (i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = '\0';
}

#endif
