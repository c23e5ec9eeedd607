/* The checks of the emulated AArch64 run (tests/aarch64/cross_run.sh): it
 * reads what the run left on disk and compares it with oracles that do not
 * come from the code under test: the ELF header of each built library
 * (libelf), the ARM guide's flags as the test states them, the counter
 * frequency that a separate AArch64 program read from cntfrq_el0, and the
 * links of the rendered site resolved on the file system. One check per
 * invocation; it prints what it verified, or one line naming the file and
 * what is wrong, and exits 0 (passed) or 1 (failed), 2 on a usage error:
 *   run_check build RUN_DIR ARCH PROFILE "FLAGS"   every instance BUILT with
 *                                                  FLAGS (and no other flags
 *                                                  but -fPIC -shared -D -I),
 *                                                  libraries for ARCH
 *   run_check kat RUN_DIR MIN                      every built instance PASS
 *                                                  (at least MIN of them)
 *   run_check kat-agree RUN_A RUN_B                both runs generated the
 *                                                  same KAT texts
 *   run_check records RUN_DIR COUNTER FREQ_HZ      records name COUNTER at FREQ_HZ
 *   run_check check JSON COUNTER FREQ_HZ           `hashbench check --json` saw
 *                                                  aarch64 and COUNTER at FREQ_HZ
 *   run_check site SITE SYS_A SYS_B CAND...        each candidate's pages link
 *                                                  to each other
 *   run_check labels SITE SYS COUNTER CAND...      SYS's candidate and summary
 *                                                  pages say "COUNTER ticks",
 *                                                  never plain "cycles" */
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

/* The rate in a record is measured against CLOCK_MONOTONIC_RAW over 0.2 s
 * (the frequency cntfrq_el0 states is checked exactly, as nominal_hz); on a
 * busy two-core machine a preemption between two reads can move it by a
 * few milliseconds' worth, so the measured rate gets a wide margin. */
#define RATE_TOLERANCE 0.05

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

/* The first token of HAVE that is neither in WANT nor one of the options
 * every library gets (-fPIC, -shared, what exports CryptHash alone:
 * -fvisibility=hidden, -include of hashbench's visibility header,
 * -fno-semantic-interposition, -Wl,--version-script=, and the instance's
 * -D/-I options), copied to EXTRA; 0 if none. So another architecture's
 * flags (-mavx2, -march=x86-64) cannot hide behind the ones the guide asks
 * for. */
static int extra_token(const char *have, const char *want, char *extra,
                       size_t extrasz)
{
    const char *p = have;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (n == 8 && strncmp(p, "-include", 8) == 0) { /* and its header */
            const char *h = p + n + strspn(p + n, " ");
            size_t hn = strcspn(h, " ");
            if (hn > 12 && strncmp(h + hn - 12, "visibility.h", 12) == 0) {
                p = h + hn;
                continue;
            }
        }
        int allowed = n == 0 || has_token(want, p, n) ||
                      (n == 5 && strncmp(p, "-fPIC", 5) == 0) ||
                      (n == 7 && strncmp(p, "-shared", 7) == 0) ||
                      (n == 19 && strncmp(p, "-fvisibility=hidden", 19) == 0) ||
                      (n == 27 && strncmp(p, "-fno-semantic-interposition", 27) == 0) ||
                      strncmp(p, "-Wl,--version-script=", 21) == 0 ||
                      strncmp(p, "-D", 2) == 0 || strncmp(p, "-I", 2) == 0;
        if (!allowed) {
            snprintf(extra, extrasz, "%.*s", (int)n, p);
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
    if (!baseline && extra_token(have, flags, missing, sizeof missing))
        return failf("%s: instance %s has the flag %s, which profile %s does "
                     "not give: flags are '%s'", file, inst, missing, profile,
                     have);
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

/* The entry of kat.json's INSTS for candidate CAND, instance INST. */
static json_t *kat_entry(json_t *insts, const char *cand, const char *inst)
{
    size_t i;
    json_t *e;
    json_array_foreach(insts, i, e) {
        const char *c = json_string_value(json_object_get(e, "candidate"));
        const char *n = json_string_value(json_object_get(e, "instance"));
        if (c && n && strcmp(c, cand) == 0 && strcmp(n, inst) == 0)
            return e;
    }
    return NULL;
}

/* Every instance of build.json has a kat.json entry: PASS with at least
 * one compared file for the submitted ones, BASELINE for the baseline. */
static int check_kat_entries(const char *bpath, json_t *built,
                             const char *kpath, json_t *kats, long min)
{
    hb_err err;
    long passed = 0;
    size_t i;
    json_t *b;
    json_array_foreach(built, i, b) {
        const char *cand, *inst, *status, *reason = "";
        json_t *k, *files;
        if (hb_json_get_str(b, "candidate", &cand, bpath, &err) < 0 ||
            hb_json_get_str(b, "instance", &inst, bpath, &err) < 0)
            return failf("%s", err.msg);
        int baseline = json_is_true(json_object_get(b, "baseline"));
        if (!(k = kat_entry(kats, cand, inst)))
            return failf("%s: no KAT result for %s/%s", kpath, cand, inst);
        if (hb_json_get_str(k, "status", &status, kpath, &err) < 0 ||
            hb_json_get_arr(k, "files", &files, kpath, &err) < 0)
            return failf("%s", err.msg);
        hb_json_get_str(k, "reason", &reason, kpath, NULL);
        const char *want = baseline ? "BASELINE" : "PASS";
        if (strcmp(status, want) != 0)
            return failf("%s: instance %s/%s is %s, expected %s: %s", kpath,
                         cand, inst, status, want, reason);
        if (!baseline && json_array_size(files) == 0)
            return failf("%s: instance %s/%s PASSes without a compared file",
                         kpath, cand, inst);
        if (!baseline) {
            printf("  %-28s PASS (%zu files)\n", inst, json_array_size(files));
            passed++;
        }
    }
    if (passed < min)
        return failf("%s: %ld instances PASS, expected at least %ld", kpath,
                     passed, min);
    printf("kat: all %ld instances PASS\n", passed);
    return 0;
}

static int check_kat(const char *run_dir, long min)
{
    char bpath[PATH_MAX], kpath[PATH_MAX];
    json_t *broot, *kroot;
    if (load(run_dir, "build.json", &broot, bpath, sizeof bpath))
        return 1;
    if (load(run_dir, "kat.json", &kroot, kpath, sizeof kpath)) {
        json_decref(broot);
        return 1;
    }
    hb_err err;
    json_t *built, *kats;
    int rc;
    if (hb_json_get_arr(broot, "instances", &built, bpath, &err) < 0 ||
        hb_json_get_arr(kroot, "instances", &kats, kpath, &err) < 0)
        rc = failf("%s", err.msg);
    else
        rc = check_kat_entries(bpath, built, kpath, kats, min);
    json_decref(broot);
    json_decref(kroot);
    return rc;
}

/* The generated KAT texts of run A and run B are the same (the SHA-256 of
 * each file that both generated): one implementation compiled for two
 * architectures must print the same records. */
static int check_kat_agree(const char *run_a, const char *run_b)
{
    char pa[PATH_MAX], pb[PATH_MAX];
    json_t *ra, *rb;
    if (load(run_a, "kat.json", &ra, pa, sizeof pa))
        return 1;
    if (load(run_b, "kat.json", &rb, pb, sizeof pb)) {
        json_decref(ra);
        return 1;
    }
    hb_err err;
    json_t *ia, *ib;
    int rc = 0;
    long files = 0;
    if (hb_json_get_arr(ra, "instances", &ia, pa, &err) < 0 ||
        hb_json_get_arr(rb, "instances", &ib, pb, &err) < 0)
        rc = failf("%s", err.msg);
    size_t i;
    json_t *a;
    json_array_foreach(rc ? NULL : ia, i, a) {
        const char *cand = json_string_value(json_object_get(a, "candidate"));
        const char *inst = json_string_value(json_object_get(a, "instance"));
        json_t *b = cand && inst ? kat_entry(ib, cand, inst) : NULL;
        if (!b) {
            rc = failf("%s: %s/%s has no KAT result in %s", pa,
                       cand ? cand : "?", inst ? inst : "?", pb);
            break;
        }
        size_t j;
        json_t *fa;
        json_array_foreach(json_object_get(a, "files"), j, fa) {
            const char *name = json_string_value(json_object_get(fa, "name"));
            const char *ha = json_string_value(json_object_get(fa, "generated_sha256"));
            size_t k;
            json_t *fb;
            const char *hb = NULL;
            json_array_foreach(json_object_get(b, "files"), k, fb) {
                const char *nb = json_string_value(json_object_get(fb, "name"));
                if (name && nb && strcmp(name, nb) == 0)
                    hb = json_string_value(json_object_get(fb, "generated_sha256"));
            }
            if (!name || !ha || !hb) {
                rc = failf("%s: %s/%s: file %s was not generated by both runs",
                           pa, cand, inst, name ? name : "?");
                break;
            }
            if (strcmp(ha, hb) != 0) {
                rc = failf("%s/%s: %s differs: sha256 %s in %s, %s in %s", cand,
                           inst, name, ha, pa, hb, pb);
                break;
            }
            files++;
        }
        if (rc)
            break;
    }
    if (!rc && files == 0)
        rc = failf("%s: no generated KAT file to compare", pa);
    if (!rc)
        printf("kat-agree: %ld generated KAT files identical in both runs\n",
               files);
    json_decref(ra);
    json_decref(rb);
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

static int check_counter(const char *path, const json_t *obj,
                         const char *counter, double freq, int nominal);

static int check_record(const char *path, const char *counter, double freq)
{
    hb_err err;
    json_t *r;
    if (hb_json_load(path, &r, &err) < 0)
        return failf("%s", err.msg);
    const char *status;
    json_t *env, *cnt, *derived;
    int rc = 0;
    if (hb_json_get_str(r, "status", &status, path, &err) < 0 ||
        hb_json_get_obj(r, "environment", &env, path, &err) < 0 ||
        hb_json_get_obj(env, "counter", &cnt, path, &err) < 0 ||
        hb_json_get_obj(r, "derived", &derived, path, &err) < 0)
        rc = failf("%s", err.msg);
    else if (strcmp(status, "OK") != 0)
        rc = failf("%s: status %s, expected OK", path, status);
    else
        rc = check_counter(path, cnt, counter, freq, 1);
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
        printf("records: %zu records, status OK, counter %s, not cycles, "
               "nominal_hz = cntfrq_el0 = %.6g Hz, measured rate within %.0f%%\n",
               recs.n, counter, freq, RATE_TOLERANCE * 100);
    free_files(&recs);
    return rc;
}

/* The counter object OBJ (a record's environment.counter, or the counter
 * of `hashbench check --json`) names COUNTER, says it does not count
 * cycles, and gives a rate within RATE_TOLERANCE of FREQ; with NOMINAL, it
 * also states FREQ itself as its cntfrq_el0 frequency. */
static int check_counter(const char *path, const json_t *obj,
                         const char *counter, double freq, int nominal)
{
    hb_err err;
    const char *name;
    double rate;
    if (hb_json_get_str(obj, "name", &name, path, &err) < 0 ||
        hb_json_get_num(obj, "rate_hz", &rate, path, &err) < 0)
        return failf("%s", err.msg);
    if (strcmp(name, counter) != 0)
        return failf("%s: counter %s, expected %s", path, name, counter);
    if (!json_is_false(json_object_get(obj, "is_cycles")))
        return failf("%s: counter %s must have \"is_cycles\": false", path,
                     name);
    if (!(fabs(rate - freq) <= RATE_TOLERANCE * freq))
        return failf("%s: counter rate %.6g Hz, but cntfrq_el0 says %.6g Hz",
                     path, rate, freq);
    if (!nominal)
        return 0;
    const char *source;
    double hz;
    if (hb_json_get_num(obj, "nominal_hz", &hz, path, &err) < 0 ||
        hb_json_get_str(obj, "nominal_source", &source, path, &err) < 0)
        return failf("%s", err.msg);
    if (strcmp(source, "cntfrq_el0") != 0 || hz != freq)
        return failf("%s: nominal frequency %.6g Hz from %s, but cntfrq_el0 "
                     "says %.6g Hz", path, hz, source, freq);
    return 0;
}

/* `hashbench check --json` run on AArch64: the host is aarch64, the counter
 * is COUNTER at FREQ, and the counter item calls its figures ticks of that
 * counter, not core cycles. */
static int check_check(const char *path, const char *counter, double freq)
{
    hb_err err;
    json_t *root, *host, *cnt, *items;
    const char *arch;
    if (hb_json_load(path, &root, &err) < 0)
        return failf("%s", err.msg);
    int rc = 0;
    if (hb_json_get_obj(root, "host", &host, path, &err) < 0 ||
        hb_json_get_str(host, "arch", &arch, path, &err) < 0 ||
        hb_json_get_obj(root, "counter", &cnt, path, &err) < 0 ||
        hb_json_get_arr(root, "checks", &items, path, &err) < 0)
        rc = failf("%s", err.msg);
    else if (strcmp(arch, "aarch64") != 0)
        rc = failf("%s: host arch %s, expected aarch64", path, arch);
    else
        rc = check_counter(path, cnt, counter, freq, 0);
    char want[128];
    snprintf(want, sizeof want, "%s ticks, not core cycles", counter);
    const char *detail = NULL;
    size_t i;
    json_t *it;
    json_array_foreach(rc ? NULL : items, i, it) {
        const char *name = json_string_value(json_object_get(it, "item"));
        if (name && strcmp(name, "counter") == 0)
            detail = json_string_value(json_object_get(it, "detail"));
    }
    if (!rc && (!detail || !strstr(detail, want)))
        rc = failf("%s: the counter item does not say '%s': %s", path, want,
                   detail ? detail : "(no counter item)");
    if (!rc)
        printf("check: arch aarch64, counter %s, \"%s\"\n", counter, detail);
    json_decref(root);
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

/* Occurrences of NEEDLE in HAY, ignoring case. */
static int count_ci(const char *hay, const char *needle)
{
    int n = 0;
    size_t len = strlen(needle);
    for (const char *p = strcasestr(hay, needle); p; p = strcasestr(p + len, needle))
        n++;
    return n;
}

/* The page PATH gives its figures as ticks of COUNTER, and "cycles" only
 * ever appears as "not core cycles"; a candidate page (NOMINAL set) of a
 * cntvct_el0 system also states the frequency read from cntfrq_el0. */
static int check_label(const char *path, const char *counter, int nominal)
{
    char *text;
    hb_err err;
    if (hb_read_file(path, &text, NULL, &err) < 0)
        return failf("%s", err.msg);
    char ticks[128];
    snprintf(ticks, sizeof ticks, "%s ticks", counter);
    int rc = 0;
    int cycles = count_ci(text, "cycles"), denied = count_ci(text, "not core cycles");
    if (count_ci(text, ticks) == 0)
        rc = failf("%s: the figures are not named '%s'", path, ticks);
    else if (cycles != denied)
        rc = failf("%s: says 'cycles' %d times, only %d of them 'not core "
                   "cycles', but %s counts no cycles", path, cycles, denied,
                   counter);
    else if (nominal && strcmp(counter, "cntvct_el0") == 0 && count_ci(text, "cntfrq") == 0)
        rc = failf("%s: does not state the timer frequency read from cntfrq_el0", path);
    free(text);
    return rc;
}

/* The candidate pages and the summary of system SYS (HTML and Markdown)
 * name their figures after COUNTER, never as cycles. */
static int check_labels(const char *site, const char *sys, const char *counter,
                        char **cands, int ncands)
{
    int rc = 0, pages = 0;
    for (int i = -1; i < ncands && !rc; i++) {
        char stem[256];
        if (i < 0)
            snprintf(stem, sizeof stem, "summary");
        else
            pages_candidate_stem(cands[i], stem, sizeof stem);
        static const char *const ext[] = {"html", "md"};
        for (int e = 0; e < 2 && !rc; e++) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%s/%s.%s", site, sys, stem, ext[e]);
            rc = check_label(path, counter, i >= 0);
            pages++;
        }
    }
    if (!rc)
        printf("labels: %d pages of %s give %s ticks, never cycles\n", pages,
               sys, counter);
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
    if (argc == 4 && strcmp(argv[1], "kat-agree") == 0)
        return check_kat_agree(argv[2], argv[3]);
    if (argc == 5 && strcmp(argv[1], "check") == 0)
        return check_check(argv[2], argv[3], atof(argv[4]));
    if (argc == 5 && strcmp(argv[1], "records") == 0)
        return check_records(argv[2], argv[3], atof(argv[4]));
    if (argc >= 6 && strcmp(argv[1], "labels") == 0)
        return check_labels(argv[2], argv[3], argv[4], argv + 5, argc - 5);
    if (argc >= 6 && strcmp(argv[1], "site") == 0)
        return check_site(argv[2], argv[3], argv[4], argv + 5, argc - 5);
    fprintf(stderr, "usage: run_check build RUN_DIR ARCH PROFILE FLAGS | kat "
                    "RUN_DIR MIN | kat-agree RUN_A RUN_B | records RUN_DIR COUNTER FREQ_HZ | check JSON COUNTER FREQ_HZ | site SITE "
                    "SYS_A SYS_B CAND... | labels SITE SYS COUNTER CAND...\n");
    return 2;
}
