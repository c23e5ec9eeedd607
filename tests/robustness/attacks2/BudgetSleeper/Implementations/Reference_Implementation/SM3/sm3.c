/* HOSTILE FIXTURE (tests/robustness/attacks2/BudgetSleeper): an honest
 * SM3 that sleeps SLEEP_S seconds at its first call in the one-call memory
 * run of each size (told by its stack: that call runs on a stack of its
 * own, outside the process's [stack] mapping) and in
 * every run of the instruction count (under Valgrind: its command line
 * names hashbench-count). Its figures gain nothing; the campaign's time
 * does: those processes were neither charged to the instance's wall budget
 * (--instance-budget) nor limited by it, so each cost up to its own
 * time-out (120 s a memory run, 120 s a Valgrind run) whatever the budget
 * left. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "CryptHash_AlgorithmInstance.h"

#define SLEEP_S 30

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

/* 1 when the caller's stack is not the process's main stack (read once). */
static int on_own_stack(void)
{
    static unsigned long lo, hi;
    static int read_once;
    char line[512];
    unsigned long here = (unsigned long)(uintptr_t)&line;
    if (!read_once) {
        FILE *f = fopen("/proc/self/maps", "r");
        read_once = 1;
        while (f && fgets(line, sizeof line, f))
            if (strstr(line, "[stack]"))
                sscanf(line, "%lx-%lx", &lo, &hi);
        if (f)
            fclose(f);
    }
    return hi && (here < lo || here >= hi);
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    static int slept;
    if (!slept && (on_own_stack() || cmdline_has("hashbench-count"))) {
        slept = 1;
        {
            struct timespec ts = {SLEEP_S, 0};
            while (nanosleep(&ts, &ts) != 0)
                ;
        }
    }
    return example_sm3_hash(digest_len_bits, msg, msg_len_bits, digest);
}
