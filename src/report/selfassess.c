/* Self-assessments: reading the three forms and holding each claim against
 * the measured figures. See selfassess.h for the rules and
 * docs/SELF_ASSESSMENT.md for the formats. */
#include "report/selfassess.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "common/fs.h"
#include "common/json.h"
#include "measure/stats.h"
#include "report/csv.h"
#include "report/esc.h"
#include "report/html.h"
#include "report/numfmt.h"

#define SA_MAX_BYTES (16u << 20) /* a self-assessment is a few tables */

static const char *const metric_keys[SA_NMETRICS] = {
    "mean_cycles", "cycles_per_byte", "mb_per_s", "static_bytes", "peak_memory_kib"};
static const char *const metric_names[SA_NMETRICS] = {
    "mean cycles", "cycles/byte", "MB/s", "static size", "peak memory"};

const char *sa_metric_name(sa_metric m)
{
    return m < SA_NMETRICS ? metric_names[m] : "?";
}

/* ---- reading ---------------------------------------------------------- */

/* TEXT as a decimal number (surrounding spaces allowed) into *V, and half
 * a unit of its last written digit into *PREC. -1 when it is no number. */
static int parse_num(const char *text, double *v, double *prec)
{
    char *end;
    while (isspace((unsigned char)*text))
        text++;
    if (!*text)
        return -1;
    double x = strtod(text, &end);
    const char *stop = end;
    while (isspace((unsigned char)*end))
        end++;
    if (end == text || *end || !isfinite(x) || !(isdigit((unsigned char)*text) ||
                                                 *text == '-' || *text == '.' || *text == '+'))
        return -1;
    int decimals = 0, exp10 = 0;
    const char *dot = memchr(text, '.', (size_t)(stop - text));
    const char *e = strpbrk(text, "eE");
    if (e && e < stop)
        exp10 = atoi(e + 1);
    else
        e = stop;
    if (dot)
        decimals = (int)(e - dot - 1);
    *v = x;
    *prec = 0.5 * pow(10.0, exp10 - decimals);
    return 0;
}

static sa_claim *new_claim(sa_file *f, const char *cand, const char *inst, long long size,
                           long line)
{
    sa_claim *g = realloc(f->claims, (f->n + 1) * sizeof *g);
    if (!g)
        return NULL;
    f->claims = g;
    sa_claim *c = &f->claims[f->n++];
    memset(c, 0, sizeof *c);
    c->candidate = cand && cand[0] ? strdup(cand) : NULL;
    c->instance = strdup(inst);
    c->size = size;
    c->line = line;
    for (int m = 0; m < SA_NMETRICS; m++)
        c->v[m] = c->prec[m] = NAN;
    return c;
}

/* The claim of (INST, SIZE) already read from the text form, or a new one. */
static sa_claim *claim_for(sa_file *f, const char *inst, long long size, long line)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->claims[i].size == size && !strcmp(f->claims[i].instance, inst))
            return &f->claims[i];
    return new_claim(f, NULL, inst, size, line);
}

static int set_clock(sa_file *f, double v, double prec, const char *where, long line,
                     hb_err *err)
{
    if (!(v > 0))
        return hb_fail_at(err, where, line, "clock_hz must be a positive frequency in Hz");
    if (isfinite(f->clock_hz) && fabs(f->clock_hz - v) > prec + f->clock_prec)
        return hb_fail_at(err, where, line, "a second clock (%g Hz, %g Hz before); a "
                          "self-assessment states one clock", v, f->clock_hz);
    f->clock_hz = v;
    f->clock_prec = prec;
    return 0;
}

static int load_csv(sa_file *f, const char *text, size_t len, hb_err *err)
{
    csv_table t;
    if (csv_table_read(text, len, f->path, &t, err) < 0)
        return -1;
    int rc = 0;
    if (t.n == 0)
        rc = hb_fail_at(err, f->path, 1, "no header row; the first row names the columns "
                        "(instance, size_bytes, mean_cycles, ...)");
    int col_cand = -1, col_inst = -1, col_size = -1, col_clock = -1, col_m[SA_NMETRICS];
    for (int m = 0; m < SA_NMETRICS; m++)
        col_m[m] = -1;
    for (size_t k = 0; rc == 0 && k < t.rows[0].n; k++) {
        const char *h = t.rows[0].field[k];
        int *slot = !strcmp(h, "candidate") ? &col_cand : !strcmp(h, "instance") ? &col_inst
                  : !strcmp(h, "size_bytes") ? &col_size : !strcmp(h, "clock_hz") ? &col_clock
                  : NULL;
        for (int m = 0; m < SA_NMETRICS && !slot; m++)
            if (!strcmp(h, metric_keys[m]))
                slot = &col_m[m];
        if (!slot)
            rc = hb_fail_at(err, f->path, t.rows[0].line, "unknown column '%s'; the columns "
                            "are candidate, instance, size_bytes, mean_cycles, "
                            "cycles_per_byte, mb_per_s, static_bytes, peak_memory_kib, "
                            "clock_hz", h);
        else if (*slot >= 0)
            rc = hb_fail_at(err, f->path, t.rows[0].line, "column '%s' given twice", h);
        else
            *slot = (int)k;
    }
    if (rc == 0 && col_inst < 0)
        rc = hb_fail_at(err, f->path, t.rows[0].line, "no 'instance' column; name the "
                        "instance each row claims figures for");
    for (size_t i = 1; rc == 0 && i < t.n; i++) {
        const csv_row *r = &t.rows[i];
        double v, p;
        long long size = -1;
        if (r->n != t.rows[0].n) {
            rc = hb_fail_at(err, f->path, r->line, "%zu fields where the header has %zu",
                            r->n, t.rows[0].n);
            break;
        }
        if (!r->field[col_inst][0]) {
            rc = hb_fail_at(err, f->path, r->line, "no instance; every row names one");
            break;
        }
        if (col_size >= 0 && r->field[col_size][0]) {
            if (parse_num(r->field[col_size], &v, &p) < 0 || v < 0 || v != floor(v)) {
                rc = hb_fail_at(err, f->path, r->line, "size_bytes '%s' is not a whole "
                                "number of bytes", r->field[col_size]);
                break;
            }
            size = (long long)v;
        }
        if (col_clock >= 0 && r->field[col_clock][0]) {
            if (parse_num(r->field[col_clock], &v, &p) < 0) {
                rc = hb_fail_at(err, f->path, r->line, "clock_hz '%s' is not a number",
                                r->field[col_clock]);
                break;
            }
            if ((rc = set_clock(f, v, p, f->path, r->line, err)) < 0)
                break;
        }
        sa_claim *c = new_claim(f, col_cand >= 0 ? r->field[col_cand] : NULL,
                                r->field[col_inst], size, r->line);
        if (!c) {
            rc = hb_fail(err, "%s: out of memory", f->path);
            break;
        }
        for (int m = 0; m < SA_NMETRICS && rc == 0; m++) {
            const char *s = col_m[m] >= 0 ? r->field[col_m[m]] : "";
            if (s[0] && (parse_num(s, &c->v[m], &c->prec[m]) < 0 || c->v[m] < 0))
                rc = hb_fail_at(err, f->path, r->line, "%s '%s' is not a number (no unit: "
                                "the column names it)", metric_keys[m], s);
        }
    }
    csv_table_free(&t);
    return rc;
}

static int load_json(sa_file *f, hb_err *err)
{
    json_t *j;
    if (hb_json_load(f->path, &j, err) < 0)
        return -1;
    int rc = 0;
    const json_t *kind = json_object_get(j, "kind"), *figs = json_object_get(j, "figures");
    const json_t *clock = json_object_get(j, "clock_hz"), *cand = json_object_get(j, "candidate");
    if (!json_is_object(j) || (kind && (!json_is_string(kind) ||
                                        strcmp(json_string_value(kind),
                                               "hashbench-self-assessment"))))
        rc = hb_fail(err, "%s: not a self-assessment (an object with kind "
                     "\"hashbench-self-assessment\")", f->path);
    else if (!json_is_array(figs))
        rc = hb_fail(err, "%s: field figures: missing or not an array of claimed figures",
                     f->path);
    else if (cand && !json_is_string(cand))
        rc = hb_fail(err, "%s: field candidate: not a string", f->path);
    else if (clock && !json_is_null(clock) &&
             (!json_is_number(clock) || set_clock(f, json_number_value(clock), 0, f->path,
                                                  0, err) < 0))
        rc = err && err->msg[0] ? -1 : hb_fail(err, "%s: field clock_hz: not a number in Hz",
                                               f->path);
    if (rc == 0 && cand)
        f->candidate = strdup(json_string_value(cand));
    size_t i;
    const json_t *e;
    json_array_foreach(figs, i, e) {
        if (rc != 0)
            break;
        const char *key;
        const json_t *v;
        const json_t *inst = json_object_get(e, "instance"), *size = json_object_get(e, "size_bytes");
        if (!json_is_object(e) || !json_is_string(inst) ||
            (size && !json_is_null(size) && (!json_is_integer(size) ||
                                             json_integer_value(size) < 0))) {
            rc = hb_fail(err, "%s: field figures[%zu]: an object with instance (a string) "
                         "and size_bytes (a whole number) is needed", f->path, i);
            break;
        }
        sa_claim *c = new_claim(f, report_str(e, "candidate", NULL), json_string_value(inst),
                                json_is_integer(size) ? json_integer_value(size) : -1,
                                (long)i);
        if (!c) {
            rc = hb_fail(err, "%s: out of memory", f->path);
            break;
        }
        json_object_foreach((json_t *)e, key, v) {
            int m = 0;
            while (m < SA_NMETRICS && strcmp(key, metric_keys[m]))
                m++;
            if (m < SA_NMETRICS && json_is_number(v) && json_number_value(v) >= 0) {
                c->v[m] = json_number_value(v);
                c->prec[m] = 0;
            } else if (m < SA_NMETRICS ? !json_is_null(v)
                                       : strcmp(key, "instance") && strcmp(key, "size_bytes") &&
                                             strcmp(key, "candidate")) {
                rc = hb_fail(err, "%s: field figures[%zu].%s: %s", f->path, i, key,
                             m < SA_NMETRICS ? "not a number" : "unknown; the fields are "
                             "candidate, instance, size_bytes, mean_cycles, cycles_per_byte, "
                             "mb_per_s, static_bytes, peak_memory_kib");
                break;
            }
        }
    }
    json_decref(j);
    return rc;
}

/* ---- the text of a published page ---------------------------------- */

#define MAX_TOKENS 48

typedef enum { T_NONE, T_PERF, T_RES_OP, T_ELF, T_RSS } table_kind;
typedef enum { S_OTHER, S_ENV, S_PERF, S_RES } section_kind;

/* Splits LINE (modified) at spaces, tabs and '|', dropping '`' and '\'. */
static size_t tokens(char *line, char **tk)
{
    size_t n = 0;
    for (char *p = line; *p; p++)
        if (*p == '`' || *p == '\\')
            memmove(p, p + 1, strlen(p)), p--;
    for (char *p = strtok(line, " \t|\r"); p && n < MAX_TOKENS; p = strtok(NULL, " \t|\r"))
        tk[n++] = p;
    return n;
}

/* The section a heading line opens ("4. Performance", "## 4 Performance"),
 * or -1 when LINE is no heading. */
static int heading(const char *line)
{
    static const struct {
        const char *title;
        section_kind kind;
    } titles[] = {{"Basic information", S_OTHER}, {"Assessment environment", S_ENV},
                  {"Functional testing", S_OTHER}, {"Performance", S_PERF},
                  {"Resource consumption", S_RES}, {"Constant-time", S_OTHER},
                  {"Raw evidence", S_OTHER}};
    while (*line == '#' || *line == ' ')
        line++;
    if (!isdigit((unsigned char)*line))
        return -1;
    while (isdigit((unsigned char)*line))
        line++;
    if (*line == '.')
        line++;
    if (*line != ' ')
        return -1;
    while (*line == ' ')
        line++;
    for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++)
        if (!strncasecmp(line, titles[i].title, strlen(titles[i].title)))
            return (int)titles[i].kind;
    return -1;
}

static table_kind table_of(const char *line, section_kind sec)
{
    char low[1024];
    size_t i;
    for (i = 0; line[i] && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)line[i]);
    low[i] = '\0';
    if (sec == S_PERF && strstr(low, "message") && strstr(low, "/byte"))
        return T_PERF;
    if (sec == S_RES && strstr(low, "operation") && strstr(low, "peak"))
        return T_RES_OP;
    if (sec == S_RES && strstr(low, "elf image"))
        return T_ELF;
    if (sec == S_RES && strstr(low, "message") && strstr(low, "peak rss"))
        return T_RSS;
    return T_NONE;
}

/* The factor of a unit word among NAMES / FACTORS, or NaN. */
static double unit_factor(const char *w, const char *const *names, const double *factors,
                          size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(w, names[i]))
            return factors[i];
    return NAN;
}

static const char *const size_units[] = {"B", "KiB", "MiB"};
static const double size_factors[] = {1, 1024, 1048576};
static const char *const mem_units[] = {"B", "KiB", "MiB", "GiB"}; /* to KiB */
static const double mem_factors[] = {1.0 / 1024, 1, 1024, 1048576};
static const char *const count_units[] = {"k", "M", "G"};
static const double count_factors[] = {1e3, 1e6, 1e9};
static const char *const time_units[] = {"ns", "µs", "us", "ms", "s"};
static const double time_factors[] = {1, 1e3, 1e3, 1e6, 1e9};
#define NUNITS(a) (sizeof a / sizeof a[0])

/* A number followed by a unit word from NAMES at TK[*I], into *V (times
 * the factor) and *P; advances *I. With OPTIONAL, a missing unit is 1. */
static int num_unit(char **tk, size_t n, size_t *i, const char *const *names,
                    const double *factors, size_t nu, int optional, double *v, double *p)
{
    if (*i >= n || parse_num(tk[*i], v, p) < 0)
        return -1;
    (*i)++;
    double f = *i < n ? unit_factor(tk[*i], names, factors, nu) : NAN;
    if (isfinite(f))
        (*i)++;
    else if (optional)
        f = 1;
    else
        return -1;
    *v *= f;
    *p *= f;
    return 0;
}

static int text_row(sa_file *f, table_kind kind, char **tk, size_t n, long line, hb_err *err)
{
    size_t i = 1;
    double v, p, size = -1, sp, val[SA_NMETRICS], prec[SA_NMETRICS];
    for (int m = 0; m < SA_NMETRICS; m++)
        val[m] = prec[m] = NAN;
    int ok = n >= 2;
    if (ok && kind == T_RES_OP) {
        ok = !strncmp(tk[1], "hash_", 5) && parse_num(tk[1] + 5, &size, &sp) == 0;
        i = 2;
        ok = ok && parse_num(tk[i++], &val[SA_STATIC_BYTES], &prec[SA_STATIC_BYTES]) == 0 &&
             num_unit(tk, n, &i, mem_units, mem_factors, NUNITS(mem_units), 0, &v, &p) == 0 &&
             num_unit(tk, n, &i, mem_units, mem_factors, NUNITS(mem_units), 0,
                      &val[SA_PEAK_KIB], &prec[SA_PEAK_KIB]) == 0;
    } else if (ok && kind == T_ELF) {
        ok = num_unit(tk, n, &i, size_units, size_factors, NUNITS(size_units), 1,
                      &val[SA_STATIC_BYTES], &prec[SA_STATIC_BYTES]) == 0;
    } else if (ok) {
        ok = num_unit(tk, n, &i, size_units, size_factors, NUNITS(size_units), 0, &size,
                      &sp) == 0;
        if (ok && kind == T_RSS)
            ok = num_unit(tk, n, &i, mem_units, mem_factors, NUNITS(mem_units), 0, &v, &p) == 0 &&
                 num_unit(tk, n, &i, mem_units, mem_factors, NUNITS(mem_units), 0,
                          &val[SA_PEAK_KIB], &prec[SA_PEAK_KIB]) == 0;
        else if (ok)
            ok = num_unit(tk, n, &i, count_units, count_factors, NUNITS(count_units), 1,
                          &val[SA_MEAN_CYCLES], &prec[SA_MEAN_CYCLES]) == 0 &&
                 i < n && parse_num(tk[i++], &val[SA_CYCLES_PER_BYTE],
                                    &prec[SA_CYCLES_PER_BYTE]) == 0 &&
                 num_unit(tk, n, &i, time_units, time_factors, NUNITS(time_units), 0, &v,
                          &p) == 0 &&
                 i < n && parse_num(tk[i++], &val[SA_MB_PER_S], &prec[SA_MB_PER_S]) == 0;
    }
    if (!ok)
        return hb_fail_at(err, f->path, line, "a row of the %s table that does not read as "
                          "the published layout (%s); correct it or give the figures as "
                          "CSV", kind == T_PERF ? "performance" : "resource",
                          kind == T_PERF ? "instance, message with unit, mean cycles, "
                                           "cycles/byte, mean time with unit, MB/s, ..."
                          : kind == T_RES_OP ? "instance, hash_SIZE, static bytes, baseline "
                                               "RSS with unit, peak RSS with unit"
                          : kind == T_ELF ? "instance, ELF image size, ..."
                                          : "instance, message with unit, baseline RSS, "
                                            "peak RSS, ...");
    sa_claim *c = claim_for(f, tk[0], size >= 0 ? (long long)size : -1, line);
    if (!c)
        return hb_fail(err, "%s: out of memory", f->path);
    for (int m = 0; m < SA_NMETRICS; m++)
        if (isfinite(val[m])) {
            c->v[m] = val[m];
            c->prec[m] = prec[m];
        }
    return 0;
}

/* "clock max 2.10 GHz, governor ..." (the environment's clock row). */
static int text_clock(sa_file *f, char **tk, size_t n, long line, hb_err *err)
{
    static const char *const hz_units[] = {"Hz", "kHz", "MHz", "GHz"};
    static const double hz_factors[] = {1, 1e3, 1e6, 1e9};
    double v, p;
    /* "clock max 2.10 GHz" or "clock 2.10 GHz", not "Clock counter" */
    if (n < 3 || strcasecmp(tk[0], "clock") ||
        (strcasecmp(tk[1], "max") && parse_num(tk[1], &v, &p) < 0))
        return 0;
    for (size_t i = 1; i + 1 < n; i++) {
        size_t k = i;
        char unit[16];
        snprintf(unit, sizeof unit, "%s", tk[i + 1]);
        unit[strcspn(unit, ",;")] = '\0';
        double fct = unit_factor(unit, hz_units, hz_factors, NUNITS(hz_units));
        if (isfinite(fct) && parse_num(tk[k], &v, &p) == 0)
            return set_clock(f, v * fct, p * fct, f->path, line, err);
    }
    return 0;
}

static int load_text(sa_file *f, char *text, hb_err *err)
{
    section_kind sec = S_OTHER;
    table_kind table = T_NONE;
    int para_start = 1;
    long line = 0;
    char *save = NULL;
    for (char *p = text; p; p = save) {
        save = strchr(p, '\n');
        if (save)
            *save++ = '\0';
        line++;
        char *tk[MAX_TOKENS], copy[4096];
        snprintf(copy, sizeof copy, "%s", p);
        size_t n = tokens(copy, tk);
        if (n == 0) {
            para_start = 1;
            table = T_NONE;
            continue;
        }
        int h = heading(p);
        if (h >= 0) {
            sec = (section_kind)h;
            table = T_NONE;
            para_start = 1;
            continue;
        }
        if (para_start) {
            para_start = 0;
            table = table_of(p, sec);
            if (sec == S_ENV && text_clock(f, tk, n, line, err) < 0)
                return -1;
            continue;
        }
        if (sec == S_ENV && text_clock(f, tk, n, line, err) < 0)
            return -1;
        if (table == T_NONE || strspn(p, "|-: \t") == strlen(p))
            continue;
        if (text_row(f, table, tk, n, line, err) < 0)
            return -1;
    }
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcasecmp(s + n - k, suffix);
}

int sa_load(const char *path, sa_file *out, hb_err *err)
{
    memset(out, 0, sizeof *out);
    out->clock_hz = out->clock_prec = NAN;
    out->path = strdup(path);
    char *text = NULL;
    size_t len = 0;
    if (!out->path)
        return hb_fail(err, "%s: out of memory", path);
    if (hb_read_file_limited(path, SA_MAX_BYTES, "self-assessment", &text, &len, err) < 0) {
        sa_free(out);
        return -1;
    }
    const char *first = text;
    while (first < text + len && isspace((unsigned char)*first))
        first++;
    int rc;
    if (ends_with(path, ".json") || (!ends_with(path, ".csv") && *first == '{')) {
        out->format = "json";
        rc = load_json(out, err);
    } else if (ends_with(path, ".csv") || (strchr(text, ',') &&
                                           !strncmp(first, "instance", 8)) ||
               !strncmp(first, "candidate,", 10)) {
        out->format = "csv";
        rc = load_csv(out, text, len, err);
    } else {
        out->format = "text";
        rc = memchr(text, '\0', len) ? hb_fail(err, "%s: a NUL byte; give the page as text",
                                               path)
                                     : load_text(out, text, err);
    }
    free(text);
    if (rc == 0 && out->n == 0)
        rc = hb_fail(err, "%s: no claimed figure found; see docs/SELF_ASSESSMENT.md for the "
                     "three forms", path);
    if (rc < 0)
        sa_free(out);
    return rc;
}

void sa_free(sa_file *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->claims[i].candidate);
        free(f->claims[i].instance);
    }
    free(f->claims);
    free(f->candidate);
    free(f->path);
    memset(f, 0, sizeof *f);
}

/* ---- holding the claims against the figures ------------------------ */

/* The candidate of instance INST on S (CAND when given): *OUT borrowed
 * from S's candidate list. */
static int find_candidate(const sa_file *f, const sa_claim *c, const report_system *s,
                          const char **out, hb_err *err)
{
    const char *want = c->candidate ? c->candidate : f->candidate;
    size_t i, k, found = 0;
    json_t *v, *inst;
    json_array_foreach(s->candidates, i, v) {
        if (want && strcmp(want, json_string_value(v)))
            continue;
        json_t *insts = report_instances(s, json_string_value(v));
        json_array_foreach(insts, k, inst)
            if (!strcmp(json_string_value(inst), c->instance)) {
                *out = json_string_value(v);
                found++;
            }
        json_decref(insts);
    }
    const char *fmt = !strcmp(f->format, "json") ? "figures[%ld]" : "%ld";
    char where[64];
    snprintf(where, sizeof where, fmt, c->line);
    if (found == 1)
        return 0;
    if (found == 0)
        return hb_fail(err, "%s:%s: %s%s%s is not an instance measured or built on %s; "
                       "check the instance's name", f->path, where, want ? want : "",
                       want ? " / " : "", c->instance, s->name);
    return hb_fail(err, "%s:%s: instance %s belongs to %zu candidates of %s; give the "
                   "candidate (a candidate column or field)", f->path, where, c->instance,
                   found, s->name);
}

typedef struct measured {
    double v, lo, hi;
} measured;

/* The measured figure of metric M for claim C of CAND on S, in the unit of
 * the counter (cycles metrics) or of the metric; NaN when there is none. */
static measured measure_of(const report_system *s, const char *cand, const sa_claim *c,
                           sa_metric m)
{
    measured x = {NAN, NAN, NAN};
    const report_record *r = c->size >= 0 ? report_find_record(s, cand, c->instance, c->size)
                                          : NULL;
    const json_t *d = r ? r->derived : NULL;
    double mean = report_num(d, "mean_ticks_per_call");
    double rlo = report_num(d, "ci95_low") / mean, rhi = report_num(d, "ci95_high") / mean;
    if (m == SA_STATIC_BYTES) {
        const json_t *b = report_build_entry(s, cand, c->instance);
        x.v = x.lo = x.hi = report_num(json_object_get(b, "static_size"), "image");
    } else if (m == SA_PEAK_KIB && r) {
        x.v = x.lo = x.hi = report_num(json_object_get(r->json, "memory"), "rss_peak_kb");
        size_t i;
        const json_t *t;
        json_array_foreach(json_object_get(r->json, "trials"), i, t) {
            double k = report_num(t, "rss_peak_kb");
            if (isfinite(k)) {
                x.lo = isfinite(x.lo) ? fmin(x.lo, k) : k;
                x.hi = isfinite(x.hi) ? fmax(x.hi, k) : k;
            }
        }
    } else if (m == SA_MB_PER_S && d) {
        x.v = report_num(d, "mb_per_s");
        x.lo = x.v / rhi;
        x.hi = x.v / rlo;
    } else if ((m == SA_MEAN_CYCLES || m == SA_CYCLES_PER_BYTE) && d) {
        double per = m == SA_CYCLES_PER_BYTE ? (double)c->size : 1.0;
        x.v = mean / per;
        x.lo = x.v * rlo;
        x.hi = x.v * rhi;
    }
    return x;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* How cycles metrics are compared on S with F's clock. */
typedef enum { CY_DIRECT, CY_TIME, CY_RATIO } cycles_mode;

static int add_check(sa_result *r, const sa_check *c)
{
    sa_check *g = realloc(r->checks, (r->nchecks + 1) * sizeof *g);
    if (!g)
        return -1;
    r->checks = g;
    r->checks[r->nchecks++] = *c;
    r->flagged += c->flagged;
    return 0;
}

int sa_hold(const sa_file *f, const report_system *s, sa_result *out, hb_err *err)
{
    memset(out, 0, sizeof *out);
    out->system = s->name;
    out->file = f->path;
    const char **cands = calloc(f->n + 1, sizeof *cands);
    double *ratios = calloc(2 * f->n + 1, sizeof *ratios);
    if (!cands || !ratios) {
        free(cands);
        free(ratios);
        return hb_fail(err, "%s: out of memory", f->path);
    }
    int rc = 0;
    for (size_t i = 0; i < f->n && rc == 0; i++)
        rc = find_candidate(f, &f->claims[i], s, &cands[i], err);
    int is_cycles = 0;
    for (size_t i = 0; i < s->nrecs && !is_cycles; i++)
        is_cycles = json_is_true(json_object_get(
            json_object_get(json_object_get(s->recs[i].json, "environment"), "counter"),
            "is_cycles"));
    cycles_mode mode = is_cycles ? CY_DIRECT : isfinite(f->clock_hz) ? CY_TIME : CY_RATIO;
    /* the scale of each cycles metric in ratio mode: the median claimed /
     * measured ratio, which one wrong figure cannot move */
    double scale[2] = {NAN, NAN};
    size_t nscale[2] = {0, 0};
    for (int m = 0; m < 2 && rc == 0 && mode == CY_RATIO; m++) {
        size_t n = 0;
        for (size_t i = 0; i < f->n; i++) {
            measured x = measure_of(s, cands[i], &f->claims[i], (sa_metric)m);
            if (isfinite(f->claims[i].v[m]) && isfinite(x.v) && x.v > 0)
                ratios[n++] = f->claims[i].v[m] / x.v;
        }
        qsort(ratios, n, sizeof *ratios, cmp_double);
        nscale[m] = n;
        scale[m] = stats_quantile_sorted(ratios, n, 0.5);
    }
    for (size_t i = 0; i < f->n && rc == 0; i++) {
        const sa_claim *c = &f->claims[i];
        for (int m = 0; m < SA_NMETRICS && rc == 0; m++) {
            if (!isfinite(c->v[m]))
                continue;
            sa_check k = {cands[i], c->instance, c->size, (sa_metric)m, c->line, "", c->v[m],
                          NAN, NAN, NAN, NAN, 0, ""};
            measured x = measure_of(s, cands[i], c, (sa_metric)m);
            double prec = isfinite(c->prec[m]) ? c->prec[m] : 0;
            int cyc = m == SA_MEAN_CYCLES || m == SA_CYCLES_PER_BYTE;
            k.unit = m == SA_MEAN_CYCLES ? "cycles" : m == SA_CYCLES_PER_BYTE ? "cycles/byte"
                   : m == SA_MB_PER_S ? "MB/s" : m == SA_STATIC_BYTES ? "bytes" : "KiB";
            if (cyc && mode == CY_TIME && isfinite(x.v)) {
                /* the claim in time: cycles / clock; the record's time per call */
                const report_record *r = report_find_record(s, cands[i], c->instance, c->size);
                double ns = report_num(r->derived, "mean_ns_per_call");
                double per = m == SA_CYCLES_PER_BYTE ? (double)c->size : 1.0;
                double rel = prec / c->v[m] + f->clock_prec / f->clock_hz;
                k.claimed = c->v[m] / f->clock_hz * 1e9;
                prec = k.claimed * rel;
                double ratio = ns / per / x.v;
                x.v *= ratio, x.lo *= ratio, x.hi *= ratio;
                k.unit = m == SA_CYCLES_PER_BYTE ? "ns/byte" : "ns";
                k.note = "claimed cycles ÷ stated clock, against the measured time";
            } else if (cyc && mode == CY_RATIO && isfinite(x.v)) {
                if (nscale[m] < 3) {
                    k.note = "not judged: without a stated clock, claims compare as ratios "
                             "and this needs three or more of them";
                    x.lo = x.hi = NAN;
                } else {
                    x.v *= scale[m], x.lo *= scale[m], x.hi *= scale[m];
                    k.note = "as a ratio: the measured figure times the median claimed / "
                             "measured ratio";
                }
                k.unit = m == SA_CYCLES_PER_BYTE ? "cycles/byte (scaled)" : "cycles (scaled)";
            }
            k.measured = x.v;
            k.lo = x.lo;
            k.hi = x.hi;
            k.deviation = k.claimed / x.v - 1.0;
            if (!isfinite(x.v))
                k.note = m == SA_STATIC_BYTES ? "no static size in build.json"
                                              : "not measured at this size";
            else if (isfinite(x.lo) && isfinite(x.hi))
                k.flagged = k.claimed + prec < x.lo || k.claimed - prec > x.hi;
            if (add_check(out, &k) < 0)
                rc = hb_fail(err, "%s: out of memory", f->path);
        }
    }
    free(cands);
    free(ratios);
    if (rc < 0)
        sa_result_free(out);
    return rc;
}

void sa_result_free(sa_result *r)
{
    free(r->checks);
    memset(r, 0, sizeof *r);
}

/* ---- rendering ------------------------------------------------------ */

static char *fig(double v, char *out, size_t sz)
{
    if (!isfinite(v))
        snprintf(out, sz, "—");
    else if (fabs(v) >= 1e6)
        numfmt_count(v, out, sz);
    else if (fabs(v) >= 1e3)
        snprintf(out, sz, "%.0f", v);
    else
        snprintf(out, sz, "%.4g", v);
    return out;
}

static char *size_text(long long size, char *out, size_t sz)
{
    if (size < 0)
        snprintf(out, sz, "—");
    else
        numfmt_msg_size(size, out, sz);
    return out;
}

static char *interval_text(const sa_check *c, char *out, size_t sz)
{
    char a[NUMFMT_MAX], b[NUMFMT_MAX];
    if (!isfinite(c->lo))
        snprintf(out, sz, "—");
    else if (c->lo == c->hi)
        snprintf(out, sz, "exact");
    else
        snprintf(out, sz, "%s – %s", fig(c->lo, a, sizeof a), fig(c->hi, b, sizeof b));
    return out;
}

static const char *result_text(const sa_check *c)
{
    if (c->flagged)
        return "OUTSIDE";
    return isfinite(c->lo) ? "within" : "not judged";
}

static char *deviation_text(double d, char *out, size_t sz)
{
    if (isfinite(d))
        snprintf(out, sz, "%+.1f %%", d * 100.0);
    else
        snprintf(out, sz, "—");
    return out;
}

int sa_md(FILE *fp, const sa_result *r, const char *cand, int standalone, hb_err *err)
{
    char a[64], b[64], iv[160], size[NUMFMT_MAX], dev[32];
    if (standalone) {
        fputs("# Self-assessment held against ", fp);
        esc_md(fp, r->system);
        fputs("\n\nClaims read from ", fp);
        esc_md(fp, r->file);
        fputs(".", fp);
    }
    fputs(" Each claimed figure beside the one measured here, in a unit both share "
          "(cycles when the counter counts cycles; otherwise time, from the claimed "
          "cycles and the stated clock; without a clock, as ratios between the "
          "submitter's own figures). A claim is **OUTSIDE** when it lies outside the "
          "measured 95 % interval (peak memory: the range over the trials; static "
          "size: the exact figure), allowing for the digits it was written with.\n\n", fp);
    fputs("| Candidate | Instance | Message | Figure | Unit | Claimed | Measured | "
          "Interval | Deviation | Result |\n"
          "| --- | --- | ---: | --- | --- | ---: | ---: | ---: | ---: | --- |\n", fp);
    size_t rows = 0, flagged = 0;
    for (size_t i = 0; i < r->nchecks; i++) {
        const sa_check *c = &r->checks[i];
        if (cand && strcmp(cand, c->candidate))
            continue;
        rows++;
        flagged += c->flagged;
        fputs("| ", fp);
        esc_md(fp, c->candidate);
        fputs(" | ", fp);
        esc_md(fp, c->instance);
        fprintf(fp, " | %s | %s | ", size_text(c->size, size, sizeof size),
                sa_metric_name(c->metric));
        esc_md(fp, c->unit);
        fprintf(fp, " | %s | %s | %s | %s | %s%s%s |\n", fig(c->claimed, a, sizeof a),
                fig(c->measured, b, sizeof b), interval_text(c, iv, sizeof iv),
                deviation_text(c->deviation, dev, sizeof dev), c->flagged ? "**" : "",
                result_text(c), c->flagged ? "**" : "");
    }
    fprintf(fp, "\n%zu claimed figure%s, %zu outside the measured interval.\n\n", rows,
            rows == 1 ? "" : "s", flagged);
    if (ferror(fp))
        return hb_fail(err, "self-assessment table: write error");
    return 0;
}

void sa_print_text(FILE *fp, const sa_result *r)
{
    char a[64], b[64], iv[160], size[NUMFMT_MAX], dev[32], name[600];
    fprintf(fp, "self-assessment %s against %s\n\n", r->file, r->system);
    fprintf(fp, "%-32s %8s %-12s %-20s %10s %10s %21s %9s  %s\n", "instance", "message",
            "figure", "unit", "claimed", "measured", "interval", "deviation", "result");
    for (size_t i = 0; i < r->nchecks; i++) {
        const sa_check *c = &r->checks[i];
        snprintf(name, sizeof name, "%s / %s", c->candidate, c->instance);
        fprintf(fp, "%-32s %8s %-12s %-20s %10s %10s %21s %9s  %s\n", name,
                size_text(c->size, size, sizeof size), sa_metric_name(c->metric), c->unit,
                fig(c->claimed, a, sizeof a), fig(c->measured, b, sizeof b),
                interval_text(c, iv, sizeof iv), deviation_text(c->deviation, dev, sizeof dev),
                result_text(c));
    }
}

int sa_write_pages(const char *out_dir, const sa_result *r, hb_err *err)
{
    char *md = NULL, *html = NULL, path[4096];
    size_t nmd = 0, nhtml = 0;
    int rc = hb_mkdirs(out_dir, err);
    FILE *f;
    if (rc == 0 && (f = open_memstream(&md, &nmd))) {
        rc = sa_md(f, r, NULL, 1, err);
        fclose(f);
    }
    html_page hp = {NULL, NULL, NULL, "self-assessment", "self-assessment", NULL, NULL,
                    NULL};
    if (rc == 0 && md && (f = open_memstream(&html, &nhtml))) {
        rc = html_render(f, &hp, md, nmd, err);
        fclose(f);
    }
    if (rc == 0 && (!md || !html))
        rc = hb_fail_errno(err, "%s: self-assessment page", out_dir);
    if (rc == 0 && hb_path_join(path, sizeof path, out_dir, "self-assessment.md", err) == 0)
        rc = hb_write_atomic(path, md, nmd, err);
    if (rc == 0 && hb_path_join(path, sizeof path, out_dir, "self-assessment.html", err) == 0)
        rc = hb_write_atomic(path, html, nhtml, err);
    free(md);
    free(html);
    return rc;
}

void sa_candidate_section(FILE *fp, const report_dataset *ds, const report_system *s,
                          const char *cand)
{
    sa_result r;
    hb_err err;
    if (!ds->self_assessment || sa_hold(ds->self_assessment, s, &r, &err) < 0)
        return;
    size_t mine = 0;
    for (size_t i = 0; i < r.nchecks; i++)
        mine += !strcmp(r.checks[i].candidate, cand);
    if (mine) {
        const char *slash = strrchr(r.file, '/');
        fputs("## 8 Self-assessment held against these figures\n\nThe submitter's own "
              "figures, from ", fp);
        esc_md(fp, slash ? slash + 1 : r.file);
        fputs(".", fp);
        sa_md(fp, &r, cand, 0, &err);
    }
    sa_result_free(&r);
}
