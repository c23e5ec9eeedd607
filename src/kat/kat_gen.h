/* Generation of the official KAT files through an instance's CryptHash, run
 * inside the KAT child process (kat_instance.c). Every call is guarded: the
 * message is placed so that its last byte touches an inaccessible page and
 * is read-only during the call (reading past it or writing into it ends the
 * process with SIGSEGV), and the digest buffer has guard bytes on both sides
 * that are checked after every call. A library's misbehaviour is reported in
 * kat_fault, never as an hb_err (which is kept for hashbench's own
 * failures, e.g. a full disk). */
#ifndef HB_KAT_KAT_GEN_H
#define HB_KAT_KAT_GEN_H

#include "common/digest.h"
#include "common/err.h"

typedef int (*kat_hash_fn)(int digest_len_bits, const unsigned char *msg,
                           unsigned long long msg_len_bits, unsigned char *digest);

/* For a child process about to run untrusted code: restores the default
 * action of the fault signals (so a crash ends the child by its signal,
 * whatever handlers the parent had), then loads LIB and its CryptHash into
 * *FN. On failure returns -1 with dlerror's text in MSG (MSGSZ bytes). */
int kat_child_load(const char *lib, kat_hash_fn *fn, char *msg, size_t msgsz);

/* The four KAT files, in the order they are produced. */
typedef enum kat_kind { KAT_2_12, KAT_2_23, KAT_LOOP, KAT_2_33, KAT_KIND_COUNT } kat_kind;

/* "KAT_2_12", "KAT_2_23", "KAT_Loop", "KAT_2_33": the seed text and the file
 * name prefix. */
const char *kat_kind_prefix(kat_kind k);

/* "<prefix>_<INSTANCE>.txt" into OUT; fails when it does not fit. */
int kat_file_name(kat_kind k, const char *instance, char *out, size_t outsz, hb_err *err);

/* ERROR: non-zero return; OVERFLOW: a guard byte changed; INPUT: the
 * message changed (reported as ERROR). */
enum { KAT_FAULT_NONE, KAT_FAULT_ERROR, KAT_FAULT_OVERFLOW, KAT_FAULT_INPUT };

typedef struct kat_fault {
    int kind;                   /* KAT_FAULT_* */
    unsigned long long msg_len; /* the call that failed */
    char detail[200];           /* one line: what the library did */
} kat_fault;

typedef struct kat_gen_ctx {
    kat_hash_fn hash;
    int digest_bits;                     /* multiple of 8, at most 8192 */
    volatile unsigned long long *cur_len; /* the Msg_Len being hashed, for the
                                            parent after a crash; may be NULL */
    kat_fault fault;
} kat_gen_ctx;

/* Writes the KAT file KIND to PATH (atomically) and gives its canonical
 * SHA-256. Returns 0 on success, 1 when the library misbehaved (ctx->fault
 * says how; no file is left), -1 on hashbench's own failure (err). */
int kat_generate(kat_gen_ctx *ctx, kat_kind kind, const char *path,
                 char sha256[HB_SHA256_HEX], hb_err *err);

/* Hashes MSG (BITS bits, ceil(BITS/8) bytes) once under the same guards,
 * into DIGEST (digest_bits/8 bytes). Same returns as kat_generate. */
int kat_hash_guarded(kat_gen_ctx *ctx, const unsigned char *msg, unsigned long long bits,
                     unsigned char *digest, hb_err *err);

#endif
