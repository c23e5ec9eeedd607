/* The wire format between hashbench and hashbench-probe in its runner role: fixed-size
 * headers in the host's byte order (both ends are built together for one
 * machine) over two pipes, requests on the runner's standard input and
 * answers on its standard output. The runner answers every request with one
 * header and its payload; it sends a first answer, before any request, that
 * says whether the library loaded. */
#ifndef HB_RUNNER_PROTOCOL_H
#define HB_RUNNER_PROTOCOL_H

#include <stdint.h>

enum runner_op {
    RUNNER_OP_HASH = 1, /* a = message bits; payload: ceil(a/8) message bytes.
                           Answer: the digest */
    RUNNER_OP_LOOP = 2, /* a = rounds, b = message bytes; payload: m0.
                           Answer: the final digest of KAT_Loop */
    RUNNER_OP_FOLD = 3, /* a = seed, b = message bytes, c = calls; no payload.
                           Answer: the fold, 32 hex digits (trial_msg.h) */
    RUNNER_OP_END = 4   /* no answer; the runner exits 0 */
};

typedef struct runner_request {
    uint32_t op;
    uint32_t reserved;
    uint64_t a, b, c;
} runner_request;

enum runner_status {
    RUNNER_OK = 0,
    RUNNER_FAULT = 1,    /* payload: the fault's detail text; kind in `kind` */
    RUNNER_LOADFAIL = 2, /* payload: why the library did not load */
    RUNNER_BAD = 3       /* payload: what was wrong with the request */
};

typedef struct runner_answer {
    uint32_t status;
    uint32_t kind;     /* KAT_FAULT_* with RUNNER_FAULT */
    uint64_t length;   /* payload bytes that follow */
} runner_answer;

/* Upper bounds the parent enforces on what it reads. */
#define RUNNER_MAX_PAYLOAD 4096u
#define RUNNER_MAX_MESSAGE (1ULL << 31) /* bytes of one message (KAT_2_33: 1 GiB) */

#endif
