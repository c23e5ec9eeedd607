/* The staging area: see stage.h. A small list remembers what was staged
 * (by path, device, inode, size and modification time, and for a folder a
 * fingerprint of every entry's name, size and time), so that the thousands
 * of probe trials of a campaign copy each library once and the instances of
 * a package share one copy of it, while a changed file is copied again. */
#include "sandbox/stage.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/fs.h"
#include "sandbox/marker.h"
#include "common/walk.h"

#define STAGE_PARENT "/tmp"
#define STAGE_PREFIX "hashbench-stage."
#define STAGE_LOCK ".owner.lock"
#define STAGE_UNLOCKED_AGE_S 3600 /* a folder with no lock file this old is stale */

typedef struct staged {
    char *src;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    unsigned long long tree;   /* a folder: fingerprint of its entries */
    char *copy;
    struct staged *next;
} staged;

static char root[PATH_MAX];
static pid_t root_pid;
static int root_lock = -1;
static unsigned long seq;
static staged *cache;
/* The build stage compiles from several threads: one staging at a time. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

#define NOBODY_ID 65534u

static unsigned host_uid, host_gid;

static void find_host_ids(void)
{
    if (geteuid() == 0) {
        const struct passwd *pw = getpwnam("nobody");
        host_uid = pw ? (unsigned)pw->pw_uid : NOBODY_ID;
        host_gid = pw ? (unsigned)pw->pw_gid : NOBODY_ID;
    } else {
        host_uid = (unsigned)geteuid();
        host_gid = (unsigned)getegid();
    }
}

void hb_stage_host_ids(unsigned *uid, unsigned *gid)
{
    /* Looked up once, in the parent: a child forked from a threaded
     * process must not call getpwnam (it may wait for a lock forever). */
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, find_host_ids);
    *uid = host_uid;
    *gid = host_gid;
}

int hb_stage_needed(void)
{
    return geteuid() == 0;
}

/* Removes the staging folders of hashbench processes that are gone. A
 * folder's owner holds an exclusive lock on its STAGE_LOCK file for its
 * whole life, so a lock that can be taken means nobody uses the folder,
 * whatever pid namespace its owner ran in; a folder without the file is
 * being created and is left alone, unless it is an hour old. */
/* Removes DIR, a staging folder; a failure is said on standard error (the
 * clean-up runs at exit and between steps, where no caller can take it). */
static void remove_reported(const char *dir)
{
    hb_err e;
    if (hb_remove_tree(dir, &e) != 0)
        fprintf(stderr, "hashbench: %s (a staging folder is left on the host: remove "
                "it by hand)\n", e.msg);
}

static int remove_stale_entry(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    (void)ctx;
    (void)err;
    char lock[PATH_MAX];
    if (e->type != HB_WALK_DIR || strncmp(e->name, STAGE_PREFIX, strlen(STAGE_PREFIX)) != 0 ||
        !strcmp(e->path, root) || hb_path_join(lock, sizeof lock, e->path, STAGE_LOCK, NULL) != 0)
        return HB_WALK_SKIP;
    int fd = open(lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) { /* being created, or left by a version without locks */
        if (e->st->st_uid == geteuid() && time(NULL) - e->st->st_mtime > STAGE_UNLOCKED_AGE_S)
            remove_reported(e->path);
        return HB_WALK_SKIP;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        remove_reported(e->path);
    close(fd);
    return HB_WALK_SKIP;
}

static void remove_stale(void)
{
    hb_walk(STAGE_PARENT, 1, HB_WALK_MISSING_OK, remove_stale_entry, NULL, &(hb_err){{0}});
}

void hb_stage_cleanup(void)
{
    if (root[0] && root_pid == getpid()) {
        remove_reported(root);
        if (root_lock >= 0)
            close(root_lock);
        root_lock = -1;
    }
    root[0] = '\0';
    while (cache) {
        staged *n = cache->next;
        free(cache->src);
        free(cache->copy);
        free(cache);
        cache = n;
    }
    remove_stale();
}

static void cleanup_at_exit(void)
{
    if (root_pid == getpid())
        hb_stage_cleanup();
}

static int stage_root(hb_err *err)
{
    static int registered;
    if (root[0] && root_pid == getpid())
        return 0;
    remove_stale();
    if (snprintf(root, sizeof root, "%s/%s%ld.XXXXXX", STAGE_PARENT, STAGE_PREFIX,
                 (long)getpid()) >= (int)sizeof root || !mkdtemp(root)) {
        root[0] = '\0';
        return hb_fail_errno(err, "sandbox: cannot create a staging folder in %s",
                             STAGE_PARENT);
    }
    root_pid = getpid();
    if (chmod(root, 0711) != 0)
        return hb_fail_errno(err, "sandbox: cannot set the mode of %s", root);
    char lock[PATH_MAX + 16];
    if (hb_path_join(lock, sizeof lock, root, STAGE_LOCK, err) < 0)
        return -1;
    if (root_lock >= 0)
        close(root_lock); /* a forked child's copy of its parent's */
    /* The lock file appears under its name already locked (made and locked
     * under another name, then renamed): another process's remove_stale,
     * which takes a lock it can get as a sign that nobody uses the folder,
     * must never get in between the file's creation and our lock (several
     * KAT workers start side by side and each makes its own folder). */
    char fresh[PATH_MAX + 32];
    if (hb_path_join(fresh, sizeof fresh, root, STAGE_LOCK ".new", err) < 0)
        return -1;
    root_lock = open(fresh, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (root_lock < 0 || flock(root_lock, LOCK_EX) != 0)
        return hb_fail_errno(err, "sandbox: cannot lock %s", lock);
    /* the command's marker (sandbox/marker.h): whose folder this is */
    const char *m = hb_warden_marker();
    if (m[0] && (write(root_lock, m, strlen(m)) < 0 || write(root_lock, "\n", 1) < 0))
        return hb_fail_errno(err, "sandbox: cannot write %s", fresh);
    if (rename(fresh, lock) != 0)
        return hb_fail_errno(err, "sandbox: cannot lock %s", lock);
    if (!registered) {
        atexit(cleanup_at_exit);
        registered = 1;
    }
    return 0;
}

static int fresh_name(char *out, size_t outsz, const char *src, hb_err *err)
{
    if (stage_root(err) != 0)
        return -1;
    const char *base = strrchr(src, '/');
    base = base && base[1] ? base + 1 : "input";
    if (snprintf(out, outsz, "%s/%lu-%.100s", root, ++seq, base) >= (int)outsz)
        return hb_fail(err, "sandbox: staging path too long for %s", src);
    return 0;
}

/* Copies the regular file SRC (ST: its status) to DST, mode MODE. */
static int copy_file(const char *src, const struct stat *st, const char *dst, mode_t mode,
                     hb_err *err)
{
    if ((unsigned long long)st->st_size > HB_STAGE_MAX_FILE)
        return hb_fail(err, "%s: %lld bytes, more than the %llu MiB hashbench reads of "
                       "one submitted file; remove it from the package or shrink it",
                       src, (long long)st->st_size, HB_STAGE_MAX_FILE >> 20);
    int in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0)
        return hb_fail_errno(err, "%s: cannot read it", src);
    int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (out < 0) {
        close(in);
        return hb_fail_errno(err, "sandbox: cannot create %s", dst);
    }
    char buf[65536];
    ssize_t r;
    unsigned long long total = 0;
    int rc = 0;
    while ((r = read(in, buf, sizeof buf)) > 0) {
        total += (unsigned long long)r;
        if (total > HB_STAGE_MAX_FILE) {
            rc = hb_fail(err, "%s: grew past %llu MiB while it was read", src,
                         HB_STAGE_MAX_FILE >> 20);
            break;
        }
        if (write(out, buf, (size_t)r) != r) {
            rc = hb_fail_errno(err, "sandbox: cannot write %s (disk full?)", dst);
            break;
        }
    }
    if (rc == 0 && r < 0)
        rc = hb_fail_errno(err, "%s: read failed", src);
    if (rc == 0 && fchmod(out, mode) != 0)
        rc = hb_fail_errno(err, "sandbox: cannot set the mode of %s", dst);
    close(in);
    if (close(out) != 0 && rc == 0)
        rc = hb_fail_errno(err, "sandbox: cannot write %s", dst);
    return rc;
}

typedef struct tree_budget {
    unsigned long long bytes;
    unsigned long entries;
} tree_budget;

typedef struct copy_ctx {
    const char *dst;
    tree_budget *b;
} copy_ctx;

/* copy_tree's visitor: one entry of the package into the copy. */
static int copy_entry(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    copy_ctx *c = ctx;
    char t[PATH_MAX];
    const struct stat *st = e->st;
    if (e->type == HB_WALK_DIR && e->depth >= HB_WALK_MAX_DEPTH)
        return hb_fail(err, "%s: folders nested %d deep or more", e->path, HB_WALK_MAX_DEPTH);
    if (++c->b->entries > HB_STAGE_MAX_ENTRIES)
        return hb_fail(err, "%s: more than %d files and folders in the package", e->path,
                       HB_STAGE_MAX_ENTRIES);
    if (hb_path_join(t, sizeof t, c->dst, e->rel, err) != 0)
        return -1;
    switch (e->type) {
    case HB_WALK_DIR:
        if (mkdir(t, 0755) != 0)
            return hb_fail_errno(err, "sandbox: cannot create %s", t);
        return HB_WALK_CONTINUE;
    case HB_WALK_FILE:
        c->b->bytes += (unsigned long long)st->st_size;
        if (c->b->bytes > HB_STAGE_MAX_TREE)
            return hb_fail(err, "%s: the package holds more than %llu MiB", e->path,
                           HB_STAGE_MAX_TREE >> 20);
        return copy_file(e->path, st, t, (st->st_mode & 0111) ? 0755 : 0644, err) == 0
                   ? HB_WALK_CONTINUE
                   : -1;
    case HB_WALK_LINK: {
        char target[PATH_MAX];
        ssize_t n = readlink(e->path, target, sizeof target - 1);
        if (n < 0)
            return hb_fail_errno(err, "%s: cannot read the link", e->path);
        target[n] = '\0';
        if (symlink(target, t) != 0)
            return hb_fail_errno(err, "sandbox: cannot create %s", t);
        return HB_WALK_CONTINUE;
    }
    default:
        return HB_WALK_CONTINUE;
    }
}

/* Copies the folder SRC to DST: folders, regular files, symbolic links as
 * links; anything else (devices, sockets, pipes) is left out. */
static int copy_tree(const char *src, const char *dst, tree_budget *b, hb_err *err)
{
    if (mkdir(dst, 0755) != 0)
        return hb_fail_errno(err, "sandbox: cannot create %s", dst);
    copy_ctx c = {dst, b};
    return hb_walk(src, HB_WALK_MAX_DEPTH, 0, copy_entry, &c, err) == 0 ? 0 : -1;
}

static int stage_input(const char *src, char *out, size_t outsz, hb_err *err);

static unsigned long long mix(unsigned long long h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL; /* FNV-1a, 64 bits */
    return h;
}

static int fingerprint_entry(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    (void)err;
    unsigned long long *h = ctx;
    *h = mix(*h, e->rel, strlen(e->rel) + 1);
    *h = mix(*h, &e->st->st_mode, sizeof e->st->st_mode);
    *h = mix(*h, &e->st->st_size, sizeof e->st->st_size);
    *h = mix(*h, &e->st->st_mtim, sizeof e->st->st_mtim);
    *h = mix(*h, &e->st->st_ino, sizeof e->st->st_ino);
    return HB_WALK_CONTINUE;
}

/* Folds the path, type, size and time of every entry below DIR into *H
 * (enough to tell that something changed). */
static void fingerprint(const char *dir, unsigned long long *h)
{
    hb_walk(dir, HB_WALK_MAX_DEPTH, 0, fingerprint_entry, h, &(hb_err){{0}});
}

int hb_stage_input(const char *src, char *out, size_t outsz, hb_err *err)
{
    pthread_mutex_lock(&lock);
    int rc = stage_input(src, out, outsz, err);
    pthread_mutex_unlock(&lock);
    return rc;
}

static int stage_input(const char *src, char *out, size_t outsz, hb_err *err)
{
    struct stat st;
    if (!hb_stage_needed()) {
        if (snprintf(out, outsz, "%s", src) >= (int)outsz)
            return hb_fail(err, "path too long: %s", src);
        return 0;
    }
    if (stat(src, &st) != 0)
        return hb_fail_errno(err, "sandbox: cannot read %s", src);
    unsigned long long tree = 0xcbf29ce484222325ULL;
    if (S_ISDIR(st.st_mode))
        fingerprint(src, &tree);
    for (staged *c = cache; c; c = c->next)
        if (!strcmp(c->src, src) && c->dev == st.st_dev && c->ino == st.st_ino &&
            c->size == st.st_size && c->mtime.tv_sec == st.st_mtim.tv_sec &&
            c->mtime.tv_nsec == st.st_mtim.tv_nsec && c->tree == tree) {
            if (snprintf(out, outsz, "%s", c->copy) >= (int)outsz)
                return hb_fail(err, "path too long: %s", c->copy);
            return 0;
        }
    char copy[PATH_MAX];
    if (fresh_name(copy, sizeof copy, src, err) != 0)
        return -1;
    int rc;
    if (S_ISDIR(st.st_mode)) {
        tree_budget b = {0, 0};
        rc = copy_tree(src, copy, &b, err);
    } else if (S_ISREG(st.st_mode)) {
        rc = copy_file(src, &st, copy, (st.st_mode & 0111) ? 0755 : 0644, err);
    } else {
        rc = hb_fail(err, "sandbox: %s is neither a file nor a folder", src);
    }
    if (rc != 0) {
        hb_err rm, first = *err;
        if (hb_remove_tree(copy, &rm) != 0)
            return hb_fail(err, "%s; and %s", first.msg, rm.msg);
        return -1;
    }
    staged *c = calloc(1, sizeof *c);
    if (c && (c->src = strdup(src)) && (c->copy = strdup(copy))) {
        c->dev = st.st_dev;
        c->ino = st.st_ino;
        c->size = st.st_size;
        c->mtime = st.st_mtim;
        c->tree = tree;
        c->next = cache;
        cache = c;
    } else if (c) {
        free(c->src);
        free(c);
    }
    if (snprintf(out, outsz, "%s", copy) >= (int)outsz)
        return hb_fail(err, "path too long: %s", copy);
    return 0;
}

int hb_stage_reachable(const char *path)
{
    char buf[PATH_MAX];
    struct stat st;
    if (!hb_stage_needed())
        return 1;
    if (!realpath(path, buf) || stat(buf, &st) != 0 || !(st.st_mode & S_IROTH))
        return 0;
    for (char *slash = strrchr(buf, '/'); slash; slash = strrchr(buf, '/')) {
        *slash = '\0';
        if (stat(buf[0] ? buf : "/", &st) != 0 || !(st.st_mode & S_IXOTH))
            return 0;
        if (!buf[0])
            break;
    }
    return 1;
}

int hb_stage_scratch(char *out, size_t outsz, hb_err *err)
{
    pthread_mutex_lock(&lock);
    int rc = stage_root(err);
    unsigned long n = ++seq;
    pthread_mutex_unlock(&lock);
    if (rc != 0)
        return -1;
    if (snprintf(out, outsz, "%s/scratch-%lu", root, n) >= (int)outsz)
        return hb_fail(err, "sandbox: scratch path too long");
    if (mkdir(out, 0700) != 0)
        return hb_fail_errno(err, "sandbox: cannot create %s", out);
    unsigned uid, gid;
    hb_stage_host_ids(&uid, &gid);
    if (geteuid() == 0 && chown(out, uid, gid) != 0)
        return hb_fail_errno(err, "cannot hand the scratch folder %s to the sandbox", out);
    return 0;
}

int hb_stage_scratch_remove(const char *dir, hb_err *err)
{
    hb_err e;
    if (hb_remove_tree(dir, &e) != 0)
        return hb_fail(err, "%s (a scratch folder of a sandboxed step is left on the "
                       "host: remove it by hand)", e.msg);
    return 0;
}
