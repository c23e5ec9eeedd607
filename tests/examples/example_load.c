/* Loading of the example instances and guarded CryptHash calls for the
 * example tests (see example_load.h). */
#include "example_load.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

const ex_instance ex_instance_table[EX_INSTANCES] = {
    { "SM3", 256, NULL, NULL },
    { "SHA256", 256, NULL, NULL },
    { "SHA512", 512, NULL, NULL },
    { "SHA3_256", 256, NULL, NULL },
    { "SHA3_512", 512, NULL, NULL },
    { "SHAKE256_768", 768, NULL, NULL },
    { "SHAKE256_1024", 1024, NULL, NULL },
};

void ex_load(ex_instance *in)
{
    char path[4096];
    void *sym;

    snprintf(path, sizeof path, "%s/libhbex_%s.so", HB_EX_LIB_DIR, in->name);
    in->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (in->handle == NULL)
        fail_msg("%s: cannot load: %s", path, dlerror());
    sym = dlsym(in->handle, "CryptHash");
    if (sym == NULL)
        fail_msg("%s: no CryptHash symbol", path);
    memcpy(&in->hash, &sym, sizeof sym);
}

void ex_unload(ex_instance *in)
{
    if (in->handle != NULL)
        dlclose(in->handle);
    in->handle = NULL;
    in->hash = NULL;
}

/* A mapping whose last page is inaccessible; the N usable bytes end right
 * before it. */
typedef struct ex_guard {
    unsigned char *base;
    size_t map_len;
    unsigned char *data;
} ex_guard;

static void ex_guard_map(ex_guard *g, size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t body = (n + page - 1) / page * page;
    if (body == 0)
        body = page;
    g->map_len = body + page;
    g->base = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(g->base != MAP_FAILED);
    assert_int_equal(mprotect(g->base + body, page, PROT_NONE), 0);
    memset(g->base, EX_CANARY, body);
    g->data = g->base + body - n;
}

int ex_hash_bits(const ex_instance *in, int digest_bits, const unsigned char *msg,
                 unsigned long long len_bits, unsigned char *out)
{
    size_t msg_bytes = (size_t)(len_bits / 8 + (len_bits % 8 ? 1 : 0));
    size_t dig_bytes = (size_t)in->digest_bits / 8, i;
    ex_guard m, d;
    int rc;

    ex_guard_map(&m, msg_bytes);
    ex_guard_map(&d, dig_bytes);
    if (msg_bytes)
        memcpy(m.data, msg, msg_bytes);
    rc = in->hash(digest_bits, m.data, len_bits, d.data);
    for (i = 0; d.base + i < d.data; i++)
        if (d.base[i] != EX_CANARY)
            fail_msg("%s: CryptHash wrote %zu bytes before the digest",
                     in->name, (size_t)(d.data - d.base - i));
    if (msg_bytes && memcmp(m.data, msg, msg_bytes) != 0)
        fail_msg("%s: CryptHash changed its input", in->name);
    memcpy(out, d.data, dig_bytes);
    munmap(m.base, m.map_len);
    munmap(d.base, d.map_len);
    return rc;
}

void ex_hash(const ex_instance *in, const unsigned char *msg,
             unsigned long long len_bits, unsigned char *out)
{
    int rc = ex_hash_bits(in, in->digest_bits, msg, len_bits, out);
    if (rc != 0)
        fail_msg("%s: CryptHash returned %d for a %llu-bit message",
                 in->name, rc, len_bits);
}

unsigned long long ex_rand(unsigned long long *state)
{
    unsigned long long z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void ex_rand_fill(unsigned long long *state, unsigned char *buf, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        buf[i] = (unsigned char)(ex_rand(state) >> 56);
}
