/* Whether a built library talks to Valgrind. A client request is a fixed
 * instruction sequence that does nothing on a processor and that Valgrind
 * recognises as a call into itself: through it a library can learn that it
 * runs under Valgrind (RUNNING_ON_VALGRIND) or change what memcheck knows
 * (mark the message defined again). The constant-time taint check and the
 * instruction count run libraries under Valgrind, so a library that holds
 * the sequence gets neither verdict (ct/ct.c, count/count.c). */
#ifndef HB_COMMON_VGREQ_H
#define HB_COMMON_VGREQ_H

#include <stddef.h>
#include "common/err.h"

/* The byte offset in BUF (LEN bytes) of the first client-request preamble
 * Valgrind recognises on x86-64 or AArch64, or -1 when there is none. */
long long hb_valgrind_request_in(const unsigned char *buf, size_t len);

/* hb_valgrind_request_in over the whole file PATH into *OFFSET. Returns 0,
 * or -1 with ERR set when PATH cannot be read. */
int hb_valgrind_request_file(const char *path, long long *offset, hb_err *err);

/* Why a library whose client request is at OFFSET gets no verdict from the
 * tool WHAT ("the taint check", "the instruction count"), into OUT. */
void hb_valgrind_request_reason(char *out, size_t cap, long long offset, const char *what);

#endif
