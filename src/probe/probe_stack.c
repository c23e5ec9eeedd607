/* The painted-stack run: one call of the hash function on a stack that is
 * a region the probe mapped itself (with an inaccessible guard page below
 * it) and filled with a pattern beforehand, entered with swapcontext in the
 * probe's one thread (no probe process may start threads: the sandbox's
 * profile is the same for every role). After the call, the lowest byte that
 * no longer holds the pattern marks the deepest point the call reached; the
 * depth is measured from a local variable of the context's function taken
 * just before the call, so the context's own start-up frame is not
 * counted. Heap tracking wraps the same call. */
#include "probe.h"

#include <ucontext.h>
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

static stack_job *current;

static void stack_entry(void)
{
    stack_job *j = current;
    volatile unsigned char mark = 0;
    j->mark = (uintptr_t)&mark;
    probe_heap_begin();
    j->rc = call_hash(j);
    probe_heap_end(&j->heap);
}

/* Runs J on the stack of BYTES at LO and comes back; 0, or -1. */
static __attribute__((noinline)) int run_on(stack_job *j, unsigned char *lo, size_t bytes)
{
    static ucontext_t back, run;
    if (getcontext(&run) != 0)
        return -1;
    run.uc_stack.ss_sp = lo;
    run.uc_stack.ss_size = bytes;
    run.uc_link = &back; /* where the call returns to */
    makecontext(&run, stack_entry, 0);
    current = j;
    return swapcontext(&back, &run) == 0 ? 0 : -1;
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

    int ok = run_on(&job, lo, stack_bytes) == 0;
    if (ok) {
        uintptr_t deep = deepest_touched(lo, lo + stack_bytes);
        *stack_peak = job.mark > deep ? job.mark - deep : 0;
        *heap = job.heap;
        *rc = job.rc;
    }
    munmap(region, stack_bytes + page);
    return ok ? 0 : -1;
}
