/* The exchange between hashbench and one hashbench-probe process, and the
 * work the probe does inside the window hashbench times from outside;
 * shared by the probe (src/probe) and the measurement stage
 * (src/measure/trial.c), which also times that work on its own to bound it.
 *
 * Every process that runs submitted code natively is a probe started alike
 * (runner/start.h): its path as its only argument, and its options in its
 * first line, the configure line, one write:
 *   "nonce <32 hex> role=runner|trial|session bits=B [size=S calls=C
 *    warmup=W counter=K memory=0|1 msgs=M bytes=T] fd=F lib=PATH"
 * (F: its shared region, a memory file it maps and closes before the load;
 * PATH: the rest of the line). It stops itself (SIGSTOP) once before it
 * loads the library, in every role; hashbench reads it then and continues
 * it. The runner role then speaks runner/protocol.h; the others the lines
 * below.
 *
 * The probe's standard input and output are two pipes to hashbench, kept on
 * descriptors 3 and 4 before the library is loaded (its own output goes to
 * /dev/null). Every line is one write:
 *   hashbench -> probe   the configure line, first, before anything else
 *   probe -> hashbench   "ready nonce=<hex>" library loaded, checked, warm
 *   hashbench -> probe   "seed <16 hex>"    the trial's messages (trial_msg.h)
 *   probe -> hashbench   "result nonce=<hex> status=ok|WORD ..." exactly once
 * then hashbench closes the probe's input and the probe exits. A failure
 * before the seed is a "result" line with its status word instead of
 * "ready". hashbench accepts nothing else: a line without the nonce, a
 * second line, or any byte after the result makes the trial INCONSISTENT.
 * The library runs in the probe's address space, so the nonce only stops a
 * blind forger; what stops an informed one is outside the probe: the seed
 * comes only when the window opens, the digest fold is recomputed in
 * a runner, and the window's wall and CPU time are read by
 * hashbench (measure/outside.h).
 *
 * Sessions (role=session, measure/session_probe.c): after its stop before
 * the load, "ready nonce=<hex>"
 * (the checks done at open), and hashbench sends
 *   "window <N>"  and the probe answers  "done nonce=<hex> ticks=<t> ns=<n>"
 * as many times as it likes, the probe stopped (SIGSTOP) between windows;
 * before its timed windows, "touch <N>", answered "touched nonce=<hex>",
 * has the probe touch the pages the messages and digests of N calls use;
 * the N messages are in the shared region from byte 0, and
 * digest i goes to byte msgs + i x digest bytes; call i > 0 hashes
 * its message chained with digest i-1 (chain.h). "end" or the end of its
 * input ends the session. A failure is a "result ... status=WORD" line, as
 * below, and the end of the process.
 *
 * Between the seed and the result the probe does, besides the timed loop
 * (probe_timed_loop), only tm_base and what probe_window_words and
 * probe_window_fold do, so hashbench can time the same work itself. The
 * loop is shared with the benchmarks that compare it with a plain loop.
 * Header-only, libc only. */
#ifndef HB_PROBE_WIRE_H
#define HB_PROBE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "trial_msg.h"

#define PROBE_WIRE_NONCE_BYTES 16
#define PROBE_WIRE_NONCE_HEX (2 * PROBE_WIRE_NONCE_BYTES + 1)
#define PROBE_WIRE_SHORT_LINE 128  /* the ready and seed lines */
#define PROBE_WIRE_CONFIG_LINE (4096 + 512) /* the configure line: a path and words */
#define PROBE_WIRE_MAX_LINE 24576  /* a result line: 8192-byte digest in hex */

/* The probe's two message buffers: call I hashes the buffer I % 2, so a
 * library that keeps results by message address gets them wrong (the
 * runner's recomputation uses one buffer). */
#define PROBE_WIRE_BUFFERS 2

/* DELTA[i] for the CALLS calls of the trial SEED: the word that turns the
 * message last held by buffer i % 2 (the base message, or call i - 2) into
 * the message of call i (trial_msg.h: tm_apply). */
static inline void probe_window_words(uint64_t *delta, unsigned long long calls,
                                      uint64_t seed)
{
    for (unsigned long long i = 0; i < calls; i++) {
        delta[i] = tm_word(seed, i);
        if (i >= PROBE_WIRE_BUFFERS)
            delta[i] ^= tm_word(seed, i - PROBE_WIRE_BUFFERS);
    }
}

/* The official interface's CryptHash. */
typedef int (*probe_hash_fn)(int digest_len_bits, const unsigned char *msg,
                             unsigned long long msg_len_bits, unsigned char *digest);

/* The timed loop: CALLS calls of FN (DIGEST_BITS) on SIZE-byte messages,
 * call i turning buffer MSG[i % 2] into its message with DELTA[i] and
 * writing its digest into slot i of DIGESTS (D bytes each). Returns the OR
 * of the calls' return values. Nothing else happens between the calls. */
static inline int probe_timed_loop(probe_hash_fn fn, int digest_bits,
                                   unsigned char *const msg[PROBE_WIRE_BUFFERS],
                                   unsigned long long size, const uint64_t *delta,
                                   unsigned long long calls, unsigned char *digests,
                                   size_t d)
{
    int bad = 0;
    unsigned char *slot = digests;
    for (unsigned long long i = 0; i < calls; i++, slot += d) {
        unsigned char *m = msg[i % PROBE_WIRE_BUFFERS];
        tm_apply(m, size, delta[i]);
        bad |= fn(digest_bits, m, 8 * size, slot);
    }
    return bad;
}

/* The fold (trial_msg.h) of CALLS digests of D bytes laid out one after
 * the other in DIGESTS, as 32 hex digits. */
static inline void probe_window_fold(const unsigned char *digests,
                                     unsigned long long calls, size_t d,
                                     char hex[TM_FOLD_HEX])
{
    tm_fold f;
    tm_fold_init(&f);
    for (unsigned long long i = 0; i < calls; i++)
        tm_fold_add(&f, digests + i * d, d);
    tm_fold_hex(&f, hex);
}

#endif
