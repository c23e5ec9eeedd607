/* A starting hashbench.ini from discovery: see init.h. The conflicts are
 * found on real definitions: each source compiled alone into an object in a
 * temporary folder, its global symbols read with libelf. */
#include "compile/init.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile/compile.h"
#include "compile/discover.h"
#include "compile/elfsize.h"
#include "compile/override.h"
#include "compile/profile.h"
#include "common/fs.h"
#include "common/strlist.h"

/* What one source of an instance defines. */
typedef struct src_defs {
    int known;        /* 1: compiled alone; defs holds its global symbols */
    strlist defs;
    int crypthash;    /* defines CryptHash */
    char why[400];    /* !known: why it did not compile on its own */
} src_defs;

/* The state of one instance's analysis. */
typedef struct split {
    const discover_instance *in;
    int n;
    src_defs *d;
    unsigned char *conf;  /* n x n: 1 when the two sources conflict */
    int *comp;            /* conflicting sources: their set; others -1 */
    int n_comp;
    int cliques;          /* 1: every two files of a set conflict */
} split;

/* The compiler and the temporary folder of init_override_text. */
typedef struct init_ctx {
    compile_toolchain tc;
    int aarch64;
    char tmp[PATH_MAX];
    int n_objects;
} init_ctx;

/* The reference profile's flags for an object file: the guide's words but
 * -shared, then -c, the instance's defines and include folders. */
static int object_flags(const init_ctx *c, const discover_instance *in, strlist *flags)
{
    char *words = strdup(profile_flags("reference", c->aarch64));
    int rc = words ? 0 : -1;
    for (char *save = NULL, *w = words ? strtok_r(words, " ", &save) : NULL; w && rc == 0;
         w = strtok_r(NULL, " ", &save))
        if (strcmp(w, "-shared") != 0)
            rc = strlist_push(flags, w);
    free(words);
    if (rc == 0)
        rc = strlist_push(flags, "-c");
    for (int i = 0; rc == 0 && i < in->defines.n; i++) {
        char w[4200];
        snprintf(w, sizeof w, "-D%s", in->defines.v[i]);
        rc = strlist_push(flags, w);
    }
    for (int i = 0; rc == 0 && i < in->includes.n; i++) {
        char w[4200];
        snprintf(w, sizeof w, "-I%s", in->includes.v[i]);
        rc = strlist_push(flags, w);
    }
    return rc;
}

/* Fills D for package source REL: compiled alone (FLAGS) and its global
 * definitions read, or, when it does not compile alone, read as text. */
static int read_definitions(init_ctx *c, const discover_instance *in, const strlist *flags,
                            const char *rel, src_defs *d, hb_err *err)
{
    char obj[PATH_MAX];
    strlist one = {0};
    int compiled = 0;
    if (snprintf(obj, sizeof obj, "%s/%d.o", c->tmp, c->n_objects++) >= (int)sizeof obj)
        return hb_fail(err, "%s: path too long; set TMPDIR to a shorter folder", c->tmp);
    if (strlist_push(&one, rel) != 0)
        return hb_fail(err, "out of memory");
    compile_job job = {&c->tc, in->package, flags, &one, NULL, obj, NULL, 60, NULL, 0};
    int rc = compile_object(&job, &compiled, d->why, sizeof d->why, err);
    strlist_free(&one);
    if (rc != 0)
        return -1;
    if (compiled) {
        hb_err why;
        if (elfsize_defined_globals(obj, &d->defs, &why) == 0)
            d->known = 1;
        else
            snprintf(d->why, sizeof d->why, "%.300s", why.msg);
        unlink(obj);
    }
    if (d->known) {
        d->crypthash = strlist_contains(&d->defs, "CryptHash");
    } else {
        char path[PATH_MAX], *text = NULL;
        hb_err ignored;
        if (snprintf(path, sizeof path, "%s/%s", in->package, rel) < (int)sizeof path &&
            hb_read_file_limited(path, HB_LIMIT_TEXT, "a source file", &text, NULL,
                                 &ignored) == 0)
            d->crypthash = discover_defines_crypthash(text);
        free(text);
    }
    return 0;
}

/* 1 when sources I and J of S both define SYMBOL (a source that did not
 * compile alone counts for CryptHash only, read as text). */
static int defines(const split *s, int i, const char *symbol)
{
    if (s->d[i].known)
        return strlist_contains(&s->d[i].defs, symbol);
    return strcmp(symbol, "CryptHash") == 0 && s->d[i].crypthash;
}

static int conflict(const split *s, int i, int j)
{
    if (s->d[i].crypthash && s->d[j].crypthash)
        return 1;
    if (!s->d[i].known || !s->d[j].known)
        return 0;
    for (int k = 0; k < s->d[i].defs.n; k++)
        if (strlist_contains(&s->d[j].defs, s->d[i].defs.v[k]))
            return 1;
    return 0;
}

/* The conflict matrix, the sets of conflicting sources (connected through
 * conflicts) and whether each set is one of alternatives. */
static int analyse(split *s)
{
    int n = s->n;
    s->conf = calloc((size_t)n * (size_t)n + 1, 1);
    s->comp = malloc(((size_t)n + 1) * sizeof *s->comp);
    if (!s->conf || !s->comp)
        return -1;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            s->conf[i * n + j] = s->conf[j * n + i] = (unsigned char)conflict(s, i, j);
    for (int i = 0; i < n; i++)
        s->comp[i] = -1;
    s->n_comp = 0;
    for (int i = 0; i < n; i++) {
        int any = 0;
        for (int j = 0; j < n; j++)
            any |= s->conf[i * n + j];
        if (!any || s->comp[i] >= 0)
            continue;
        /* a new set: everything reachable from i through conflicts */
        int id = s->n_comp++;
        s->comp[i] = id;
        for (int grew = 1; grew;) {
            grew = 0;
            for (int a = 0; a < n; a++)
                for (int b = 0; s->comp[a] == id && b < n; b++)
                    if (s->conf[a * n + b] && s->comp[b] < 0) {
                        s->comp[b] = id;
                        grew = 1;
                    }
        }
    }
    s->cliques = 1;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (s->comp[i] >= 0 && s->comp[i] == s->comp[j] && !s->conf[i * n + j])
                s->cliques = 0;
    return 0;
}

/* REL relative to the instance folder (sources are package-relative). */
static const char *in_dir(const discover_instance *in, const char *rel)
{
    size_t n = strlen(in->source_dir);
    if (n && strncmp(rel, in->source_dir, n) == 0 && rel[n] == '/')
        return rel + n + 1;
    return rel;
}

/* The comment naming the conflicting sources and the symbols they share:
 * one line per group of symbols defined by the same files. */
static void put_conflicts(FILE *fp, const split *s)
{
    int n = s->n, files = 0;
    for (int i = 0; i < n; i++)
        files += s->comp[i] >= 0;
    fprintf(fp, "# unsure: %d of its sources define the same global symbols (read from "
            "each\n# source compiled alone with the reference flags), so no library can "
            "link\n# them together:\n", files);
    strlist seen = {0}, sigs = {0};
    char *sig = malloc((size_t)n + 1);
    for (int i = 0; sig && i < n; i++) {
        for (int k = 0; k < s->d[i].defs.n + (!s->d[i].known && s->d[i].crypthash); k++) {
            const char *sym = k < s->d[i].defs.n ? s->d[i].defs.v[k] : "CryptHash";
            if (strlist_contains(&seen, sym) || strlist_push(&seen, sym) != 0)
                continue;
            int count = 0;
            for (int j = 0; j < n; j++)
                count += (sig[j] = (char)('0' + defines(s, j, sym))) == '1';
            sig[n] = '\0';
            if (count < 2 || strlist_contains(&sigs, sig) || strlist_push(&sigs, sig) != 0)
                continue;
            /* every symbol with these files, then the files */
            int shown = 0, more = 0;
            fputs("#   ", fp);
            for (int a = 0; a < n; a++)
                for (int b = 0; b < s->d[a].defs.n + (!s->d[a].known && s->d[a].crypthash);
                     b++) {
                    const char *t = b < s->d[a].defs.n ? s->d[a].defs.v[b] : "CryptHash";
                    int same = 1, first = 1;
                    for (int j = 0; j < n && same; j++)
                        same = (sig[j] == '1') == defines(s, j, t);
                    for (int j = 0; j < a && first; j++)
                        first = !defines(s, j, t); /* named once, at its first file */
                    if (!same || !first)
                        continue;
                    if (shown < 6)
                        fprintf(fp, "%s%s", shown ? ", " : "", t);
                    else
                        more++;
                    shown++;
                }
            if (more)
                fprintf(fp, " and %d more", more);
            fputs(" in", fp);
            for (int j = 0, c = 0; j < n; j++)
                if (sig[j] == '1')
                    fprintf(fp, "%s%s", c++ ? ", " : " ", in_dir(s->in, s->in->sources.v[j]));
            fputs("\n", fp);
        }
    }
    free(sig);
    strlist_free(&seen);
    strlist_free(&sigs);
    for (int i = 0; i < n; i++)
        if (!s->d[i].known)
            fprintf(fp, "# unsure: %s does not compile on its own with the reference "
                    "flags, so only\n# whether it defines CryptHash is known (read as "
                    "text): %.300s\n", in_dir(s->in, s->in->sources.v[i]), s->d[i].why);
}

/* NAME_STEM1_STEM2... of the chosen files (KEEP, of the conflicting ones),
 * bad characters made '_', cut to a valid name's length. */
static void split_name(const split *s, const char *keep, char *out, size_t outsz)
{
    char full[2 * PATH_MAX];
    size_t len = (size_t)snprintf(full, sizeof full, "%.*s", OVERRIDE_NAME_MAX / 2,
                                  s->in->instance);
    for (int i = 0; i < s->n && len < sizeof full; i++) {
        if (!keep[i] || s->comp[i] < 0)
            continue;
        char stem[PATH_MAX];
        snprintf(stem, sizeof stem, "%s", hb_basename(s->in->sources.v[i]));
        char *dot = strrchr(stem, '.');
        if (dot)
            *dot = '\0';
        len += (size_t)snprintf(full + len, sizeof full - len, "_%s", stem);
    }
    for (char *c = full; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
            *c = '_';
    size_t n = strnlen(full, OVERRIDE_NAME_MAX);
    if (n >= outsz)
        n = outsz - 1;
    memcpy(out, full, n);
    out[n] = '\0';
}

/* One [instance] section: NAME, the folder, the sources of IN whose index
 * has KEEP set (all when KEEP is NULL), digest size and variant. */
static void put_section(FILE *fp, const discover_instance *in, const char *name,
                        const char *keep)
{
    fprintf(fp, "[instance %s]\ndir = %s\nsources =", name, in->source_dir);
    for (int i = 0; i < in->sources.n; i++)
        if (!keep || keep[i])
            fprintf(fp, " %s", in_dir(in, in->sources.v[i]));
    fprintf(fp, "\ndigest_bits = %d\nvariant = %s\n", in->digest_bits, in->variant);
}

/* The choices of the split into SETS (n_sets x n: each row one section's
 * KEEP), at most INIT_MAX_SPLIT; their number, or -1 when there would be
 * more. With sets of alternatives: one file of each set per section;
 * otherwise one section per conflicting file, with the conflicting files
 * that conflict with nothing chosen before them, and no row twice. */
static int choices(const split *s, char *rows)
{
    int n = s->n, count = 0;
    if (s->cliques) {
        int *size = calloc((size_t)s->n_comp + 1, sizeof *size);
        int *pick = calloc((size_t)s->n_comp + 1, sizeof *pick);
        long long total = 1;
        for (int i = 0; size && i < n; i++)
            if (s->comp[i] >= 0)
                size[s->comp[i]]++;
        for (int k = 0; size && k < s->n_comp && total <= INIT_MAX_SPLIT; k++)
            total *= size[k];
        if (!size || !pick || total > INIT_MAX_SPLIT) {
            free(size);
            free(pick);
            return -1;
        }
        for (; count < total; count++) {
            char *row = rows + (size_t)count * (size_t)n;
            /* files met so far in each set (sets of two files or more whose
             * product is at most INIT_MAX_SPLIT: fewer than 7 sets) */
            int seen[INIT_MAX_SPLIT] = {0};
            for (int i = 0; i < n; i++) {
                int k = s->comp[i];
                row[i] = (char)(k < 0 || seen[k]++ == pick[k]);
            }
            for (int k = 0; k < s->n_comp; k++) { /* the next choice, odometer-wise */
                if (++pick[k] < size[k])
                    break;
                pick[k] = 0;
            }
        }
        free(size);
        free(pick);
        return count;
    }
    for (int f = 0; f < n; f++) {
        if (s->comp[f] < 0)
            continue;
        if (count == INIT_MAX_SPLIT)
            return -1;
        char *row = rows + (size_t)count * (size_t)n;
        for (int i = 0; i < n; i++)
            row[i] = (char)(s->comp[i] < 0 || i == f);
        for (int g = 0; g < n; g++) {
            int ok = s->comp[g] >= 0 && g != f;
            for (int i = 0; ok && i < n; i++)
                ok = !(row[i] && s->conf[g * n + i]);
            if (ok)
                row[g] = 1;
        }
        int twice = 0;
        for (int r = 0; r < count && !twice; r++)
            twice = memcmp(rows + (size_t)r * (size_t)n, row, (size_t)n) == 0;
        count += !twice;
    }
    return count;
}

static void free_split(split *s)
{
    for (int i = 0; s->d && i < s->n; i++)
        strlist_free(&s->d[i].defs);
    free(s->d);
    free(s->conf);
    free(s->comp);
}

static int put_instance(FILE *fp, init_ctx *c, const discover_instance *in, int *n_sections,
                        hb_err *err)
{
    fprintf(fp, "\n# found: %s (folder %s)\n", in->instance, in->source_dir);
    for (int i = 0; i < in->excluded.n; i++)
        fprintf(fp, "# left out: %s\n", in_dir(in, in->excluded.v[i]));
    if (in->error[0])
        fprintf(fp, "# unsure: discovery refused it: %s\n", in->error);
    split s = {in, in->sources.n, NULL, NULL, NULL, 0, 1};
    if (s.n < 2) {
        put_section(fp, in, in->instance, NULL);
        ++*n_sections;
        return 0;
    }
    strlist flags = {0};
    s.d = calloc((size_t)s.n, sizeof *s.d);
    int rc = s.d && object_flags(c, in, &flags) == 0 ? 0 : hb_fail(err, "out of memory");
    for (int i = 0; rc == 0 && i < s.n; i++)
        rc = read_definitions(c, in, &flags, in->sources.v[i], &s.d[i], err);
    strlist_free(&flags);
    if (rc == 0 && analyse(&s) != 0)
        rc = hb_fail(err, "out of memory");
    char *rows = rc == 0 ? malloc((size_t)INIT_MAX_SPLIT * (size_t)s.n + 1) : NULL;
    int n_rows = rows ? choices(&s, rows) : 0;
    if (rc == 0 && !rows)
        rc = hb_fail(err, "out of memory");
    if (rc != 0) {
        free(rows);
        free_split(&s);
        return rc;
    }
    if (s.n_comp == 0 || n_rows <= 0) {
        if (s.n_comp > 0) {
            put_conflicts(fp, &s);
            fprintf(fp, "# unsure: more than %d ways to choose among them: list the "
                    "sources of each\n# instance in a section of its own\n", INIT_MAX_SPLIT);
        } else {
            for (int i = 0; i < s.n; i++)
                if (!s.d[i].known)
                    fprintf(fp, "# note: %s does not compile on its own with the reference "
                            "flags\n# (%.300s); the instance is built from all its sources "
                            "at once\n", in_dir(in, in->sources.v[i]), s.d[i].why);
        }
        put_section(fp, in, in->instance, NULL);
        ++*n_sections;
    } else {
        put_conflicts(fp, &s);
        fprintf(fp, "# %s below,\n# each with the sources that conflict with no other:",
                s.cliques ? "one section per variant (one file of each set of "
                            "alternatives)"
                          : "one section per conflicting file (they are not simple "
                            "alternatives:\n# check each section's sources)");
        int common = 0;
        for (int i = 0; i < s.n; i++)
            if (s.comp[i] < 0)
                fprintf(fp, "%s%s", common++ ? ", " : " ", in_dir(in, in->sources.v[i]));
        fprintf(fp, "%s.\n# Check each name and digest_bits (the header says %d for all). "
                "A section's name\n# is also the name its KAT files carry "
                "(KAT_2_12_<name>.txt) unless its defines\n# give ALGORITHM_INSTANCE=\"NAME\" "
                "(the header's is %s); when the sources take\n# the instance name or "
                "digest size from outside, add\n# defines = ALGORITHM_INSTANCE=\"NAME\" "
                "DIGEST_BIT_LENGTH=BITS\n",
                common ? "" : " (none)", in->digest_bits, in->algorithm_instance);
        for (int r = 0; r < n_rows; r++) {
            const char *keep = rows + (size_t)r * (size_t)s.n;
            char name[OVERRIDE_NAME_MAX + 1];
            split_name(&s, keep, name, sizeof name);
            fputs("\n", fp);
            put_section(fp, in, name, keep);
            ++*n_sections;
        }
    }
    free(rows);
    free_split(&s);
    return 0;
}

int init_override_text(const char *package, const char *cc, char **text, int *n_sections,
                       hb_err *err)
{
    char ini[PATH_MAX];
    *text = NULL;
    *n_sections = 0;
    if (snprintf(ini, sizeof ini, "%s/%s", package, OVERRIDE_FILE) >= (int)sizeof ini)
        return hb_fail(err, "%s: path too long", package);
    if (hb_is_file(ini))
        return hb_fail(err, "%s exists: edit it (see docs/OVERRIDE.md), or remove it to "
                       "start again from what discovery finds", ini);
    discover_list l = {0};
    if (discover_package(package, &l, err) != 0) {
        discover_free(&l);
        return -1;
    }
    init_ctx c;
    memset(&c, 0, sizeof c);
    const char *env = getenv("CC");
    const char *tmpdir = getenv("TMPDIR");
    if (compile_toolchain_probe(cc ? cc : env && *env ? env : "cc", &c.tc, err) != 0) {
        discover_free(&l);
        return -1;
    }
    c.aarch64 = profile_target_is_aarch64(c.tc.target);
    if (snprintf(c.tmp, sizeof c.tmp, "%s/hashbench-init.XXXXXX",
                 tmpdir && *tmpdir ? tmpdir : "/tmp") >= (int)sizeof c.tmp ||
        !mkdtemp(c.tmp)) {
        discover_free(&l);
        return hb_fail_errno(err, "cannot make a temporary folder under %s; set TMPDIR "
                             "to a writable folder", tmpdir && *tmpdir ? tmpdir : "/tmp");
    }
    size_t len = 0;
    FILE *fp = open_memstream(text, &len);
    int rc = fp ? 0 : hb_fail(err, "out of memory");
    if (rc == 0)
        fprintf(fp, "# hashbench.ini: written by hashbench init from what discovery found "
                "in this package.\n# Check and edit it (format: docs/OVERRIDE.md), then "
                "run hashbench build.\n# Sources and folders are relative to dir; every "
                "instance is listed, so the\n# file alone says what is built.\n\n"
                "[candidate]\nid = %s\nalgorithm = %s\n", l.n ? l.v[0].candidate : "",
                l.n ? l.v[0].algorithm : "");
    /* the sections by digest size (Duet-512 before Duet-1024), discovery's
     * order among equal sizes */
    int *order = calloc((size_t)l.n + 1, sizeof *order);
    if (!order && rc == 0)
        rc = hb_fail(err, "out of memory");
    for (int i = 0; order && i < l.n; i++) {
        int j = i;
        for (; j > 0 && l.v[order[j - 1]].digest_bits > l.v[i].digest_bits; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (int i = 0; rc == 0 && i < l.n; i++)
        rc = put_instance(fp, &c, &l.v[order[i]], n_sections, err);
    free(order);
    if (fp)
        fclose(fp);
    discover_free(&l);
    hb_err ignored;
    hb_remove_tree(c.tmp, &ignored);
    if (rc != 0) {
        free(*text);
        *text = NULL;
        return -1;
    }
    if (!*text)
        return hb_fail(err, "out of memory");
    return 0;
}
