/* The timed messages of measurement v2: each timed window draws a fresh
 * secret key (getrandom), and its raw messages R_0 .. R_{N-1} are
 * consecutive slices of the ChaCha20 keystream of that key (OpenSSL EVP,
 * nonce and first block counter zero), message i of SIZE-byte messages
 * being bytes [i*SIZE, (i+1)*SIZE). The key stays in hashbench; the probe
 * only ever sees keystream bytes, which no code without the key can tell
 * from random, so a library cannot tell a timed message from a KAT,
 * variant-check or verification message. Any part of the stream can be
 * regenerated from the key and an offset (a verifier rebuilds message j
 * alone), and the hex form of a key lets a record name it once the window
 * is over. probe/chain.h says how a window chains the raw messages. */
#ifndef HB_MEASURE_MSGGEN_H
#define HB_MEASURE_MSGGEN_H

#include <stddef.h>
#include "common/err.h"

#define MSGGEN_KEY_BYTES 32
#define MSGGEN_KEY_HEX 65   /* 64 hex digits and a NUL */

/* The keystream is addressed with ChaCha20's 32-bit block counter: at most
 * 2^32 blocks of 64 bytes (256 GiB) per key. */
#define MSGGEN_STREAM_BYTES (64ULL << 32)

#define MSGGEN_RULE "raw message i of SIZE-byte messages: bytes [i*SIZE, (i+1)*SIZE) " \
    "of the ChaCha20 keystream (RFC 8439 block function, OpenSSL EVP_chacha20) of the " \
    "window's 256-bit key, nonce zero, block counter from zero"

typedef struct msggen_key {
    unsigned char k[MSGGEN_KEY_BYTES];
} msggen_key;

/* A fresh key from getrandom(2) into KEY: one per timed window. Fails
 * (ERR says why) only when the kernel cannot give random bytes. */
int msggen_new_key(msggen_key *key, hb_err *err);

/* LEN bytes of the keystream of KEY from byte OFFSET on into OUT (caller's
 * buffer of LEN bytes; LEN = 0 writes nothing). OFFSET need not be a
 * multiple of 64. Fails when OFFSET + LEN passes MSGGEN_STREAM_BYTES, or
 * when OpenSSL cannot provide ChaCha20. */
int msggen_fill(const msggen_key *key, unsigned long long offset, unsigned char *out,
                size_t len, hb_err *err);

/* The key as 64 lowercase hex digits and a NUL. */
void msggen_key_hex(const msggen_key *key, char hex[MSGGEN_KEY_HEX]);

/* Reads a key written by msggen_key_hex (exactly 64 hex digits, either
 * case, nothing else) into KEY; 0, or -1 (KEY unchanged) for any other
 * text. */
int msggen_key_parse(const char *hex, msggen_key *key);

#endif
