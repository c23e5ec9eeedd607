/* Shared by the example tests: the table of the seven example instances,
 * loading their libraries with dlopen, and calling CryptHash on guarded
 * buffers (the message ends right before an inaccessible page, the digest
 * too, with a canary in front) so that a read past ceil(len / 8) message
 * bytes or a write outside the digest is caught, not silently tolerated. */
#ifndef HB_TESTS_EXAMPLE_LOAD_H
#define HB_TESTS_EXAMPLE_LOAD_H

#include <stddef.h>

typedef int (*ex_crypthash_fn)(int digest_len_bits, const unsigned char *msg,
                               unsigned long long msg_len_bits,
                               unsigned char *digest);

typedef struct ex_instance {
    const char *name;     /* instance name, e.g. "SHA3_256" */
    int digest_bits;
    void *handle;         /* dlopen handle, after ex_load */
    ex_crypthash_fn hash; /* CryptHash, after ex_load */
} ex_instance;

#define EX_INSTANCES 7
#define EX_MAX_DIGEST 128 /* bytes */
#define EX_CANARY 0xA5     /* fill of the guarded digest before a call */

/* The seven instances in a fixed order: SM3, SHA256, SHA512, SHA3_256,
 * SHA3_512, SHAKE256_768, SHAKE256_1024 (not yet loaded). */
extern const ex_instance ex_instance_table[EX_INSTANCES];

/* Loads libhbex_<name>.so from HB_EX_LIB_DIR into IN; fails the test when
 * the library or its CryptHash symbol is missing. */
void ex_load(ex_instance *in);
void ex_unload(ex_instance *in);

/* Hashes LEN_BITS bits of MSG (ceil(LEN_BITS / 8) bytes are copied into a
 * guarded buffer) with DIGEST_BITS as the requested size; the digest lands in
 * OUT (EX_MAX_DIGEST bytes). Fails the test on a write outside the digest;
 * returns CryptHash's status. */
int ex_hash_bits(const ex_instance *in, int digest_bits, const unsigned char *msg,
                 unsigned long long len_bits, unsigned char *out);

/* ex_hash_bits with the instance's own size, asserting a zero status. */
void ex_hash(const ex_instance *in, const unsigned char *msg,
             unsigned long long len_bits, unsigned char *out);

/* A deterministic generator for test messages (splitmix64). */
unsigned long long ex_rand(unsigned long long *state);
void ex_rand_fill(unsigned long long *state, unsigned char *buf, size_t n);

#endif
