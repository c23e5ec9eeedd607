/* The CAVP `.rsp` reader (see rsp.h): reads one line at a time, gathers the
 * fields of a record until its digest line (MD or Output) and then checks the
 * record as a whole: a message length from Len, from the `[Input Length]`
 * header or from the hex, a Msg that holds exactly the bytes that length
 * needs, and an Output that matches Outputlen. Every fault names FILE:LINE. */
#include "kat/rsp.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/digest.h"
#include "common/fs.h"

struct rsp_reader {
    FILE *fp;
    char *path;
    long line;
    char *text;                       /* the current line (getline buffer) */
    size_t text_cap;
    unsigned char *msg, *md;          /* decoded fields of the record */
    size_t msg_cap, md_cap;
    int have_input_len;               /* [Input Length = N] seen */
    unsigned long long input_len;
    int have_hdr_outlen;              /* [Outputlen = N] seen */
    unsigned long long hdr_outlen;
};

/* The fields of the record being gathered. */
typedef struct rsp_pending {
    long start;                       /* first line of the record; 0 = none */
    int have_len, have_msg, have_outlen;
    unsigned long long len, outlen;
    size_t msg_hex_bytes;             /* bytes decoded from the Msg line */
    long msg_line;
} rsp_pending;

int rsp_open(const char *path, rsp_reader **out, hb_err *err)
{
    rsp_reader *r = calloc(1, sizeof *r);
    *out = NULL;
    if (r == NULL)
        return hb_fail(err, "%s: out of memory", path);
    r->path = strdup(path);
    if (r->path == NULL) {
        rsp_close(r);
        return hb_fail(err, "%s: out of memory", path);
    }
    r->fp = hb_open_limited(path, HB_LIMIT_VECTORS, "a vector file", err);
    if (r->fp == NULL) {
        rsp_close(r);
        return -1;
    }
    *out = r;
    return 0;
}

void rsp_close(rsp_reader *r)
{
    if (r == NULL)
        return;
    if (r->fp != NULL)
        fclose(r->fp);
    free(r->path);
    free(r->text);
    free(r->msg);
    free(r->md);
    free(r);
}

/* Strips leading and trailing blanks (CR included) in place. */
static char *rsp_trim(char *s)
{
    size_t n;
    while (isspace((unsigned char)*s))
        s++;
    n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Parses a decimal count; 0 on success, -1 when VALUE is not one. */
static int rsp_parse_count(const char *value, unsigned long long *out)
{
    char *end;
    if (!isdigit((unsigned char)value[0]))
        return -1;
    errno = 0;
    *out = strtoull(value, &end, 10);
    return (errno != 0 || *end != '\0') ? -1 : 0;
}

static int rsp_count_field(rsp_reader *r, const char *name, const char *value,
                           unsigned long long *out, hb_err *err)
{
    if (rsp_parse_count(value, out) != 0)
        return hb_fail_at(err, r->path, r->line,
                          "%s = '%s' is not a decimal number", name, value);
    return 0;
}

/* Decodes the hex VALUE of field NAME into *BUF (grown as needed). */
static int rsp_hex_field(rsp_reader *r, const char *name, const char *value,
                         unsigned char **buf, size_t *cap, size_t *bytes,
                         hb_err *err)
{
    size_t digits = strlen(value);
    if (digits % 2 != 0)
        return hb_fail_at(err, r->path, r->line,
                          "%s has an odd number of hex digits (%zu)", name, digits);
    if (*cap < digits / 2 + 1) {
        unsigned char *grown = realloc(*buf, digits / 2 + 1);
        if (grown == NULL)
            return hb_fail_at(err, r->path, r->line, "out of memory for %s", name);
        *buf = grown;
        *cap = digits / 2 + 1;
    }
    if (hb_hex_decode(value, digits, *buf) < 0) {
        size_t i = 0;
        while (isxdigit((unsigned char)value[i]))
            i++;
        return hb_fail_at(err, r->path, r->line,
                          "%s: '%c' at column %zu is not a hex digit", name,
                          value[i], i + 1);
    }
    *bytes = digits / 2;
    return 0;
}

static int rsp_unfinished(const rsp_reader *r, const rsp_pending *p, hb_err *err)
{
    return hb_fail_at(err, r->path, p->start,
                      "record has no MD (or Output) line; fix the record, or "
                      "use a ShortMsg, LongMsg or VariableOut file (a "
                      "Monte-Carlo file holds no list of known answers)");
}

/* A `[Name = value]` header; only Input Length and Outputlen matter. */
static int rsp_header(rsp_reader *r, char *line, hb_err *err)
{
    size_t n = strlen(line);
    char *eq, *name, *value;

    if (line[n - 1] != ']')
        return hb_fail_at(err, r->path, r->line, "header '%s' has no closing ']'", line);
    line[n - 1] = '\0';
    eq = strchr(line + 1, '=');
    if (eq == NULL)
        return 0;
    *eq = '\0';
    name = rsp_trim(line + 1);
    value = rsp_trim(eq + 1);
    if (strcasecmp(name, "Input Length") == 0) {
        r->have_input_len = 1;
        return rsp_count_field(r, name, value, &r->input_len, err);
    }
    if (strcasecmp(name, "Outputlen") == 0) {
        r->have_hdr_outlen = 1;
        return rsp_count_field(r, name, value, &r->hdr_outlen, err);
    }
    return 0;
}

/* Checks the gathered record once its digest (MD_BYTES in r->md) is read. */
static int rsp_finish(rsp_reader *r, const rsp_pending *p, size_t md_bytes,
                      rsp_record *rec, hb_err *err)
{
    unsigned long long len, need, outlen = 0;

    if (!p->have_msg)
        return hb_fail_at(err, r->path, r->line, "record has no Msg line");
    if (md_bytes == 0)
        return hb_fail_at(err, r->path, r->line, "the digest is empty");
    if (p->have_len)
        len = p->len;
    else if (r->have_input_len)
        len = r->input_len;
    else
        len = 8ull * p->msg_hex_bytes;
    need = len / 8 + (len % 8 ? 1 : 0);
    if (len != 0 && need != p->msg_hex_bytes)
        return hb_fail_at(err, r->path, p->msg_line,
                          "Msg has %zu bytes but a length of %llu bits needs %llu",
                          p->msg_hex_bytes, len, need);
    if (p->have_outlen)
        outlen = p->outlen;
    else if (r->have_hdr_outlen)
        outlen = r->hdr_outlen;
    if (outlen != 0 && outlen != 8ull * md_bytes)
        return hb_fail_at(err, r->path, r->line,
                          "the output has %zu bits but Outputlen = %llu",
                          8 * md_bytes, outlen);
    rec->len_bits = len;
    rec->msg = r->msg;
    rec->msg_bytes = len == 0 ? 0 : (size_t)need;
    rec->md = r->md;
    rec->md_bytes = md_bytes;
    rec->line = p->start;
    return 1;
}

/* One `Name = value` line; returns 1 when it completed a record. */
static int rsp_field(rsp_reader *r, rsp_pending *p, char *line,
                     rsp_record *rec, hb_err *err)
{
    char *eq = strchr(line, '=');
    char *name, *value;
    size_t md_bytes;
    int dup = 0;

    if (eq == NULL)
        return hb_fail_at(err, r->path, r->line,
                          "expected 'Name = value', a [header] or a # comment");
    *eq = '\0';
    name = rsp_trim(line);
    value = rsp_trim(eq + 1);
    if (p->start == 0)
        p->start = r->line;
    if (strcasecmp(name, "Len") == 0) {
        dup = p->have_len;
        p->have_len = 1;
        if (!dup && rsp_count_field(r, name, value, &p->len, err) < 0)
            return -1;
    } else if (strcasecmp(name, "Msg") == 0) {
        dup = p->have_msg;
        p->have_msg = 1;
        p->msg_line = dup ? p->msg_line : r->line;
        if (!dup && rsp_hex_field(r, name, value, &r->msg, &r->msg_cap,
                                  &p->msg_hex_bytes, err) < 0)
            return -1;
    } else if (strcasecmp(name, "Outputlen") == 0) {
        dup = p->have_outlen;
        p->have_outlen = 1;
        if (!dup && rsp_count_field(r, name, value, &p->outlen, err) < 0)
            return -1;
    } else if (strcasecmp(name, "MD") == 0 || strcasecmp(name, "Output") == 0) {
        if (rsp_hex_field(r, name, value, &r->md, &r->md_cap, &md_bytes, err) < 0)
            return -1;
        return rsp_finish(r, p, md_bytes, rec, err);
    } else if (strcasecmp(name, "COUNT") == 0) {
        unsigned long long count;
        if (p->have_len || p->have_msg || p->have_outlen)
            return rsp_unfinished(r, p, err);
        p->start = r->line;
        return rsp_count_field(r, name, value, &count, err);
    } else if (strcasecmp(name, "Seed") == 0) {
        return hb_fail_at(err, r->path, r->line,
                          "a Monte-Carlo file (Seed line) holds no list of known "
                          "answers; use the ShortMsg, LongMsg or VariableOut files");
    } else {
        return hb_fail_at(err, r->path, r->line,
                          "unknown field '%s' (expected Len, Msg, MD, COUNT, "
                          "Outputlen or Output)", name);
    }
    if (dup)
        return hb_fail_at(err, r->path, r->line,
                          "a second %s line in one record (the record above has "
                          "no MD line?)", name);
    return 0;
}

int rsp_next(rsp_reader *r, rsp_record *rec, hb_err *err)
{
    rsp_pending p;
    memset(&p, 0, sizeof p);
    for (;;) {
        ssize_t got;
        char *line;
        int rc;

        errno = 0;
        got = getline(&r->text, &r->text_cap, r->fp);
        if (got < 0) {
            if (ferror(r->fp))
                return hb_fail_errno(err, "%s:%ld: read error", r->path, r->line + 1);
            if (p.have_len || p.have_msg || p.have_outlen)
                return rsp_unfinished(r, &p, err);
            return 0;
        }
        r->line++;
        if ((size_t)got != strlen(r->text))
            return hb_fail_at(err, r->path, r->line, "NUL byte in a text file");
        line = rsp_trim(r->text);
        if (line[0] == '#')
            continue;
        if (line[0] == '\0' || line[0] == '[') {
            if (p.have_len || p.have_msg || p.have_outlen)
                return rsp_unfinished(r, &p, err);
            p.start = 0;
            if (line[0] == '[' && rsp_header(r, line, err) < 0)
                return -1;
            continue;
        }
        rc = rsp_field(r, &p, line, rec, err);
        if (rc != 0)
            return rc;
    }
}
