/* The timer of bench/shared.sh: times CryptHash at one message size, either
 * from a shared library loaded with dlopen (`shared_timer LIB SIZE BITS MS`)
 * or, built with -DHB_STATIC together with an instance's sources and the
 * guide's flags, linked into this executable (`shared_timer - SIZE BITS MS`).
 * Both call CryptHash through the same volatile function pointer, so that
 * only the code of the instance differs, never the loop around it. Prints
 * the median over 7 trials of nanoseconds per call (CLOCK_MONOTONIC_RAW),
 * each trial about MS / 7 milliseconds after a warm-up. C99, so that it
 * builds under the guide's -std=c99 -Wpedantic. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*crypt_hash_fn)(int, const unsigned char *, unsigned long long,
                             unsigned char *);

#ifdef HB_STATIC
int CryptHash(int digest_len_bits, const unsigned char *msg,
              unsigned long long msg_len_bits, unsigned char *digest);
#endif

#define TRIALS 7

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s LIB|- SIZE BITS MS\n", argv[0]);
        return 2;
    }
    crypt_hash_fn volatile fn = NULL;
    if (strcmp(argv[1], "-") == 0) {
#ifdef HB_STATIC
        fn = CryptHash;
#endif
    } else {
        void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
        void *sym = h ? dlsym(h, "CryptHash") : NULL;
        memcpy((void *)&fn, &sym, sizeof sym);
    }
    if (!fn) {
        fprintf(stderr, "%s: no CryptHash (%s)\n", argv[0], dlerror());
        return 2;
    }
    size_t size = (size_t)strtoul(argv[2], NULL, 10);
    int bits = atoi(argv[3]);
    double budget_ns = atof(argv[4]) * 1e6 / TRIALS;
    unsigned char *msg = malloc(size + 1), digest[1024];
    if (!msg)
        return 2;
    for (size_t i = 0; i < size; i++)
        msg[i] = (unsigned char)(i * 131 + size);
    /* warm-up, and the number of calls of a trial */
    double t0 = now_ns();
    long calls = 0;
    while (now_ns() - t0 < budget_ns || calls < 10) {
        if (fn(bits, msg, (unsigned long long)size * 8, digest) != 0)
            return 3;
        calls++;
    }
    double per_call[TRIALS];
    for (int t = 0; t < TRIALS; t++) {
        double a = now_ns();
        for (long i = 0; i < calls; i++) {
            msg[0] = (unsigned char)i;
            fn(bits, msg, (unsigned long long)size * 8, digest);
        }
        per_call[t] = (now_ns() - a) / (double)calls;
    }
    qsort(per_call, TRIALS, sizeof per_call[0], cmp_double);
    printf("%.3f\n", per_call[TRIALS / 2]);
    free(msg);
    return 0;
}
