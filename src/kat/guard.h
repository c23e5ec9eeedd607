/* Guarded calls of a submitted CryptHash, made inside the sandboxed runner
 * (src/runner) and by the probe's checks before timing (src/probe): one
 * module for both, libc only: the message lies at the end of a mapping followed by 1 MiB
 * of inaccessible pages (reading past it faults), small messages are
 * compared with a copy after the call and large ones are read-only during
 * it (a change is named), and the digest sits between two runs of guard
 * bytes checked after every call. A library's misbehaviour is reported in a
 * kat_fault; hashbench's own failures (no memory) in an hb_err. The parent
 * never calls a submitted function: it only reads what the runner sends. */
#ifndef HB_KAT_GUARD_H
#define HB_KAT_GUARD_H

#include <stddef.h>
#include "common/err.h"

typedef int (*kat_hash_fn)(int digest_len_bits, const unsigned char *msg,
                           unsigned long long msg_len_bits, unsigned char *digest);

#define KAT_MAX_DIGEST_BYTES 1024

/* ERROR: non-zero return; OVERFLOW: a guard byte changed; INPUT: the
 * message changed (reported as ERROR). */
enum { KAT_FAULT_NONE, KAT_FAULT_ERROR, KAT_FAULT_OVERFLOW, KAT_FAULT_INPUT };

typedef struct kat_fault {
    int kind;                   /* KAT_FAULT_* */
    unsigned long long msg_len; /* the call that failed */
    char detail[200];           /* one line: what the library did */
} kat_fault;

/* A message buffer with its guard pages. */
typedef struct kat_guarded {
    unsigned char *base;
    size_t body;         /* writable bytes before the guard pages */
    size_t map_len;
    unsigned char *copy; /* the message as given; NULL above the copy limit */
    size_t copy_cap;
} kat_guarded;

/* Maps room for a message of up to BYTES bytes. */
int kat_guarded_alloc(kat_guarded *g, size_t bytes, hb_err *err);
void kat_guarded_free(kat_guarded *g);

/* The last N bytes before the guard pages: where a message of N bytes is
 * placed. */
unsigned char *kat_guarded_msg(kat_guarded *g, size_t n);

/* One guarded call of FN on the message of BITS bits already placed with
 * kat_guarded_msg; the digest (DIGEST_BITS / 8 bytes) is copied to OUT.
 * Returns 0, 1 when the library misbehaved (*F says how), -1 on our own
 * failure. */
int kat_guarded_call(kat_hash_fn fn, int digest_bits, kat_guarded *g,
                     unsigned long long bits, unsigned char *out, kat_fault *f,
                     hb_err *err);

/* The same with the digest's bytes set to FILL (0 to 255) before the call
 * (the guards around it keep their own fill), so that a caller can tell
 * digest bytes the function did not write (the probe's checks at open), and
 * any digest length (above KAT_MAX_DIGEST_BYTES the buffer is allocated). */
int kat_guarded_call_fill(kat_hash_fn fn, int digest_bits, kat_guarded *g,
                          unsigned long long bits, unsigned char *out, int fill,
                          kat_fault *f, hb_err *err);

/* The KAT_Loop iterations (SPEC §3) on the LEN-byte message M0: h = H(m0),
 * then ROUNDS times: rotate the message left by d = digest bytes, XOR h
 * into its first d bytes, h = H(message). The final h goes to OUT. Same
 * returns as kat_guarded_call. */
int kat_guarded_loop(kat_hash_fn fn, int digest_bits, const unsigned char *m0,
                     size_t len, long rounds, unsigned char *out, kat_fault *f,
                     hb_err *err);

#endif
