/* Heap tracking for the probe: the probe defines malloc, calloc, realloc,
 * free, posix_memalign, aligned_alloc and memalign, which the dynamic linker
 * binds every library in the process to (an executable's definitions come
 * first in symbol lookup). Each forwards to libc's function, found with
 * dlsym(RTLD_NEXT); while tracking is on, allocations are recorded in a
 * fixed table (pointer -> requested size) so the live byte count and its
 * peak are exact. The state is process-global by nature: an allocator
 * interposer has nowhere else to keep it. */
#include "probe.h"

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

typedef void *(*malloc_fn)(size_t);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*realloc_fn)(void *, size_t);
typedef void (*free_fn)(void *);
typedef int (*posix_memalign_fn)(void **, size_t, size_t);
typedef void *(*aligned_alloc_fn)(size_t, size_t);

static struct {
    malloc_fn malloc;
    calloc_fn calloc;
    realloc_fn realloc;
    free_fn free;
    posix_memalign_fn posix_memalign;
    aligned_alloc_fn aligned_alloc;
    aligned_alloc_fn memalign;
} real;

/* Requests made while dlsym itself allocates are served from this arena. */
static unsigned char boot_arena[16384] __attribute__((aligned(16)));
static size_t boot_used;
static int resolving;

#define TABLE_SIZE (1u << 16)
static struct slot {
    void *ptr;
    size_t size;
} table[TABLE_SIZE];
static volatile int tracking;
static size_t live_bytes, peak_bytes, alloc_count, table_used;
static int table_full, carrying;

static void resolve(void)
{
    if (real.malloc || resolving)
        return;
    resolving = 1;
    real.malloc = (malloc_fn)dlsym(RTLD_NEXT, "malloc");
    real.calloc = (calloc_fn)dlsym(RTLD_NEXT, "calloc");
    real.realloc = (realloc_fn)dlsym(RTLD_NEXT, "realloc");
    real.free = (free_fn)dlsym(RTLD_NEXT, "free");
    real.posix_memalign = (posix_memalign_fn)dlsym(RTLD_NEXT, "posix_memalign");
    real.aligned_alloc = (aligned_alloc_fn)dlsym(RTLD_NEXT, "aligned_alloc");
    real.memalign = (aligned_alloc_fn)dlsym(RTLD_NEXT, "memalign");
    resolving = 0;
}

static void *boot_alloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (n > sizeof boot_arena - boot_used)
        return NULL;
    void *p = boot_arena + boot_used;
    boot_used += n;
    return p;
}

static int in_boot(const void *p)
{
    return (const unsigned char *)p >= boot_arena &&
           (const unsigned char *)p < boot_arena + sizeof boot_arena;
}

static size_t slot_of(const void *p)
{
    uintptr_t h = (uintptr_t)p;
    h ^= h >> 17;
    h *= 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 20) & (TABLE_SIZE - 1);
}

static void record_alloc(void *p, size_t n)
{
    if (!tracking || !p)
        return;
    alloc_count++;
    live_bytes += n;
    if (live_bytes > peak_bytes)
        peak_bytes = live_bytes;
    if (table_used >= TABLE_SIZE / 2) {
        table_full = 1;
        return;
    }
    size_t i = slot_of(p);
    while (table[i].ptr && table[i].ptr != (void *)1)
        i = (i + 1) & (TABLE_SIZE - 1);
    table[i].ptr = p;
    table[i].size = n;
    table_used++;
}

static void record_free(void *p)
{
    if (!tracking || !p)
        return;
    size_t i = slot_of(p);
    while (table[i].ptr) {
        if (table[i].ptr == p) {
            live_bytes -= table[i].size;
            table[i].ptr = (void *)1; /* tombstone */
            return;
        }
        i = (i + 1) & (TABLE_SIZE - 1);
    }
}

void probe_heap_carry(void)
{
    probe_heap_begin();
    carrying = 1;
}

void probe_heap_pause(void)
{
    tracking = 0;
}

void probe_heap_begin(void)
{
    resolve();
    if (carrying) { /* what is still held from before counts in the peak */
        tracking = 0;
        peak_bytes = live_bytes;
        alloc_count = 0;
        tracking = 1;
        return;
    }
    memset(table, 0, sizeof table);
    live_bytes = peak_bytes = alloc_count = table_used = 0;
    table_full = 0;
    tracking = 1;
}

void probe_heap_end(probe_heap_stats *out)
{
    tracking = 0;
    out->peak_bytes = peak_bytes;
    out->allocs = alloc_count;
    out->approximate = table_full;
}

void *malloc(size_t n)
{
    resolve();
    if (!real.malloc)
        return boot_alloc(n);
    void *p = real.malloc(n);
    record_alloc(p, n);
    return p;
}

void *calloc(size_t a, size_t b)
{
    resolve();
    if (!real.calloc) {
        if (b && a > SIZE_MAX / b)
            return NULL;
        return boot_alloc(a * b); /* static memory is already zero */
    }
    void *p = real.calloc(a, b);
    record_alloc(p, a * b);
    return p;
}

void free(void *p)
{
    if (!p || in_boot(p))
        return;
    resolve();
    record_free(p);
    real.free(p);
}

void *realloc(void *p, size_t n)
{
    resolve();
    if (in_boot(p)) {
        void *q = malloc(n);
        size_t avail = (size_t)(boot_arena + sizeof boot_arena - (unsigned char *)p);
        if (q)
            memcpy(q, p, n < avail ? n : avail);
        return q;
    }
    record_free(p);
    void *q = real.realloc(p, n);
    record_alloc(q, n);
    return q;
}

int posix_memalign(void **out, size_t align, size_t n)
{
    resolve();
    int rc = real.posix_memalign(out, align, n);
    if (rc == 0)
        record_alloc(*out, n);
    return rc;
}

void *aligned_alloc(size_t align, size_t n)
{
    resolve();
    void *p = real.aligned_alloc(align, n);
    record_alloc(p, n);
    return p;
}

void *memalign(size_t align, size_t n)
{
    resolve();
    void *p = real.memalign(align, n);
    record_alloc(p, n);
    return p;
}
