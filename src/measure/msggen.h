/* The timed messages of a window: LEN bytes of the ChaCha20 keystream of a
 * fresh secret key (OpenSSL EVP_chacha20, the 16-byte IV all zero), drawn
 * by hashbench per window and recorded after it, so that every message can
 * be regenerated; message i of a window of SIZE-byte messages is bytes
 * [i*SIZE, (i+1)*SIZE). The key never enters the probe. */
#ifndef HB_MEASURE_MSGGEN_H
#define HB_MEASURE_MSGGEN_H

#include <stddef.h>

#include "common/err.h"

typedef struct msggen_key {
    unsigned char k[32];
} msggen_key;

/* A fresh key from getrandom(2). */
int msggen_new_key(msggen_key *key, hb_err *err);

/* LEN bytes of KEY's keystream from byte OFFSET on, into OUT. */
int msggen_fill(const msggen_key *key, unsigned long long offset, unsigned char *out,
                size_t len, hb_err *err);

void msggen_key_hex(const msggen_key *key, char hex[65]);

/* 0, or -1 when HEX is not 64 hex digits. */
int msggen_key_parse(const char *hex, msggen_key *key);

#endif
