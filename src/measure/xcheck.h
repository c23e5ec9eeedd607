/* The independent check of timed digests (measurement v2): after a timed
 * window hashbench samples some of its calls and has them recomputed by
 * code the submitter did not write, wherever such code exists. The verifier
 * of an instance is chosen once, in this order: OpenSSL, when the
 * instance's own submitted KAT vectors show that it computes a standard
 * function (decided from those vectors alone, never from what the library
 * returns at run time); else another variant of the same instance that
 * passed its KATs (the Reference for an Optimized build, ...); else the
 * same library, recomputed in a fresh sandboxed hashbench-probe process.
 * The plan's BY text goes into the record and onto the page
 * (verified_by). The sample size makes a library that fakes a small
 * fraction of its calls get caught with a stated probability.
 * docs/THREAT_MODEL.md says what each kind of verifier guarantees. */
#ifndef HB_MEASURE_XCHECK_H
#define HB_MEASURE_XCHECK_H

#include <stddef.h>
#include "common/err.h"
#include "measure/msggen.h"

/* The kinds of verifier, also used as an allow-mask. */
enum { XCHECK_OPENSSL = 1, XCHECK_VARIANT = 2, XCHECK_SELF = 4 };
#define XCHECK_ALL (XCHECK_OPENSSL | XCHECK_VARIANT | XCHECK_SELF)

/* A standard function is recognised only when every checked record of the
 * instance's vectors agrees with it and its files gave this many checked
 * records in all (KAT_2_23's three are enough: a submission that passes on
 * that file alone must not escape the check), or a KAT_Loop record (a
 * million chained hashes) agrees with it. */
#define XCHECK_MIN_RECORDS 3

/* Vectors that agree with a standard function on all records but a few
 * are near-standard: an instance computes that function, except where it
 * chose to differ, and a submitter must not choose its own checker by
 * changing one record. They are near-standard when they agree on at least
 * XCHECK_MIN_RECORDS records and miss at most XCHECK_NEAR_MAX_MISSES, or
 * agree on at least XCHECK_NEAR_MIN_AGREEMENT of the records checked.
 * Their timed digests are recomputed by OpenSSL too (timed messages are
 * fresh random messages of the guide sizes, where the function applies),
 * and the verifier's text says where the vectors differ. A function that
 * differs more (another IV: every record) is another function. */
#define XCHECK_NEAR_MAX_MISSES 8
#define XCHECK_NEAR_MIN_AGREEMENT 0.90

/* KAT_Loop's m0 in bits and its iterations after the first hash (SPEC §3). */
#define XCHECK_LOOP_BITS 8192ULL
#define XCHECK_LOOP_ROUNDS 1000000L

/* The longest message of a submitted record recomputed with OpenSSL (the
 * 2^23-bit messages of KAT_2_23; KAT_2_33's 1 GiB ones are left out, and so
 * are partial-byte messages; KAT_Loop's record is recomputed as a loop). */
#define XCHECK_MAX_RECORD_BITS (1ULL << 23)

/* The wall-clock limit of the runner that recomputes one batch. */
#define XCHECK_RUNNER_TIMEOUT_S 120.0

/* The defaults of xcheck_sample_size: a library that fakes 1 % of its calls
 * is caught with probability 99 %. */
#define XCHECK_DEFAULT_FAKED 0.01
#define XCHECK_DEFAULT_CATCH 0.99

#define XCHECK_KAT_MSG_BYTES 512 /* KAT_2_12's messages: at most 4096 bits */
#define XCHECK_KAT_MIXED 32      /* KAT records shuffled among a self check's calls */

typedef struct xcheck_plan {
    int kind;            /* one XCHECK_* */
    char by[320];        /* for the record and page: "openssl:SM3",
                            "variant:Reference_Implementation/SM3",
                            "self (fresh process)"; a near-standard
                            instance's "openssl:SM3; near-standard: its
                            vectors agree with SM3 except on 1 record
                            (first: Msg_Len = 0 in KAT_2_12_X.txt:1)" */
    int near;            /* with OPENSSL: the vectors are near-standard */
    char evp_name[32];   /* with OPENSSL: the EVP digest name */
    char lib[4096];      /* with VARIANT / SELF: absolute path of the library
                            that recomputes */
    char kat_text[4096]; /* with SELF: the instance's KAT_2_12 text that passed
                            (its submitted vectors), whose records the
                            recomputing process also gets, in an order drawn
                            in secret among the timed calls, so that it
                            cannot tell itself from a KAT runner; "": none */
    int digest_bits;
} xcheck_plan;

/* Chooses the verifier of instance CAND/INST of the run directory RUN_DIR
 * (its build.json and kat.json), in this order of preference, restricted
 * to the kinds in ALLOW:
 * - OPENSSL when the instance's KAT status is PASS and its submitted KAT
 *   vectors (the texts of its kat.json files whose verdict is PASS, each
 *   read back from the KAT stage's texts folder and checked against the
 *   submitted canonical SHA-256, so that their content is the submission's
 *   whatever wrote the bytes) are reproduced record by record by one of
 *   SM3, SHA-224/256/384/512, SHA-512/224, SHA-512/256 or SHA3-224/256/
 *   384/512 at the instance's digest length (xcheck_match_vectors), or
 *   agree with one of them on all but a few records (near-standard,
 *   XCHECK_NEAR_*; BY says so);
 * - VARIANT: another variant of the same instance (same candidate,
 *   algorithm_instance and digest_bits, built, not a baseline) whose KAT
 *   status is PASS and whose library differs from the instance's; the
 *   Reference variant first when there is one, else the first in
 *   build.json order; its library is rundir_instance_library's;
 * - SELF: the instance's own library (rundir_instance_library).
 * With VARIANT or SELF, BY also says on how many records the vectors agree
 * with a standard function when they agree on any.
 * Fills P and returns 0; -1 (ERR says why and what to do) when build.json
 * cannot be read, the instance is not in it, a library file is missing,
 * or ALLOW leaves no verifier. */
int xcheck_choose(const char *run_dir, const char *cand, const char *inst, int allow,
                  xcheck_plan *p, hb_err *err);

/* The standard function that reproduces every checkable record of the KAT
 * text files PATHS[0..N) (SPEC §3 format; records with a partial last
 * byte, a Dst_Len other than
 * DIGEST_BITS or a message longer than XCHECK_MAX_RECORD_BITS are not
 * checked), with at least XCHECK_MIN_RECORDS checked records in all; the
 * record of a file named KAT_Loop* is recomputed as KAT_Loop (h = H(m0),
 * then a million rotations, XORs and hashes) with the functions that agree
 * with every plain record but still lack that many, and agreeing there
 * is enough.
 * Returns 1 with EVP_NAME filled, 0 when no function qualifies (WHY, of
 * WHYSZ bytes, says why, e.g. which record each function missed), -1 when a
 * file cannot be read or is malformed (ERR names FILE:LINE). */
int xcheck_match_vectors(const char *const *paths, size_t n, int digest_bits,
                         char evp_name[32], char *why, size_t whysz, hb_err *err);

/* The same with KAT_Loop records of LOOP_ROUNDS iterations instead of the
 * official XCHECK_LOOP_ROUNDS (for tests: the rule, not the cost). */
int xcheck_match_vectors_rounds(const char *const *paths, size_t n, int digest_bits,
                                long loop_rounds, char evp_name[32], char *why,
                                size_t whysz, hb_err *err);

/* What the vectors show of the standard functions of their length. */
typedef struct xcheck_match {
    char evp_name[32];   /* the function (empty: none agreed on a record) */
    long agreed, missed; /* its plain records reproduced and not */
    char first_miss[160];/* "Msg_Len = 0 in KAT_2_12_X.txt:9", or empty */
} xcheck_match;

/* xcheck_match_vectors_rounds that also finds a near-standard function
 * (XCHECK_NEAR_*): 1 with M the function every record agrees with; 2 with
 * M the near-standard one (WHY as with 0); 0 with M the function that
 * agreed on most records (evp_name empty when none agreed on one); -1. */
int xcheck_match_near(const char *const *paths, size_t n, int digest_bits, long loop_rounds,
                      xcheck_match *m, char *why, size_t whysz, hb_err *err);

typedef struct xcheck_call {
    const unsigned char *msg;
    unsigned long long size;       /* bytes */
    const unsigned char *digest;   /* the claimed digest, digest_bits / 8 bytes */
} xcheck_call;

/* Recomputes the N calls with P (OpenSSL in this process; a variant or the
 * same library in ONE sandboxed runner process for the whole batch) and
 * compares each with its claimed digest. Returns 0 when all agree
 * (*N_CHECKED = N); 1 when one disagrees or the runner failed (*N_CHECKED
 * calls agreed before it; WHY says which call and how, e.g. "call 3 of
 * 460 (1024 bytes): digest differs from openssl:SM3", calls numbered from
 * 0 in the order given); -1 on hashbench's own failure (ERR). A verifier
 * library that does not load, fails a call or ends is a disagreement: the
 * timed library's digests were not confirmed. */
int xcheck_calls(const xcheck_plan *p, const xcheck_call *calls, size_t n,
                 size_t *n_checked, char *why, size_t whysz, hb_err *err);

/* xcheck_calls with the runner's wall-clock limit TIMEOUT_S (<= 0:
 * XCHECK_RUNNER_TIMEOUT_S), for a caller that spends an instance's budget. */
int xcheck_calls_within(const xcheck_plan *p, const xcheck_call *calls, size_t n,
                        double timeout_s, size_t *n_checked, char *why, size_t whysz,
                        hb_err *err);

/* The number of calls to sample so that a library faking a fraction F of
 * its calls (F <= 0 or F >= 1: XCHECK_DEFAULT_FAKED) is caught with
 * probability at least P (P <= 0 or P >= 1: XCHECK_DEFAULT_CATCH): the
 * smallest n with (1-F)^n <= 1-P (459 for 1 %, 99 %). */
size_t xcheck_sample_size(double f, double p);

/* Draws K distinct call indices out of 0 .. N-1, uniformly, with
 * getrandom, into IDX (room for K) in increasing order; K >= N gives every
 * index. Called after the window, so nothing in the probe can know which
 * calls will be checked. Returns the number written, or -1 (ERR) when the
 * kernel gives no random bytes. */
long xcheck_draw(size_t n, size_t k, size_t *idx, hb_err *err);

/* The message call J of a timed window hashed (probe/chain.h): raw message
 * J of KEY's stream (SIZE bytes; the window's raw message 0 at byte OFFSET
 * of the stream, message J at OFFSET + J*SIZE) chained with PREV, the
 * digest (DLEN bytes) the probe reported for call J-1 (ignored for J = 0),
 * into OUT (SIZE bytes). Fails only as msggen_fill does. */
int xcheck_window_message(const msggen_key *key, unsigned long long offset,
                          unsigned long long size, unsigned long long j,
                          const unsigned char *prev, size_t dlen, unsigned char *out,
                          hb_err *err);

#endif
