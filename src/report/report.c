/* report_site: loads the dataset once and writes every page in Markdown, its
 * chart in SVG and the HTML rendering beside it. Pages are built in memory
 * streams and written with hb_write_atomic. See report.h. */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>
#include "common/fs.h"
#include "dataset/dataset.h"
#include "report/esc.h"
#include "report/html.h"
#include "dataset/paths.h"
#include "dataset/notes.h"
#include "report/pages.h"
#include "report/selfassess.h"
#include "report/site_compare.h"

typedef struct page_job {
    const report_dataset *ds;
    const report_system *sys; /* NULL for the index */
    const char *cand;         /* NULL unless a candidate page */
    const char *dir;          /* output folder of the page */
    const char *stem;         /* file stem */
    const char *label;        /* breadcrumb label */
    int (*md)(FILE *fp, const struct page_job *j, const char *ext, hb_err *err);
    int (*svg)(FILE *fp, const struct page_job *j, hb_err *err); /* NULL: no chart */
    const site_comparison *cmp; /* the index: comparisons it lists */
    size_t ncmp;
} page_job;

/* A page under construction: a memory stream and the buffer it fills. */
typedef struct mem_text {
    char *text;
    size_t len;
    FILE *fp;
} mem_text;

static int mem_open(mem_text *m, hb_err *err)
{
    m->text = NULL;
    m->len = 0;
    m->fp = open_memstream(&m->text, &m->len);
    return m->fp ? 0 : hb_fail_errno(err, "open_memstream");
}

static void mem_close(mem_text *m)
{
    if (m->fp)
        fclose(m->fp);
    m->fp = NULL;
}

static int save(const char *dir, const char *stem, const char *suffix,
                const mem_text *m, hb_err *err)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s%s", dir, stem, suffix) >= (int)sizeof path)
        return hb_fail(err, "%s/%s%s: path too long", dir, stem, suffix);
    return hb_write_atomic(path, m->text, m->len, err);
}

static int run_job(const page_job *j, hb_err *err)
{
    mem_text md = {0}, mdh = {0}, svg = {0}, html = {0};
    char svg_name[512];
    int rc = mem_open(&md, err);
    if (rc == 0)
        rc = j->md(md.fp, j, ".md", err);
    mem_close(&md);
    if (rc == 0 && (rc = mem_open(&mdh, err)) == 0)
        rc = j->md(mdh.fp, j, ".html", err);
    mem_close(&mdh);
    if (rc == 0 && j->svg && (rc = mem_open(&svg, err)) == 0)
        rc = j->svg(svg.fp, j, err);
    mem_close(&svg);
    snprintf(svg_name, sizeof svg_name, "%s.svg", j->stem);
    html_page hp = {j->ds, j->sys, j->cand, j->label, j->stem,
                    j->svg ? svg_name : NULL, svg.text, NULL};
    if (rc == 0 && (rc = mem_open(&html, err)) == 0)
        rc = html_render(html.fp, &hp, mdh.text, mdh.len, err);
    mem_close(&html);
    if (rc == 0)
        rc = save(j->dir, j->stem, ".md", &md, err);
    if (rc == 0 && j->svg)
        rc = save(j->dir, j->stem, ".svg", &svg, err);
    if (rc == 0)
        rc = save(j->dir, j->stem, ".html", &html, err);
    free(md.text);
    free(mdh.text);
    free(svg.text);
    free(html.text);
    return rc;
}

static int md_candidate(FILE *fp, const page_job *j, const char *ext, hb_err *err)
{
    return pages_candidate_md(fp, j->ds, j->sys, j->cand, ext, err);
}

static int svg_candidate(FILE *fp, const page_job *j, hb_err *err)
{
    return pages_candidate_svg(fp, j->sys, j->cand, err);
}

static int md_summary(FILE *fp, const page_job *j, const char *ext, hb_err *err)
{
    return pages_summary_md(fp, j->sys, ext, err);
}

static int svg_summary(FILE *fp, const page_job *j, hb_err *err)
{
    return pages_summary_svg(fp, j->sys, err);
}

static int md_method(FILE *fp, const page_job *j, const char *ext, hb_err *err)
{
    return pages_method_md(fp, j->sys, ext, err);
}

static int svg_method(FILE *fp, const page_job *j, hb_err *err)
{
    return pages_method_svg(fp, j->sys, err);
}

/* The candidate's instruction-count curve, DIR/<STEM>_count.svg, when the
 * system has one for an instance of CAND (the page links it). */
static int count_curve_svg(const report_system *s, const char *cand, const char *dir,
                           const char *stem, hb_err *err)
{
    mem_text m = {0};
    char name[300];
    if (!pages_count_has_curve(s, cand))
        return 0;
    snprintf(name, sizeof name, "%s" PAGES_COUNT_CURVE_SUFFIX, stem);
    int rc = mem_open(&m, err);
    if (rc == 0 && pages_count_curve_svg(m.fp, s, cand) != 0)
        rc = hb_fail(err, "%s: write error", name);
    mem_close(&m);
    if (rc == 0)
        rc = save(dir, name, ".svg", &m, err);
    free(m.text);
    return rc;
}

static int md_index(FILE *fp, const page_job *j, const char *ext, hb_err *err)
{
    if (pages_index_md(fp, j->ds, ext, err) < 0)
        return -1;
    site_compare_index(fp, j->cmp, j->ncmp, ext);
    return ferror(fp) ? hb_fail(err, "index: write error") : 0;
}

static int system_pages(const report_dataset *ds, const report_system *s,
                        const char *out_dir, hb_err *err)
{
    char dir[4096], stem[256];
    esc_file_component(s->name, stem, sizeof stem);
    if (snprintf(dir, sizeof dir, "%s/%s", out_dir, stem) >= (int)sizeof dir)
        return hb_fail(err, "%s: path too long", out_dir);
    if (hb_mkdirs(dir, err) < 0)
        return -1;
    page_job summary = {ds, s, NULL, dir, "summary", "summary", md_summary, svg_summary,
                        NULL, 0};
    page_job method = {ds, s, NULL, dir, "method", "method", md_method, svg_method, NULL, 0};
    if (run_job(&summary, err) < 0 || run_job(&method, err) < 0)
        return -1;
    size_t i;
    json_t *c;
    json_array_foreach(s->candidates, i, c) {
        char cstem[256];
        pages_candidate_stem(json_string_value(c), cstem, sizeof cstem);
        page_job job = {ds, s, json_string_value(c), dir, cstem, json_string_value(c),
                        md_candidate, svg_candidate, NULL, 0};
        if (run_job(&job, err) < 0 || count_curve_svg(s, json_string_value(c), dir, cstem,
                                                      err) < 0)
            return -1;
    }
    return 0;
}

int report_site(const char *data_dir, const char *out_dir, hb_err *err)
{
    return report_site_opts(data_dir, out_dir, NULL, err);
}

int report_site_sa(const char *data_dir, const char *out_dir, const char *sa_path,
                   hb_err *err)
{
    report_options opt = {sa_path, NULL, 0, NULL};
    return report_site_opts(data_dir, out_dir, &opt, err);
}

/* Loads SA_PATH into SA and holds it against every system of DS once, so
 * that a bad file stops the report before any page is written. */
static int load_self_assessment(const char *sa_path, report_dataset *ds, sa_file *sa,
                                hb_err *err)
{
    if (sa_load(sa_path, sa, err) < 0)
        return -1;
    for (size_t i = 0; i < ds->nsys; i++) {
        sa_result r;
        if (sa_hold(sa, &ds->sys[i], &r, err) < 0) {
            sa_free(sa);
            return -1;
        }
        sa_result_free(&r);
    }
    ds->self_assessment = sa;
    return 0;
}

/* Each system's own notes must parse and name its instances. */
static int check_own_notes(const report_dataset *ds, hb_err *err)
{
    for (size_t i = 0; i < ds->nsys; i++) {
        const report_system *s = &ds->sys[i];
        long line = 0;
        const char *who;
        if (s->notes_error)
            return hb_fail(err, "%s; fix the file, or give another with --notes",
                           s->notes_error);
        if ((who = report_notes_stranger(s, s->notes, &line)) != NULL)
            return hb_fail_at(err, s->notes_file, line, "[%s]: %s has no such instance; "
                              "name CANDIDATE/INSTANCE as its pages do, or remove the "
                              "section", who, s->name);
    }
    return 0;
}

/* NOTES_PATH in place of every system's notes; each of its sections must
 * name an instance of some system. */
static int use_notes(const char *notes_path, report_dataset *ds, hb_err *err)
{
    json_t *notes;
    if (notes_load(notes_path, &notes, err) < 0)
        return -1;
    const char *key;
    json_t *v;
    json_object_foreach(notes, key, v) {
        int known = 0;
        for (size_t i = 0; i < ds->nsys && !known; i++) {
            json_t *one = json_object();
            long line;
            json_object_set(one, key, v);
            known = report_notes_stranger(&ds->sys[i], one, &line) == NULL;
            json_decref(one);
        }
        if (!known) {
            hb_fail_at(err, notes_path, (long)json_integer_value(json_object_get(v, "line")),
                       "[%s]: no system of the dataset has such an instance; name "
                       "CANDIDATE/INSTANCE as its pages do, or remove the section", key);
            json_decref(notes);
            return -1;
        }
    }
    for (size_t i = 0; i < ds->nsys; i++) {
        report_system *s = &ds->sys[i];
        json_decref(s->notes);
        s->notes = json_incref(notes);
        free(s->notes_file);
        s->notes_file = strdup(notes_path);
        free(s->notes_error);
        s->notes_error = NULL;
    }
    json_decref(notes);
    return 0;
}

/* Loads the N comparisons of DIRS into CMP (caller's array of N). */
static int load_comparisons(const char *const *dirs, size_t n, site_comparison *cmp,
                            hb_err *err)
{
    for (size_t i = 0; i < n; i++) {
        if (site_compare_load(dirs[i], &cmp[i], err) < 0) {
            while (i-- > 0)
                site_compare_free(&cmp[i]);
            return -1;
        }
    }
    if (site_compare_names_distinct(cmp, n, err) < 0) {
        for (size_t i = 0; i < n; i++)
            site_compare_free(&cmp[i]);
        return -1;
    }
    return 0;
}

int report_site_opts(const char *data_dir, const char *out_dir, const report_options *opt,
                     hb_err *err)
{
    report_options none = {NULL, NULL, 0, NULL};
    report_dataset ds;
    sa_file sa = {0};
    if (!opt)
        opt = &none;
    site_comparison *cmp = calloc(opt->ncompare ? opt->ncompare : 1, sizeof *cmp);
    if (!cmp)
        return hb_fail(err, "report: out of memory");
    if (load_comparisons(opt->compare_dirs, opt->ncompare, cmp, err) < 0) {
        free(cmp);
        return -1;
    }
    int rc = report_dataset_load(data_dir, &ds, err);
    if (rc == 0 && ((opt->notes_path ? use_notes(opt->notes_path, &ds, err)
                                     : check_own_notes(&ds, err)) < 0 ||
                    report_check_paths(&ds, err) < 0 ||
                    (opt->sa_path && load_self_assessment(opt->sa_path, &ds, &sa, err) < 0))) {
        report_dataset_free(&ds);
        rc = -1;
    }
    if (rc == 0) {
        rc = hb_mkdirs(out_dir, err);
        for (size_t i = 0; i < ds.nsys && rc == 0; i++)
            rc = system_pages(&ds, &ds.sys[i], out_dir, err);
        for (size_t i = 0; i < opt->ncompare && rc == 0; i++)
            rc = site_compare_install(&cmp[i], out_dir, err);
        page_job index = {&ds, NULL, NULL, out_dir, "index", "index", md_index, NULL,
                          cmp, opt->ncompare};
        if (rc == 0)
            rc = run_job(&index, err);
        report_dataset_free(&ds);
        if (opt->sa_path)
            sa_free(&sa);
    }
    for (size_t i = 0; i < opt->ncompare; i++)
        site_compare_free(&cmp[i]);
    free(cmp);
    return rc;
}
