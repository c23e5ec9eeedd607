/* Which instances a KAT run selects (--instances), and finding an entry in
 * kat.json or build.json: shared by the KAT stage (kat.c) and the
 * comparison of variants (variants.c). */
#include "kat/kat.h"

#include <string.h>

static const char *field(const json_t *o, const char *k)
{
    const char *v = json_string_value(json_object_get(o, k));
    return v ? v : "";
}

int kat_selected(const kat_options *o, const char *cand, const char *inst)
{
    if (!o->instances)
        return 1;
    for (int i = 0; i < o->n_instances; i++) {
        const char *s = o->instances[i], *slash = strchr(s, '/');
        if (!slash && strcmp(s, inst) == 0)
            return 1;
        if (slash && strncmp(s, cand, (size_t)(slash - s)) == 0 &&
            cand[slash - s] == '\0' && strcmp(slash + 1, inst) == 0)
            return 1;
    }
    return 0;
}

json_t *kat_find_entry(json_t *arr, const char *cand, const char *inst, size_t *idx)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        if (strcmp(field(e, "candidate"), cand) == 0 &&
            strcmp(field(e, "instance"), inst) == 0) {
            *idx = i;
            return e;
        }
    }
    return NULL;
}
