/* Loading a submitted library's CryptHash in the small drivers that run it
 * under Valgrind (hashbench-ct, hashbench-count): header-only and
 * libc/libdl-only, as they link nothing of hashbench's library. A library
 * that does not load is answered with one line, "loadfail <why>", which
 * their callers (ct/ct.c, count/count.c) read as NOT_ANALYSABLE or
 * NOT_COUNTABLE with that reason. */
#ifndef HB_COMMON_LIBLOAD_H
#define HB_COMMON_LIBLOAD_H

#include <dlfcn.h>
#include <string.h>
#include "common/fdio.h"

/* The official interface's CryptHash. */
typedef int (*hb_crypthash_fn)(int digest_len_bits, const unsigned char *msg,
                               unsigned long long msg_len_bits, unsigned char *digest);

/* LIB's CryptHash (dlopen, RTLD_NOW | RTLD_LOCAL), or NULL after writing
 * "loadfail <dlerror's text>\n" to FD. */
static inline hb_crypthash_fn hb_load_crypthash(const char *lib, int fd)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    void *sym = h ? dlsym(h, "CryptHash") : NULL;
    if (!sym) {
        const char *e = dlerror();
        if (!e)
            e = "CryptHash not found";
        if (hb_fd_write_all(fd, "loadfail ", 9) == 0 && hb_fd_write_all(fd, e, strlen(e)) == 0)
            hb_fd_write_all(fd, "\n", 1);
        return NULL;
    }
    hb_crypthash_fn fn;
    *(void **)&fn = sym; /* POSIX: object and function pointers convert */
    return fn;
}

#endif
