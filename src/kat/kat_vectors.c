/* CAVP vector checks in a child process: see kat_vectors.h. The child
 * counts into a shared mapping; the parent turns how the child ended into a
 * status. */
#include "kat/kat_vectors.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "common/proc.h"
#include "kat/kat_gen.h"
#include "kat/rsp.h"

#define VEC_DEFAULT_TIMEOUT_S 600.0
#define VEC_AS_LIMIT (2ULL << 30)

enum { VEC_OK = 0, VEC_FAULT = 10, VEC_LOADFAIL = 11, VEC_BADFILE = 12 };

typedef struct vec_shared {
    long passed, failed, skipped, n_fail_lines;
    long fail_lines[KAT_VECTORS_MAX_FAIL_LINES];
    long cur_line;
    int done;
    kat_fault fault;
    char message[HB_ERR_MAX];
} vec_shared;

typedef struct vec_arg {
    const char *rsp, *lib;
    int digest_bits;
    vec_shared *sh;
} vec_arg;

/* Hashes one record; returns 0, 1 (library fault) or -1. */
static int check_record(kat_gen_ctx *ctx, const rsp_record *r, int want_bits,
                        vec_shared *sh, hb_err *err)
{
    unsigned char out[1024];
    ctx->digest_bits = want_bits ? want_bits : (int)(8 * r->md_bytes);
    if ((size_t)ctx->digest_bits != 8 * r->md_bytes || r->md_bytes > sizeof out) {
        sh->skipped++;
        return 0;
    }
    sh->cur_line = r->line;
    int rc = kat_hash_guarded(ctx, r->msg, r->len_bits, out, err);
    if (rc != 0)
        return rc;
    if (memcmp(out, r->md, r->md_bytes) == 0) {
        sh->passed++;
    } else {
        if (sh->n_fail_lines < KAT_VECTORS_MAX_FAIL_LINES)
            sh->fail_lines[sh->n_fail_lines++] = r->line;
        sh->failed++;
    }
    return 0;
}

static int vec_child(void *arg)
{
    const vec_arg *a = arg;
    vec_shared *sh = a->sh;
    hb_err err;
    rsp_reader *rd = NULL;
    rsp_record rec;
    kat_gen_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    if (kat_child_load(a->lib, &ctx.hash, sh->message, sizeof sh->message) != 0)
        return VEC_LOADFAIL;
    if (rsp_open(a->rsp, &rd, &err) != 0) {
        snprintf(sh->message, sizeof sh->message, "%s", err.msg);
        return VEC_BADFILE;
    }
    int rc;
    while ((rc = rsp_next(rd, &rec, &err)) == 1)
        if ((rc = check_record(&ctx, &rec, a->digest_bits, sh, &err)) != 0)
            break;
    rsp_close(rd);
    if (rc == 1) {
        sh->fault = ctx.fault;
        return VEC_FAULT;
    }
    if (rc < 0) {
        snprintf(sh->message, sizeof sh->message, "%s", err.msg);
        return VEC_BADFILE;
    }
    sh->done = 1;
    return VEC_OK;
}

static void classify(const vec_shared *sh, const hb_proc_result *pr, kat_vectors_result *res)
{
    char how[128];
    res->status = NULL;
    if (pr->timed_out)
        res->status = "TIMEOUT";
    else if (pr->signaled)
        res->status = "CRASH";
    else if (pr->exit_code == VEC_LOADFAIL)
        res->status = "LOADFAIL";
    else if (pr->exit_code == VEC_FAULT)
        res->status = sh->fault.kind == KAT_FAULT_OVERFLOW ? "OVERFLOW" : "ERROR";
    else if (!sh->done)
        res->status = "ERROR";
    if (res->status == NULL) {
        res->status = sh->failed ? "MISMATCH" : "PASS";
        res->reason[0] = '\0';
    } else if (pr->exit_code == VEC_LOADFAIL && !pr->signaled && !pr->timed_out) {
        snprintf(res->reason, sizeof res->reason, "cannot load CryptHash: %s", sh->message);
    } else {
        snprintf(res->reason, sizeof res->reason, "%s at the record of line %ld",
                 pr->exit_code == VEC_FAULT && !pr->signaled ? sh->fault.detail
                 : hb_proc_describe(pr, how, sizeof how), sh->cur_line);
    }
}

int kat_vectors_check(const char *rsp_path, const char *library, int digest_bits,
                      double timeout_s, kat_vectors_result *res, hb_err *err)
{
    hb_proc_opts po = hb_proc_defaults();
    hb_proc_result pr;
    memset(res, 0, sizeof *res);
    vec_shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return hb_fail_errno(err, "cannot map the vector report area");
    memset(sh, 0, sizeof *sh);
    vec_arg a = {rsp_path, library, digest_bits, sh};
    po.timeout_s = timeout_s > 0 ? timeout_s : VEC_DEFAULT_TIMEOUT_S;
    po.as_bytes = VEC_AS_LIMIT;
    int rc = hb_proc_fork(vec_child, &a, &po, &pr, err);
    if (rc == 0 && pr.exited && pr.exit_code == VEC_BADFILE) {
        sh->message[sizeof sh->message - 1] = '\0';
        rc = hb_fail(err, "%s", sh->message);
    } else if (rc == 0) {
        sh->fault.detail[sizeof sh->fault.detail - 1] = '\0';
        sh->message[sizeof sh->message - 1] = '\0';
        res->passed = sh->passed;
        res->failed = sh->failed;
        res->skipped = sh->skipped;
        memcpy(res->fail_lines, sh->fail_lines, sizeof res->fail_lines);
        classify(sh, &pr, res);
    }
    munmap(sh, sizeof *sh);
    return rc;
}
