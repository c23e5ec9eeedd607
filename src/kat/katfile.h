/* The KAT text format of SPEC §3: writing records, reading files in their
 * canonical form, checking their structure, and comparing two files.
 *
 * Canonical form: every CR removed, trailing blanks (spaces, tabs) removed,
 * empty lines dropped, each remaining line ended by one LF. Two KAT files
 * agree when their canonical forms are equal; a manifest stores the SHA-256
 * of the canonical form. A record is `Msg_Len = N`, then `Msg = HEX` or
 * `Msg_Seed = HEX` + `Msg_Exp = HEX .... HEX`, then `Dst_Len = N`, `Dst = HEX`.
 * Nothing here holds a whole file in memory. */
#ifndef HB_KAT_KATFILE_H
#define HB_KAT_KATFILE_H

#include <stdio.h>
#include "common/digest.h"
#include "common/err.h"
#include "common/fs.h"

/* Largest message printed in full (`Msg = `); longer ones use Msg_Exp. */
#define KAT_MAX_FULL_MSG_BYTES 2048
#define KAT_LINE_MAX (2 * KAT_MAX_FULL_MSG_BYTES + 2 * 1024 + 64)

/* Canonicalises one line (without its LF) in place: removes every CR and the
 * trailing blanks; returns the new length. */
size_t kat_canon_line(char *line, size_t len);

/* Streaming writer onto an atomic file, hashing the canonical form as it
 * goes. The writer owns its temporary file until close or abort. */
typedef struct kat_writer {
    hb_atomic out;
    hb_sha256 *canon;
    char line[KAT_LINE_MAX];
} kat_writer;

int kat_writer_open(kat_writer *w, const char *path, hb_err *err);
/* One record with the message in full (MSG holds ceil(BITS/8) bytes). */
int kat_writer_record(kat_writer *w, const unsigned char *msg,
                      unsigned long long bits, const unsigned char *digest,
                      int digest_bits, hb_err *err);
/* One long-message record: SEED_HEX is "" or the 128-hex seed, FIRST8 and
 * LAST8 the first and last 8 bytes of the message. */
int kat_writer_long_record(kat_writer *w, unsigned long long bits,
                           const char *seed_hex, const unsigned char first8[8],
                           const unsigned char last8[8],
                           const unsigned char *digest, int digest_bits,
                           hb_err *err);
/* Commits the file and gives the canonical SHA-256 (lowercase hex). */
int kat_writer_close(kat_writer *w, char sha256[HB_SHA256_HEX], hb_err *err);
void kat_writer_abort(kat_writer *w);

/* Reads a file as canonical lines. *line (NUL-terminated, owned by the
 * reader, valid until the next call) and r->lineno, the physical line.
 * Nothing past HB_LIMIT_VECTORS (common/fs.h) is read: a larger file fails
 * to open, naming the limit. */
typedef struct kat_reader {
    FILE *fp;
    const char *path; /* not owned */
    char *buf;
    size_t cap;
    long lineno;
} kat_reader;

int kat_reader_open(kat_reader *r, const char *path, hb_err *err);
/* 1: a line, 0: end of file, -1: read error. */
int kat_reader_next(kat_reader *r, const char **line, size_t *len, hb_err *err);
void kat_reader_close(kat_reader *r);

/* Record structure checker: feed canonical lines in order, then call end.
 * Errors name PATH:LINE and the expected key; a file that stops inside a
 * record is reported as truncated. msg_len is the current record's length. */
typedef struct kat_grammar {
    int state;
    unsigned long long msg_len;
    unsigned long long dst_len; /* the current record's Dst_Len */
    long records;
} kat_grammar;

void kat_grammar_init(kat_grammar *g);
int kat_grammar_feed(kat_grammar *g, const char *line, const char *path,
                     long lineno, hb_err *err);
int kat_grammar_end(const kat_grammar *g, const char *path, long lineno, hb_err *err);

/* Canonical SHA-256 of the KAT file PATH, checking its record structure. */
int kat_file_sha256(const char *path, char sha256[HB_SHA256_HEX], hb_err *err);

/* Result of comparing a generated file with a submitted one. */
typedef struct kat_cmp {
    int equal;
    int has_diff_len;                   /* first_diff_msg_len is valid */
    unsigned long long first_diff_msg_len;
    long expected_line;                 /* line of the first difference */
    char expected_sha256[HB_SHA256_HEX];
    char detail[512];                   /* one line describing the difference */
} kat_cmp;

/* Compares GENERATED with EXPECTED line by line in canonical form. Returns
 * -1 (err names EXPECTED:LINE) when EXPECTED is malformed or truncated, or a
 * file cannot be read; otherwise 0 with *res filled. */
int kat_compare_files(const char *generated, const char *expected, kat_cmp *res,
                      hb_err *err);

#endif
