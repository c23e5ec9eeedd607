/* Callgrind's output format read for the share of each function (see
 * count_fns.h): a line reader with the compressed-name tables of the file,
 * the tally of a length's parts, and the record's "functions" object with
 * its check. */
#include "count/count_fns.h"
#include "count/count_syms.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The competition's shared helpers, by the names its files give them. */
static const struct {
    const char *name, *group;
} helpers[] = {
    {"sm3hash", "SM3"},
    {"sm3_bit", "SM3"},
    {"sm3_bit_compress", "SM3"},
    {"sm3_bit_init", "SM3"},
    {"pseudohash", "pseudo-hash"},
    {"pseudohash_512", "pseudo-hash"},
    {"pseudohash_768", "pseudo-hash"},
    {"pseudohash_1024", "pseudo-hash"},
    {"pseudoXOF", "pseudo-hash"},
    {"init_random_number", "DRNG"},
    {"get_random_number", "DRNG"},
    {"SM3_DRNG_Instantiate", "DRNG"},
    {"SM3_DRNG_Generate", "DRNG"},
    {"SM3_df", "DRNG"},
};
#define N_HELPERS (sizeof helpers / sizeof helpers[0])
static const char *const groups[] = {"SM3", "pseudo-hash", "DRNG"};
#define N_GROUPS (sizeof groups / sizeof groups[0])

const char *cg_helper_group(const char *name)
{
    for (size_t i = 0; name && i < N_HELPERS; i++)
        if (strcmp(name, helpers[i].name) == 0)
            return helpers[i].group;
    return NULL;
}

void cg_parser_init(cg_parser *p)
{
    memset(p, 0, sizeof *p);
    p->npos = 1;
    p->ir = -1;
}

static void names_free(cg_names *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
    t->v = NULL;
    t->n = 0;
}

void cg_parser_free(cg_parser *p)
{
    names_free(&p->obs);
    names_free(&p->fns);
    free(p->part.v);
    memset(p, 0, sizeof *p);
}

void cg_tally_free(cg_tally *t)
{
    free(t->f.v);
    memset(t, 0, sizeof *t);
}

static const char *name_of(const cg_names *t, unsigned id)
{
    return id < t->n && t->v[id] ? t->v[id] : "";
}

/* The id of a name field TEXT ("(id) name", "(id)" or "name") in T into
 * *ID. 0, or -1. */
static int name_id(cg_names *t, const char *text, unsigned *id)
{
    if (text[0] != '(') { /* not compressed: the name itself */
        for (size_t i = 0; i < t->n; i++)
            if (t->v[i] && strcmp(t->v[i], text) == 0) {
                *id = (unsigned)i;
                return 0;
            }
        if (t->n >= CG_MAX_ID)
            return -1;
        *id = (unsigned)t->n;
    } else {
        char *end = NULL;
        errno = 0;
        unsigned long v = strtoul(text + 1, &end, 10);
        if (errno || end == text + 1 || *end != ')' || v >= CG_MAX_ID)
            return -1;
        *id = (unsigned)v;
        text = end + 1;
        if (!*text) /* "(id)": named before */
            return *id < t->n && t->v[*id] ? 0 : -1;
        if (*text++ != ' ' || !*text)
            return -1;
        if (*id < t->n && t->v[*id]) /* named again: the same name */
            return strcmp(t->v[*id], text) == 0 ? 0 : -1;
    }
    if (strlen(text) > CG_MAX_NAME)
        return -1;
    if (*id >= t->n) {
        char **v = realloc(t->v, ((size_t)*id + 1) * sizeof *v);
        if (!v)
            return -1;
        memset(v + t->n, 0, ((size_t)*id + 1 - t->n) * sizeof *v);
        t->v = v;
        t->n = (size_t)*id + 1;
    }
    t->v[*id] = strdup(text);
    return t->v[*id] ? 0 : -1;
}

static cg_fcost *cost_of(cg_costs *c, unsigned ob, unsigned fn)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].ob == ob && c->v[i].fn == fn)
            return &c->v[i];
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 32;
        cg_fcost *v = realloc(c->v, cap * sizeof *v);
        if (!v)
            return NULL;
        c->v = v;
        c->cap = cap;
    }
    cg_fcost *f = &c->v[c->n++];
    memset(f, 0, sizeof *f);
    f->ob = ob;
    f->fn = fn;
    return f;
}

/* The instructions of cost line LINE (positions, then the events). 0, or -1. */
static int line_ir(const cg_parser *p, const char *line, long long *ir)
{
    const char *s = line;
    *ir = 0;
    for (int i = 0; i < p->npos; i++) { /* "N", "+N", "-N", "*", "0xN" */
        size_t n = strcspn(s, " ");
        if (n == 0)
            return -1;
        s += n;
        while (*s == ' ')
            s++;
    }
    for (int col = 0; *s; col++) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (end == s || errno || v > (unsigned long long)LLONG_MAX || (*end && *end != ' '))
            return -1;
        if (col == p->ir)
            *ir = (long long)v;
        s = end;
        while (*s == ' ')
            s++;
    }
    return 0;
}

static int fail(char *why, size_t cap, const char *what, const char *line)
{
    snprintf(why, cap, "%s: %.80s", what, line);
    return -1;
}

static int same_group(const char *a, const char *b)
{
    const char *ga = cg_helper_group(a), *gb = cg_helper_group(b);
    return ga && gb && strcmp(ga, gb) == 0;
}

int cg_parser_line(cg_parser *p, const char *line, char *why, size_t cap)
{
    if (!line[0] || line[0] == '#')
        return 0;
    if (isdigit((unsigned char)line[0]) || line[0] == '+' || line[0] == '-' ||
        line[0] == '*') {
        long long ir;
        if (p->ir < 0 || !p->have_fn || line_ir(p, line, &ir) != 0)
            return fail(why, cap, "a cost line out of place or not of numbers", line);
        if (p->pending_call) {
            /* the inclusive cost of the call: the callee's from outside */
            unsigned cob = p->have_cob ? p->cob : p->ob;
            cg_fcost *f = cost_of(&p->part, cob, p->cfn);
            if (!f)
                return fail(why, cap, "out of memory", line);
            if (!same_group(name_of(&p->fns, p->fn), name_of(&p->fns, p->cfn)))
                f->called += ir;
            p->pending_call = p->have_cob = p->have_cfn = 0;
            return 0;
        }
        cg_fcost *f = cost_of(&p->part, p->ob, p->fn);
        if (!f)
            return fail(why, cap, "out of memory", line);
        f->self += ir;
        p->part_ir += ir;
        return 0;
    }
    if (p->pending_call)
        return fail(why, cap, "a call without its cost line", line);
    const char *eq = strchr(line, '='), *colon = strchr(line, ':');
    if (eq && (!colon || eq < colon)) {
        size_t k = (size_t)(eq - line);
        const char *v = eq + 1;
        if (k == 2 && strncmp(line, "ob", 2) == 0) {
            if (name_id(&p->obs, v, &p->ob) != 0)
                return fail(why, cap, "an object name not of the format", line);
            p->have_ob = 1;
        } else if (k == 2 && strncmp(line, "fn", 2) == 0) {
            if (name_id(&p->fns, v, &p->fn) != 0)
                return fail(why, cap, "a function name not of the format", line);
            p->have_fn = 1;
        } else if (k == 3 && strncmp(line, "cob", 3) == 0) {
            if (name_id(&p->obs, v, &p->cob) != 0)
                return fail(why, cap, "an object name not of the format", line);
            p->have_cob = 1;
        } else if (k == 3 && strncmp(line, "cfn", 3) == 0) {
            if (name_id(&p->fns, v, &p->cfn) != 0)
                return fail(why, cap, "a function name not of the format", line);
            p->have_cfn = 1;
        } else if (k == 5 && strncmp(line, "calls", 5) == 0) {
            if (!p->have_cfn || !p->have_fn)
                return fail(why, cap, "a call without its function", line);
            p->pending_call = 1;
        }
        /* fl=, fi=, fe=, cfi=, cfl=, jump=, jcnd=: not needed here */
        return 0;
    }
    if (!colon)
        return fail(why, cap, "a line not of the format", line);
    if (strncmp(line, "part:", 5) == 0) {
        p->part.n = 0;
        p->part_ir = 0;
        p->ir = -1;
        p->have_fn = p->have_cob = p->have_cfn = 0;
    } else if (strncmp(line, "events:", 7) == 0) {
        char ev[512];
        snprintf(ev, sizeof ev, "%s", line + 7);
        char *save = NULL;
        int col = 0;
        p->ir = -1;
        for (char *t = strtok_r(ev, " ", &save); t; t = strtok_r(NULL, " ", &save), col++)
            if (strcmp(t, "Ir") == 0)
                p->ir = col;
        if (p->ir < 0)
            return fail(why, cap, "no Ir among the events", line);
    } else if (strncmp(line, "positions:", 10) == 0) {
        int n = 0;
        char pos[128], *save = NULL;
        snprintf(pos, sizeof pos, "%s", line + 10);
        for (char *t = strtok_r(pos, " ", &save); t; t = strtok_r(NULL, " ", &save))
            n++;
        if (n < 1 || n > 2)
            return fail(why, cap, "positions not of the format", line);
        p->npos = n;
    }
    /* version:, creator:, cmd:, desc:, summary:, totals: ... */
    return 0;
}

void cg_tally_add(cg_tally *t, const cg_parser *p, long long part_total)
{
    if (p->part_ir != part_total)
        t->broken = 1;
    t->total += part_total;
    for (size_t i = 0; i < p->part.n && !t->broken; i++) {
        const cg_fcost *s = &p->part.v[i];
        cg_fcost *f = cost_of(&t->f, s->ob, s->fn);
        if (!f) {
            t->broken = 1;
            break;
        }
        f->self += s->self;
        f->called += s->called;
    }
}

/* 1 when PATH lies in one of the system's library folders, which nothing
 * of the sandboxed run can write. */
static int system_path(const char *path)
{
    static const char *const dirs[] = {"/usr/lib/", "/lib/", "/lib64/", "/usr/lib64/",
                                       "/usr/libexec/valgrind/"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (strncmp(path, dirs[i], strlen(dirs[i])) == 0 && !strstr(path, "/../"))
            return 1;
    return 0;
}

void cg_object_class(const char *path, const char *lib, const char *driver, char *out,
                     size_t cap)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (lib && strcmp(path, lib) == 0)
        snprintf(out, cap, "library");
    else if (driver && strcmp(path, driver) == 0)
        snprintf(out, cap, "hashbench-count");
    else if (system_path(path) && (strncmp(base, "libc.so", 7) == 0 ||
                                   strncmp(base, "libm.so", 7) == 0 ||
                                   strncmp(base, "ld-linux", 8) == 0))
        snprintf(out, cap, "C library");
    else if (system_path(path)) {
        char safe[CG_NAME_MAX + 1];
        cg_safe_name(base, safe, sizeof safe);
        snprintf(out, cap, "system: %s", safe);
    } else {
        snprintf(out, cap, "other object");
    }
}

/* A function as sorted: its costs and name. */
typedef struct named_cost {
    cg_fcost f;
    const char *name;
} named_cost;

static int by_self(const void *a, const void *b)
{
    const named_cost *x = a, *y = b;
    if (x->f.self != y->f.self)
        return x->f.self > y->f.self ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->f.ob > y->f.ob) - (x->f.ob < y->f.ob);
}

static double share(long long part, long long total)
{
    return total > 0 ? (double)part / (double)total : 0.0;
}

/* NAME of a function of object OB, or the symbol SYMS has at the address
 * callgrind shows for an unnamed function of the library ("0x..."). */
static const char *fn_name(const cg_parser *p, const cg_fcost *f, const char *lib,
                           const json_t *syms)
{
    const char *name = name_of(&p->fns, f->fn);
    if (syms && lib && strncmp(name, "0x", 2) == 0 &&
        strcmp(name_of(&p->obs, f->ob), lib) == 0) {
        char *end = NULL;
        errno = 0;
        unsigned long long at = strtoull(name + 2, &end, 16);
        const char *sym = !errno && end != name + 2 && !*end ? count_syms_name(syms, at)
                                                             : NULL;
        if (sym)
            return sym;
    }
    return name;
}

json_t *cg_tally_json(const cg_tally *t, const cg_parser *p, const char *lib,
                      const char *driver, const json_t *syms)
{
    if (t->broken || t->total <= 0)
        return NULL;
    size_t n = 0;
    named_cost *v = malloc((t->f.n + 1) * sizeof *v);
    if (!v)
        return NULL;
    long long helper_ir[N_GROUPS] = {0};
    for (size_t i = 0; i < t->f.n; i++) {
        const cg_fcost *f = &t->f.v[i];
        const char *fname = fn_name(p, f, lib, syms);
        const char *g = cg_helper_group(fname);
        if (g && lib && strcmp(name_of(&p->obs, f->ob), lib) == 0)
            for (size_t k = 0; k < N_GROUPS; k++)
                if (strcmp(g, groups[k]) == 0)
                    helper_ir[k] += f->called;
        if (f->self > 0) {
            v[n].f = *f;
            v[n++].name = fname;
        }
    }
    qsort(v, n, sizeof *v, by_self);
    json_t *list = json_array(), *helpers_j = json_array();
    long long rest = 0, rest_n = 0;
    for (size_t i = 0; i < n; i++) {
        if (i >= CG_FNS_KEPT) {
            rest += v[i].f.self;
            rest_n++;
            continue;
        }
        char name[CG_NAME_MAX + 1], obj[CG_NAME_MAX + 16];
        cg_safe_name(v[i].name, name, sizeof name);
        cg_object_class(name_of(&p->obs, v[i].f.ob), lib, driver, obj, sizeof obj);
        json_array_append_new(list, json_pack("{s:s, s:s, s:I, s:f}", "function", name,
                                              "object", obj, "Ir", (json_int_t)v[i].f.self,
                                              "share", share(v[i].f.self, t->total)));
    }
    for (size_t k = 0; k < N_GROUPS; k++)
        if (helper_ir[k] > 0)
            json_array_append_new(helpers_j, json_pack("{s:s, s:I, s:f}", "helper", groups[k],
                                                       "Ir", (json_int_t)helper_ir[k], "share",
                                                       share(helper_ir[k], t->total)));
    free(v);
    return json_pack("{s:I, s:o, s:{s:I, s:I, s:f}, s:o}", "Ir", (json_int_t)t->total,
                     "functions", list, "rest", "functions", (json_int_t)rest_n, "Ir",
                     (json_int_t)rest, "share", share(rest, t->total), "helpers", helpers_j);
}

static int share_ok(const json_t *o, long long total)
{
    const json_t *ir = json_object_get(o, "Ir"), *sh = json_object_get(o, "share");
    if (!json_is_integer(ir) || json_integer_value(ir) < 0 || !json_is_number(sh))
        return 0;
    double want = share(json_integer_value(ir), total);
    double got = json_number_value(sh);
    return got - want < 1e-9 && want - got < 1e-9;
}

int cg_functions_check(const json_t *fns, const json_t *raw_ir, char *why, size_t cap)
{
    long long total = 0, sum = 0;
    size_t i;
    json_t *x;
    json_array_foreach(raw_ir, i, x)
        total += json_integer_value(x);
    const json_t *list = json_object_get(fns, "functions");
    const json_t *rest = json_object_get(fns, "rest");
    const json_t *hl = json_object_get(fns, "helpers");
    if (json_integer_value(json_object_get(fns, "Ir")) != total || !json_is_array(list) ||
        !json_is_object(rest) || !json_is_array(hl) || !share_ok(rest, total)) {
        snprintf(why, cap, "functions: needs Ir (the sum of the calls' counts, %lld), the "
                 "functions, rest and helpers", total);
        return -1;
    }
    sum = json_integer_value(json_object_get(rest, "Ir"));
    json_array_foreach(list, i, x) {
        const char *fn = json_string_value(json_object_get(x, "function"));
        char safe[CG_NAME_MAX + 1];
        if (fn)
            cg_safe_name(fn, safe, sizeof safe);
        if (!fn || strcmp(fn, safe) != 0 || !json_is_string(json_object_get(x, "object")) ||
            !share_ok(x, total)) {
            snprintf(why, cap, "functions[%zu]: needs a safe function name, its object, Ir "
                     "and share = Ir / %lld", i, total);
            return -1;
        }
        sum += json_integer_value(json_object_get(x, "Ir"));
    }
    json_array_foreach(hl, i, x)
        if (!json_is_string(json_object_get(x, "helper")) || !share_ok(x, total)) {
            snprintf(why, cap, "helpers[%zu]: needs the helper, Ir and share = Ir / %lld", i,
                     total);
            return -1;
        }
    if (sum != total) {
        snprintf(why, cap, "functions: the functions and rest add up to %lld instructions, "
                 "not the calls' %lld", sum, total);
        return -1;
    }
    return 0;
}
