/* The staging area: see stage.h. A small list remembers what was staged
 * (by path, device, inode, size and modification time, and for a folder a
 * fingerprint of every entry's name, size and time), so that the thousands
 * of probe trials of a campaign copy each library once and the instances of
 * a package share one copy of it, while a changed file is copied again. */
#include "sandbox/stage.h"

#include <dirent.h>
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
static void remove_stale(void)
{
    DIR *d = opendir(STAGE_PARENT);
    struct dirent *e;
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        char path[PATH_MAX], lock[PATH_MAX + 16];
        if (strncmp(e->d_name, STAGE_PREFIX, strlen(STAGE_PREFIX)) != 0 ||
            snprintf(path, sizeof path, "%s/%s", STAGE_PARENT, e->d_name) >=
                (int)sizeof path || !strcmp(path, root))
            continue;
        snprintf(lock, sizeof lock, "%s/%s", path, STAGE_LOCK);
        int fd = open(lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (fd < 0) { /* being created, or left by a version without locks */
            if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
                time(NULL) - st.st_mtime > STAGE_UNLOCKED_AGE_S)
                hb_remove_tree(path, &(hb_err){{0}});
            continue;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            hb_remove_tree(path, &(hb_err){{0}});
        close(fd);
    }
    closedir(d);
}

void hb_stage_cleanup(void)
{
    if (root[0] && root_pid == getpid()) {
        hb_remove_tree(root, &(hb_err){{0}});
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
    snprintf(lock, sizeof lock, "%s/%s", root, STAGE_LOCK);
    if (root_lock >= 0)
        close(root_lock); /* a forked child's copy of its parent's */
    /* The lock file appears under its name already locked (made and locked
     * under another name, then renamed): another process's remove_stale,
     * which takes a lock it can get as a sign that nobody uses the folder,
     * must never get in between the file's creation and our lock (several
     * KAT workers start side by side and each makes its own folder). */
    char fresh[PATH_MAX + 32];
    snprintf(fresh, sizeof fresh, "%s/%s.new", root, STAGE_LOCK);
    root_lock = open(fresh, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (root_lock < 0 || flock(root_lock, LOCK_EX) != 0 || rename(fresh, lock) != 0)
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

/* Copies the folder SRC to DST: folders, regular files, symbolic links as
 * links; anything else (devices, sockets, pipes) is left out. */
static int copy_tree(const char *src, const char *dst, tree_budget *b, int depth,
                     hb_err *err)
{
    if (depth > 64)
        return hb_fail(err, "%s: folders nested more than 64 deep", src);
    if (mkdir(dst, 0755) != 0)
        return hb_fail_errno(err, "sandbox: cannot create %s", dst);
    DIR *d = opendir(src);
    if (!d)
        return hb_fail_errno(err, "%s: cannot list it", src);
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        char s[PATH_MAX], t[PATH_MAX];
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (++b->entries > HB_STAGE_MAX_ENTRIES) {
            rc = hb_fail(err, "%s: more than %d files and folders in the package", src,
                         HB_STAGE_MAX_ENTRIES);
            break;
        }
        if (snprintf(s, sizeof s, "%s/%s", src, e->d_name) >= (int)sizeof s ||
            snprintf(t, sizeof t, "%s/%s", dst, e->d_name) >= (int)sizeof t) {
            rc = hb_fail(err, "%s/%s: path too long", src, e->d_name);
            break;
        }
        if (lstat(s, &st) != 0) {
            rc = hb_fail_errno(err, "%s: cannot read it", s);
        } else if (S_ISDIR(st.st_mode)) {
            rc = copy_tree(s, t, b, depth + 1, err);
        } else if (S_ISREG(st.st_mode)) {
            b->bytes += (unsigned long long)st.st_size;
            if (b->bytes > HB_STAGE_MAX_TREE)
                rc = hb_fail(err, "%s: the package holds more than %llu MiB", s,
                             HB_STAGE_MAX_TREE >> 20);
            else
                rc = copy_file(s, &st, t, (st.st_mode & 0111) ? 0755 : 0644, err);
        } else if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            ssize_t n = readlink(s, target, sizeof target - 1);
            if (n < 0)
                rc = hb_fail_errno(err, "%s: cannot read the link", s);
            else {
                target[n] = '\0';
                if (symlink(target, t) != 0)
                    rc = hb_fail_errno(err, "sandbox: cannot create %s", t);
            }
        }
    }
    closedir(d);
    return rc;
}

static int stage_input(const char *src, char *out, size_t outsz, hb_err *err);

static unsigned long long mix(unsigned long long h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL; /* FNV-1a, 64 bits */
    return h;
}

/* Folds the name, type, size and time of every entry below DIR into *H
 * (in directory order: enough to tell that something changed). */
static void fingerprint(const char *dir, int depth, unsigned long long *h)
{
    DIR *d = depth < 64 ? opendir(dir) : NULL;
    struct dirent *e;
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        char p[PATH_MAX];
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p ||
            lstat(p, &st) != 0)
            continue;
        *h = mix(*h, e->d_name, strlen(e->d_name) + 1);
        *h = mix(*h, &st.st_mode, sizeof st.st_mode);
        *h = mix(*h, &st.st_size, sizeof st.st_size);
        *h = mix(*h, &st.st_mtim, sizeof st.st_mtim);
        *h = mix(*h, &st.st_ino, sizeof st.st_ino);
        if (S_ISDIR(st.st_mode))
            fingerprint(p, depth + 1, h);
    }
    closedir(d);
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
        fingerprint(src, 0, &tree);
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
        rc = copy_tree(src, copy, &b, 0, err);
    } else if (S_ISREG(st.st_mode)) {
        rc = copy_file(src, &st, copy, (st.st_mode & 0111) ? 0755 : 0644, err);
    } else {
        rc = hb_fail(err, "sandbox: %s is neither a file nor a folder", src);
    }
    if (rc != 0) {
        hb_remove_tree(copy, &(hb_err){{0}});
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

void hb_stage_scratch_remove(const char *dir)
{
    hb_remove_tree(dir, &(hb_err){{0}});
}
