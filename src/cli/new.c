/* hashbench new: a package of one's own from an example. Copies a package
 * (default: the bundled SM3 example) into a new folder named NAME, the
 * candidate's id, and gives its instance the name NAME everywhere the
 * package names it: the instance folder under Implementations/, the
 * header's ALGORITHM_INSTANCE, the labels and file names of kat.sha256's
 * lines and of KAT files in Test_Vector(s) folders. The KAT texts hold no
 * instance name, so their SHA-256 stay as they are and the copy passes its
 * KATs until its sources change. A package with several instances gives
 * each the name NAME_<old name>. Only plain files and folders are copied;
 * a package with a hashbench.ini is refused (its sections name the
 * instances in ways this command does not rewrite). */
#include "cli/cli.h"
#include "cli/options.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/fs.h"
#include "common/walk.h"
#include "kat/manifest.h"

const char hb_summary_new[] = "start a package of one's own from an example";
const char hb_usage_new[] =
    "usage: hashbench new NAME [--from PACKAGE] [--dir DIR]\n"
    "\n"
    "Copies PACKAGE (default: the bundled examples/SM3) into DIR/NAME (DIR\n"
    "default: the current folder) and names its instance NAME: the folder\n"
    "Implementations/<Variant>_Implementation/NAME, the header's\n"
    "ALGORITHM_INSTANCE \"NAME\", and the kat.sha256 lines NAME/KAT_..._NAME.txt\n"
    "(the vectors' SHA-256 are unchanged: a KAT text holds no instance name).\n"
    "A PACKAGE with several instances names each NAME_<its old name>. Then it\n"
    "prints the command that runs the new package; the copy passes its KATs\n"
    "until its sources change. NAME: 1-64 characters from A-Z a-z 0-9 _,\n"
    "starting with a letter. Symbolic links and a hashbench.ini in PACKAGE are\n"
    "refused.\n"
    "\n"
    "Exit status: 0 created, 2 usage error or refusal (nothing is left behind).\n";

#define NEW_MAX_INSTANCES 64

typedef struct renames {
    char old_dir[NEW_MAX_INSTANCES][256];  /* instance folder names */
    char old_label[NEW_MAX_INSTANCES][256]; /* their ALGORITHM_INSTANCE ("" none) */
    char new_name[NEW_MAX_INSTANCES][80];
    int n;
    const char *name;
} renames;

static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 64 || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
        return 0;
    for (; *s; s++)
        if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_", *s))
            return 0;
    return 1;
}

/* 1 when REL is Implementations/<X>_Implementation/<folder> (three parts). */
static int is_instance_dir(const char *rel)
{
    const char *a = strchr(rel, '/'), *b = a ? strchr(a + 1, '/') : NULL;
    if (!a || !b || strchr(b + 1, '/') || (size_t)(a - rel) != strlen("Implementations") ||
        strncmp(rel, "Implementations", (size_t)(a - rel)) != 0)
        return 0;
    size_t vl = (size_t)(b - a - 1), sl = strlen("_Implementation");
    return vl > sl && strncmp(b - sl, "_Implementation", sl) == 0;
}

/* The value of `#define ALGORITHM_INSTANCE "X"` in the file PATH into OUT
 * ("" when none). */
static void header_label(const char *path, char *out, size_t outsz)
{
    FILE *fp = fopen(path, "r");
    char line[1024];
    out[0] = '\0';
    while (fp && fgets(line, sizeof line, fp)) {
        char *p = strstr(line, "ALGORITHM_INSTANCE"), *q, *e;
        if (p && strstr(line, "#define") && (q = strchr(p, '"')) && (e = strchr(q + 1, '"')) &&
            (size_t)(e - q - 1) < outsz) {
            memcpy(out, q + 1, (size_t)(e - q - 1));
            out[e - q - 1] = '\0';
            break;
        }
    }
    if (fp)
        fclose(fp);
}

/* Pass 1 over the source: the instance folders and their labels, and
 * anything this command does not copy. */
static int find_instances(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    renames *r = ctx;
    if (e->type == HB_WALK_LINK || e->type == HB_WALK_OTHER)
        return hb_fail(err, "%s is not a plain file or folder; copy the package by hand, "
                       "without it", e->path);
    if (e->depth == 1 && e->type == HB_WALK_FILE && strcmp(e->name, "hashbench.ini") == 0)
        return hb_fail(err, "%s: a package with an override file names its instances in "
                       "it; start from a package without one (examples/SM3, examples/SHA2)",
                       e->path);
    if (e->type == HB_WALK_DIR && is_instance_dir(e->rel)) {
        int i;
        for (i = 0; i < r->n && strcmp(r->old_dir[i], e->name) != 0; i++)
            ;
        if (i == r->n) {
            if (r->n == NEW_MAX_INSTANCES || strlen(e->name) >= sizeof r->old_dir[0])
                return hb_fail(err, "%s: more than %d instances, or a name too long", e->path,
                               NEW_MAX_INSTANCES);
            snprintf(r->old_dir[r->n], sizeof r->old_dir[0], "%s", e->name);
            r->old_label[r->n][0] = '\0';
            r->n++;
        }
    }
    if (e->type == HB_WALK_FILE && e->depth == 4 && strlen(e->name) > 2 &&
        strcmp(e->name + strlen(e->name) - 2, ".h") == 0) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", e->rel);
        *strrchr(dir, '/') = '\0';
        for (int i = 0; i < r->n; i++)
            if (is_instance_dir(dir) && strcmp(hb_basename(dir), r->old_dir[i]) == 0 &&
                !r->old_label[i][0])
                header_label(e->path, r->old_label[i], sizeof r->old_label[i]);
    }
    return HB_WALK_CONTINUE;
}

/* The new name of the instance whose folder or label is OLD; NULL when OLD
 * is neither. */
static const char *renamed(const renames *r, const char *old, int by_label)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(by_label && r->old_label[i][0] ? r->old_label[i] : r->old_dir[i], old) == 0)
            return r->new_name[i];
    return NULL;
}

/* KAT_<kind>_<old label>.txt as KAT_<kind>_<new>.txt into OUT; 0 when NAME
 * is such a file of a renamed instance. */
static int renamed_kat_file(const renames *r, const char *name, char *out, size_t outsz)
{
    char label[256];
    const char *to;
    if (kat_label_of(name, label, sizeof label) != 0 || !(to = renamed(r, label, 1)))
        return -1;
    size_t head = strlen(name) - strlen(label) - 4;
    int n = snprintf(out, outsz, "%.*s%s.txt", (int)head, name, to);
    return n > 0 && (size_t)n < outsz ? 0 : -1;
}

typedef struct copying {
    const renames *r;
    const char *dest;
} copying;

/* The destination of REL: an instance folder renamed, and inside a
 * Test_Vector(s) folder a folder named after a label and the KAT files of
 * a renamed instance. */
static int dest_rel(const renames *r, const char *rel, char *out, size_t outsz)
{
    char buf[PATH_MAX], part[PATH_MAX];
    size_t len = 0;
    int in_vectors = 0;
    snprintf(buf, sizeof buf, "%s", rel);
    out[0] = '\0';
    for (char *save = NULL, *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        const char *to = c;
        snprintf(part, sizeof part, "%.*s%s%s", (int)len, out, len ? "/" : "", c);
        if (is_instance_dir(part) && renamed(r, c, 0))
            to = renamed(r, c, 0);
        else if (in_vectors && renamed(r, c, 1))
            to = renamed(r, c, 1);
        char kat[512];
        if (in_vectors && renamed_kat_file(r, c, kat, sizeof kat) == 0)
            to = kat;
        if (strcasecmp(c, "Test_Vector") == 0 || strcasecmp(c, "Test_Vectors") == 0)
            in_vectors = 1;
        int n = snprintf(out + len, outsz - len, "%s%s", len ? "/" : "", to);
        if (n < 0 || (size_t)n >= outsz - len)
            return -1;
        len += (size_t)n;
    }
    return 0;
}

static int copy_entry(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    copying *c = ctx;
    char rel[PATH_MAX], to[PATH_MAX + 256];
    if (dest_rel(c->r, e->rel, rel, sizeof rel) < 0 ||
        hb_path_join(to, sizeof to, c->dest, rel, err) < 0)
        return hb_fail(err, "%s: the path is too long", e->path);
    if (e->type == HB_WALK_DIR)
        return hb_mkdirs(to, err) < 0 ? -1 : HB_WALK_CONTINUE;
    if (e->type == HB_WALK_FILE)
        return hb_copy_file(e->path, to, err) < 0 ? -1 : HB_WALK_CONTINUE;
    return HB_WALK_CONTINUE;
}

/* Rewrites PATH line by line with FN (which may change LINE in place, of
 * size SZ); 1 for each line it changed is added to *CHANGED. */
static int rewrite(const char *path, int (*fn)(const renames *, char *, size_t),
                   const renames *r, int *changed, hb_err *err)
{
    char *text = NULL;
    size_t len = 0;
    if (hb_read_file(path, &text, &len, err) < 0)
        return -1;
    size_t cap = len * 2 + 4096, used = 0;
    char *out = malloc(cap);
    if (!out) {
        free(text);
        return hb_fail(err, "out of memory");
    }
    for (char *p = text; p < text + len;) {
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
        char line[2048];
        const char *from = p;
        if (n < sizeof line - 256) { /* longer lines are kept as they are */
            memcpy(line, p, n);
            line[n] = '\0';
            *changed += fn(r, line, sizeof line);
            n = strlen(line);
            from = line;
        }
        if (used + n + 1 > cap) {
            free(text);
            free(out);
            return hb_fail(err, "%s: a line grew too long to rewrite", path);
        }
        memcpy(out + used, from, n);
        used += n;
        if (!nl)
            break;
        out[used++] = '\n';
        p = nl + 1;
    }
    int rc = hb_write_atomic(path, out, used, err);
    free(text);
    free(out);
    return rc;
}

/* A header's `#define ALGORITHM_INSTANCE "old"` with the new name. */
static int header_line(const renames *r, char *line, size_t sz)
{
    char *p = strstr(line, "ALGORITHM_INSTANCE"), *q, *e;
    if (!p || !strstr(line, "#define") || !(q = strchr(p, '"')) || !(e = strchr(q + 1, '"')))
        return 0;
    char old[256];
    if ((size_t)(e - q - 1) >= sizeof old)
        return 0;
    memcpy(old, q + 1, (size_t)(e - q - 1));
    old[e - q - 1] = '\0';
    const char *to = renamed(r, old, 1);
    if (!to)
        return 0;
    char rest[1024];
    snprintf(rest, sizeof rest, "%s", e);
    snprintf(q + 1, sz - (size_t)(q + 1 - line), "%s%s", to, rest);
    return 1;
}

/* A kat.sha256 line `<sha256> strict <label>/<file>` with the new label and
 * file name; comments, blank and other lines as they are. */
static int manifest_line(const renames *r, char *line, size_t sz)
{
    char sha[128], cmp[32], path[1024], *slash;
    if (line[0] == '#' || sscanf(line, "%127s %31s %1023s", sha, cmp, path) != 3 ||
        !(slash = strchr(path, '/')))
        return 0;
    *slash = '\0';
    const char *to = renamed(r, path, 1);
    char file[512];
    if (!to)
        return 0;
    if (renamed_kat_file(r, slash + 1, file, sizeof file) != 0)
        snprintf(file, sizeof file, "%s", slash + 1);
    snprintf(line, sz, "%s %s %s/%s", sha, cmp, to, file);
    return 1;
}

typedef struct headers {
    const renames *r;
    int changed;
} headers;

static int rewrite_header(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    headers *h = ctx;
    size_t n = strlen(e->name);
    if (e->type != HB_WALK_FILE || n < 3 || strcmp(e->name + n - 2, ".h") != 0)
        return HB_WALK_CONTINUE;
    return rewrite(e->path, header_line, h->r, &h->changed, err) < 0 ? -1 : HB_WALK_CONTINUE;
}

/* The bundled examples/SM3 (as `run` finds the examples) into OUT. */
static int bundled_sm3(char *out, size_t sz)
{
#ifndef HB_DATA_FROM_EXE
#define HB_DATA_FROM_EXE "../../share/hashbench"
#endif
    const char *tails[] = {HB_DATA_FROM_EXE "/examples/SM3", "examples/SM3",
                           "../examples/SM3"};
    hb_err ignored;
    if (hb_path_join(out, sz, hb_cli_exe_dir, tails[0], &ignored) == 0 && hb_is_dir(out))
        return 0;
    if (hb_path_join(out, sz, HB_SOURCE_DIR, "examples/SM3", &ignored) == 0 && hb_is_dir(out))
        return 0;
    for (size_t i = 1; i < sizeof tails / sizeof tails[0]; i++)
        if (hb_path_join(out, sz, hb_cli_exe_dir, tails[i], &ignored) == 0 && hb_is_dir(out))
            return 0;
    return -1;
}

static int make_package(const char *from, const char *dest, const char *name, renames *r,
                        int *headers_changed, int *lines_changed, hb_err *err)
{
    memset(r, 0, sizeof *r);
    r->name = name;
    if (hb_walk(from, HB_WALK_MAX_DEPTH, 0, find_instances, r, err) < 0)
        return -1;
    if (r->n == 0)
        return hb_fail(err, "%s has no Implementations/<Variant>_Implementation/<Instance> "
                       "folder; name a package in the official layout with --from", from);
    for (int i = 0; i < r->n; i++) {
        if (r->n == 1)
            snprintf(r->new_name[i], sizeof r->new_name[i], "%s", name);
        else
            snprintf(r->new_name[i], sizeof r->new_name[i], "%s_%s", name, r->old_dir[i]);
        if (!name_ok(r->new_name[i]))
            return hb_fail(err, "%s: the instance name %s would be longer than 64 characters "
                           "or hold characters outside A-Z a-z 0-9 _; choose a shorter NAME",
                           from, r->new_name[i]);
    }
    if (mkdir(dest, 0777) != 0)
        return hb_fail_errno(err, "cannot create %s", dest);
    copying c = {r, dest};
    headers h = {r, 0};
    char impl[PATH_MAX], manifest[PATH_MAX];
    if (hb_walk(from, HB_WALK_MAX_DEPTH, 0, copy_entry, &c, err) < 0 ||
        hb_path_join(impl, sizeof impl, dest, "Implementations", err) < 0 ||
        hb_walk(impl, 3, 0, rewrite_header, &h, err) < 0 ||
        hb_path_join(manifest, sizeof manifest, dest, KAT_MANIFEST_NAME, err) < 0 ||
        (hb_is_file(manifest) && rewrite(manifest, manifest_line, r, lines_changed, err) < 0)) {
        hb_err ignored;
        hb_remove_tree(dest, &ignored);
        return -1;
    }
    *headers_changed = h.changed;
    return 0;
}

int cmd_new(int argc, char **argv)
{
    enum { OPT_FROM = HB_OPT_OWN, OPT_DIR };
    const struct option longopts[] = {{"from", required_argument, NULL, OPT_FROM},
                                      {"dir", required_argument, NULL, OPT_DIR},
                                      HB_OPTIONS_END};
    const char *from = NULL, *dir = ".", *name = NULL;
    hb_err err;
    int ch;
    hb_opt_start();
    while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (ch == OPT_FROM) {
            from = optarg;
        } else if (ch == OPT_DIR) {
            dir = optarg;
        } else {
            hb_opt_getopt_error(ch, argv, &err);
            return hb_cli_usage_error("new", "%s", err.msg);
        }
    }
    for (int i = optind; i < argc; i++) {
        if (name)
            return hb_cli_usage_error("new", "one NAME only ('%s')", argv[i]);
        name = argv[i];
    }
    if (!name)
        return hb_cli_usage_error("new", "give the package's NAME, e.g. hashbench new MyHash");
    if (!name_ok(name))
        return hb_cli_usage_error("new", "'%s': NAME is 1-64 characters from A-Z a-z 0-9 _, "
                                  "starting with a letter (it names the package, its instance "
                                  "and lib<NAME>.so)", name);
    char from_buf[PATH_MAX], dest[PATH_MAX];
    if (!from) {
        if (bundled_sm3(from_buf, sizeof from_buf) < 0)
            return hb_cli_usage_error("new", "the bundled examples/SM3 was not found next to "
                                      "%s; name a package with --from", hb_cli_exe_dir);
        from = from_buf;
    }
    if (!hb_is_dir(from))
        return hb_cli_usage_error("new", "--from %s: no such package folder", from);
    if (hb_path_join(dest, sizeof dest, dir, name, &err) < 0)
        return hb_cli_usage_error("new", "%s", err.msg);
    struct stat st;
    if (lstat(dest, &st) == 0)
        return hb_cli_usage_error("new", "%s exists; choose another NAME or --dir, or remove "
                                  "it", dest);
    if (!hb_is_dir(dir))
        return hb_cli_usage_error("new", "--dir %s: no such folder", dir);
    renames r;
    int n_headers = 0, n_lines = 0;
    if (make_package(from, dest, name, &r, &n_headers, &n_lines, &err) < 0) {
        fprintf(stderr, "hashbench new: %s\n", err.msg);
        return 2;
    }
    printf("new: %s, a copy of %s, with ", dest, from);
    for (int i = 0; i < r.n; i++)
        printf("%sinstance %s (was %s)", i ? ", " : "", r.new_name[i], r.old_dir[i]);
    printf(": %d ALGORITHM_INSTANCE define%s and %d kat.sha256 line%s renamed\n", n_headers,
           n_headers == 1 ? "" : "s", n_lines, n_lines == 1 ? "" : "s");
    printf("Put your code in %s/Implementations/Reference_Implementation/%s/ (the\n"
           "header's DIGEST_BIT_LENGTH is the digest size) and your vectors in its\n"
           "kat.sha256 or a Test_Vectors folder; then run:\n"
           "  %s/hashbench run --run-dir out/%s --allow-unfit-host %s\n",
           dest, r.new_name[0], hb_cli_exe_dir, name, dest);
    return 0;
}
