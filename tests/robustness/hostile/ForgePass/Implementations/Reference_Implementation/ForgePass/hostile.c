/* Hostile fixture ForgePass: a wrong hash (SM3 with its first digest bit
 * flipped) that tries to have itself reported as passing, by every route
 * a library inside the KAT process could reach:
 * - shared memory: at its last KAT call (the third 2^23-bit message) it
 *   looks for a writable shared mapping that starts with its own pid (the
 *   report a forked KAT child shares with its parent), writes the SM3
 *   manifest hashes and "finished" into it, and exits 0;
 * - its output: on its first call it writes a forged runner answer (status
 *   OK, the right digest) and a "RESULT ... PASS" line to every pipe and
 *   socket it holds;
 * - the reports: a detached process (fork, setsid, fork) rewrites, for up
 *   to 15 s, the status of ForgePass in kat.json and the RESULT line of its
 *   KAT log to PASS.
 * Its status must stay a failure and nothing it wrote may be published. */
#define _GNU_SOURCE
#include "hostile_common.h"
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define SELF "ForgePass"

/* The report of a forked KAT child: pid, finished, files done, the message
 * length being hashed, then one SHA-256 hex text per KAT file. */
struct forged_report {
    long pid;
    int finished;
    int n_done;
    unsigned long long cur_len;
    char sha256[4][65];
};

static void forge_shared_report(void)
{
    static char maps[1 << 16];
    long n = hostile_read("/proc/self/maps", maps, sizeof maps - 1);
    char *line, *save = NULL;
    if (n <= 0)
        return;
    maps[n] = '\0';
    for (line = strtok_r(maps, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        unsigned long lo, hi;
        char perms[8];
        struct forged_report *r;
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || strcmp(perms, "rw-s") != 0 ||
            hi - lo < sizeof *r)
            continue;
        r = (struct forged_report *)(uintptr_t)lo;
        if (r->pid != (long)getpid())
            continue;
        memcpy(r->sha256[0], HOSTILE_KAT_2_12_SHA256, 65);
        memcpy(r->sha256[1], HOSTILE_KAT_2_23_SHA256, 65);
        r->n_done = 2;
        r->finished = 1;
    }
}

/* A runner answer header (status OK, no fault, 32 payload bytes), the
 * right digest of MSG, and a PASS line, on every pipe. */
static void forge_output(const unsigned char *msg, unsigned long long bits)
{
    unsigned char answer[16 + 32];
    static const char pass[] = "\nRESULT " SELF " " SELF " PASS\nstatus=PASS\n";
    memset(answer, 0, 16);
    answer[8] = 32;
    hostile_sm3(256, msg, bits, answer + 16);
    hostile_write_to_pipes(answer, sizeof answer);
    hostile_write_to_pipes(pass, sizeof pass - 1);
}

/* Replaces the word after the first AFTER that follows ANCHOR in PATH by
 * PASS; 1 when the file now says PASS there. */
static int rewrite_to_pass(const char *path, const char *anchor, const char *after)
{
    static char text[1 << 20], out[(1 << 20) + 8];
    long n = hostile_read(path, text, sizeof text - 1);
    char *a, *v, *end;
    if (n <= 0)
        return 0;
    text[n] = '\0';
    if (!(a = strstr(text, anchor)) || !(v = strstr(a, after)))
        return 0;
    v += strlen(after);
    end = v + strcspn(v, "\" \n");
    if (end - v == 4 && memcmp(v, "PASS", 4) == 0)
        return 1;
    memcpy(out, text, (size_t)(v - text));
    memcpy(out + (v - text), "PASS", 4);
    memcpy(out + (v - text) + 4, end, (size_t)(n - (end - text)));
    return hostile_write(path, out, (size_t)(n - (end - v) + 4), O_TRUNC) == 0;
}

static void rewrite_reports(void)
{
    struct timespec pause = {0, 50 * 1000 * 1000};
    int i, json = 0, log = 0;
    for (i = 0; i < 300 && !(json && log); i++) {
        json = rewrite_to_pass(HOSTILE_RUN_DIR "/kat.json", "\"" SELF "\"", "\"status\": \"");
        log = rewrite_to_pass(HOSTILE_RUN_DIR "/kat/" SELF "/" SELF ".log",
                              "RESULT " SELF " " SELF, " ");
        nanosleep(&pause, NULL);
    }
}

static void start_rewriter(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        if (fork() == 0)
            rewrite_reports();
        _exit(0);
    }
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    static int calls, long_calls;
    int rc = hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
    if (calls++ == 0) {
        forge_output(msg, msg_len_bits);
        start_rewriter();
    }
    if (rc == 0)
        digest[0] ^= 0x80;
    if (msg_len_bits == (1ULL << 23) && ++long_calls == 3) {
        forge_shared_report();
        _exit(0);
    }
    return rc;
}
