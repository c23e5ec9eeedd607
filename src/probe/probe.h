/* Internal interface between the probe's files: the heap tracker
 * (probe_heap.c, which interposes the allocator), the painted-stack runner
 * (probe_stack.c) and the main program (probe_main.c). The probe links only
 * libc, libdl and libseccomp; see probe_main.c for what it does. */
#ifndef HB_PROBE_PROBE_H
#define HB_PROBE_PROBE_H

#include <stddef.h>

#include "probe_wire.h" /* probe_hash_fn */

/* Heap tracking: between probe_heap_begin and probe_heap_end, every
 * allocation made in the process (the library's included, since the probe's
 * allocator functions interpose libc's) is counted; live bytes are those
 * requested and not yet freed among the allocations made while tracking. */
typedef struct probe_heap_stats {
    size_t peak_bytes;  /* highest live byte count during the window */
    size_t allocs;      /* allocation calls (malloc, calloc, realloc, ...) */
    int approximate;    /* 1 when the tracking table overflowed */
} probe_heap_stats;
void probe_heap_begin(void);
/* Tracking from now on, carried into the next probe_heap_begin: the bytes
 * allocated from now and still live then count in its peak (a table a
 * library builds in its first call and keeps), its allocations not. */
void probe_heap_carry(void);
/* Stops counting until the next probe_heap_begin, the live bytes kept. */
void probe_heap_pause(void);
void probe_heap_end(probe_heap_stats *out);

/* One call of FN on a separate painted stack of STACK_BYTES in its own
 * thread, with heap tracking around the call. Fills *stack_peak (bytes below
 * the caller frame written during the call), *heap and *rc (the return
 * value). Returns 0, or -1 when the stack or thread could not be set up. */
int probe_stack_run(probe_hash_fn fn, int digest_bits, const unsigned char *msg,
                    unsigned long long msg_bits, unsigned char *digest,
                    size_t stack_bytes, size_t *stack_peak,
                    probe_heap_stats *heap, int *rc);

/* Installs the probe's filter that refuses every new executable mapping
 * and every change of a mapping to executable (probe_seccomp.c). Returns 0,
 * or -1 when it could not (under an emulator, which refuses filters). */
int probe_no_new_code(void);

/* The stop every role makes once before its load (probe_main.c). A probe
 * stopped with nobody left to continue it (hashbench killed together with
 * its watcher) would wait for ever: the hang-up of its input continues it
 * (channel_open: SIGCONT as the input's I/O signal), and it then ends here
 * (a session stopped between windows reads the end of its input and
 * ends). */
void probe_stop_self(void);
/* The runner role (probe_runner.c): loads LIB and answers the requests of
 * runner/protocol.h read from IN on OUT until the end of IN. Returns the
 * process's exit status. */
int probe_runner(const char *lib, int bits, int in, int out);

#endif
