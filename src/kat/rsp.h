/* A streaming reader for NIST CAVP hash response files (`.rsp`: SHA-2, SHA-3
 * and SHAKE ShortMsg, LongMsg and VariableOut) and for files written in the
 * same style, such as the SM3 examples of the standard. It is the second
 * accepted vector format of the KAT stage, and the oracle input of the
 * examples' tests. Records are read one at a time, so large files are never
 * held in memory. Monte-Carlo files are refused with a clear error: they are
 * not lists of messages and digests. */
#ifndef HB_KAT_RSP_H
#define HB_KAT_RSP_H

#include <stddef.h>
#include "common/err.h"

/* One known answer. MSG holds MSG_BYTES = ceil(LEN_BITS / 8) bytes (a
 * partial last byte as written in the file, from its most significant bit
 * down); MD holds the expected digest or XOF output. Both point into buffers
 * owned by the reader, valid until the next rsp_next or rsp_close; MSG is
 * never NULL. LINE is the file line where the record starts. */
typedef struct rsp_record {
    unsigned long long len_bits;
    const unsigned char *msg;
    size_t msg_bytes;
    const unsigned char *md;
    size_t md_bytes;
    long line;
} rsp_record;

typedef struct rsp_reader rsp_reader;

/* Opens PATH for reading (a regular file of at most HB_LIMIT_VECTORS bytes,
 * common/fs.h); *out is owned by the caller (rsp_close). */
int rsp_open(const char *path, rsp_reader **out, hb_err *err);

/* Reads the next record into REC. Returns 1 for a record, 0 at the end of
 * the file, -1 on malformed input with ERR naming FILE:LINE and the fault.
 *
 * Accepted: `Len = <bits>`, `Msg = <hex>`, `MD = <hex>`; the VariableOut
 * style `COUNT`, `Outputlen = <bits>`, `Msg`, `Output = <hex>` with the
 * message length from `[Input Length = N]` when a record has no Len (and
 * from the hex itself when there is neither); `Len = 0` means the empty
 * message whatever the Msg line says. Headers `[Name = value]` (an
 * `[Outputlen = N]` header is checked against each Output), `#` comments,
 * blank lines and CRLF line ends. Refused: bad hex, an odd number of hex
 * digits, a Msg shorter or longer than Len, a record with no Msg or no MD,
 * an Output whose size contradicts Outputlen, unknown fields, and
 * Monte-Carlo files (`Seed`, or a Msg block with no digest). */
int rsp_next(rsp_reader *r, rsp_record *rec, hb_err *err);

/* Closes the file and frees the reader and its buffers (NULL is fine). */
void rsp_close(rsp_reader *r);

#endif
