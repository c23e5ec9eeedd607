/* CAVP vector checks: see kat_vectors.h. hashbench reads the .rsp file and
 * compares; the library only hashes, one record at a time, in a sandboxed
 * runner (runner/client.h) that never sees the expected digests. */
#include "kat/kat_vectors.h"

#include <stdio.h>
#include <string.h>
#include "kat/rsp.h"
#include "runner/client.h"

#define VEC_DEFAULT_TIMEOUT_S 600.0
#define VEC_AS_LIMIT (2ULL << 30)

/* Checks every record through S; returns 0 when all were answered, 1 when
 * the library stopped the check (a fault in *F, or the runner gone: how is
 * in RC_CALL), -1 on our own failure or a malformed file (err). */
static int check_all(runner_session *s, rsp_reader *rd, int want_bits,
                     kat_vectors_result *res, long *line, kat_fault *f, int *rc_call,
                     hb_err *err)
{
    unsigned char out[KAT_MAX_DIGEST_BYTES];
    rsp_record r;
    int rc;
    while ((rc = rsp_next(rd, &r, err)) == 1) {
        int bits = want_bits ? want_bits : (int)(8 * r.md_bytes);
        if ((size_t)bits != 8 * r.md_bytes || bits != s->digest_bits ||
            r.md_bytes > sizeof out) {
            res->skipped++;
            continue;
        }
        *line = r.line;
        *rc_call = runner_hash(s, r.msg, r.len_bits, out, f, err);
        if (*rc_call < 0)
            return -1;
        if (*rc_call != RUNNER_CALL_OK)
            return 1;
        if (memcmp(out, r.md, r.md_bytes) == 0) {
            res->passed++;
        } else {
            if (res->failed < KAT_VECTORS_MAX_FAIL_LINES)
                res->fail_lines[res->failed] = r.line;
            res->failed++;
        }
    }
    return rc < 0 ? -1 : 0;
}

/* The digest length of the runner: the one asked for, or the first
 * record's. 0 when the file has no record. */
static int first_bits(const char *rsp_path, int want_bits, hb_err *err)
{
    rsp_reader *rd = NULL;
    rsp_record r;
    if (want_bits)
        return want_bits;
    if (rsp_open(rsp_path, &rd, err) != 0)
        return -1;
    int rc = rsp_next(rd, &r, err);
    rsp_close(rd);
    return rc < 0 ? -1 : rc == 0 ? 0 : (int)(8 * r.md_bytes);
}

int kat_vectors_check(const char *rsp_path, const char *library, int digest_bits,
                      double timeout_s, kat_vectors_result *res, hb_err *err)
{
    runner_session s;
    hb_proc_result pr;
    rsp_reader *rd = NULL;
    char loadfail[256], how[128];
    kat_fault f;
    long line = 0;
    int rc_call = RUNNER_CALL_OK;
    memset(res, 0, sizeof *res);
    memset(&f, 0, sizeof f);
    int bits = first_bits(rsp_path, digest_bits, err);
    if (bits < 0)
        return -1;
    if (bits == 0) {
        res->status = "PASS";
        return 0;
    }
    if (rsp_open(rsp_path, &rd, err) != 0)
        return -1;
    runner_target t = {library, bits, timeout_s > 0 ? timeout_s : VEC_DEFAULT_TIMEOUT_S,
                       VEC_AS_LIMIT};
    int rc = runner_open(&s, &t, loadfail, sizeof loadfail, err);
    if (rc < 0) {
        rsp_close(rd);
        return -1;
    }
    if (rc == 1) {
        runner_close(&s, &pr);
        rsp_close(rd);
        res->status = "LOADFAIL";
        snprintf(res->reason, sizeof res->reason, "cannot load CryptHash: %s", loadfail);
        return 0;
    }
    rc = check_all(&s, rd, digest_bits, res, &line, &f, &rc_call, err);
    rsp_close(rd);
    runner_close(&s, &pr);
    if (rc < 0)
        return -1;
    if (rc == 0 && !(pr.exited && pr.exit_code == 0)) {
        rc = 1;
        rc_call = RUNNER_CALL_GONE;
    }
    if (rc == 0) {
        res->status = res->failed ? "MISMATCH" : "PASS";
        return 0;
    }
    if (rc_call == RUNNER_CALL_FAULT)
        res->status = f.kind == KAT_FAULT_OVERFLOW ? "OVERFLOW" : "ERROR";
    else
        res->status = runner_gone_status(&s, &pr);
    snprintf(res->reason, sizeof res->reason, "%s at the record of line %ld",
             rc_call == RUNNER_CALL_FAULT ? f.detail
             : s.why[0] ? s.why : hb_proc_describe(&pr, how, sizeof how), line);
    return 0;
}
