/* A memory cgroup of its own for one process running submitted code (a
 * probe session): created below hashbench's own cgroup, limited to a
 * number of bytes (everything the kernel charges the process: its pages,
 * its tmpfs scratch, page cache it causes), the process moved into it, and
 * removed after the process has ended. cgroup v2 where the memory
 * controller is there (memory.max), else v1's memory hierarchy
 * (memory.limit_in_bytes). Best effort: where neither is writable (no
 * root, a container) the process keeps its rlimits only, and the caller
 * is told so. The file system roots are parameters, so that the logic is
 * tested on a folder laid out like /sys/fs/cgroup. */
#ifndef HB_SANDBOX_MEMCG_H
#define HB_SANDBOX_MEMCG_H

#include <limits.h>
#include <stddef.h>

typedef struct hb_memcg {
    char dir[PATH_MAX];   /* the cgroup's folder; "" when none was made */
    int v2;               /* 1: cgroup v2 */
} hb_memcg;

/* Where hashbench's own memory cgroup is, from the text of
 * /proc/self/cgroup (SELF) and the mount root ROOT (/sys/fs/cgroup): the
 * v2 folder when ROOT/cgroup.controllers (or ROOT/unified's) lists memory,
 * else the v1 memory folder. Writes it to OUT, *V2 says which. Returns 0,
 * or -1 when there is none. */
int hb_memcg_parent(const char *root, const char *self, char *out, size_t sz, int *v2);

/* Makes a cgroup named NAME below hashbench's (read from /proc/self/cgroup
 * under ROOT, NULL: /sys/fs/cgroup), limited to LIMIT bytes, and moves PID
 * into it. Returns 0, or -1 when it could not (G->dir then ""). */
int hb_memcg_enter(hb_memcg *g, const char *root, const char *name, long pid,
                   unsigned long long limit);

/* Removes the cgroup (after its process has ended); nothing when none. */
void hb_memcg_remove(hb_memcg *g);

#endif
