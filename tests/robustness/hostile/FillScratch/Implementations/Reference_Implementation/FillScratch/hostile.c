/* Hostile fixture FillScratch: on its first call in every process (each
 * KAT runner, each probe) it fills whatever it can write: in its working
 * folder and in /tmp, a chain of folders with 200-character names, deeper
 * than PATH_MAX, made one level at a time relative to the folder above
 * (so no path is ever too long for it), with files at the bottom, and
 * many small files beside it. Every name starts with "hbfill", so that
 * the test can look for them. Its digests are right: it passes and is
 * timed. Nothing it made may be left on the host once the campaign has
 * ended, and the campaign must complete. */
#define _GNU_SOURCE
#include <errno.h>
#include "hostile_common.h"

#define CHAIN_LEVELS 24   /* 24 x 201 characters: more than PATH_MAX */
#define SMALL_FILES 600

static void chain(int top)
{
    char name[208];
    memset(name, 'd', sizeof name);
    memcpy(name, "hbfill-", 7);
    name[200] = '\0';
    int fd = dup(top);
    for (int i = 0; fd >= 0 && i < CHAIN_LEVELS; i++) {
        int next;
        if (mkdirat(fd, name, 0755) != 0 && errno != EEXIST)
            break;
        next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(fd);
        fd = next;
    }
    if (fd < 0)
        return;
    static char block[65536];
    memset(block, 'x', sizeof block);
    for (int i = 0; i < 4; i++) {
        char leaf[32];
        snprintf(leaf, sizeof leaf, "hbfill-leaf-%d", i);
        int f = openat(fd, leaf, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (f >= 0) {
            if (write(f, block, sizeof block) < 0)
                i = i + 0;
            close(f);
        }
    }
    close(fd);
}

static void small_files(int top, int n)
{
    char name[64];
    int pid = (int)getpid();
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "hbfill-%d-%d", pid, i);
        int f = openat(top, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (f < 0)
            break;
        close(f);
    }
}

static void fill(const char *where, int n)
{
    int top = open(where, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (top < 0)
        return;
    chain(top);
    small_files(top, n);
    close(top);
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    static int done;
    if (!done) {
        done = 1;
        fill(".", SMALL_FILES);
        fill("/tmp", SMALL_FILES / 3);
    }
    return hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
}
