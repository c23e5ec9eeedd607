/* Signing and verifying a dataset (see sign.h): the manifest from one walk
 * of the dataset, the signature with OpenSSL's EVP (Ed25519 signs the
 * message itself, so EVP_DigestSign runs with no digest). */
#include "dataset/sign.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include "common/digest.h"
#include "common/fs.h"
#include "common/walk.h"

#define SIG_BYTES 64
#define KEY_FIX "make one with: openssl genpkey -algorithm ed25519 -out key.pem " \
    "(its public half: openssl pkey -in key.pem -pubout -out key.pub.pem)"

/* The SHA-256 of the DER form of KEY's public half. */
static int key_fingerprint(EVP_PKEY *key, char *hex)
{
    unsigned char *der = NULL;
    int n = i2d_PUBKEY(key, &der);
    if (n <= 0)
        return -1;
    hb_sha256_buf_hex(der, (size_t)n, hex);
    OPENSSL_free(der);
    return 0;
}

/* Reads an Ed25519 key of the PEM file PATH: private (PRIVATE) or public. */
static EVP_PKEY *load_key(const char *path, int private, hb_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        hb_fail_errno(err, "%s: cannot open the %s key", path,
                      private ? "private" : "public");
        return NULL;
    }
    EVP_PKEY *k = private ? PEM_read_PrivateKey(f, NULL, NULL, NULL)
                          : PEM_read_PUBKEY(f, NULL, NULL, NULL);
    fclose(f);
    if (!k || EVP_PKEY_get_base_id(k) != EVP_PKEY_ED25519) {
        EVP_PKEY_free(k);
        hb_fail(err, "%s: not an Ed25519 %s key in PEM form; %s", path,
                private ? "private" : "public",
                private ? KEY_FIX : "give the public half of the signing key "
                "(openssl pkey -in key.pem -pubout -out key.pub.pem)");
        return NULL;
    }
    return k;
}

/* ---- the manifest ------------------------------------------------------ */

typedef struct listing {
    json_t *files;        /* rel -> sha256 hex */
    json_t *order;        /* rels in walk order */
    int bad;              /* a link or special file was met */
    char first_bad[4096];
} listing;

static int is_signature_file(const hb_walk_entry *e)
{
    return e->depth == 1 &&
           (strcmp(e->name, DATASET_MANIFEST) == 0 || strcmp(e->name, DATASET_SIGNATURE) == 0 ||
            strcmp(e->name, DATASET_SIGNING_KEY) == 0);
}

static int list_file(const hb_walk_entry *e, void *ctx, hb_err *err)
{
    listing *l = ctx;
    if (e->type == HB_WALK_DIR || is_signature_file(e))
        return HB_WALK_CONTINUE;
    if (e->type != HB_WALK_FILE || strchr(e->rel, '\n')) {
        if (!l->bad++)
            snprintf(l->first_bad, sizeof l->first_bad, "%s", e->rel);
        json_object_set_new(l->files, e->rel, json_null());
        json_array_append_new(l->order, json_string(e->rel));
        return HB_WALK_CONTINUE;
    }
    char hex[HB_SHA256_HEX];
    if (hb_sha256_file_hex(e->path, hex, err) < 0)
        return -1;
    json_object_set_new(l->files, e->rel, json_string(hex));
    json_array_append_new(l->order, json_string(e->rel));
    return HB_WALK_CONTINUE;
}

/* Every file below DIR (the signature files aside) with its SHA-256; a
 * link or a special file is listed with null. */
static int list_files(const char *dir, listing *l, hb_err *err)
{
    memset(l, 0, sizeof *l);
    l->files = json_object();
    l->order = json_array();
    if (hb_walk(dir, HB_WALK_MAX_DEPTH, 0, list_file, l, err) != 0) {
        json_decref(l->files);
        json_decref(l->order);
        return -1;
    }
    return 0;
}

static void listing_free(listing *l)
{
    json_decref(l->files);
    json_decref(l->order);
}

/* ---- signing ----------------------------------------------------------- */

int sign_dataset(const char *data_dir, const char *key_pem, char *fingerprint,
                 hb_err *err)
{
    char mpath[4096], spath[4096];
    if (hb_path_join(mpath, sizeof mpath, data_dir, DATASET_MANIFEST, err) < 0 ||
        hb_path_join(spath, sizeof spath, data_dir, DATASET_SIGNATURE, err) < 0)
        return -1;
    EVP_PKEY *key = load_key(key_pem, 1, err);
    if (!key)
        return -1;
    listing l;
    if (list_files(data_dir, &l, err) < 0) {
        EVP_PKEY_free(key);
        return -1;
    }
    int rc = 0;
    if (l.bad)
        rc = hb_fail(err, "%s/%s: not a regular file (a link or a special file, or a "
                     "name with a line break); a dataset holds plain files and folders "
                     "only: remove it, or publish the campaign again", data_dir,
                     l.first_bad);
    /* the manifest's text */
    size_t cap = 1024, len = 0, i;
    char *text = malloc(cap);
    json_t *rel;
    if (rc == 0 && !text)
        rc = hb_fail(err, "out of memory");
    json_array_foreach(l.order, i, rel) {
        if (rc != 0)
            break;
        const char *r = json_string_value(rel);
        const char *hex = json_string_value(json_object_get(l.files, r));
        size_t need = strlen(hex) + 2 + strlen(r) + 1;
        if (len + need + 1 > cap) {
            while (len + need + 1 > cap)
                cap *= 2;
            char *grown = realloc(text, cap);
            if (!grown) {
                rc = hb_fail(err, "out of memory");
                break;
            }
            text = grown;
        }
        len += (size_t)snprintf(text + len, cap - len, "%s  %s\n", hex, r);
    }
    unsigned char sig[SIG_BYTES];
    size_t siglen = sizeof sig;
    if (rc == 0) {
        EVP_MD_CTX *md = EVP_MD_CTX_new();
        if (!md || EVP_DigestSignInit(md, NULL, NULL, NULL, key) != 1 ||
            EVP_DigestSign(md, sig, &siglen, (const unsigned char *)text, len) != 1)
            rc = hb_fail(err, "%s: signing the manifest with %s failed (OpenSSL)",
                         mpath, key_pem);
        EVP_MD_CTX_free(md);
    }
    if (rc == 0 && fingerprint && key_fingerprint(key, fingerprint) < 0)
        rc = hb_fail(err, "%s: cannot encode the public key", key_pem);
    char kpath[4096], *pem = NULL;
    long pem_len = 0;
    BIO *bio = rc == 0 ? BIO_new(BIO_s_mem()) : NULL;
    if (rc == 0 && (hb_path_join(kpath, sizeof kpath, data_dir, DATASET_SIGNING_KEY,
                                 err) < 0))
        rc = -1;
    else if (rc == 0 && (!bio || PEM_write_bio_PUBKEY(bio, key) != 1 ||
                         (pem_len = BIO_get_mem_data(bio, &pem)) <= 0))
        rc = hb_fail(err, "%s: cannot encode the public key", key_pem);
    /* the signature first removed, so that a manifest never stands with the
     * signature of another */
    if (rc == 0 && unlink(spath) != 0 && errno != ENOENT)
        rc = hb_fail_errno(err, "%s: cannot remove the old signature", spath);
    if (rc == 0)
        rc = hb_write_atomic(mpath, text, len, err);
    if (rc == 0)
        rc = hb_write_atomic(spath, sig, siglen, err);
    if (rc == 0)
        rc = hb_write_atomic(kpath, pem, (size_t)pem_len, err);
    BIO_free(bio);
    free(text);
    EVP_PKEY_free(key);
    int n = (int)json_array_size(l.order);
    listing_free(&l);
    return rc < 0 ? -1 : n;
}

int sign_named_fingerprint(const char *data_dir, char *fingerprint, hb_err *err)
{
    char p[4096];
    if (hb_path_join(p, sizeof p, data_dir, DATASET_SIGNING_KEY, err) < 0)
        return -1;
    if (!hb_is_file(p))
        return 0;
    EVP_PKEY *key = load_key(p, 0, err);
    if (!key)
        return -1;
    int rc = key_fingerprint(key, fingerprint) < 0
                 ? hb_fail(err, "%s: cannot encode the public key", p)
                 : 1;
    EVP_PKEY_free(key);
    return rc;
}

int sign_is_signed(const char *data_dir)
{
    char p[4096];
    hb_err ignored;
    return (hb_path_join(p, sizeof p, data_dir, DATASET_MANIFEST, &ignored) == 0 &&
            access(p, F_OK) == 0) ||
           (hb_path_join(p, sizeof p, data_dir, DATASET_SIGNATURE, &ignored) == 0 &&
            access(p, F_OK) == 0);
}

int sign_remove(const char *data_dir, hb_err *err)
{
    int had = 0;
    const char *names[] = {DATASET_SIGNATURE, DATASET_MANIFEST, DATASET_SIGNING_KEY};
    for (int i = 0; i < 3; i++) {
        char p[4096];
        if (hb_path_join(p, sizeof p, data_dir, names[i], err) < 0)
            return -1;
        if (unlink(p) == 0)
            had = 1;
        else if (errno != ENOENT)
            return hb_fail_errno(err, "%s: cannot remove it", p);
    }
    return had;
}

/* ---- verifying --------------------------------------------------------- */

static void problem(FILE *out, int *problems, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void problem(FILE *out, int *problems, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
    ++*problems;
}

/* 1 when REL is a plain relative path: not empty, not absolute, no "."
 * or ".." component, no empty component. */
static int plain_rel(const char *rel)
{
    if (!rel[0] || rel[0] == '/')
        return 0;
    for (const char *p = rel; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        p += n;
        if (*p == '/')
            p++;
        if (!*p && p[-1] == '/')
            return 0;
    }
    return 1;
}

/* The manifest's lines into SIGNED (rel -> hex); each malformed one a problem. */
static void parse_manifest(const char *mpath, char *text, size_t len, json_t *signed_,
                           FILE *out, int *problems)
{
    long line = 0;
    for (size_t at = 0; at < len;) {
        char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len;
        text[end] = '\0';
        char *l = text + at;
        line++;
        at = end + 1;
        size_t hexlen = strspn(l, "0123456789abcdef");
        if (hexlen != 64 || strncmp(l + 64, "  ", 2) != 0 || !plain_rel(l + 66)) {
            problem(out, problems, "%s:%ld: not a manifest line ('<sha256>  <path>' "
                    "with a plain relative path); sign the dataset again", mpath, line);
            continue;
        }
        if (json_object_get(signed_, l + 66)) {
            problem(out, problems, "%s:%ld: %s is listed twice", mpath, line, l + 66);
            continue;
        }
        l[64] = '\0';
        json_object_set_new(signed_, l + 66, json_string(l));
    }
}

int sign_verify(const char *data_dir, const char *pub_pem, FILE *out, int *problems,
                char *fingerprint, hb_err *err)
{
    char mpath[4096], spath[4096];
    *problems = 0;
    if (hb_path_join(mpath, sizeof mpath, data_dir, DATASET_MANIFEST, err) < 0 ||
        hb_path_join(spath, sizeof spath, data_dir, DATASET_SIGNATURE, err) < 0)
        return -1;
    EVP_PKEY *key = load_key(pub_pem, 0, err);
    if (!key)
        return -1;
    if (fingerprint && key_fingerprint(key, fingerprint) < 0) {
        EVP_PKEY_free(key);
        return hb_fail(err, "%s: cannot encode the public key", pub_pem);
    }
    char *text = NULL, *sig = NULL;
    size_t len = 0, siglen = 0;
    if (!hb_is_file(mpath) || !hb_is_file(spath)) {
        EVP_PKEY_free(key);
        return hb_fail(err, "%s: the dataset is not signed (no %s and %s); sign it "
                       "with hashbench publish --sign KEY", data_dir, DATASET_MANIFEST,
                       DATASET_SIGNATURE);
    }
    if (hb_read_file(mpath, &text, &len, err) < 0 ||
        hb_read_file(spath, &sig, &siglen, err) < 0) {
        free(text);
        EVP_PKEY_free(key);
        return -1;
    }
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int good = md && siglen == SIG_BYTES &&
               EVP_DigestVerifyInit(md, NULL, NULL, NULL, key) == 1 &&
               EVP_DigestVerify(md, (unsigned char *)sig, siglen, (unsigned char *)text,
                                len) == 1;
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(key);
    free(sig);
    if (!good)
        problem(out, problems, "%s: the signature %s does not verify with %s: the "
                "manifest was changed since it was signed, or signed with another key; "
                "nothing in this dataset can be trusted to be what was signed",
                mpath, DATASET_SIGNATURE, pub_pem);
    char named[SIGN_FINGERPRINT_HEX], given[SIGN_FINGERPRINT_HEX];
    hb_err kerr;
    int nk = sign_named_fingerprint(data_dir, named, &kerr);
    if (nk < 0)
        problem(out, problems, "%s", kerr.msg);
    else if (nk == 1) {
        EVP_PKEY *k = load_key(pub_pem, 0, &kerr);
        if (k && key_fingerprint(k, given) == 0 && strcmp(named, given) != 0)
            problem(out, problems, "%s/%s: the dataset names the signing key SHA256:%s, "
                    "not %s (SHA256:%s): check which key its signer published",
                    data_dir, DATASET_SIGNING_KEY, named, pub_pem, given);
        EVP_PKEY_free(k);
    }
    json_t *signed_ = json_object();
    parse_manifest(mpath, text, len, signed_, out, problems);
    free(text);
    listing l;
    if (list_files(data_dir, &l, err) < 0) {
        json_decref(signed_);
        return -1;
    }
    size_t i;
    json_t *rel;
    json_array_foreach(l.order, i, rel) {
        const char *r = json_string_value(rel);
        const json_t *want = json_object_get(signed_, r);
        const char *have = json_string_value(json_object_get(l.files, r));
        if (!have)
            problem(out, problems, "%s/%s: not a regular file (a link or a special "
                    "file): not in a signed dataset", data_dir, r);
        else if (!want)
            problem(out, problems, "%s/%s: added since the dataset was signed (not in "
                    "%s)", data_dir, r, DATASET_MANIFEST);
        else if (strcmp(json_string_value(want), have) != 0)
            problem(out, problems, "%s/%s: changed since the dataset was signed "
                    "(SHA-256 %s, signed %s)", data_dir, r, have,
                    json_string_value(want));
    }
    const char *r;
    json_t *v;
    json_object_foreach(signed_, r, v)
        if (!json_object_get(l.files, r))
            problem(out, problems, "%s/%s: removed since the dataset was signed (listed "
                    "in %s)", data_dir, r, DATASET_MANIFEST);
    listing_free(&l);
    json_decref(signed_);
    return 0;
}
