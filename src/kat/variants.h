/* Reference against optimized: where a candidate submits one instance in
 * several variants (build.json entries with the same candidate,
 * algorithm_instance and digest_bits, e.g. SM3 from Reference_Implementation
 * and SM3-Optimized from Optimized_Implementation), the KAT stage checks,
 * after the instances' KATs, that the variants give the same digests on
 * VARIANTS_MESSAGES messages of random bit lengths. Each variant's library
 * runs in its own sandboxed runner (runner/client.h); hashbench generates
 * the messages from a seed drawn with getrandom and compares the digests.
 * The messages are reproducible from the recorded seed with `hashbench drng`
 * (see variants_message). The result lives in the kat.json entry of the
 * group's first variant (docs/FORMATS.md, "variants") and is kept on resume
 * while the group's libraries and the settings stay the same. */
#ifndef HB_KAT_VARIANTS_H
#define HB_KAT_VARIANTS_H

#include <jansson.h>
#include "common/err.h"
#include "kat/kat.h"

#define VARIANTS_MESSAGES 1000
#define VARIANTS_MAX_BITS 16384       /* even-numbered messages: 0 .. this */
#define VARIANTS_SHORT_MAX_BITS 1024  /* odd-numbered messages: 0 .. this */
#define VARIANTS_SEED_DIGITS 32       /* 128 random bits, lowercase hex */

#define VARIANTS_RULE "message i: the official KAT DRNG seeded with the text " \
    "'<seed>-<i>' (i in decimal, the text repeated to 64 bytes) draws 32 bits w " \
    "(big-endian), then L = w mod (M + 1) bits, the message; M = max_bits for " \
    "even i, short_max_bits for odd i"

/* The message stream of one check. */
typedef struct variants_stream {
    char seed[VARIANTS_SEED_DIGITS + 1]; /* lowercase hex */
    unsigned max_bits;
    unsigned short_max_bits;
} variants_stream;

/* 1 when TEXT is a seed: VARIANTS_SEED_DIGITS hex digits (either case). */
int variants_seed_valid(const char *text);

/* Message INDEX of ST (VARIANTS_RULE): its length into *BITS and, when MSG
 * is not NULL, its ceil(bits/8) bytes into MSG (room for max_bits / 8 + 1
 * bytes). `hashbench drng <seed>-<index> 32 <bits>` prints w and then the
 * message. Fails only when OpenSSL cannot provide SM3. */
int variants_message(const variants_stream *st, unsigned long index, unsigned char *msg,
                     unsigned long long *bits, hb_err *err);

/* The step of the KAT stage over BUILD_LIST (build.json's instances) and
 * KAT_DOC (kat.json, changed in place and saved to KAT_PATH after each
 * group): every group of variants whose first variant O selects is
 * compared (or its earlier result kept), and a "variants" result left on an
 * entry that no longer heads a group of two or more is dropped. A seed O
 * gives must be valid (kat_run checks it first). *N_FAILED is
 * increased by the groups whose verdict is not AGREE. Returns -1 only for
 * hashbench's own failures (unwritable kat.json, no SM3, the runner
 * missing); whatever a library does is a named outcome in the result. */
int variants_run(const kat_options *o, const json_t *build_list, json_t *kat_doc,
                 const char *kat_path, int *n_failed, hb_err *err);

#endif
