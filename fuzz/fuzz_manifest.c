/* Fuzz target: `kat.sha256` manifests (src/kat/manifest.h). The input is
 * loaded as PKG/kat.sha256. Checked besides memory safety: an error is one
 * line naming kat.sha256; a loaded manifest holds only lowercase 64-digit
 * digests, non-empty labels and names without '/', increasing line
 * numbers, and kat_manifest_find returns an entry for every (label, name)
 * it holds. KAT file names found in the input are also run through
 * kat_label_of, whose label must fit and come from the name. */
#include <ctype.h>

#include "kat/manifest.h"
#include "fuzz_util.h"

static void check_entry(const kat_manifest *m, const kat_manifest_entry *e,
                        long prev_line)
{
    if (strlen(e->sha256) != 64 || e->line <= prev_line)
        abort();
    for (int i = 0; i < 64; i++)
        if (!isxdigit((unsigned char)e->sha256[i]) || isupper((unsigned char)e->sha256[i]))
            abort();
    if (!e->label || !e->name || !e->label[0] || !e->name[0] || strchr(e->name, '/'))
        abort();
    if (kat_manifest_find(m, e->label, e->name) == NULL)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[1024], label[128];
    kat_manifest m;
    hb_err err = {{0}};
    fuzz_put("pkg/" KAT_MANIFEST_NAME, data, size, path, sizeof path);
    memset(&m, 0, sizeof m);
    if (kat_manifest_load(path, &m, &err) != 0) {
        fuzz_check_err(&err);
        if (!strstr(err.msg, KAT_MANIFEST_NAME))
            abort();
    } else {
        long prev = 0;
        for (size_t i = 0; i < m.n; i++) {
            check_entry(&m, &m.v[i], prev);
            prev = m.v[i].line;
            if (kat_label_of(m.v[i].name, label, sizeof label) == 0 &&
                (strlen(label) >= sizeof label || !strstr(m.v[i].name, label)))
                abort();
        }
        kat_manifest_free(&m);
    }
    char *s = fuzz_cstr(data, size);
    if (strlen(s) < 200 && kat_label_of(s, label, sizeof label) == 0 && !strstr(s, label))
        abort();
    free(s);
    return 0;
}
