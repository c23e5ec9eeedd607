/* Fuzz target: KAT text files (src/kat/katfile.h) as a submission ships
 * them. The input is read as a file with the canonical-line reader and the
 * record grammar, hashed in canonical form, and compared with itself and
 * with a small well-formed file. Checked besides memory safety:
 * - kat_canon_line leaves no CR and no trailing blank, and is idempotent;
 * - every error is one line naming the input file;
 * - a file the grammar accepts has a canonical SHA-256 and compares equal
 *   to itself; a file that fails comparison as EXPECTED fails the same way
 *   in kat_file_sha256 (both must agree on what is malformed). */
#include "kat/katfile.h"
#include "fuzz_util.h"

static const char good[] =
    "Msg_Len = 0\nMsg = \nDst_Len = 256\n"
    "Dst = 1AB21D8355CFA17F8E61194831E81A8F22BEC8C728FEFB747ED035EB5082AA2B\n\n"
    "Msg_Len = 1\nMsg = 80\nDst_Len = 256\n"
    "Dst = 0000000000000000000000000000000000000000000000000000000000000000\n\n";

static void check_canon(const uint8_t *data, size_t size)
{
    char *a = fuzz_cstr(data, size);
    size_t n = kat_canon_line(a, size);
    if (n > size)
        abort();
    for (size_t i = 0; i < n; i++)
        if (a[i] == '\r')
            abort();
    if (n && (a[n - 1] == ' ' || a[n - 1] == '\t'))
        abort();
    if (kat_canon_line(a, n) != n)
        abort();
    free(a);
}

/* A truncated file can stop inside a Dst line: a well-formed file's Dst
 * has exactly Dst_Len / 4 hex digits. Flags a violation in *bad_dst. The
 * line is split as the grammar splits it (blanks allowed around '='), so
 * that "Dst_Len=512" updates the length as the grammar does. */
static int bad_dst;
static const char *value_of(const char *line, const char *key)
{
    size_t k = strlen(key);
    if (strncmp(line, key, k) != 0)
        return NULL;
    line += k;
    line += strspn(line, " \t");
    if (*line != '=')
        return NULL;
    line++;
    return line + strspn(line, " \t");
}

static void check_dst(const char *line, long long *dst_bits)
{
    const char *v;
    if ((v = value_of(line, "Dst_Len")) != NULL)
        *dst_bits = strtoll(v, NULL, 10);
    else if ((v = value_of(line, "Dst")) != NULL && *dst_bits >= 0 &&
             (long long)strlen(v) != *dst_bits / 4)
        bad_dst = 1;
}

/* Reads PATH through the reader and grammar; 0 when well-formed. A text
 * line with a NUL byte in it is not text: *has_nul is set, and the file
 * must then not pass as well-formed. */
static int read_all(const char *path, int *has_nul)
{
    kat_reader r;
    kat_grammar g;
    hb_err err = {{0}};
    long long dst_bits = -1;
    const char *line;
    size_t len;
    int rc;
    if (kat_reader_open(&r, path, &err) != 0) {
        fuzz_check_err(&err);
        return -1;
    }
    kat_grammar_init(&g);
    while ((rc = kat_reader_next(&r, &line, &len, &err)) == 1) {
        if (memchr(line, '\r', len) || memchr(line, '\n', len))
            abort();
        if (strlen(line) != len)
            *has_nul = 1;
        check_dst(line, &dst_bits);
        if (kat_grammar_feed(&g, line, path, r.lineno, &err) != 0) {
            rc = -1;
            break;
        }
    }
    if (rc == 0)
        rc = kat_grammar_end(&g, path, r.lineno, &err) == 0 ? 0 : -1;
    if (rc != 0) {
        fuzz_check_err(&err);
        if (!strstr(err.msg, "kat_in.txt"))
            abort();
    }
    kat_reader_close(&r);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char in[1024], ref[1024], sha[HB_SHA256_HEX];
    hb_err err = {{0}};
    kat_cmp cmp;
    check_canon(data, size);
    fuzz_put("kat_in.txt", data, size, in, sizeof in);
    fuzz_put("kat_good.txt", good, sizeof good - 1, ref, sizeof ref);
    int has_nul = 0;
    bad_dst = 0;
    int well_formed = read_all(in, &has_nul) == 0;
    if (well_formed && has_nul) {
        fprintf(stderr, "a KAT file with a NUL byte inside a line passes the grammar\n");
        abort();
    }
    if (well_formed && bad_dst) {
        fprintf(stderr, "a Dst whose length contradicts Dst_Len passes the grammar\n");
        abort();
    }
    int hashed = kat_file_sha256(in, sha, &err) == 0;
    if (!hashed)
        fuzz_check_err(&err);
    memset(&cmp, 0, sizeof cmp);
    int against_good = kat_compare_files(ref, in, &cmp, &err);
    if (against_good != 0)
        fuzz_check_err(&err);
    else if (!cmp.equal && (!cmp.detail[0] || strchr(cmp.detail, '\n')))
        abort();
    if (well_formed) {
        if (!hashed || against_good != 0)
            abort();
        memset(&cmp, 0, sizeof cmp);
        if (kat_compare_files(in, in, &cmp, &err) != 0 || !cmp.equal)
            abort();
        if (strcmp(cmp.expected_sha256, sha) != 0 && cmp.expected_sha256[0])
            abort();
    }
    return 0;
}
