/* Checking a library against a NIST CAVP `.rsp` file (Len/Msg/MD, read by
 * rsp.h), the second accepted vector format of SPEC §3. The library runs in
 * the sandboxed runner with the same guards and limits as the KAT files, so
 * a crash or a hang is reported, not suffered; the comparison is made here. */
#ifndef HB_KAT_KAT_VECTORS_H
#define HB_KAT_KAT_VECTORS_H

#include "common/err.h"

#define KAT_VECTORS_MAX_FAIL_LINES 8

typedef struct kat_vectors_result {
    long passed;
    long failed;
    long skipped;       /* records whose MD length differs from digest_bits */
    long fail_lines[KAT_VECTORS_MAX_FAIL_LINES]; /* .rsp lines of the first failures */
    const char *status; /* "PASS", "MISMATCH", "ERROR", "OVERFLOW", "CRASH",
                           "TIMEOUT" or "LOADFAIL" (static strings) */
    char reason[HB_ERR_MAX + 256];
} kat_vectors_result;

/* Hashes every record of RSP_PATH with LIBRARY's CryptHash, DIGEST_BITS per
 * call (0: the first record's MD length; records of another length are
 * skipped). Returns -1 (err names FILE:LINE) when
 * the .rsp file is malformed or the child cannot start; otherwise 0 with
 * *res filled. */
int kat_vectors_check(const char *rsp_path, const char *library, int digest_bits,
                      double timeout_s, kat_vectors_result *res, hb_err *err);

#endif
