/* Host identifiers in a dataset: see hostdata.h. Files are read in chunks
 * that overlap by the longest needle, so that a needle across two chunks
 * is found; needles that ignore case are searched in a lowercased copy. */
#include "dataset/hostdata.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/walk.h"

#define CHUNK (1u << 20)

static int add(hostdata *h, const char *text, int any_case, const char *what)
{
    if (h->count >= HOSTDATA_MAX_NEEDLES || !text[0])
        return 0;
    for (int i = 0; i < h->count; i++)
        if (strcmp(h->n[i].text, text) == 0)
            return 0;
    hostdata_needle *n = &h->n[h->count];
    if (!(n->text = strdup(text)))
        return -1;
    if (any_case)
        for (char *p = n->text; *p; p++)
            *p = (char)tolower((unsigned char)*p);
    n->any_case = any_case;
    snprintf(n->what, sizeof n->what, "%s", what);
    h->count++;
    return 0;
}

/* TEXT's bytes as lowercase hex (the case is ignored when searching). */
static int add_hex(hostdata *h, const char *text, const char *what)
{
    size_t n = strlen(text);
    char *hex = malloc(2 * n + 1);
    if (!hex)
        return -1;
    for (size_t i = 0; i < n; i++)
        snprintf(hex + 2 * i, 3, "%02x", (unsigned char)text[i]);
    int rc = add(h, hex, 1, what);
    free(hex);
    return rc;
}

static int add_path(hostdata *h, const char *path)
{
    if (path[0] != '/')
        return 0;
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%.*s", (int)n, path);
    int rc = 0;
    if (n >= HOSTDATA_MIN_PLAIN_PATH)
        rc = add(h, p, 0, "the run directory's absolute path");
    if (rc == 0)
        rc = add_hex(h, p, "the run directory's absolute path, hex-encoded");
    return rc;
}

int hostdata_init(hostdata *h, const char *run_dir, hb_err *err)
{
    memset(h, 0, sizeof *h);
    int rc = 0;
    FILE *f = fopen(HOSTDATA_BOOT_ID, "r");
    char id[64] = "", plain[64];
    if (f) {
        if (!fgets(id, sizeof id, f))
            id[0] = '\0';
        fclose(f);
    }
    id[strcspn(id, "\r\n")] = '\0';
    if (strlen(id) >= 32) {
        size_t k = 0;
        for (const char *p = id; *p && k + 1 < sizeof plain; p++)
            if (*p != '-')
                plain[k++] = *p;
        plain[k] = '\0';
        rc = add(h, id, 1, "this host's boot_id");
        if (rc == 0)
            rc = add(h, plain, 1, "this host's boot_id, as 16 bytes in hex");
        if (rc == 0)
            rc = add_hex(h, id, "this host's boot_id, hex-encoded");
        if (rc == 0)
            rc = add_hex(h, plain, "this host's boot_id, hex-encoded");
    }
    if (rc == 0 && run_dir) {
        char real[PATH_MAX];
        rc = add_path(h, run_dir);
        if (rc == 0 && realpath(run_dir, real))
            rc = add_path(h, real);
    }
    if (rc != 0) {
        hostdata_free(h);
        return hb_fail(err, "out of memory for the host data check");
    }
    return 0;
}

void hostdata_free(hostdata *h)
{
    for (int i = 0; i < h->count; i++)
        free(h->n[i].text);
    h->count = 0;
}

static const hostdata_needle *find2(const hostdata *h, const char *buf, const char *low,
                                    size_t len)
{
    for (int i = 0; i < h->count; i++) {
        const hostdata_needle *n = &h->n[i];
        if (memmem(n->any_case ? low : buf, len, n->text, strlen(n->text)))
            return n;
    }
    return NULL;
}

const hostdata_needle *hostdata_find(const hostdata *h, const char *buf, size_t len)
{
    char *low = malloc(len ? len : 1);
    if (!low)
        return NULL;
    for (size_t i = 0; i < len; i++)
        low[i] = (char)tolower((unsigned char)buf[i]);
    const hostdata_needle *n = find2(h, buf, low, len);
    free(low);
    return n;
}

typedef struct scan_ctx {
    const hostdata *h;
    hostdata_fn fn;
    void *ctx;
    int found;
    size_t overlap;
    char *buf, *low;
} scan_ctx;

/* The first needle in the file PATH, into *FOUND (NULL: none). */
static int scan_file(scan_ctx *s, const char *path, const hostdata_needle **found, hb_err *err)
{
    *found = NULL;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return hb_fail_errno(err, "%s: cannot read it to look for host data", path);
    size_t have = 0;
    for (;;) {
        ssize_t r = read(fd, s->buf + have, CHUNK);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            close(fd);
            return hb_fail_errno(err, "%s: cannot read it to look for host data", path);
        }
        size_t len = have + (size_t)r;
        for (size_t i = have; i < len; i++)
            s->low[i] = (char)tolower((unsigned char)s->buf[i]);
        if ((*found = find2(s->h, s->buf, s->low, len)) != NULL || r == 0)
            break;
        have = len < s->overlap ? len : s->overlap; /* the tail goes first */
        memmove(s->buf, s->buf + len - have, have);
        memmove(s->low, s->low + len - have, have);
    }
    close(fd);
    return 0;
}

static int visit(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    scan_ctx *s = ctx;
    const hostdata_needle *found;
    if (e->type != HB_WALK_FILE)
        return HB_WALK_CONTINUE;
    if (scan_file(s, e->path, &found, err) != 0)
        return -1;
    if (found) {
        s->found++;
        if (s->fn && s->fn(e->rel, found, s->ctx, err) < 0)
            return -1;
    }
    return HB_WALK_CONTINUE;
}

int hostdata_scan(const hostdata *h, const char *root, hostdata_fn fn, void *ctx,
                  int *n_found, hb_err *err)
{
    scan_ctx s = {h, fn, ctx, 0, 0, NULL, NULL};
    *n_found = 0;
    for (int i = 0; i < h->count; i++)
        if (strlen(h->n[i].text) > s.overlap)
            s.overlap = strlen(h->n[i].text);
    s.buf = malloc(CHUNK + s.overlap);
    s.low = malloc(CHUNK + s.overlap);
    if (!s.buf || !s.low) {
        free(s.buf);
        free(s.low);
        return hb_fail(err, "out of memory for the host data check");
    }
    int rc = hb_walk(root, HB_WALK_MAX_DEPTH, 0, visit, &s, err);
    free(s.buf);
    free(s.low);
    *n_found = s.found;
    return rc == 0 ? 0 : -1;
}
