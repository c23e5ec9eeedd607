/* Hostile fixture Ptrace: on its first call in any process it tries to
 * reach into its parent: ptrace(PTRACE_ATTACH) (then detaches) and
 * process_vm_readv of the parent's first readable mapping. Were either to
 * work, it could read the parent's expectations or rewrite its verdicts;
 * here it says so the only way it is sure to be heard: from then on its
 * digests are wrong (first bit flipped), so the instance no longer passes.
 * Otherwise it is real SM3. */
#define _GNU_SOURCE
#include "hostile_common.h"
#include <stdint.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>

/* The start of PID's first readable mapping, or 0. */
static unsigned long first_readable(pid_t pid)
{
    char path[64], maps[4096], perms[8];
    unsigned long lo, hi;
    long n;
    snprintf(path, sizeof path, "/proc/%ld/maps", (long)pid);
    n = hostile_read(path, maps, sizeof maps - 1);
    if (n <= 0)
        return 0;
    maps[n] = '\0';
    if (sscanf(maps, "%lx-%lx %7s", &lo, &hi, perms) == 3 && perms[0] == 'r')
        return lo;
    return 0;
}

static int reached_parent(void)
{
    pid_t parent = getppid();
    int reached = 0;
    char buf[64];
    struct iovec local = {buf, sizeof buf}, remote;
    if (parent <= 1)
        return 0;
    if (ptrace(PTRACE_ATTACH, parent, NULL, NULL) == 0) {
        reached = 1;
        waitpid(parent, NULL, __WALL);
        ptrace(PTRACE_DETACH, parent, NULL, NULL);
    }
    remote.iov_base = (void *)(uintptr_t)first_readable(parent);
    remote.iov_len = sizeof buf;
    if (remote.iov_base && process_vm_readv(parent, &local, 1, &remote, 1, 0) > 0)
        reached = 1;
    return reached;
}

int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest)
{
    static int tried, reached;
    int rc = hostile_sm3(digest_len_bits, msg, msg_len_bits, digest);
    if (!tried) {
        tried = 1;
        reached = reached_parent();
    }
    if (rc == 0 && reached)
        digest[0] ^= 0x80;
    return rc;
}
