/* SHA-256 of buffers and files through OpenSSL's EVP interface, as
 * lowercase hex, plus uppercase/lowercase hex encoding helpers. These are the
 * fingerprints that tie libraries, sources, KAT logs and records together. */
#ifndef HB_COMMON_DIGEST_H
#define HB_COMMON_DIGEST_H

#include <stddef.h>
#include "common/err.h"

#define HB_SHA256_HEX 65 /* 64 hex digits and a NUL */

/* Streaming SHA-256; the context is opaque and owned by the caller. */
typedef struct hb_sha256 hb_sha256;
hb_sha256 *hb_sha256_new(void);
void hb_sha256_update(hb_sha256 *c, const void *data, size_t len);
/* Writes the lowercase hex digest into hex and frees the context. */
void hb_sha256_final_hex(hb_sha256 *c, char hex[HB_SHA256_HEX]);

void hb_sha256_buf_hex(const void *data, size_t len, char hex[HB_SHA256_HEX]);
/* The SHA-256 (lowercase hex, HB_SHA256_HEX bytes) of a regular file of at
 * most LIMIT bytes, read through hb_open_limited (common/fs.h); WHAT names
 * the file in the error. */
int hb_sha256_file_limited(const char *path, unsigned long long limit,
                           const char *what, char *hex, hb_err *err);

/* hb_sha256_file_limited without a size limit. */
int hb_sha256_file_hex(const char *path, char hex[HB_SHA256_HEX], hb_err *err);

/* Encodes LEN bytes as hex into OUT (2*LEN+1 bytes); upper or lower case. */
void hb_hex_encode(const unsigned char *in, size_t len, char *out, int upper);

/* Decodes hex text of LEN characters (even, either case) into OUT (LEN/2
 * bytes); returns the byte count or -1 on a bad character or odd length. */
long hb_hex_decode(const char *hex, size_t len, unsigned char *out);

#endif
