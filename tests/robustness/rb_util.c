/* Helpers for the robustness tests: see rb_util.h. */
#include "rb_util.h"

#include <ctype.h>
#include <dirent.h>
#include <fts.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/digest.h"
#include "common/fs.h"
#include "common/proc.h"

static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

const char *rb_hashbench(void)
{
    static char path[4096];
    if (!path[0])
        snprintf(path, sizeof path, "%s/hashbench", env_or("HB_BUILD_DIR", "."));
    return path;
}

const char *rb_source_dir(void)
{
    return env_or("HB_SOURCE_DIR", HB_SOURCE_DIR);
}

char *rb_tempdir(const char *tag)
{
    char base[4096], *path = malloc(4200);
    hb_err err;
    if (!path)
        return NULL;
    snprintf(base, sizeof base, "%s/robustness-tmp", env_or("HB_BUILD_DIR", "/tmp"));
    if (hb_mkdirs(base, &err) != 0) {
        free(path);
        return NULL;
    }
    snprintf(path, 4200, "%s/%s.XXXXXX", base, tag);
    if (!mkdtemp(path)) {
        free(path);
        return NULL;
    }
    return path;
}

int rb_hashbench_run(const char *const *args, double timeout_s, char **output)
{
    const char *argv[64];
    size_t n = 0;
    argv[n++] = rb_hashbench();
    for (; args[n - 1] && n < 63; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    hb_proc_opts o = hb_proc_defaults();
    o.timeout_s = timeout_s;
    o.stderr_to_stdout = 1;
    o.capture = output;
    o.capture_cap = 1u << 20;
    hb_proc_result res;
    hb_err err;
    if (hb_proc_exec((char *const *)argv, &o, &res, &err) != 0) {
        *output = strdup(err.msg);
        return -1;
    }
    if (res.exited)
        return res.exit_code;
    char how[128], *msg = malloc(res.captured + 256);
    if (msg) {
        snprintf(msg, res.captured + 256, "%s\n[hashbench ended by %s]",
                 *output ? *output : "", hb_proc_describe(&res, how, sizeof how));
        free(*output);
        *output = msg;
    }
    return -1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *rb_snapshot(const char *dir)
{
    char *const roots[] = {(char *)dir, NULL};
    FTS *fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
    char **lines = NULL;
    size_t n = 0, cap = 0, total = 1, root_len = strlen(dir);
    FTSENT *e;
    if (!fts)
        return strdup("(cannot read folder)");
    while ((e = fts_read(fts)) != NULL) {
        char line[4400], hex[HB_SHA256_HEX];
        hb_err err;
        const char *rel = e->fts_path + root_len;
        if (e->fts_info == FTS_D && e->fts_level > 0)
            snprintf(line, sizeof line, "%s/ dir\n", rel);
        else if (e->fts_info == FTS_F)
            snprintf(line, sizeof line, "%s %s\n", rel,
                     hb_sha256_file_hex(e->fts_path, hex, &err) == 0 ? hex : "unreadable");
        else if (e->fts_info == FTS_SL)
            snprintf(line, sizeof line, "%s symlink\n", rel);
        else
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            lines = realloc(lines, cap * sizeof *lines);
        }
        lines[n++] = strdup(line);
        total += strlen(line);
    }
    fts_close(fts);
    qsort(lines, n, sizeof *lines, cmp_str);
    char *out = malloc(total);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        strcat(out, lines[i]);
        free(lines[i]);
    }
    free(lines);
    return out;
}

void rb_rmtree(const char *dir)
{
    char *const roots[] = {(char *)dir, NULL};
    FTS *fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
    FTSENT *e;
    if (!fts)
        return;
    while ((e = fts_read(fts)) != NULL) {
        if (e->fts_info == FTS_DP)
            rmdir(e->fts_accpath);
        else if (e->fts_info != FTS_D)
            unlink(e->fts_accpath);
    }
    fts_close(fts);
}

int rb_copy(const char *src, const char *dst)
{
    hb_err err;
    return hb_copy_file(src, dst, &err);
}

int rb_write(const char *path, const char *text)
{
    hb_err err;
    return hb_write_atomic(path, text, strlen(text), &err);
}

/* Reads /proc/PID/NAME (NUL-separated fields) into buf; returns its length. */
static size_t read_proc(const char *pid, const char *name, char *buf, size_t cap)
{
    char path[300];
    snprintf(path, sizeof path, "/proc/%s/%s", pid, name);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    size_t n = fread(buf, 1, cap - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    return n;
}

static int has_entry(const char *buf, size_t len, const char *entry)
{
    for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
        if (strcmp(buf + i, entry) == 0)
            return 1;
    return 0;
}

static int is_zombie(const char *pid)
{
    char stat[512];
    if (!read_proc(pid, "stat", stat, sizeof stat))
        return 1;
    const char *p = strrchr(stat, ')');
    return !p || p[1] == '\0' || p[2] == 'Z' || p[2] == 'X';
}

int rb_leftover_processes(const char *entry, const char *path, char **report)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    int count = 0;
    static char env[1 << 20];
    char cmd[8192], cwd[4096], link[300], self[32];
    snprintf(self, sizeof self, "%ld", (long)getpid());
    if (!d)
        return 0;
    while ((de = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)de->d_name[0]) || strcmp(de->d_name, self) == 0 ||
            is_zombie(de->d_name))
            continue;
        size_t elen = read_proc(de->d_name, "environ", env, sizeof env);
        size_t clen = read_proc(de->d_name, "cmdline", cmd, sizeof cmd);
        for (size_t i = 0; i + 1 < clen; i++)
            if (cmd[i] == '\0')
                cmd[i] = ' ';
        snprintf(link, sizeof link, "/proc/%s/cwd", de->d_name);
        ssize_t wl = readlink(link, cwd, sizeof cwd - 1);
        cwd[wl > 0 ? wl : 0] = '\0';
        int hit = has_entry(env, elen, entry) ||
                  (path && (strstr(cmd, path) || strncmp(cwd, path, strlen(path)) == 0));
        if (!hit)
            continue;
        count++;
        if (report) {
            size_t old = *report ? strlen(*report) : 0;
            char *r = realloc(*report, old + strlen(cmd) + 64);
            if (r) {
                size_t room = strlen(cmd) + 64;
                int w = snprintf(r + old, room, "pid %.32s: ", de->d_name);
                if (w > 0 && (size_t)w < room)
                    memcpy(r + old + w, cmd, strlen(cmd)), strcpy(r + old + w + strlen(cmd), "\n");
                *report = r;
            }
        }
    }
    closedir(d);
    return count;
}

int rb_pid_alive(long pid)
{
    char s[32];
    snprintf(s, sizeof s, "%ld", pid);
    char path[64];
    snprintf(path, sizeof path, "/proc/%s", s);
    return access(path, F_OK) == 0 && !is_zombie(s);
}

int rb_count_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++)
        if (*p == '\n')
            n++;
    if (*text && text[strlen(text) - 1] != '\n')
        n++;
    return n;
}

const char *rb_str(const json_t *obj, const char *name)
{
    const char *s = json_string_value(json_object_get(obj, name));
    return s ? s : "";
}

json_t *rb_find_instance(const json_t *arr, const char *cand, const char *inst)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        if (strcmp(rb_str(e, "instance"), inst) == 0 &&
            (!cand || strcmp(rb_str(e, "candidate"), cand) == 0))
            return e;
    }
    return NULL;
}

json_t *rb_load_json(const char *dir, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    return json_load_file(path, 0, NULL);
}
