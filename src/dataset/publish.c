/* Publishing (see publish.h). Paths are rewritten in four steps: the path
 * fields the formats define (library, log, kat_log, probe_command, ...) are
 * made relative to DATA; then any other text that still quotes the run
 * directory or a package folder (a compiler flag, a failure reason) has that
 * prefix replaced; then any other absolute host path in a text (not a path
 * field) becomes "<path>/NAME"; finally every document is scanned, and one
 * absolute path left anywhere stops the publication before anything
 * replaces DATA/ID. Logs are copied first, so the documents citing a
 * rewritten KAT log get its new SHA-256. Raw text of submitted code
 * (common/untrusted.h) is dropped, compiler logs keep only the locations
 * and classes of their diagnostics (compile/diag.h), and an instance whose
 * files, entries or raw text hold a host identifier is withheld: the
 * dataset is assembled again without it. */
#include "dataset/publish.h"
#include "dataset/layout.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dataset/tree.h"
#include "dataset/hostdata.h"
#include "dataset/notes.h"
#include "report/ratiodrift.h"
#include "rundir/rundir.h"
#include "common/digest.h"
#include "common/fs.h"
#include "common/json.h"
#include "common/untrusted.h"
#include "compile/diag.h"

#define PUBLISH_MAX_PREFIXES 64
#define PUBLISH_MAX_DIAGNOSTICS 100 /* diagnostics of one compiler log published */
#define PUBLISH_MAX_PASSES 4 /* assemblies after the first that withhold more */
#define PUBLISH_REDACTION_RULE "the run directory is written as the system's " \
    "folder, a submission folder as its own name, and any other absolute path " \
    "of the measuring host (the kernel's /proc, /sys and /dev excepted) as " \
    "<path>/ and its last component, in the copied logs and the JSON texts; a " \
    "rewritten KAT log's SHA-256 is that of the copy"

typedef struct prefix_rule {
    char from[PATH_MAX + 1]; /* absolute folder with a trailing '/' */
    char to[80];             /* "ID/" for run directories, "" for packages */
    int package;             /* a submission folder */
    char name[NAME_MAX + 2]; /* a package's folder name with '/', for logs */
} prefix_rule;

typedef struct publish_ctx {
    const char *run_dir;
    const char *system;
    char stage[PATH_MAX];    /* DATA/.ID.publishing */
    prefix_rule rules[PUBLISH_MAX_PREFIXES];
    int n_rules;
    publish_counts counts;
    int redacted;            /* host paths redacted in the current file */
    json_t *redactions;      /* [{"file", "paths"}] for campaign.json */
    json_t *log_sha;         /* rewritten KAT log: run SHA-256 -> published */
    json_t *build_logs;      /* copied compiler log: run-dir path -> SHA-256 */
    json_t *known;           /* build.json's instances: [[cand, inst], ...] */
    json_t *withheld;        /* "cand/inst" -> {candidate, instance, reason} */
    int newly_withheld;      /* instances withheld by the last host data scan */
    const hostdata *hd;      /* this host's identifiers (dataset/hostdata.h) */
} publish_ctx;

/* A rule for FOLDER; one that no longer exists (a merged shard's run
 * directory removed since) is taken as written when absolute. */
static void add_rule(publish_ctx *c, const char *folder, const char *to, int package)
{
    char abs[PATH_MAX];
    if (c->n_rules >= PUBLISH_MAX_PREFIXES || !folder)
        return;
    if (!realpath(folder, abs)) {
        if (folder[0] != '/' || strlen(folder) >= sizeof abs)
            return;
        snprintf(abs, sizeof abs, "%s", folder);
    }
    snprintf(c->rules[c->n_rules].from, sizeof c->rules[0].from, "%s/", abs);
    snprintf(c->rules[c->n_rules].to, sizeof c->rules[0].to, "%s", to);
    c->rules[c->n_rules].package = package;
    snprintf(c->rules[c->n_rules].name, sizeof c->rules[0].name, "%s/",
             hb_basename(abs));
    c->n_rules++;
}

/* ---- instances withheld for host data ---------------------------------- */

/* 1 when CAND/INST is withheld. */
static int is_withheld(const publish_ctx *c, const char *cand, const char *inst)
{
    char key[2 * NAME_MAX + 2];
    if (!cand || !inst)
        return 0;
    snprintf(key, sizeof key, "%s/%s", cand, inst);
    return json_object_get(c->withheld, key) != NULL;
}

/* The instance a per-instance file REL of the dataset belongs to
 * (records/, kat/, logs/build/, ct/, count/: "<dir>/<cand>/<Inst>..."), as
 * build.json names it; 0 when REL is no such file. */
static int attribute(const publish_ctx *c, const char *rel, const char **cand,
                     const char **inst)
{
    static const char *const dirs[] = {RUNDIR_RECORDS, RUNDIR_KAT, RUNDIR_BUILD_LOGS,
                                       RUNDIR_CT, RUNDIR_COUNT, RUNDIR_SOAK};
    size_t i, best = 0;
    json_t *pair;
    *cand = *inst = NULL;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        size_t n = strlen(dirs[d]);
        if (strncmp(rel, dirs[d], n) != 0 || rel[n] != '/')
            continue;
        const char *cp = rel + n + 1, *slash = strchr(cp, '/');
        if (!slash)
            return 0;
        json_array_foreach(c->known, i, pair) {
            const char *kc = json_string_value(json_array_get(pair, 0));
            const char *ki = json_string_value(json_array_get(pair, 1));
            size_t kl = strlen(ki);
            const char *after = slash + 1 + kl;
            if (strlen(kc) != (size_t)(slash - cp) || strncmp(kc, cp, strlen(kc)) != 0 ||
                strncmp(slash + 1, ki, kl) != 0 || kl <= best)
                continue;
            if (*after == '\0' || *after == '/' || *after == '.' ||
                strncmp(after, "__", 2) == 0) {
                *cand = kc;
                *inst = ki;
                best = kl;
            }
        }
        return best > 0;
    }
    return 0;
}

/* Withholds CAND/INST from publication: hashbench's wording of what it
 * found (WHAT, a needle's description) and where (IN). */
static void withhold(publish_ctx *c, const char *cand, const char *inst, const char *what,
                     const char *in)
{
    char key[2 * NAME_MAX + 2];
    snprintf(key, sizeof key, "%s/%s", cand, inst);
    if (json_object_get(c->withheld, key))
        return;
    char reason[400];
    snprintf(reason, sizeof reason, "withheld from publication: hashbench found %s in %s "
             "(host data, docs/THREAT_MODEL.md); its records, KAT and build results stay "
             "in the run directory", what, in);
    json_object_set_new(c->withheld, key, json_pack("{s:s, s:s, s:s}", "candidate", cand,
                                                    "instance", inst, "reason", reason));
    c->newly_withheld++;
}

/* What a file REL of the dataset is, in hashbench's words. */
static const char *file_kind(const char *rel)
{
    static const struct { const char *dir, *kind; } kinds[] = {
        {RUNDIR_RECORDS "/", "its record"}, {RUNDIR_KAT "/", "its KAT log"},
        {RUNDIR_BUILD_LOGS "/", "its compiler log"},
        {RUNDIR_CT "/", "its constant-time record"},
        {RUNDIR_COUNT "/", "its instruction-count record"},
        {RUNDIR_SOAK "/", "its long-run stability record"},
        {RUNDIR_KAT_JSON, "its entry in kat.json"},
        {RUNDIR_BUILD_JSON, "its entry in build.json"}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strncmp(rel, kinds[i].dir, strlen(kinds[i].dir)) == 0)
            return kinds[i].kind;
    return "one of its documents";
}

/* Withholds each instance whose entry (an object with "instance", its
 * candidate its own or an enclosing object's) in V holds a needle. */
static void withhold_entries(publish_ctx *c, const json_t *v, const char *cand,
                             const char *rel)
{
    const char *key;
    json_t *x;
    size_t i;
    if (json_is_array(v)) {
        json_array_foreach(v, i, x)
            withhold_entries(c, x, cand, rel);
        return;
    }
    if (!json_is_object(v))
        return;
    const char *own = json_string_value(json_object_get(v, "candidate"));
    const char *inst = json_string_value(json_object_get(v, "instance"));
    if (own)
        cand = own;
    if (cand && inst) {
        char *text = json_dumps(v, JSON_COMPACT);
        const hostdata_needle *n = text ? hostdata_find(c->hd, text, strlen(text)) : NULL;
        if (n)
            withhold(c, cand, inst, n->what, file_kind(rel));
        free(text);
        if (n)
            return;
    }
    json_object_foreach((json_t *)v, key, x)
        withhold_entries(c, x, cand, rel);
}

/* Drops from V's arrays the entries of withheld instances. */
static void drop_withheld(const publish_ctx *c, json_t *v, const char *cand)
{
    const char *key;
    json_t *x;
    size_t i;
    if (json_is_object(v)) {
        const char *own = json_string_value(json_object_get(v, "candidate"));
        json_object_foreach(v, key, x)
            drop_withheld(c, x, own ? own : cand);
        return;
    }
    for (i = 0; json_is_array(v) && i < json_array_size(v);) {
        x = json_array_get(v, i);
        const char *own = json_string_value(json_object_get(x, "candidate"));
        if (is_withheld(c, own ? own : cand, json_string_value(json_object_get(x, "instance")))) {
            json_array_remove(v, i);
            continue;
        }
        drop_withheld(c, x, cand);
        i++;
    }
}

/* build.json's candidate and instance pairs into C->known. */
static void load_known(publish_ctx *c)
{
    char path[PATH_MAX];
    json_t *doc, *e;
    size_t i;
    hb_err ignored;
    if (rundir_path(path, sizeof path, c->run_dir, RUNDIR_BUILD_JSON, &ignored) != 0 ||
        hb_json_load(path, &doc, &ignored) != 0)
        return;
    json_array_foreach(json_object_get(doc, "instances"), i, e) {
        const char *cand = json_string_value(json_object_get(e, "candidate"));
        const char *inst = json_string_value(json_object_get(e, "instance"));
        if (cand && inst && strlen(cand) <= NAME_MAX && strlen(inst) <= NAME_MAX)
            json_array_append_new(c->known, json_pack("[s, s]", cand, inst));
    }
    json_decref(doc);
}

/* ---- text written by submitted code ----------------------------------- */

/* Withholds each instance (its entry: an object with "instance", its
 * candidate its own or an enclosing object's) whose raw text of submitted
 * code in V ("..._untrusted" fields, which are never published) holds a
 * host identifier: the submission tried to carry host data out. */
static void withhold_raw_host_data(publish_ctx *c, const json_t *v, const char *cand,
                                   const char *inst, const char *rel)
{
    const char *key;
    json_t *x;
    size_t i;
    if (json_is_array(v)) {
        json_array_foreach(v, i, x)
            withhold_raw_host_data(c, x, cand, inst, rel);
        return;
    }
    if (!json_is_object(v))
        return;
    const char *own_c = json_string_value(json_object_get(v, "candidate"));
    const char *own_i = json_string_value(json_object_get(v, "instance"));
    cand = own_c ? own_c : cand;
    inst = own_i ? own_i : inst;
    json_object_foreach((json_t *)v, key, x) {
        const char *t = json_string_value(x);
        const char *raw = NULL;
        if (t && !hb_untrusted_key(key))
            hb_untrusted_split(t, &raw);
        else if (t)
            raw = t;
        const hostdata_needle *n = raw ? hostdata_find(c->hd, raw, strlen(raw)) : NULL;
        if (n && cand && inst) {
            char in[128];
            snprintf(in, sizeof in, "text written by submitted code, in %s", file_kind(rel));
            withhold(c, cand, inst, n->what, in);
        } else if (!t) {
            withhold_raw_host_data(c, x, cand, inst, rel);
        }
    }
}

/* Drops from V every field of raw text ("..._untrusted") and cuts every
 * text at the mark before raw text (common/untrusted.h): what a dataset
 * states of a failure is hashbench's wording only. */
static void drop_untrusted(json_t *v)
{
    const char *key;
    json_t *x;
    size_t i;
    void *tmp;
    if (json_is_array(v)) {
        json_array_foreach(v, i, x) {
            const char *t = json_string_value(x);
            if (t && strchr(t, HB_UNTRUSTED_MARK))
                json_array_set_new(v, i, json_stringn(t, hb_untrusted_split(t, NULL)));
            else
                drop_untrusted(x);
        }
    } else if (json_is_object(v)) {
        json_object_foreach_safe(v, tmp, key, x) {
            const char *t = json_string_value(x);
            if (hb_untrusted_key(key))
                json_object_del(v, key);
            else if (t && strchr(t, HB_UNTRUSTED_MARK))
                json_object_set_new(v, key, json_stringn(t, hb_untrusted_split(t, NULL)));
            else
                drop_untrusted(x);
        }
    }
}

/* A compiler log as published (malloc'd; NULL when out of memory):
 * hashbench's own lines ("$ " the command, "# " its notes) as they are, each
 * line of compiler output as the location and class hashbench parsed from
 * it (compile/diag.h) or left out, and a last note counting what was left
 * out. The compiler's messages quote the submitted source, so a submission
 * chooses their bytes; the run directory's copy keeps them. */
/* WHERE ("FILE:LINE[:COL]: CLASS", diag_parse's) with FILE replaced when
 * no such file exists, relative to the compiler's working folder DIR (the
 * package) or absolute: a "#line" directive makes the compiler name any
 * file it likes, so a name is published only when it is a file's. */
static void known_file_only(char *where, size_t sz, const char *dir)
{
    char file[160], path[PATH_MAX + 160];
    const char *colon = strchr(where, ':');
    if (!colon || strncmp(where, "linker:", 7) == 0)
        return;
    snprintf(file, sizeof file, "%.*s", (int)(colon - where), where);
    struct stat st;
    int exists;
    if (file[0] == '/')
        exists = stat(file, &st) == 0 && S_ISREG(st.st_mode);
    else
        exists = dir[0] && strstr(file, "..") == NULL &&
                 snprintf(path, sizeof path, "%s/%s", dir, file) < (int)sizeof path &&
                 stat(path, &st) == 0 && S_ISREG(st.st_mode);
    if (!exists) {
        char rest[160];
        snprintf(rest, sizeof rest, "%s", colon);
        snprintf(where, sz, "<no-such-file>%s", rest);
    }
}

static char *reduce_compiler_log(const char *text)
{
    char *out = NULL, where[200], dir[PATH_MAX] = "";
    size_t len = 0;
    unsigned long dropped = 0, shown = 0;
    FILE *fp = open_memstream(&out, &len);
    if (!fp)
        return NULL;
    for (const char *l = text; *l;) {
        size_t n = strcspn(l, "\n");
        size_t p = strlen(DIAG_OUTPUT_PREFIX);
        if (n >= 2 && (strncmp(l, "$ ", 2) == 0 || strncmp(l, "# ", 2) == 0)) {
            fprintf(fp, "%.*s\n", (int)n, l);
            size_t wf = strlen(COMPILE_LOG_WORKDIR);
            if (n > wf && strncmp(l, COMPILE_LOG_WORKDIR, wf) == 0 && n - wf < sizeof dir)
                snprintf(dir, sizeof dir, "%.*s", (int)(n - wf), l + wf);
        } else {
            const char *body = n >= p && strncmp(l, DIAG_OUTPUT_PREFIX, p) == 0 ? l + p : l;
            size_t bn = n - (size_t)(body - l);
            if (bn && shown < PUBLISH_MAX_DIAGNOSTICS &&
                diag_parse(body, bn, where, sizeof where)) {
                known_file_only(where, sizeof where, dir);
                fprintf(fp, DIAG_OUTPUT_PREFIX "%s\n", where);
                shown++;
            } else if (bn) {
                dropped++;
            }
        }
        l += n + (l[n] == '\n');
    }
    if (dropped)
        fprintf(fp, "# %lu lines of compiler output not published: they quote the "
                "submitted source; the run directory's copy of this log holds them\n",
                dropped);
    fclose(fp);
    return out;
}

/* ---- rewriting -------------------------------------------------------- */

static int is_path_key(const char *key)
{
    static const char *const keys[] = {"library", "log", "kat_log", "record",
                                       "log_path"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(key, keys[i]) == 0)
            return 1;
    return 0;
}

/* A run-directory path made relative to DATA: "ID/<path>". Absolute paths
 * under the run directory lose that prefix first. */
static json_t *data_relative(const publish_ctx *c, const char *path)
{
    const char *from = c->rules[0].from;
    if (strncmp(path, from, strlen(from)) == 0)
        path += strlen(from);
    if (path[0] == '/')
        return json_string(path); /* left for the absolute-path scan */
    return json_sprintf("%s/%s", c->system, path);
}

static void rewrite_probe_command(const publish_ctx *c, json_t *arr)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) {
        const char *s = json_string_value(v);
        char inside[PATH_MAX];
        if (!s)
            continue;
        if (rundir_path(inside, sizeof inside, c->run_dir, s, NULL) != 0)
            inside[0] = '\0';
        if (s[0] == '/' && strcmp(hb_basename(s), "hashbench-probe") == 0)
            json_array_set_new(arr, i, json_string("hashbench-probe"));
        else if (s[0] == '/' || (s[0] != '-' && hb_is_file(inside)))
            json_array_set_new(arr, i, data_relative(c, s));
    }
}

static void rewrite_fields(const publish_ctx *c, json_t *v)
{
    const char *key;
    json_t *x;
    size_t i;
    void *tmp;
    if (json_is_array(v)) {
        json_array_foreach(v, i, x)
            rewrite_fields(c, x);
        return;
    }
    if (!json_is_object(v))
        return;
    json_object_del(v, "package");
    json_object_foreach_safe(v, tmp, key, x) {
        if (is_path_key(key) && json_is_string(x))
            json_object_set_new(v, key, data_relative(c, json_string_value(x)));
        else if (strcmp(key, "probe_command") == 0 && json_is_array(x))
            rewrite_probe_command(c, x);
        else
            rewrite_fields(c, x);
    }
}

/* S with every occurrence of each rule's FROM replaced by its TO, or NULL
 * when nothing matched (malloc'd, owned by the caller). With NAMED, a
 * package folder becomes its own name ("SM3/") rather than nothing: free
 * text such as a compiler log has no "relative to the package" context. */
static char *replace_prefixes_as(const publish_ctx *c, const char *s, int named)
{
    char *cur = NULL;
    for (int r = 0; r < c->n_rules; r++) {
        const char *src = cur ? cur : s, *from = c->rules[r].from;
        if (!strstr(src, from))
            continue;
        const char *to = named && c->rules[r].package ? c->rules[r].name
                                                      : c->rules[r].to;
        size_t fl = strlen(from), tl = strlen(to), n = 0;
        for (const char *p = src; (p = strstr(p, from)); p += fl)
            n++;
        char *out = malloc(strlen(src) + n * tl + 1), *o = out;
        if (!out)
            break;
        for (const char *p = src, *q; ; p = q + fl) {
            q = strstr(p, from);
            size_t len = q ? (size_t)(q - p) : strlen(p);
            memcpy(o, p, len);
            o += len;
            if (!q)
                break;
            memcpy(o, to, tl);
            o += tl;
        }
        *o = '\0';
        free(cur);
        cur = out;
    }
    return cur;
}

static char *replace_prefixes(const publish_ctx *c, const char *s)
{
    return replace_prefixes_as(c, s, 0);
}

static char *redact_paths(const char *s, int *n);
static void rewrite_texts(publish_ctx *c, json_t *v, int redact);

/* The new text of the member X when it is a string that needs rewriting
 * (malloc'd), else NULL after rewriting inside X. With REDACT, host paths
 * left after the prefixes are redacted (not in a path field: one that
 * cannot be made relative is refused by the scan instead). */
static char *rewrite_member(publish_ctx *c, json_t *x, int redact)
{
    if (!json_is_string(x)) {
        rewrite_texts(c, x, redact);
        return NULL;
    }
    char *s = replace_prefixes(c, json_string_value(x));
    char *r = redact ? redact_paths(s ? s : json_string_value(x), &c->redacted) : NULL;
    if (r) {
        free(s);
        s = r;
    }
    return s;
}

static void rewrite_texts(publish_ctx *c, json_t *v, int redact)
{
    const char *key;
    json_t *x;
    size_t i;
    char *s;
    if (json_is_array(v)) {
        json_array_foreach(v, i, x) {
            if ((s = rewrite_member(c, x, redact)) != NULL)
                json_array_set_new(v, i, json_string(s));
            free(s);
        }
    } else if (json_is_object(v)) {
        json_object_foreach(v, key, x) {
            int r = redact && !is_path_key(key) && strcmp(key, "probe_command") != 0;
            if ((s = rewrite_member(c, x, r)) != NULL)
                json_object_set_new(v, key, json_string(s));
            free(s);
        }
    }
}

/* ---- the absolute-path scan ------------------------------------------- */

/* 1 when S quotes an absolute path inside its text ("dlopen /home/a/x.so",
 * "-I/opt/inc"): a '/' after a blank, '=', quote, '(', ':', ',' or "-I"/"-L"
 * and followed by a name character. The kernel interfaces /proc, /sys and
 * /dev name no file of this machine's tree and are allowed in text (the host
 * check's fixes quote them). */
static int is_name_char(char c)
{
    return c && (isalnum((unsigned char)c) || strchr("_.~-", c));
}

/* The next absolute path quoted in S at or after FROM, or NULL. */
static const char *next_absolute(const char *s, const char *from)
{
    static const char *const allowed[] = {"/proc", "/sys", "/dev"};
    for (const char *p = strchr(from, '/'); p; p = strchr(p + 1, '/')) {
        char before = p == s ? ' ' : p[-1];
        int flag = p - s >= 2 && p[-2] == '-' && (before == 'I' || before == 'L');
        if (!flag && !strchr(" \t\n='\"(:,", before))
            continue;
        if (!is_name_char(p[1]))
            continue;
        int ok = 0;
        for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) {
            size_t n = strlen(allowed[i]);
            ok |= strncmp(p, allowed[i], n) == 0 && !is_name_char(p[n]);
        }
        if (!ok)
            return p;
    }
    return NULL;
}

static int quotes_absolute(const char *s)
{
    return next_absolute(s, s) != NULL;
}

/* 1 when C ends a path quoted in text (a blank, a quote, "file:LINE", ...). */
static int ends_path(char c)
{
    return !c || isspace((unsigned char)c) || strchr("'\"`(),;:<>|&", c);
}

/* S with every absolute path of this machine that it quotes written as
 * "<path>/" and its last component (the kernel's /proc, /sys and /dev
 * kept), or NULL when there is none (malloc'd, owned by the caller); *N
 * counts the paths. */
static char *redact_paths(const char *s, int *n)
{
    const char *p = next_absolute(s, s), *from = s;
    if (!p)
        return NULL;
    char *out = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&out, &len);
    if (!fp)
        return NULL;
    for (; p; p = next_absolute(s, from)) {
        const char *end = p, *last, *base;
        while (!ends_path(*end))
            end++;
        for (last = end; last > p + 1 && last[-1] == '/'; last--)
            ;
        for (base = last; base > p && base[-1] != '/'; base--)
            ;
        fwrite(from, 1, (size_t)(p - from), fp);
        fprintf(fp, "<path>/%.*s", (int)(last - base), base);
        (*n)++;
        from = end;
    }
    fputs(from, fp);
    fclose(fp);
    return out;
}

static int scan(const json_t *v, const char *forbidden, char *where,
                size_t wsz, const char **bad)
{
    size_t len = strlen(where), i;
    const char *key;
    json_t *x;
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (s[0] == '/' || quotes_absolute(s) ||
            (forbidden && forbidden[0] && strstr(s, forbidden))) {
            *bad = s;
            return -1;
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, x) {
            snprintf(where + len, wsz - len, "[%zu]", i);
            if (scan(x, forbidden, where, wsz, bad) < 0)
                return -1;
        }
    } else if (json_is_object(v)) {
        json_object_foreach((json_t *)v, key, x) {
            snprintf(where + len, wsz - len, "%s%s", len ? "." : "", key);
            if (scan(x, forbidden, where, wsz, bad) < 0)
                return -1;
        }
    }
    where[len] = '\0';
    return 0;
}

int publish_check_no_absolute(const json_t *root, const char *forbidden,
                              const char *file, hb_err *err)
{
    char where[1024] = "";
    const char *bad = NULL;
    if (scan(root, forbidden, where, sizeof where, &bad) == 0)
        return 0;
    return hb_fail(err, "%s: field '%s' would publish the absolute path '%.200s'; "
                   "a dataset keeps only paths relative to DATA: fix the stage "
                   "that wrote it, or rerun it", file, where, bad);
}

/* ---- copying ---------------------------------------------------------- */

/* Notes that the run directory's file REL had C->redacted host paths
 * redacted (for campaign.json's "publish"), and starts the next count. */
static void note_redactions(publish_ctx *c, const char *rel)
{
    if (c->redacted > 0)
        json_array_append_new(c->redactions, json_pack("{s:s++, s:i}", "file",
                              c->system, "/", rel, "paths", c->redacted));
    c->redacted = 0;
}

/* Below V, every field named *log_sha256 that holds the SHA-256 of a KAT
 * log which publishing rewrote gets the published copy's. */
static void remap_log_sha(const publish_ctx *c, json_t *v)
{
    const char *key;
    json_t *x;
    size_t i, n;
    if (json_is_array(v)) {
        json_array_foreach(v, i, x)
            remap_log_sha(c, x);
    } else if (json_is_object(v)) {
        json_object_foreach(v, key, x) {
            json_t *now = json_is_string(x) ? json_object_get(c->log_sha,
                                                              json_string_value(x)) : NULL;
            n = strlen(key);
            if (now && n >= 10 && strcmp(key + n - 10, "log_sha256") == 0)
                json_object_set(v, key, now);
            else
                remap_log_sha(c, x);
        }
    }
}

/* Rewrites DOC (the run directory's REL) for the dataset. */
static void rewrite_doc(publish_ctx *c, json_t *doc, const char *rel)
{
    withhold_raw_host_data(c, doc, NULL, NULL, rel);
    drop_untrusted(doc);
    drop_withheld(c, doc, NULL);
    rewrite_fields(c, doc);
    rewrite_texts(c, doc, 1);
    remap_log_sha(c, doc);
    note_redactions(c, rel);
}

/* Scans DOC (read from SRC) and saves it to STAGE/REL. */
static int save_doc(publish_ctx *c, json_t *doc, const char *src, const char *rel,
                    hb_err *err)
{
    char dst[PATH_MAX], forbidden[PATH_MAX];
    if (hb_path_join(dst, sizeof dst, c->stage, rel, err) < 0)
        return -1;
    snprintf(forbidden, sizeof forbidden, "%.*s",
             (int)strlen(c->rules[0].from) - 1, c->rules[0].from);
    if (publish_check_no_absolute(doc, forbidden, src, err) < 0)
        return -1;
    return hb_json_save(dst, doc, err);
}

/* Loads RUN_DIR/REL and publishes it to STAGE/REL. */
static int publish_json(publish_ctx *c, const char *rel, hb_err *err)
{
    char src[PATH_MAX];
    json_t *doc;
    if (rundir_path(src, sizeof src, c->run_dir, rel, err) != 0 ||
        hb_json_load(src, &doc, err) < 0)
        return -1;
    rewrite_doc(c, doc, rel);
    int rc = save_doc(c, doc, src, rel, err);
    json_decref(doc);
    return rc;
}

static int visit_record(const rundir_record *r, void *ctx, hb_err *err)
{
    publish_ctx *c = ctx;
    if (is_withheld(c, r->candidate, r->instance))
        return 0;
    c->counts.records++;
    return publish_json(c, r->rel, err);
}

/* Constant-time records, ct/<cand>/<Inst>.json, and instruction-count
 * records, count/<cand>/<Inst>__count_<S>.json (not the -g libraries and
 * Valgrind output beside them, which stay in the run directory). */
static int visit_ct(void *ctx, const char *rel, hb_err *err)
{
    size_t n = strlen(rel);
    const char *cand, *inst;
    if (n < 5 || strcmp(rel + n - 5, ".json") != 0 ||
        (attribute(ctx, rel, &cand, &inst) && is_withheld(ctx, cand, inst)))
        return 0;
    return publish_json(ctx, rel, err);
}

/* Copies the log REL of the run directory into the dataset: the run
 * directory becomes "ID/", a package folder its own name (free text has no
 * "relative to the package" context), any other path of this machine
 * "<path>/" and its last component, a NUL byte '?'. WAS and NOW get the
 * SHA-256 of the original and of the copy. */
static int publish_log(publish_ctx *c, const char *rel, int compiler,
                       char was[HB_SHA256_HEX], char now[HB_SHA256_HEX], hb_err *err)
{
    char src[PATH_MAX], dst[PATH_MAX], *text = NULL;
    size_t len = 0;
    if (hb_path_join(src, sizeof src, c->run_dir, rel, err) < 0 ||
        hb_path_join(dst, sizeof dst, c->stage, rel, err) < 0 ||
        hb_read_file(src, &text, &len, err) < 0)
        return -1;
    hb_sha256_buf_hex(text, len, was);
    for (size_t i = 0; i < len; i++) /* compiler output quoting a NUL byte */
        if (text[i] == '\0')
            text[i] = '?';
    if (compiler) {
        char *reduced = reduce_compiler_log(text);
        free(text);
        if (!reduced)
            return hb_fail(err, "out of memory for %s", rel);
        text = reduced;
        len = strlen(text);
    }
    char *named = replace_prefixes_as(c, text, 1);
    char *out = redact_paths(named ? named : text, &c->redacted);
    const char *copy = out ? out : named ? named : text;
    size_t n = out || named ? strlen(copy) : len;
    hb_sha256_buf_hex(copy, n, now);
    int rc = hb_write_atomic(dst, copy, n, err);
    note_redactions(c, rel);
    free(out);
    free(named);
    free(text);
    return rc;
}

/* KAT logs (rundir_is_kat_log), not the generated texts beside them.
 * One that publishing rewrites gets its new SHA-256 in kat.json and the
 * records (remap_log_sha), so the dataset stays consistent. */
static int visit_kat_log(void *ctx, const char *rel, hb_err *err)
{
    publish_ctx *c = ctx;
    char was[HB_SHA256_HEX], now[HB_SHA256_HEX];
    const char *cand, *inst;
    if (!rundir_is_kat_log(rel) ||
        (attribute(c, rel, &cand, &inst) && is_withheld(c, cand, inst)))
        return 0;
    if (publish_log(c, rel, 0, was, now, err) < 0)
        return -1;
    if (strcmp(was, now) != 0)
        json_object_set_new(c->log_sha, was, json_string(now));
    c->counts.kat_logs++;
    return 0;
}

/* Compiler logs, logs/build/<cand>/<Inst>[.harness-default].log: the
 * evidence behind each build status, named by build.json's "log". They
 * quote the run directory and the package folder (the command line, the
 * working folder) and the compiler's own path. */
static int visit_build_log(void *ctx, const char *rel, hb_err *err)
{
    publish_ctx *c = ctx;
    size_t n = strlen(rel);
    char was[HB_SHA256_HEX], now[HB_SHA256_HEX];
    const char *cand, *inst;
    if (n < 4 || strcmp(rel + n - 4, ".log") != 0 ||
        (attribute(c, rel, &cand, &inst) && is_withheld(c, cand, inst)))
        return 0;
    if (publish_log(c, rel, 1, was, now, err) < 0)
        return -1;
    json_object_set_new(c->build_logs, rel, json_string(now));
    c->counts.build_logs++;
    return 0;
}

/* build.json: each entry's "log_sha256" is that of the published copy of
 * its compiler log (none when the log is missing: validate says so), and
 * "other_logs" lists the copied compiler logs no entry cites (the
 * harness-default rebuilds, whose record in the entry gets its published
 * SHA-256 too), so that validate can check every published log. */
static int publish_build(publish_ctx *c, hb_err *err)
{
    char src[PATH_MAX];
    json_t *doc, *e, *sha;
    size_t i;
    const char *rel;
    if (rundir_path(src, sizeof src, c->run_dir, RUNDIR_BUILD_JSON, err) != 0 ||
        hb_json_load(src, &doc, err) < 0)
        return -1;
    json_t *cited = json_object();
    json_array_foreach(json_object_get(doc, "instances"), i, e) {
        const char *log = json_string_value(json_object_get(e, "log"));
        json_t *rebuilt = json_object_get(e, RUNDIR_HARNESS_DEFAULT_KEY);
        const char *rlog = json_string_value(json_object_get(rebuilt, "log"));
        if (rlog && (sha = json_object_get(c->build_logs, rlog)) != NULL)
            json_object_set(rebuilt, "log_sha256", sha);
        if (!log || !log[0])
            continue;
        sha = json_object_get(c->build_logs, log);
        json_object_set(e, "log_sha256", sha ? sha : json_null());
        json_object_set_new(cited, log, json_true());
    }
    json_t *other = json_array();
    json_object_foreach(c->build_logs, rel, sha)
        if (!json_object_get(cited, rel))
            json_array_append_new(other, json_pack("{s:s, s:O}", "log", rel,
                                                   "log_sha256", sha));
    json_object_set_new(doc, "other_logs", other);
    json_decref(cited);
    rewrite_doc(c, doc, RUNDIR_BUILD_JSON);
    int rc = save_doc(c, doc, src, RUNDIR_BUILD_JSON, err);
    json_decref(doc);
    return rc;
}

/* Package folders named in build.json and campaign.json's submissions: text
 * quoting them is made package-relative, like the source paths already are.
 * A merged campaign's shard run directories stand for this one. */
static void add_package_rules(publish_ctx *c)
{
    char path[PATH_MAX];
    json_t *doc, *x;
    size_t i;
    hb_err ignored;
    if (rundir_path(path, sizeof path, c->run_dir, RUNDIR_BUILD_JSON, &ignored) == 0 &&
        hb_json_load(path, &doc, &ignored) == 0) {
        json_array_foreach(json_object_get(doc, "instances"), i, x)
            add_rule(c, json_string_value(json_object_get(x, "package")), "", 1);
        json_decref(doc);
    }
    if (rundir_path(path, sizeof path, c->run_dir, RUNDIR_CAMPAIGN_JSON, &ignored) == 0 &&
        hb_json_load(path, &doc, &ignored) == 0) {
        json_array_foreach(json_object_get(doc, "submissions"), i, x)
            add_rule(c, json_string_value(x), "", 1);
        /* a merged campaign's files (its compiler logs) quote the shards' run
         * directories: those stand for this one */
        json_array_foreach(json_object_get(doc, "merged_from"), i, x)
            add_rule(c, json_string_value(x), c->rules[0].to, 0);
        json_decref(doc);
    }
}

/* campaign.json's own absolute fields: the submissions and the merged
 * shards' folders become their last path component. */
static int publish_campaign(publish_ctx *c, hb_err *err)
{
    char src[PATH_MAX];
    json_t *doc, *x;
    size_t i;
    if (rundir_path(src, sizeof src, c->run_dir, RUNDIR_CAMPAIGN_JSON, err) != 0 ||
        hb_json_load(src, &doc, err) < 0)
        return -1;
    const char *lists[] = {"submissions", "merged_from", "baselines"};
    for (size_t l = 0; l < 2; l++) {
        json_t *arr = json_object_get(doc, lists[l]);
        json_array_foreach(arr, i, x)
            if (json_is_string(x))
                json_array_set_new(arr, i, json_string(hb_basename(
                    json_string_value(x))));
    }
    json_array_foreach(json_object_get(doc, "shards"), i, x) {
        const char *dir = json_string_value(json_object_get(x, "run_dir"));
        if (dir)
            json_object_set_new(x, "run_dir", json_string(hb_basename(dir)));
    }
    json_object_set_new(doc, "system", json_string(c->system));
    /* the ratio drift of the records published (none of a withheld
     * instance), as validate recomputes it */
    if (json_object_size(c->withheld) && json_object_get(doc, RATIODRIFT_KEY)) {
        json_t *rd = ratiodrift_of_dir(c->stage);
        json_object_set_new(doc, RATIODRIFT_KEY, rd ? rd : json_null());
    }
    rewrite_doc(c, doc, RUNDIR_CAMPAIGN_JSON);
    json_t *withheld = json_array();
    const char *key;
    json_object_foreach(c->withheld, key, x)
        json_array_append(withheld, x);
    json_object_set_new(doc, "withheld", withheld);
    /* what publishing did to the text it copied, the last thing it does */
    json_int_t total = 0;
    json_array_foreach(c->redactions, i, x)
        total += json_integer_value(json_object_get(x, "paths"));
    json_object_set_new(doc, "publish", json_pack("{s:s, s:I, s:O}", "rule",
        PUBLISH_REDACTION_RULE, "paths_redacted", total, "redacted_in", c->redactions));
    int rc = save_doc(c, doc, src, RUNDIR_CAMPAIGN_JSON, err);
    json_decref(doc);
    return rc;
}

/* A file of the dataset that holds a needle: the instance it belongs to is
 * withheld (a per-instance file, or the entries of a shared document that
 * hold it); a file of no instance stops the publication. */
static int host_data_found(const char *rel, const hostdata_needle *found, void *ctx,
                           hb_err *err)
{
    publish_ctx *c = ctx;
    const char *cand, *inst;
    int before = c->newly_withheld;
    if (attribute(c, rel, &cand, &inst)) {
        withhold(c, cand, inst, found->what, file_kind(rel));
        return 0;
    }
    char path[PATH_MAX];
    json_t *doc;
    hb_err ignored;
    if (hb_path_join(path, sizeof path, c->stage, rel, &ignored) == 0 &&
        hb_json_load(path, &doc, &ignored) == 0) {
        withhold_entries(c, doc, NULL, rel);
        json_decref(doc);
        if (c->newly_withheld > before)
            return 0;
    }
    return hb_fail(err, "%s/%s would publish %s (docs/THREAT_MODEL.md), in no "
                   "instance's entry; nothing was published. Remove what carries it "
                   "from the run directory and publish again", c->system, rel, found->what);
}

/* Withholds each instance whose files or entries in the dataset assembled
 * in C->stage hold a host identifier (dataset/hostdata.h): this host's
 * boot_id, or the run directory's absolute path, as it is or hex-encoded;
 * fails when one is in a file of no instance. */
static int withhold_host_data(publish_ctx *c, hb_err *err)
{
    int n = 0;
    return hostdata_scan(c->hd, c->stage, host_data_found, c, &n, err);
}

/* The evaluator's notes (dataset/notes.h), when the run directory has them:
 * copied as they are, once they parse (a bad file publishes nothing). */
static int publish_notes(publish_ctx *c, hb_err *err)
{
    char src[PATH_MAX], dst[PATH_MAX];
    char *text = NULL;
    size_t len = 0;
    json_t *notes;
    hb_err perr = {{0}};
    if (rundir_path(src, sizeof src, c->run_dir, NOTES_FILE, err) != 0 ||
        hb_path_join(dst, sizeof dst, c->stage, NOTES_FILE, err) < 0)
        return -1;
    if (!hb_is_file(src))
        return 0;
    if (notes_load(src, &notes, &perr) < 0)
        return hb_fail(err, "%s; nothing was published", perr.msg);
    json_decref(notes);
    if (hb_read_file(src, &text, &len, err) < 0)
        return -1;
    int rc = hb_write_atomic(dst, text, len, err);
    free(text);
    return rc;
}

/* The logs first, so that the documents citing them get the SHA-256 of the
 * published copies; campaign.json last, with what was redacted; then the
 * check that no host identifier is in any of it. */
static int assemble(publish_ctx *c, hb_err *err)
{
    memset(&c->counts, 0, sizeof c->counts);
    json_array_clear(c->redactions);
    json_object_clear(c->log_sha);
    json_object_clear(c->build_logs);
    c->newly_withheld = 0;
    if (hb_remove_tree(c->stage, err) < 0 || hb_mkdirs(c->stage, err) < 0)
        return -1;
    if (tree_walk(c->run_dir, RUNDIR_KAT, visit_kat_log, c, err) < 0 ||
        tree_walk(c->run_dir, RUNDIR_BUILD_LOGS, visit_build_log, c, err) < 0)
        return -1;
    if (publish_build(c, err) < 0 || publish_json(c, RUNDIR_KAT_JSON, err) < 0 ||
        rundir_list_records(c->run_dir, NULL, NULL, visit_record, c, err) < 0 ||
        tree_walk(c->run_dir, RUNDIR_CT, visit_ct, c, err) < 0 ||
        tree_walk(c->run_dir, RUNDIR_COUNT, visit_ct, c, err) < 0 ||
        tree_walk(c->run_dir, RUNDIR_SOAK, visit_ct, c, err) < 0)
        return -1;
    if (publish_notes(c, err) < 0 || publish_campaign(c, err) < 0)
        return -1;
    return withhold_host_data(c, err);
}

/* Puts STAGE in place of DEST: the old DEST moves aside, then goes. */
static int swap_in(const char *stage, const char *dest, hb_err *err)
{
    char old[PATH_MAX + 8];
    snprintf(old, sizeof old, "%s" DATASET_OLD_SUFFIX, stage);
    if (hb_remove_tree(old, err) < 0)
        return -1;
    if (hb_is_dir(dest) && rename(dest, old) != 0)
        return hb_fail_errno(err, "%s: cannot move the previous dataset aside",
                             dest);
    if (rename(stage, dest) != 0)
        return hb_fail_errno(err, "%s: cannot put the new dataset in place", dest);
    return hb_remove_tree(old, err);
}

int publish_run(const char *run_dir, const char *system, const char *data_dir,
                publish_counts *counts, hb_err *err)
{
    publish_ctx c;
    memset(&c, 0, sizeof c);
    if (dataset_check_system(system, err) != 0)
        return -1;
    char required[PATH_MAX];
    const char *names[] = {RUNDIR_CAMPAIGN_JSON, RUNDIR_BUILD_JSON, RUNDIR_KAT_JSON};
    for (size_t i = 0; i < 3; i++) {
        if (rundir_path(required, sizeof required, run_dir, names[i], err) != 0)
            return -1;
        if (!hb_is_file(required))
            return hb_fail(err, "%s: missing; run the campaign (hashbench run "
                           "--run-dir %s) before publishing", required, run_dir);
    }
    c.run_dir = run_dir;
    c.system = system;
    add_rule(&c, run_dir, "", 0);
    if (c.n_rules == 0)
        return hb_fail_errno(err, "%s: cannot resolve the run directory", run_dir);
    snprintf(c.rules[0].to, sizeof c.rules[0].to, "%s/", system);
    if (hb_mkdirs(data_dir, err) < 0)
        return -1;
    c.redactions = json_array();
    c.log_sha = json_object();
    c.build_logs = json_object();
    c.known = json_array();
    c.withheld = json_object();
    add_package_rules(&c);
    load_known(&c);
    hostdata hd;
    if (hostdata_init(&hd, run_dir, err) != 0)
        hd.count = -1;
    c.hd = &hd;
    char dest[PATH_MAX], stage_name[80];
    snprintf(stage_name, sizeof stage_name, DATASET_STAGING_FMT, system); /* system: 64 chars */
    int rc = hd.count < 0 || hb_path_join(dest, sizeof dest, data_dir, system, err) < 0 ||
             hb_path_join(c.stage, sizeof c.stage, data_dir, stage_name, err) < 0 ? -1 : 0;
    int staged = rc == 0;
    /* an instance withheld for host data leaves the dataset, which is then
     * assembled again without it, and scanned again */
    for (int pass = 0; rc == 0; pass++) {
        rc = assemble(&c, err) < 0 ? -1 : 0;
        if (rc != 0 || c.newly_withheld == 0)
            break;
        if (pass == PUBLISH_MAX_PASSES)
            rc = hb_fail(err, "%s: host data was still found after %d instances were "
                         "withheld; nothing was published", run_dir,
                         (int)json_object_size(c.withheld));
    }
    if (rc == 0)
        rc = swap_in(c.stage, dest, err) < 0 ? -1 : 0;
    if (rc < 0 && staged) {
        hb_err rm, first = *err;
        if (hb_remove_tree(c.stage, &rm) != 0)
            hb_fail(err, "%s; and %s", first.msg, rm.msg);
    }
    if (rc == 0 && counts) {
        *counts = c.counts;
        counts->withheld = (int)json_object_size(c.withheld);
    }
    json_decref(c.redactions);
    json_decref(c.log_sha);
    json_decref(c.build_logs);
    json_decref(c.known);
    json_decref(c.withheld);
    if (hd.count >= 0)
        hostdata_free(&hd);
    return rc;
}
