/* The checks of the emulated AArch64 run (tests/aarch64/cross_run.sh): it
 * reads what the run left on disk and compares it with oracles that do not
 * come from the code under test: the ELF header of each built library
 * (libelf), the ARM guide's flags as the test states them, the counter
 * frequency that a separate AArch64 program read from cntfrq_el0, and the
 * links of the rendered site resolved on the file system. One check per
 * invocation; it prints what it verified, or one line naming the file and
 * what is wrong, and exits 0 (passed) or 1 (failed), 2 on a usage error:
 *   run_check build RUN_DIR ARCH PROFILE "FLAGS"   every instance BUILT with
 *                                                  FLAGS, libraries for ARCH
 *   run_check kat RUN_DIR MIN                      at least MIN instances, all PASS
 *   run_check records RUN_DIR COUNTER FREQ_HZ      records name COUNTER at FREQ_HZ
 *   run_check site SITE SYS_A SYS_B CAND...        each candidate's pages link
 *                                                  to each other */
#include <fcntl.h>
#include <fts.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/fs.h"
#include "common/json.h"
#include "report/pages.h"

/* The counter rate in a record may be measured against CLOCK_MONOTONIC_RAW
 * rather than copied from cntfrq_el0; under emulation both agree closely. */
#define RATE_TOLERANCE 0.02

static int failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int failf(const char *fmt, ...)
{
    va_list ap;
    fputs("run_check: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}

static int load(const char *dir, const char *name, json_t **out, char *path,
                size_t pathsz)
{
    hb_err err;
    if (hb_path_join(path, pathsz, dir, name, &err) < 0 ||
        hb_json_load(path, out, &err) < 0)
        return failf("%s", err.msg);
    return 0;
}

/* 1 when the blank-separated token TOK is one of the tokens of LIST. */
static int has_token(const char *list, const char *tok, size_t toklen)
{
    const char *p = list;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (n == toklen && strncmp(p, tok, n) == 0)
            return 1;
        p += n;
    }
    return 0;
}

/* The first token of WANT missing from HAVE, copied to MISSING; 0 if none. */
static int missing_token(const char *have, const char *want, char *missing,
                         size_t missingsz)
{
    const char *p = want;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (n > 0 && !has_token(have, p, n)) {
            snprintf(missing, missingsz, "%.*s", (int)n, p);
            return 1;
        }
        p += n;
    }
    return 0;
}

/* The ELF machine of the file PATH, or -1 when it is not an ELF file. */
static int elf_machine(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    int machine = -1;
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    GElf_Ehdr eh;
    if (e && gelf_getehdr(e, &eh))
        machine = eh.e_machine;
    if (e)
        elf_end(e);
    close(fd);
    return machine;
}

static int arch_machine(const char *arch)
{
    if (strncmp(arch, "aarch64", 7) == 0)
        return EM_AARCH64;
    if (strncmp(arch, "x86_64", 6) == 0)
        return EM_X86_64;
    return -1;
}

static int check_build_entry(const char *run_dir, const char *file,
                             const json_t *e, int machine, const char *profile,
                             const char *flags)
{
    hb_err err;
    const char *inst, *status, *prof, *kind, *have, *lib;
    if (hb_json_get_str(e, "instance", &inst, file, &err) < 0 ||
        hb_json_get_str(e, "status", &status, file, &err) < 0 ||
        hb_json_get_str(e, "profile", &prof, file, &err) < 0 ||
        hb_json_get_str(e, "flags_kind", &kind, file, &err) < 0 ||
        hb_json_get_str(e, "flags", &have, file, &err) < 0)
        return failf("%s", err.msg);
    if (strcmp(status, "BUILT") != 0)
        return failf("%s: instance %s is %s, not BUILT", file, inst, status);
    /* The baseline (OpenSSL's SM3) is built by hashbench's own build, not
     * with a profile's flags: only its ELF machine is checked. */
    int baseline = json_is_true(json_object_get(e, "baseline"));
    if (!baseline &&
        (strcmp(prof, profile) != 0 || strcmp(kind, "guide") != 0))
        return failf("%s: instance %s built with profile %s (%s), expected %s "
                     "(guide)", file, inst, prof, kind, profile);
    char missing[256];
    if (!baseline && missing_token(have, flags, missing, sizeof missing))
        return failf("%s: instance %s lacks the guide flag %s: flags are '%s'",
                     file, inst, missing, have);
    if (hb_json_get_str(e, "library", &lib, file, &err) < 0)
        return failf("%s", err.msg);
    char path[PATH_MAX];
    if (hb_path_join(path, sizeof path, run_dir, lib, &err) < 0)
        return failf("%s", err.msg);
    int m = elf_machine(path);
    if (m != machine)
        return failf("%s: library %s has ELF machine %d, expected %d", file,
                     path, m, machine);
    printf("  %-28s %s\n", inst,
           baseline ? "(baseline, built by hashbench's own build)" : have);
    return 0;
}

static int check_build(const char *run_dir, const char *arch,
                       const char *profile, const char *flags)
{
    char path[PATH_MAX];
    json_t *root;
    if (load(run_dir, "build.json", &root, path, sizeof path))
        return 1;
    hb_err err;
    const char *have_arch;
    json_t *insts;
    int rc = 0;
    int machine = arch_machine(arch);
    if (hb_json_get_str(root, "arch", &have_arch, path, &err) < 0 ||
        hb_json_get_arr(root, "instances", &insts, path, &err) < 0)
        rc = failf("%s", err.msg);
    else if (strncmp(have_arch, arch, strlen(arch)) != 0)
        rc = failf("%s: arch is %s, expected %s", path, have_arch, arch);
    else if (machine < 0)
        rc = failf("no ELF machine known for arch %s", arch);
    else if (json_array_size(insts) == 0)
        rc = failf("%s: no instance was built", path);
    size_t i;
    json_t *e;
    json_array_foreach(rc ? NULL : insts, i, e) {
        if ((rc = check_build_entry(run_dir, path, e, machine, profile, flags)))
            break;
    }
    if (!rc)
        printf("build: %zu instances BUILT for %s, profile %s\n",
               json_array_size(insts), arch, profile);
    json_decref(root);
    return rc;
}

static int check_kat(const char *run_dir, long min)
{
    char path[PATH_MAX];
    json_t *root;
    if (load(run_dir, "kat.json", &root, path, sizeof path))
        return 1;
    hb_err err;
    json_t *insts;
    int rc = 0;
    if (hb_json_get_arr(root, "instances", &insts, path, &err) < 0)
        rc = failf("%s", err.msg);
    else if ((long)json_array_size(insts) < min)
        rc = failf("%s: %zu instances, expected at least %ld", path,
                   json_array_size(insts), min);
    size_t i;
    json_t *e;
    json_array_foreach(rc ? NULL : insts, i, e) {
        const char *inst, *status, *reason = "";
        if (hb_json_get_str(e, "instance", &inst, path, &err) < 0 ||
            hb_json_get_str(e, "status", &status, path, &err) < 0) {
            rc = failf("%s", err.msg);
            break;
        }
        hb_json_get_str(e, "reason", &reason, path, NULL);
        if (strcmp(status, "PASS") != 0) {
            rc = failf("%s: instance %s is %s: %s", path, inst, status, reason);
            break;
        }
        printf("  %-28s PASS\n", inst);
    }
    if (!rc)
        printf("kat: all %zu instances PASS\n", json_array_size(insts));
    json_decref(root);
    return rc;
}

/* The files under a folder whose names end in a suffix (caller frees with
 * free_files). */
typedef struct file_list {
    char **paths;
    size_t n;
} file_list;

static void free_files(file_list *fl)
{
    for (size_t i = 0; i < fl->n; i++)
        free(fl->paths[i]);
    free(fl->paths);
    fl->paths = NULL;
    fl->n = 0;
}

static int add_file(file_list *fl, const char *path)
{
    char **p = realloc(fl->paths, (fl->n + 1) * sizeof *p);
    if (!p)
        return -1;
    fl->paths = p;
    fl->paths[fl->n] = strdup(path);
    if (!fl->paths[fl->n])
        return -1;
    fl->n++;
    return 0;
}

static int find_files(const char *dir, const char *suffix, file_list *fl)
{
    char *roots[] = {(char *)dir, NULL};
    FTS *fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
    if (!fts)
        return failf("%s: cannot list the folder", dir);
    size_t sl = strlen(suffix);
    int rc = 0;
    FTSENT *e;
    memset(fl, 0, sizeof *fl);
    while (!rc && (e = fts_read(fts)) != NULL) {
        if (e->fts_info == FTS_DNR || e->fts_info == FTS_ERR)
            rc = failf("%s: cannot list the folder", e->fts_path);
        else if (e->fts_info == FTS_F && e->fts_pathlen >= sl &&
                 strcmp(e->fts_path + e->fts_pathlen - sl, suffix) == 0 &&
                 add_file(fl, e->fts_path) < 0)
            rc = failf("out of memory");
    }
    fts_close(fts);
    if (rc)
        free_files(fl);
    return rc;
}

static int check_record(const char *path, const char *counter, double freq)
{
    hb_err err;
    json_t *r;
    if (hb_json_load(path, &r, &err) < 0)
        return failf("%s", err.msg);
    const char *status, *name;
    json_t *env, *cnt, *derived;
    double rate;
    int rc = 0;
    if (hb_json_get_str(r, "status", &status, path, &err) < 0 ||
        hb_json_get_obj(r, "environment", &env, path, &err) < 0 ||
        hb_json_get_obj(env, "counter", &cnt, path, &err) < 0 ||
        hb_json_get_str(cnt, "name", &name, path, &err) < 0 ||
        hb_json_get_num(cnt, "rate_hz", &rate, path, &err) < 0)
        rc = failf("%s", err.msg);
    else if (strcmp(status, "OK") != 0)
        rc = failf("%s: status %s, expected OK", path, status);
    else if (strcmp(name, counter) != 0)
        rc = failf("%s: counter %s, expected %s", path, name, counter);
    else if (!json_is_false(json_object_get(cnt, "is_cycles")))
        rc = failf("%s: counter %s must have \"is_cycles\": false", path, name);
    else if (!(fabs(rate - freq) <= RATE_TOLERANCE * freq))
        rc = failf("%s: counter rate %.6g Hz, but cntfrq_el0 says %.6g Hz",
                   path, rate, freq);
    else if (hb_json_get_obj(r, "derived", &derived, path, &err) < 0)
        rc = failf("%s", err.msg);
    json_decref(r);
    return rc;
}

static int check_records(const char *run_dir, const char *counter, double freq)
{
    char dir[PATH_MAX];
    hb_err err;
    if (hb_path_join(dir, sizeof dir, run_dir, "records", &err) < 0)
        return failf("%s", err.msg);
    file_list recs;
    if (find_files(dir, ".json", &recs))
        return 1;
    int rc = recs.n ? 0 : failf("%s: no measurement record", dir);
    for (size_t i = 0; i < recs.n && !rc; i++)
        rc = check_record(recs.paths[i], counter, freq);
    if (!rc)
        printf("records: %zu records, status OK, counter %s within %.0f%% of "
               "cntfrq_el0 = %.6g Hz, not cycles\n", recs.n, counter,
               RATE_TOLERANCE * 100, freq);
    free_files(&recs);
    return rc;
}

/* The candidate page of CAND for system SYS: the HTML file named after the
 * candidate's page stem inside a folder named SYS. */
static const char *candidate_page(const file_list *pages, const char *sys,
                                  const char *cand)
{
    char stem[256], tail[600];
    pages_candidate_stem(cand, stem, sizeof stem);
    snprintf(tail, sizeof tail, "/%s/%s.html", sys, stem);
    size_t tl = strlen(tail);
    for (size_t i = 0; i < pages->n; i++) {
        const char *p = pages->paths[i];
        size_t len = strlen(p);
        if (len > tl && strcmp(p + len - tl, tail) == 0)
            return p;
    }
    return NULL;
}

/* 1 when the page FROM has an href that resolves to the file TO. */
static int links_to(const char *from, const char *to)
{
    char *html;
    hb_err err;
    if (hb_read_file(from, &html, NULL, &err) < 0)
        return 0;
    char want[PATH_MAX], dir[PATH_MAX], target[PATH_MAX * 2], got[PATH_MAX];
    int hit = 0;
    if (!realpath(to, want))
        goto out;
    snprintf(dir, sizeof dir, "%s", from);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    for (const char *p = strstr(html, "href=\""); p && !hit;
         p = strstr(p, "href=\"")) {
        p += 6;
        size_t n = strcspn(p, "\"#?");
        if (n == 0 || n >= PATH_MAX || strncmp(p, "http", 4) == 0)
            continue;
        snprintf(target, sizeof target, "%s/%.*s", dir, (int)n, p);
        hit = realpath(target, got) && strcmp(got, want) == 0;
    }
out:
    free(html);
    return hit;
}

static int check_site(const char *site, const char *sys_a, const char *sys_b,
                      char **cands, int ncands)
{
    file_list pages;
    if (find_files(site, ".html", &pages))
        return 1;
    int rc = 0;
    for (int i = 0; i < ncands && !rc; i++) {
        const char *a = candidate_page(&pages, sys_a, cands[i]);
        const char *b = candidate_page(&pages, sys_b, cands[i]);
        if (!a || !b)
            rc = failf("%s: no page of candidate %s for system %s", site,
                       cands[i], a ? sys_b : sys_a);
        else if (!links_to(a, b))
            rc = failf("%s: no link to %s", a, b);
        else if (!links_to(b, a))
            rc = failf("%s: no link to %s", b, a);
        else
            printf("  %-12s %s <-> %s\n", cands[i], a + strlen(site),
                   b + strlen(site));
    }
    if (!rc)
        printf("site: %d candidates, pages of %s and %s link to each other\n",
               ncands, sys_a, sys_b);
    free_files(&pages);
    return rc;
}

int main(int argc, char **argv)
{
    if (elf_version(EV_CURRENT) == EV_NONE)
        return failf("libelf: %s", elf_errmsg(-1));
    if (argc == 6 && strcmp(argv[1], "build") == 0)
        return check_build(argv[2], argv[3], argv[4], argv[5]);
    if (argc == 4 && strcmp(argv[1], "kat") == 0)
        return check_kat(argv[2], atol(argv[3]));
    if (argc == 5 && strcmp(argv[1], "records") == 0)
        return check_records(argv[2], argv[3], atof(argv[4]));
    if (argc >= 6 && strcmp(argv[1], "site") == 0)
        return check_site(argv[2], argv[3], argv[4], argv + 5, argc - 5);
    fprintf(stderr, "usage: run_check build RUN_DIR ARCH PROFILE FLAGS | kat "
                    "RUN_DIR MIN | records RUN_DIR COUNTER FREQ_HZ | site SITE "
                    "SYS_A SYS_B CAND...\n");
    return 2;
}
