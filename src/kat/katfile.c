/* KAT text files: see katfile.h. The writer composes each line in its own
 * buffer, writes it raw and hashes its canonical form; the reader uses
 * getline so a submitted file with very long lines still streams. */
#include "kat/katfile.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

size_t kat_canon_line(char *line, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (line[i] != '\r')
            line[n++] = line[i];
    while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
        n--;
    line[n] = '\0';
    return n;
}

/* ---- writer ---- */

int kat_writer_open(kat_writer *w, const char *path, hb_err *err)
{
    w->canon = hb_sha256_new();
    if (!w->canon)
        return hb_fail(err, "%s: out of memory", path);
    if (hb_atomic_open(&w->out, path, err) != 0) {
        char junk[HB_SHA256_HEX];
        hb_sha256_final_hex(w->canon, junk);
        w->canon = NULL;
        return -1;
    }
    return 0;
}

/* Writes w->line (LEN bytes) plus LF and hashes its canonical form. */
static int emit(kat_writer *w, size_t len, hb_err *err)
{
    w->line[len] = '\n';
    if (fwrite(w->line, 1, len + 1, w->out.fp) != len + 1)
        return hb_fail_errno(err, "%s: cannot write", w->out.tmp);
    size_t n = kat_canon_line(w->line, len);
    if (n) {
        w->line[n] = '\n';
        hb_sha256_update(w->canon, w->line, n + 1);
    }
    return 0;
}

static int emit_fmt(kat_writer *w, hb_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int emit_fmt(kat_writer *w, hb_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(w->line, sizeof w->line - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof w->line - 1)
        return hb_fail(err, "%s: KAT line too long", w->out.path);
    return emit(w, (size_t)n, err);
}

/* "KEY = " followed by the hex of BYTES bytes (the last one masked to its
 * top BITS%8 bits when BITS is not a whole number of bytes). */
static int emit_hex(kat_writer *w, const char *key, const unsigned char *bytes,
                    unsigned long long bits, hb_err *err)
{
    size_t nbytes = (size_t)((bits + 7) / 8);
    size_t klen = strlen(key);
    if (klen + 3 + 2 * nbytes >= sizeof w->line)
        return hb_fail(err, "%s: %s of %zu bytes is too long to print",
                       w->out.path, key, nbytes);
    memcpy(w->line, key, klen);
    memcpy(w->line + klen, " = ", 3);
    char *hex = w->line + klen + 3;
    hb_hex_encode(bytes, nbytes, hex, 1);
    if (bits % 8) {
        unsigned char last = bytes[nbytes - 1] & (unsigned char)(0xFF << (8 - bits % 8));
        hb_hex_encode(&last, 1, hex + 2 * (nbytes - 1), 1);
    }
    return emit(w, klen + 3 + 2 * nbytes, err);
}

static int emit_digest(kat_writer *w, const unsigned char *digest, int digest_bits,
                       hb_err *err)
{
    if (emit_fmt(w, err, "Dst_Len = %d", digest_bits) != 0 ||
        emit_hex(w, "Dst", digest, (unsigned long long)digest_bits, err) != 0)
        return -1;
    return emit(w, 0, err);
}

int kat_writer_record(kat_writer *w, const unsigned char *msg,
                      unsigned long long bits, const unsigned char *digest,
                      int digest_bits, hb_err *err)
{
    if (emit_fmt(w, err, "Msg_Len = %llu", bits) != 0 ||
        emit_hex(w, "Msg", msg, bits, err) != 0)
        return -1;
    return emit_digest(w, digest, digest_bits, err);
}

int kat_writer_long_record(kat_writer *w, unsigned long long bits,
                           const char *seed_hex, const unsigned char first8[8],
                           const unsigned char last8[8],
                           const unsigned char *digest, int digest_bits,
                           hb_err *err)
{
    char a[17], b[17];
    hb_hex_encode(first8, 8, a, 1);
    hb_hex_encode(last8, 8, b, 1);
    if (emit_fmt(w, err, "Msg_Len = %llu", bits) != 0 ||
        emit_fmt(w, err, "Msg_Seed = %s", seed_hex) != 0 ||
        emit_fmt(w, err, "Msg_Exp = %s .... %s", a, b) != 0)
        return -1;
    return emit_digest(w, digest, digest_bits, err);
}

int kat_writer_close(kat_writer *w, char sha256[HB_SHA256_HEX], hb_err *err)
{
    hb_sha256_final_hex(w->canon, sha256);
    w->canon = NULL;
    return hb_atomic_commit(&w->out, err);
}

void kat_writer_abort(kat_writer *w)
{
    if (w->canon) {
        char junk[HB_SHA256_HEX];
        hb_sha256_final_hex(w->canon, junk);
        w->canon = NULL;
    }
    hb_atomic_abort(&w->out);
}

/* ---- reader ---- */

int kat_reader_open(kat_reader *r, const char *path, hb_err *err)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->fp = hb_open_limited(path, HB_LIMIT_VECTORS, "a KAT text file", err);
    return r->fp ? 0 : -1;
}

int kat_reader_next(kat_reader *r, const char **line, size_t *len, hb_err *err)
{
    for (;;) {
        errno = 0;
        ssize_t n = getline(&r->buf, &r->cap, r->fp);
        if (n < 0) {
            if (ferror(r->fp))
                return hb_fail_errno(err, "%s:%ld: cannot read", r->path, r->lineno + 1);
            return 0;
        }
        r->lineno++;
        if (n > 0 && r->buf[n - 1] == '\n')
            n--;
        if (memchr(r->buf, '\0', (size_t)n))
            return hb_fail_at(err, r->path, r->lineno, "NUL byte in a text line; "
                              "a KAT file is plain text: repair or replace it");
        size_t c = kat_canon_line(r->buf, (size_t)n);
        if (c) {
            *line = r->buf;
            *len = c;
            return 1;
        }
    }
}

void kat_reader_close(kat_reader *r)
{
    if (r->fp)
        fclose(r->fp);
    free(r->buf);
    memset(r, 0, sizeof *r);
}

/* ---- record structure ---- */

enum { G_LEN, G_MSG, G_EXP, G_DLEN, G_DST };
static const char *const g_expect[] = {
    "Msg_Len = <bits>", "Msg = <hex> or Msg_Seed = <128 hex digits, or none>",
    "Msg_Exp = <hex> .... <hex>",
    "Dst_Len = <bits>", "Dst = <hex>"};

/* Splits "KEY = VALUE" (VALUE may be empty); returns 0 when KEY matches. */
static int key_is(const char *line, const char *key, const char **value)
{
    size_t k = strlen(key);
    if (strncmp(line, key, k) != 0)
        return -1;
    const char *p = line + k;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != '=')
        return -1;
    p++;
    while (*p == ' ' || *p == '\t')
        p++;
    *value = p;
    return 0;
}

static int parse_u64(const char *s, unsigned long long *out)
{
    if (!isdigit((unsigned char)*s))
        return -1;
    char *end = NULL;
    errno = 0;
    *out = strtoull(s, &end, 10);
    return errno || *end ? -1 : 0;
}

static int is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

static int check_msg_exp(const char *v)
{
    return strlen(v) == 16 + 6 + 16 && is_hex(v, 16) &&
           strncmp(v + 16, " .... ", 6) == 0 && is_hex(v + 22, 16);
}

void kat_grammar_init(kat_grammar *g)
{
    memset(g, 0, sizeof *g);
}

static int feed_state(kat_grammar *g, const char *line, const char *path,
                      long lineno, hb_err *err)
{
    const char *v = NULL;
    unsigned long long n = 0;
    switch (g->state) {
    case G_LEN:
        if (key_is(line, "Msg_Len", &v) == 0 && parse_u64(v, &g->msg_len) == 0)
            return G_MSG;
        break;
    case G_MSG:
        if (key_is(line, "Msg", &v) == 0) {
            if (strlen(v) != 2 * ((g->msg_len + 7) / 8) || !is_hex(v, strlen(v)))
                return hb_fail_at(err, path, lineno, "Msg must have %llu hex "
                                  "digits for Msg_Len = %llu; repair or replace "
                                  "the file", 2 * ((g->msg_len + 7) / 8), g->msg_len);
            return G_DLEN;
        }
        /* 64 seed bytes, or nothing for the all-zero and all-FF messages */
        if (key_is(line, "Msg_Seed", &v) == 0 && (strlen(v) == 0 || strlen(v) == 128) &&
            is_hex(v, strlen(v)))
            return G_EXP;
        break;
    case G_EXP:
        if (key_is(line, "Msg_Exp", &v) == 0 && check_msg_exp(v))
            return G_DLEN;
        break;
    case G_DLEN:
        if (key_is(line, "Dst_Len", &v) == 0 && parse_u64(v, &n) == 0 && n % 8 == 0 &&
            n > 0) {
            g->dst_len = n;
            return G_DST;
        }
        break;
    case G_DST:
        if (key_is(line, "Dst", &v) == 0) {
            if (strlen(v) != g->dst_len / 4 || !is_hex(v, strlen(v)))
                return hb_fail_at(err, path, lineno, "Dst must have %llu hex digits "
                                  "for Dst_Len = %llu (truncated?); repair or replace "
                                  "the file", g->dst_len / 4, g->dst_len);
            return G_LEN;
        }
        break;
    }
    return hb_fail_at(err, path, lineno, "expected '%s', found '%.60s'; repair or "
                      "replace the file", g_expect[g->state], line);
}

int kat_grammar_feed(kat_grammar *g, const char *line, const char *path,
                     long lineno, hb_err *err)
{
    int next = feed_state(g, line, path, lineno, err);
    if (next < 0)
        return -1;
    if (next == G_LEN)
        g->records++;
    g->state = next;
    return 0;
}

int kat_grammar_end(const kat_grammar *g, const char *path, long lineno, hb_err *err)
{
    if (g->state != G_LEN)
        return hb_fail_at(err, path, lineno, "file ends inside the record "
                          "Msg_Len = %llu (truncated?); replace it with a "
                          "complete copy", g->msg_len);
    if (g->records == 0)
        return hb_fail_at(err, path, lineno, "no KAT record found; give a "
                          "file of Msg_Len/Msg/Dst_Len/Dst records");
    return 0;
}

int kat_file_sha256(const char *path, char sha256[HB_SHA256_HEX], hb_err *err)
{
    kat_reader r;
    kat_grammar g;
    const char *line;
    size_t len;
    int rc;
    if (kat_reader_open(&r, path, err) != 0)
        return -1;
    kat_grammar_init(&g);
    hb_sha256 *h = hb_sha256_new();
    while ((rc = kat_reader_next(&r, &line, &len, err)) == 1) {
        if (kat_grammar_feed(&g, line, path, r.lineno, err) != 0) {
            rc = -1;
            break;
        }
        hb_sha256_update(h, line, len);
        hb_sha256_update(h, "\n", 1);
    }
    if (rc == 0)
        rc = kat_grammar_end(&g, path, r.lineno, err);
    hb_sha256_final_hex(h, sha256);
    kat_reader_close(&r);
    return rc;
}

/* ---- comparison ---- */

/* The Msg_Len of LINE when it is a Msg_Len line. */
static int msg_len_of(const char *line, unsigned long long *out)
{
    const char *v;
    return key_is(line, "Msg_Len", &v) == 0 && parse_u64(v, out) == 0 ? 0 : -1;
}

static void note_diff(kat_cmp *res, const char *expected, long line,
                      int has_len, unsigned long long len, const char *what)
{
    res->equal = 0;
    res->expected_line = line;
    res->has_diff_len = has_len;
    res->first_diff_msg_len = len;
    if (has_len)
        snprintf(res->detail, sizeof res->detail, "%s:%ld: first difference in "
                 "record Msg_Len = %llu: %s", hb_basename(expected), line, len, what);
    else
        snprintf(res->detail, sizeof res->detail, "%s:%ld: %s",
                 hb_basename(expected), line, what);
}

/* Steps the generated side once for the expected line ELINE. */
static int compare_step(kat_reader *gen, int *gen_done, unsigned long long *gen_len,
                        int *have_len, const char *eline, const kat_grammar *g,
                        const char *expected, long lineno, kat_cmp *res, hb_err *err)
{
    const char *gline;
    size_t glen;
    int rc = *gen_done ? 0 : kat_reader_next(gen, &gline, &glen, err);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        *gen_done = 1;
        note_diff(res, expected, lineno, 1, g->msg_len,
                  "the submitted file has more records than the generated one");
        return 0;
    }
    if (msg_len_of(gline, gen_len) == 0)
        *have_len = 1;
    if (strcmp(gline, eline) != 0)
        note_diff(res, expected, lineno, *have_len, *gen_len,
                  "the submitted line differs from the generated one");
    return 0;
}

int kat_compare_files(const char *generated, const char *expected, kat_cmp *res,
                      hb_err *err)
{
    kat_reader gen, exp;
    kat_grammar g;
    const char *line;
    size_t len;
    unsigned long long gen_len = 0;
    int have_len = 0, gen_done = 0, rc;
    memset(res, 0, sizeof *res);
    res->equal = 1;
    if (kat_reader_open(&gen, generated, err) != 0)
        return -1;
    if (kat_reader_open(&exp, expected, err) != 0) {
        kat_reader_close(&gen);
        return -1;
    }
    kat_grammar_init(&g);
    hb_sha256 *h = hb_sha256_new();
    while ((rc = kat_reader_next(&exp, &line, &len, err)) == 1) {
        if (kat_grammar_feed(&g, line, expected, exp.lineno, err) != 0) {
            rc = -1;
            break;
        }
        hb_sha256_update(h, line, len);
        hb_sha256_update(h, "\n", 1);
        if (res->equal && compare_step(&gen, &gen_done, &gen_len, &have_len, line,
                                       &g, expected, exp.lineno, res, err) != 0) {
            rc = -1;
            break;
        }
    }
    if (rc == 0)
        rc = kat_grammar_end(&g, expected, exp.lineno, err);
    if (rc == 0 && res->equal && !gen_done &&
        (rc = kat_reader_next(&gen, &line, &len, err)) == 1) {
        unsigned long long next = 0;
        int known = msg_len_of(line, &next) == 0;
        note_diff(res, expected, exp.lineno, known, next,
                  "the submitted file ends before this generated record");
        rc = 0;
    }
    hb_sha256_final_hex(h, res->expected_sha256);
    kat_reader_close(&gen);
    kat_reader_close(&exp);
    return rc < 0 ? -1 : 0;
}
