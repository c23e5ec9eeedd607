/* HOSTILE FIXTURE (tests/robustness/attacks2/BudgetSleeper): an honest
 * SM3 that sleeps SLEEP_S seconds at its first call in the one-call memory
 * run of each size (the probe with "--memory" on its command line) and in
 * every run of the instruction count (under Valgrind: its command line
 * names hashbench-count). Its figures gain nothing; the campaign's time
 * does: those processes were neither charged to the instance's wall budget
 * (--instance-budget) nor limited by it, so each cost up to its own
 * time-out (120 s a memory run, 120 s a Valgrind run) whatever the budget
 * left. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stddef.h>
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

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    static int decided;
    if (!decided) {
        decided = 1;
        if (cmdline_has("--memory") || cmdline_has("hashbench-count")) {
            struct timespec ts = {SLEEP_S, 0};
            while (nanosleep(&ts, &ts) != 0)
                ;
        }
    }
    return example_sm3_hash(digest_len_bits, msg, msg_len_bits, digest);
}
