/* Fuzz target: the per-candidate override file hashbench.ini
 * (src/compile/override.h). The input becomes PKG/hashbench.ini of a small
 * package that also holds one instance folder with a source and a header,
 * so that override_resolve has real paths to accept and escapes ("..",
 * absolute paths, symlinks out) to refuse. Checked besides memory safety:
 * a failure leaves a one-line message naming hashbench.ini; a success gives
 * valid names and resolved paths that stay inside the package. */
#include "compile/override.h"
#include "fuzz_util.h"

static char pkg[1024];

static void make_package(void)
{
    char path[1024];
    static const char src[] = "int CryptHash(void);\n";
    fuzz_put("pkg/Implementations/Reference_Implementation/A/a.c", src,
             sizeof src - 1, NULL, 0);
    fuzz_put("pkg/Implementations/Reference_Implementation/A/CryptHash_A.h",
             src, sizeof src - 1, NULL, 0);
    fuzz_put("outside/secret.c", src, sizeof src - 1, path, sizeof path);
    snprintf(pkg, sizeof pkg, "%s/pkg", fuzz_scratch());
    snprintf(path, sizeof path, "%s/pkg/escape", fuzz_scratch());
    if (symlink("../outside", path) != 0)
        abort();
}

static void check_resolved(const strlist *l)
{
    for (int i = 0; i < l->n; i++) {
        const char *p = l->v[i];
        if (p[0] == '/' || strncmp(p, "../", 3) == 0 || strcmp(p, "..") == 0 ||
            strstr(p, "/../")) {
            fprintf(stderr, "resolved path leaves the package: %s\n", p);
            abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!pkg[0])
        make_package();
    char ini[1024];
    fuzz_put("pkg/" OVERRIDE_FILE, data, size, ini, sizeof ini);
    override_file o;
    hb_err err = {{0}};
    if (override_load(pkg, &o, &err) != 0) {
        fuzz_check_err(&err);
        if (!strstr(err.msg, OVERRIDE_FILE))
            abort();
        return 0;
    }
    if (o.id[0] && !override_name_valid(o.id))
        abort();
    for (int i = 0; i < o.n; i++) {
        const override_instance *in = &o.inst[i];
        if (!override_name_valid(in->name) || override_find(&o, in->name) == NULL)
            abort();
        char dir_rel[1024];
        strlist sources = {0}, includes = {0};
        hb_err rerr = {{0}};
        const char *dir = in->dir[0] ? in->dir
                                     : "Implementations/Reference_Implementation/A";
        if (override_resolve(&o, in, pkg, dir, dir_rel, &sources, &includes,
                             &rerr) == 0) {
            check_resolved(&sources);
            check_resolved(&includes);
            if (dir_rel[0] == '/' || strncmp(dir_rel, "..", 2) == 0)
                abort();
        } else {
            fuzz_check_err(&rerr);
        }
        strlist_free(&sources);
        strlist_free(&includes);
    }
    override_free(&o);
    return 0;
}
