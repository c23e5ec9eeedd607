/* Fuzz target: NIST CAVP `.rsp` response files (src/kat/rsp.h). The input
 * is read record by record to the end or the first error. Checked besides
 * memory safety: every record's message holds ceil(Len/8) bytes and a
 * non-NULL buffer, its digest is non-empty, records come in file order,
 * and an error is one line naming the file. */
#include "kat/rsp.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[1024];
    rsp_reader *r = NULL;
    rsp_record rec;
    hb_err err = {{0}};
    long last_line = 0;
    int rc;
    fuzz_put("vectors.rsp", data, size, path, sizeof path);
    if (rsp_open(path, &r, &err) != 0) {
        fuzz_check_err(&err);
        return 0;
    }
    while ((rc = rsp_next(r, &rec, &err)) == 1) {
        if (!rec.msg || rec.msg_bytes != (rec.len_bits + 7) / 8)
            abort();
        if (!rec.md || rec.md_bytes == 0 || rec.line <= last_line)
            abort();
        /* Touch every byte so ASan sees a short buffer. */
        volatile unsigned char sink = 0;
        for (size_t i = 0; i < rec.msg_bytes; i++)
            sink ^= rec.msg[i];
        for (size_t i = 0; i < rec.md_bytes; i++)
            sink ^= rec.md[i];
        (void)sink;
        last_line = rec.line;
    }
    if (rc < 0) {
        fuzz_check_err(&err);
        if (!strstr(err.msg, "vectors.rsp"))
            abort();
    }
    rsp_close(r);
    return 0;
}
