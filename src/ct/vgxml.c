/* Valgrind XML reading: see vgxml.h. A streaming expat parser keeps the
 * path of open elements and the text of the current leaf; an <error> is
 * turned into a finding when it ends, and <errorcounts> adds each unique
 * error's count to its finding at the end. */
#include "ct/vgxml.h"

#include <errno.h>
#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VG_DEPTH 16
#define VG_TEXT 1024
#define VG_FRAMES 32
#define VG_MAX_UNIQUE 4096

typedef struct vg_frame {
    char obj[512], fn[256], dir[512], file[256];
    long line;
} vg_frame;

typedef struct vg_parse {
    ct_vgxml *out;
    const char *object;
    char path[VG_DEPTH][32];
    int depth;
    char text[VG_TEXT];
    size_t text_len;
    /* the error being read */
    char kind[64], what[256], unique[32];
    vg_frame frames[VG_FRAMES];
    int nframes, stacks;
    /* errorcounts */
    char pair_unique[32];
    long pair_count;
    /* unique id -> finding index (or -1: not a finding) */
    char uniq_id[VG_MAX_UNIQUE][20];
    int uniq_finding[VG_MAX_UNIQUE];
    int nuniq;
    int failed;
} vg_parse;

static int at(const vg_parse *p, int depth, const char *name)
{
    return p->depth > depth && strcmp(p->path[depth], name) == 0;
}

/* Copies SRC into DST (CAP bytes), cut when longer. */
static void copy(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static void on_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
    vg_parse *p = ud;
    (void)attrs;
    if (p->depth < VG_DEPTH)
        copy(p->path[p->depth], sizeof p->path[0], name);
    p->depth++;
    p->text_len = 0;
    p->text[0] = '\0';
    if (p->depth == 2 && strcmp(name, "error") == 0) {
        p->kind[0] = p->what[0] = p->unique[0] = '\0';
        p->nframes = p->stacks = 0;
    } else if (p->depth == 3 && at(p, 1, "error") && strcmp(name, "stack") == 0) {
        p->stacks++;
    } else if (p->depth == 4 && at(p, 1, "error") && p->stacks == 1 &&
               strcmp(name, "frame") == 0 && p->nframes < VG_FRAMES) {
        memset(&p->frames[p->nframes], 0, sizeof p->frames[0]);
        p->nframes++;
    } else if (p->depth == 2 && strcmp(name, "fatal_signal") == 0) {
        p->out->fatal_signal = 1;
    }
}

static void on_text(void *ud, const XML_Char *s, int len)
{
    vg_parse *p = ud;
    size_t room = sizeof p->text - 1 - p->text_len;
    size_t n = (size_t)len < room ? (size_t)len : room;
    memcpy(p->text + p->text_len, s, n);
    p->text_len += n;
    p->text[p->text_len] = '\0';
}

static const vg_frame *location(const vg_parse *p)
{
    for (int i = 0; i < p->nframes; i++)
        if (strcmp(p->frames[i].obj, p->object) == 0)
            return &p->frames[i];
    return p->nframes ? &p->frames[0] : NULL;
}

static int same(const json_t *f, const char *kind, const vg_frame *fr)
{
    const char *k = json_string_value(json_object_get(f, "kind"));
    const char *file = json_string_value(json_object_get(f, "file"));
    const char *fn = json_string_value(json_object_get(f, "function"));
    const char *obj = json_string_value(json_object_get(f, "object"));
    const char *dir = json_string_value(json_object_get(f, "dir"));
    long line = (long)json_integer_value(json_object_get(f, "line"));
    if (!k || !file || !fn || !obj || !dir || strcmp(k, kind) != 0 ||
        strcmp(obj, fr->obj) != 0)
        return 0;
    if (fr->file[0]) /* located by source line */
        return strcmp(file, fr->file) == 0 && strcmp(dir, fr->dir) == 0 && line == fr->line;
    return !file[0] && strcmp(fn, fr->fn) == 0; /* by function */
}

static void end_error(vg_parse *p)
{
    const char *kind = strcmp(p->kind, "UninitCondition") == 0 ? "branch"
                     : strcmp(p->kind, "UninitValue") == 0 ? "memory_index" : NULL;
    int idx = -1;
    const vg_frame *fr = kind ? location(p) : NULL;
    if (!fr) {
        p->out->other_errors++;
    } else {
        size_t i;
        json_t *f;
        json_array_foreach(p->out->findings, i, f)
            if (same(f, kind, fr))
                idx = (int)i;
        if (idx < 0) {
            const vg_frame *top = &p->frames[0];
            json_t *nf = json_pack("{s:s, s:s, s:s, s:I, s:s, s:s, s:s, s:s, s:I}",
                "kind", kind, "dir", fr->dir, "file", fr->file, "line", (json_int_t)(fr->file[0] ? fr->line : 0),
                "function", fr->fn, "object", fr->obj,
                "via", top != fr ? (top->fn[0] ? top->fn : top->obj) : "",
                "what", p->what, "count", (json_int_t)0);
            if (!nf || json_array_append_new(p->out->findings, nf) != 0) {
                p->failed = 1;
                return;
            }
            idx = (int)json_array_size(p->out->findings) - 1;
        }
    }
    if (p->nuniq < VG_MAX_UNIQUE) {
        copy(p->uniq_id[p->nuniq], sizeof p->uniq_id[0], p->unique);
        p->uniq_finding[p->nuniq++] = idx;
    }
}

static void end_pair(vg_parse *p)
{
    for (int i = 0; i < p->nuniq; i++) {
        if (strcmp(p->uniq_id[i], p->pair_unique) != 0 || p->uniq_finding[i] < 0)
            continue;
        json_t *f = json_array_get(p->out->findings, (size_t)p->uniq_finding[i]);
        json_int_t c = json_integer_value(json_object_get(f, "count"));
        json_object_set_new(f, "count", json_integer(c + p->pair_count));
    }
}

static void on_end(void *ud, const XML_Char *name)
{
    vg_parse *p = ud;
    int d = p->depth - 1; /* index of the closing element */
    const char *t = p->text;
    if (d == 2 && at(p, 1, "error")) {
        if (strcmp(name, "kind") == 0)
            copy(p->kind, sizeof p->kind, t);
        else if (strcmp(name, "what") == 0)
            copy(p->what, sizeof p->what, t);
        else if (strcmp(name, "unique") == 0)
            copy(p->unique, sizeof p->unique, t);
    } else if (d == 4 && at(p, 1, "error") && at(p, 3, "frame") && p->stacks == 1 &&
               p->nframes > 0 && p->nframes <= VG_FRAMES) {
        vg_frame *f = &p->frames[p->nframes - 1];
        if (strcmp(name, "obj") == 0)
            copy(f->obj, sizeof f->obj, t);
        else if (strcmp(name, "fn") == 0)
            copy(f->fn, sizeof f->fn, t);
        else if (strcmp(name, "dir") == 0)
            copy(f->dir, sizeof f->dir, t);
        else if (strcmp(name, "file") == 0)
            copy(f->file, sizeof f->file, t);
        else if (strcmp(name, "line") == 0)
            f->line = strtol(t, NULL, 10);
    } else if (d == 1 && strcmp(name, "error") == 0) {
        end_error(p);
    } else if (d == 2 && at(p, 1, "fatal_signal") && strcmp(name, "signame") == 0) {
        copy(p->out->signame, sizeof p->out->signame, t);
    } else if (d == 2 && at(p, 1, "status") && strcmp(name, "state") == 0) {
        if (strcmp(t, "FINISHED") == 0)
            p->out->finished = 1;
    } else if (d == 2 && at(p, 1, "preamble") && strcmp(name, "line") == 0) {
        const char *u = strstr(t, "Valgrind-");
        if (u && !p->out->valgrind[0]) {
            size_t n = strcspn(u, " \t");
            snprintf(p->out->valgrind, sizeof p->out->valgrind, "%.*s", (int)n, u);
        }
    } else if (d == 3 && at(p, 1, "errorcounts") && at(p, 2, "pair")) {
        if (strcmp(name, "unique") == 0)
            copy(p->pair_unique, sizeof p->pair_unique, t);
        else if (strcmp(name, "count") == 0)
            p->pair_count = strtol(t, NULL, 10);
    } else if (d == 2 && at(p, 1, "errorcounts") && strcmp(name, "pair") == 0) {
        end_pair(p);
        p->pair_unique[0] = '\0';
        p->pair_count = 0;
    }
    p->depth--;
    p->text_len = 0;
    p->text[0] = '\0';
}

int ct_vgxml_parse(const char *path, const char *object, unsigned long long limit,
                   ct_vgxml *out, hb_err *err)
{
    memset(out, 0, sizeof *out);
    out->findings = json_array();
    vg_parse *p = calloc(1, sizeof *p);
    FILE *fp = fopen(path, "rb");
    XML_Parser xp = XML_ParserCreate(NULL);
    int rc = 0;
    if (!out->findings || !p || !xp) {
        rc = hb_fail(err, "out of memory reading %s", path);
        goto done;
    }
    if (!fp) {
        rc = hb_fail_errno(err, "%s: cannot read Valgrind's XML output", path);
        goto done;
    }
    p->out = out;
    p->object = object;
    XML_SetUserData(xp, p);
    XML_SetElementHandler(xp, on_start, on_end);
    XML_SetCharacterDataHandler(xp, on_text);
    char buf[65536];
    unsigned long long total = 0;
    for (;;) {
        size_t n = fread(buf, 1, sizeof buf, fp);
        total += n;
        if (total > limit) {
            rc = hb_fail(err, "%s: more than %llu bytes of Valgrind output; the library "
                         "causes too many distinct errors to list", path, limit);
            goto done;
        }
        int last = n < sizeof buf;
        if (XML_Parse(xp, buf, (int)n, last) == XML_STATUS_ERROR) {
            rc = hb_fail_at(err, path, (long)XML_GetCurrentLineNumber(xp),
                            "malformed Valgrind XML (%s)",
                            XML_ErrorString(XML_GetErrorCode(xp)));
            goto done;
        }
        if (p->failed) {
            rc = hb_fail(err, "out of memory reading %s", path);
            goto done;
        }
        if (last)
            break;
    }
done:
    if (xp)
        XML_ParserFree(xp);
    if (fp)
        fclose(fp);
    free(p);
    if (rc != 0)
        ct_vgxml_free(out);
    return rc;
}

void ct_vgxml_free(ct_vgxml *x)
{
    json_decref(x->findings);
    x->findings = NULL;
}
