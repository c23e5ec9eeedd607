/* The painted-stack run: one call of the hash function in a thread whose
 * stack is a region the probe mapped itself (with an inaccessible guard page
 * below it) and filled with a pattern beforehand. After the call, the lowest
 * byte that no longer holds the pattern marks the deepest point the call
 * reached; the depth is measured from a local variable of the thread's
 * function taken just before the call, so the thread's own start-up frames,
 * descriptor and TLS (which glibc places at the top of the region) are not
 * counted. Heap tracking wraps the same call. */
#include "probe.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAINT 0xA7

typedef struct stack_job {
    probe_hash_fn fn;
    int digest_bits;
    const unsigned char *msg;
    unsigned long long msg_bits;
    unsigned char *digest;
    uintptr_t mark; /* address of a local of the thread function */
    int rc;
    probe_heap_stats heap;
} stack_job;

static __attribute__((noinline)) int call_hash(stack_job *j)
{
    return j->fn(j->digest_bits, j->msg, j->msg_bits, j->digest);
}

static void *stack_thread(void *arg)
{
    stack_job *j = arg;
    volatile unsigned char mark = 0;
    j->mark = (uintptr_t)&mark;
    probe_heap_begin();
    j->rc = call_hash(j);
    probe_heap_end(&j->heap);
    return NULL;
}

/* Lowest address in [lo, hi) that does not hold the paint, or hi. */
static uintptr_t deepest_touched(const unsigned char *lo, const unsigned char *hi)
{
    const unsigned char *p = lo;
    while (p < hi && *p == PAINT)
        p++;
    return (uintptr_t)p;
}

int probe_stack_run(probe_hash_fn fn, int digest_bits, const unsigned char *msg,
                    unsigned long long msg_bits, unsigned char *digest,
                    size_t stack_bytes, size_t *stack_peak,
                    probe_heap_stats *heap, int *rc)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    stack_bytes = (stack_bytes + page - 1) / page * page;
    unsigned char *region = mmap(NULL, stack_bytes + page, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED)
        return -1;
    mprotect(region, page, PROT_NONE); /* guard: overflowing it crashes */
    unsigned char *lo = region + page;
    memset(lo, PAINT, stack_bytes);

    stack_job job;
    memset(&job, 0, sizeof job);
    job.fn = fn;
    job.digest_bits = digest_bits;
    job.msg = msg;
    job.msg_bits = msg_bits;
    job.digest = digest;

    pthread_attr_t attr;
    pthread_t th;
    int ok = pthread_attr_init(&attr) == 0 &&
             pthread_attr_setstack(&attr, lo, stack_bytes) == 0 &&
             pthread_create(&th, &attr, stack_thread, &job) == 0;
    if (ok)
        pthread_join(th, NULL);
    pthread_attr_destroy(&attr);
    if (ok) {
        uintptr_t deep = deepest_touched(lo, lo + stack_bytes);
        *stack_peak = job.mark > deep ? job.mark - deep : 0;
        *heap = job.heap;
        *rc = job.rc;
    }
    munmap(region, stack_bytes + page);
    return ok ? 0 : -1;
}
