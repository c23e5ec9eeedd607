/* A memory cgroup per process of submitted code: see memcg.h. */
#include "sandbox/memcg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"

/* 1 when the file PATH holds the word "memory". */
static int lists_memory(const char *path)
{
    char *text = NULL;
    if (hb_read_file(path, &text, NULL, NULL) != 0)
        return 0;
    int found = 0;
    for (char *w = strtok(text, " \n"); w && !found; w = strtok(NULL, " \n"))
        found = strcmp(w, "memory") == 0;
    free(text);
    return found;
}

/* 1 when the comma-separated controller list LIST (N bytes) has "memory". */
static int has_memory(const char *list, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t w = 0;
        while (i + w < n && list[i + w] != ',')
            w++;
        if (w == 6 && strncmp(list + i, "memory", 6) == 0)
            return 1;
        i += w + 1;
    }
    return 0;
}

int hb_memcg_parent(const char *root, const char *self, char *out, size_t sz, int *v2)
{
    const char *v2_roots[] = {"", "/unified"};
    char path[PATH_MAX], v1[PATH_MAX] = "", v2path[PATH_MAX] = "";
    /* the lines "N:controllers:/path" */
    for (const char *l = self; l && *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        const char *c1 = memchr(l, ':', len);
        const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - l)) : NULL;
        if (c2) {
            int plen = (int)(len - (size_t)(c2 + 1 - l));
            if (c2 == c1 + 1)
                snprintf(v2path, sizeof v2path, "%.*s", plen, c2 + 1);
            else if (has_memory(c1 + 1, (size_t)(c2 - c1 - 1)))
                snprintf(v1, sizeof v1, "%.*s", plen, c2 + 1);
        }
        l = nl ? nl + 1 : NULL;
    }
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s%s/cgroup.controllers", root, v2_roots[i]);
        if (lists_memory(path)) {
            *v2 = 1;
            snprintf(out, sz, "%s%s%s", root, v2_roots[i], v2path);
            return 0;
        }
    }
    if (v1[0]) {
        *v2 = 0;
        snprintf(out, sz, "%s/memory%s", root, v1);
        return 0;
    }
    return -1;
}

static int write_text(const char *dir, const char *file, const char *text)
{
    char path[PATH_MAX];
    int len = snprintf(path, sizeof path, "%s/%s", dir, file);
    if (len < 0 || (size_t)len >= sizeof path)
        return -1;
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

int hb_memcg_enter(hb_memcg *g, const char *root, const char *name, long pid,
                   unsigned long long limit)
{
    char self[PATH_MAX], parent[PATH_MAX], *text = NULL, num[32];
    memset(g, 0, sizeof *g);
    if (!root)
        root = "/sys/fs/cgroup";
    snprintf(self, sizeof self, "%s", "/proc/self/cgroup");
    if (hb_read_file(self, &text, NULL, NULL) != 0)
        return -1;
    int rc = hb_memcg_parent(root, text, parent, sizeof parent, &g->v2);
    free(text);
    if (rc != 0 || (size_t)snprintf(g->dir, sizeof g->dir, "%s/%s", parent, name) >=
                       sizeof g->dir || mkdir(g->dir, 0700) != 0) {
        g->dir[0] = '\0';
        return -1;
    }
    snprintf(num, sizeof num, "%llu", limit);
    if (write_text(g->dir, g->v2 ? "memory.max" : "memory.limit_in_bytes", num) != 0 ||
        (g->v2 && write_text(g->dir, "memory.swap.max", "0") != 0 && errno != ENOENT)) {
        hb_memcg_remove(g);
        return -1;
    }
    snprintf(num, sizeof num, "%ld", pid);
    if (write_text(g->dir, "cgroup.procs", num) != 0) {
        hb_memcg_remove(g);
        return -1;
    }
    return 0;
}

void hb_memcg_remove(hb_memcg *g)
{
    if (g->dir[0])
        rmdir(g->dir); /* the kernel refuses while a process is inside */
    g->dir[0] = '\0';
}
