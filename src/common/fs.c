/* File-system helpers: see fs.h. The temporary name carries the pid so that
 * two processes writing the same target never share a temporary file. */
#include "common/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/walk.h"

int hb_mkdirs(const char *path, hb_err *err)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0)
        return 0;
    if (n >= sizeof buf)
        return hb_fail(err, "%s: path too long", path);
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return hb_fail_errno(err, "%s: cannot create folder", buf);
            buf[i] = c;
        }
    }
    if (!hb_is_dir(path))
        return hb_fail(err, "%s: exists and is not a folder", path);
    return 0;
}

int hb_mkdirs_for(const char *path, hb_err *err)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n >= sizeof buf)
        return hb_fail(err, "%s: path too long", path);
    memcpy(buf, path, n + 1);
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf)
        return 0;
    *slash = '\0';
    return hb_mkdirs(buf, err);
}

int hb_atomic_open(hb_atomic *a, const char *path, hb_err *err)
{
    a->fp = NULL;
    if (strlen(path) + 32 >= sizeof a->path)
        return hb_fail(err, "%s: path too long", path);
    if (hb_mkdirs_for(path, err) != 0)
        return -1;
    snprintf(a->path, sizeof a->path, "%s", path);
    snprintf(a->tmp, sizeof a->tmp, "%s.tmp.%ld", path, (long)getpid());
    a->fp = fopen(a->tmp, "wb");
    if (!a->fp)
        return hb_fail_errno(err, "%s: cannot write", a->tmp);
    return 0;
}

int hb_atomic_commit(hb_atomic *a, hb_err *err)
{
    if (!a->fp)
        return hb_fail(err, "%s: not open", a->path);
    int bad = ferror(a->fp);
    if (fflush(a->fp) != 0)
        bad = 1;
    if (!bad && fsync(fileno(a->fp)) != 0)
        bad = 1;
    if (fclose(a->fp) != 0)
        bad = 1;
    a->fp = NULL;
    if (bad) {
        hb_fail_errno(err, "%s: write failed (disk full?)", a->tmp);
        unlink(a->tmp);
        return -1;
    }
    if (rename(a->tmp, a->path) != 0) {
        hb_fail_errno(err, "%s: cannot rename into place", a->path);
        unlink(a->tmp);
        return -1;
    }
    return 0;
}

void hb_atomic_abort(hb_atomic *a)
{
    if (a->fp) {
        fclose(a->fp);
        a->fp = NULL;
        unlink(a->tmp);
    }
}

int hb_write_atomic(const char *path, const void *data, size_t len, hb_err *err)
{
    hb_atomic a;
    if (hb_atomic_open(&a, path, err) != 0)
        return -1;
    if (len && fwrite(data, 1, len, a.fp) != len) {
        hb_atomic_abort(&a);
        return hb_fail_errno(err, "%s: write failed", path);
    }
    return hb_atomic_commit(&a, err);
}

/* "PATH: N bytes, more than the L MiB limit for WHAT; ..." (returns -1). */
static int too_big(const char *path, unsigned long long size, unsigned long long limit,
                   const char *what, hb_err *err)
{
    return hb_fail(err, "%s: %llu bytes, more than the %llu MiB limit for %s; "
                   "shrink the file or leave it out of the package", path, size,
                   limit >> 20, what);
}

/* A read error of a stream from hb_open_limited: EFBIG means the file grew
 * past LIMIT while it was read. */
int hb_read_limited_failed(const char *path, unsigned long long limit, const char *what,
                           hb_err *err)
{
    if (errno == EFBIG)
        return hb_fail(err, "%s: grew past the %llu MiB limit for %s while it was "
                       "read; leave the package unchanged during a run", path,
                       limit >> 20, what);
    return hb_fail_errno(err, "%s: read failed", path);
}

/* The stream of hb_open_limited: reads stop with EFBIG past the limit, so
 * a file that grows after the size check is not read without bound. */
typedef struct limited_file {
    int fd;
    unsigned long long left;
} limited_file;

static ssize_t limited_read(void *cookie, char *buf, size_t size)
{
    limited_file *l = cookie;
    if (l->left == 0) { /* at the limit: end of file, or one byte too many */
        char c;
        ssize_t r = read(l->fd, &c, 1);
        if (r > 0) {
            errno = EFBIG;
            return -1;
        }
        return r;
    }
    if (size > l->left)
        size = (size_t)l->left;
    ssize_t r = read(l->fd, buf, size);
    if (r > 0)
        l->left -= (unsigned long long)r;
    return r;
}

static int limited_close(void *cookie)
{
    limited_file *l = cookie;
    int rc = close(l->fd);
    free(l);
    return rc;
}

FILE *hb_open_limited(const char *path, unsigned long long limit, const char *what,
                      hb_err *err)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        hb_fail_errno(err, "%s: cannot read", path);
        return NULL;
    }
    struct stat st;
    int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, &st) != 0 || flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        hb_fail_errno(err, "%s: cannot read", path);
    } else if (!S_ISREG(st.st_mode)) {
        hb_fail(err, "%s: not a regular file (a folder, FIFO or device); %s must "
                "be a plain file", path, what);
    } else if ((unsigned long long)st.st_size > limit) {
        too_big(path, (unsigned long long)st.st_size, limit, what, err);
    } else {
        limited_file *l = malloc(sizeof *l);
        cookie_io_functions_t io = {limited_read, NULL, NULL, limited_close};
        FILE *fp = NULL;
        if (l) {
            l->fd = fd;
            l->left = limit;
            fp = fopencookie(l, "rb", io);
        }
        if (fp)
            return fp;
        free(l);
        hb_fail(err, "%s: out of memory", path);
    }
    close(fd);
    return NULL;
}

/* Reads FP to its end into a NUL-terminated malloc'd buffer. */
static int read_stream(FILE *fp, const char *path, unsigned long long limit,
                       const char *what, char **out, size_t *len, hb_err *err)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    *out = NULL;
    if (!buf)
        return hb_fail(err, "%s: out of memory", path);
    for (;;) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                return hb_fail(err, "%s: out of memory", path);
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n - 1, fp);
        n += r;
        if (r == 0)
            break;
    }
    if (ferror(fp)) {
        free(buf);
        return hb_read_limited_failed(path, limit, what, err);
    }
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    return 0;
}

int hb_read_file(const char *path, char **out, size_t *len, hb_err *err)
{
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return hb_fail_errno(err, "%s: cannot read", path);
    int rc = read_stream(fp, path, HB_NO_LIMIT, "a file", out, len, err);
    fclose(fp);
    return rc;
}

int hb_read_file_limited(const char *path, unsigned long long limit, const char *what,
                         char **out, size_t *len, hb_err *err)
{
    *out = NULL;
    FILE *fp = hb_open_limited(path, limit, what, err);
    if (!fp)
        return -1;
    int rc = read_stream(fp, path, limit, what, out, len, err);
    fclose(fp);
    return rc;
}

int hb_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int hb_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---- removing a tree, descriptor by descriptor ----
 *
 * hb_remove_tree never builds a path below its root: every entry is removed
 * with unlinkat on the descriptor of its folder, and folders are entered
 * with openat, so a chain of folders deeper than PATH_MAX goes like any
 * other. The folders on the way down are a stack kept on the heap; the
 * first REMOVE_OPEN_LEVELS keep their listing open, deeper ones are closed
 * while their subfolder is emptied and opened again through ".." (checked
 * against the device and inode seen on the way down), so the walk holds a
 * bounded number of descriptors whatever the depth. */

#define REMOVE_OPEN_LEVELS 32

typedef struct rm_frame {
    DIR *d;             /* the folder's listing; NULL while closed */
    dev_t dev;
    ino_t ino;
    char name[NAME_MAX + 1]; /* its name in its parent ("" for the root) */
} rm_frame;

static int rm_fail(hb_err *err, const char *root, const char *name, size_t depth)
{
    int e = errno;
    if (depth == 0)
        return hb_fail(err, "%s: cannot remove %s: %s", root, name, strerror(e));
    return hb_fail(err, "%s: cannot remove %s, %zu folder%s below it: %s", root, name, depth,
                   depth == 1 ? "" : "s", strerror(e));
}

/* Empties the folder open on FD (taken over), ROOT naming it in errors. */
static int empty_folder(int fd, const char *root, hb_err *err)
{
    size_t n = 0, cap = 16;
    rm_frame *st = malloc(cap * sizeof *st);
    struct stat sb;
    int rc = 0;
    if (!st || fstat(fd, &sb) != 0) {
        free(st);
        close(fd);
        return hb_fail(err, "%s: cannot remove it (out of memory or unreadable)", root);
    }
    st[0].d = fdopendir(fd);
    if (!st[0].d) {
        close(fd);
        free(st);
        return hb_fail_errno(err, "%s: cannot list it", root);
    }
    st[0].dev = sb.st_dev;
    st[0].ino = sb.st_ino;
    st[0].name[0] = '\0';
    n = 1;
    while (n > 0 && rc == 0) {
        rm_frame *f = &st[n - 1];
        errno = 0;
        struct dirent *de = readdir(f->d);
        if (!de) {
            if (errno != 0) {
                rc = rm_fail(err, root, f->name[0] ? f->name : "its entries", n - 1);
                break;
            }
            if (n == 1)
                break;
            /* this folder is empty: back to its parent, and remove it there */
            rm_frame *p = &st[n - 2];
            if (!p->d) {
                int pfd = openat(dirfd(f->d), "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                int ok = pfd >= 0 && fstat(pfd, &sb) == 0;
                if (ok && (sb.st_dev != p->dev || sb.st_ino != p->ino)) {
                    ok = 0;
                    errno = ESTALE;
                }
                if (!ok || !(p->d = fdopendir(pfd))) {
                    if (pfd >= 0)
                        close(pfd);
                    rc = rm_fail(err, root, "a folder that moved while it was removed", n - 2);
                    break;
                }
            }
            closedir(f->d);
            f->d = NULL;
            n--;
            if (unlinkat(dirfd(p->d), f->name, AT_REMOVEDIR) != 0 && errno != ENOENT)
                rc = rm_fail(err, root, f->name, n - 1);
            continue;
        }
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        int dfd = dirfd(f->d), is_dir = de->d_type == DT_DIR;
        if (de->d_type == DT_UNKNOWN) {
            if (fstatat(dfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
                if (errno == ENOENT)
                    continue;
                rc = rm_fail(err, root, de->d_name, n - 1);
                break;
            }
            is_dir = S_ISDIR(sb.st_mode);
        }
        if (!is_dir) {
            if (unlinkat(dfd, de->d_name, 0) != 0 && errno != ENOENT)
                rc = rm_fail(err, root, de->d_name, n - 1);
            continue;
        }
        int cfd = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (cfd < 0) {
            if (errno != ENOENT)
                rc = rm_fail(err, root, de->d_name, n - 1);
            continue;
        }
        if (n == cap) {
            rm_frame *more = realloc(st, 2 * cap * sizeof *st);
            if (!more) {
                close(cfd);
                rc = hb_fail(err, "%s: out of memory while removing it", root);
                break;
            }
            st = more;
            cap *= 2;
            f = &st[n - 1];
        }
        rm_frame *c = &st[n];
        snprintf(c->name, sizeof c->name, "%s", de->d_name);
        if (fstat(cfd, &sb) != 0 || !(c->d = fdopendir(cfd))) {
            close(cfd);
            rc = rm_fail(err, root, c->name, n - 1);
            break;
        }
        c->dev = sb.st_dev;
        c->ino = sb.st_ino;
        if (n - 1 >= REMOVE_OPEN_LEVELS) { /* deep: reopened through ".." later */
            closedir(f->d);
            f->d = NULL;
        }
        n++;
    }
    for (size_t i = 0; i < n; i++)
        if (st[i].d)
            closedir(st[i].d);
    free(st);
    return rc;
}

int hb_remove_tree(const char *path, hb_err *err)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        return hb_fail_errno(err, "%s: cannot remove it", path);
    }
    if (!S_ISDIR(st.st_mode)) {
        if (unlink(path) != 0 && errno != ENOENT)
            return hb_fail_errno(err, "%s: cannot remove", path);
        return 0;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return hb_fail_errno(err, "%s: cannot open it to remove it", path);
    if (empty_folder(fd, path, err) != 0)
        return -1;
    if (rmdir(path) != 0 && errno != ENOENT)
        return hb_fail_errno(err, "%s: cannot remove", path);
    return 0;
}

/* The pid of a temporary name "NAME.tmp.PID", or 0 when NAME is not one. */
static long tmp_pid(const char *name)
{
    const char *tag = NULL;
    for (const char *p = strstr(name, ".tmp."); p; p = strstr(p + 1, ".tmp."))
        tag = p; /* the last one: NAME itself may hold ".tmp." */
    if (!tag || tag == name || !tag[5])
        return 0;
    char *end;
    errno = 0;
    long pid = strtol(tag + 5, &end, 10);
    return errno || *end || pid <= 0 || tag[5] < '1' || tag[5] > '9' ? 0 : pid;
}

int hb_pid_running(long pid)
{
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        return 0;
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 1; /* no procfs: assume it runs */
    size_t n = fread(stat, 1, sizeof stat - 1, fp);
    fclose(fp);
    stat[n] = '\0';
    const char *close = strrchr(stat, ')'); /* "pid (comm) S ..." */
    return !(close && close[1] == ' ' && (close[2] == 'Z' || close[2] == 'X'));
}

/* hb_remove_stale_tmp's visitor: removes a stale temporary file; *ctx
 * counts them. */
static int remove_stale(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    (void)err;
    if (e->type != HB_WALK_FILE)
        return HB_WALK_CONTINUE;
    long pid = tmp_pid(e->name);
    if (pid > 0 && !hb_pid_running(pid) && unlink(e->path) == 0)
        (*(int *)ctx)++;
    return HB_WALK_CONTINUE;
}

int hb_remove_stale_tmp(const char *run_dir, int *n_removed, hb_err *err)
{
    int n = 0;
    int rc = hb_walk(run_dir, HB_WALK_MAX_DEPTH, HB_WALK_MISSING_OK, remove_stale, &n, err);
    if (n_removed)
        *n_removed = n;
    return rc;
}

int hb_path_join(char *out, size_t outsz, const char *a, const char *b, hb_err *err)
{
    size_t la = strlen(a);
    int n;
    if (la == 0)
        n = snprintf(out, outsz, "%s", b);
    else if (a[la - 1] == '/')
        n = snprintf(out, outsz, "%s%s", a, b);
    else
        n = snprintf(out, outsz, "%s/%s", a, b);
    if (n < 0 || (size_t)n >= outsz)
        return hb_fail(err, "%s/%s: path too long", a, b);
    return 0;
}

const char *hb_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int hb_copy_file(const char *src, const char *dst, hb_err *err)
{
    FILE *in = fopen(src, "rb");
    if (!in)
        return hb_fail_errno(err, "%s: cannot read", src);
    hb_atomic a;
    if (hb_atomic_open(&a, dst, err) != 0) {
        fclose(in);
        return -1;
    }
    char buf[65536];
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, in)) > 0) {
        if (fwrite(buf, 1, r, a.fp) != r) {
            fclose(in);
            hb_atomic_abort(&a);
            return hb_fail_errno(err, "%s: write failed", dst);
        }
    }
    int bad = ferror(in);
    fclose(in);
    if (bad) {
        hb_atomic_abort(&a);
        return hb_fail_errno(err, "%s: read failed", src);
    }
    return hb_atomic_commit(&a, err);
}

const char *hb_exe_sibling(const char *name, char *out, size_t outsz)
{
    char self[PATH_MAX];
    out[0] = '\0';
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return out;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    if (snprintf(out, outsz, "%s/%s", self, name) >= (int)outsz)
        out[0] = '\0';
    return out;
}
