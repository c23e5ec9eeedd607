/* Signed, tamper-evident datasets. A signed dataset DATA holds, beside its
 * systems, DATA/MANIFEST.sha256: one line per other file of DATA, "<SHA-256
 * hex>  <path below DATA>" (what sha256sum prints, so that `sha256sum -c`
 * checks it too), and DATA/MANIFEST.sha256.sig: the Ed25519 signature (64
 * raw bytes) of the manifest's bytes, made with OpenSSL's EVP. Whoever
 * mirrors the dataset can change nothing, add nothing and remove nothing
 * without `hashbench validate --key PUB` saying so, as long as the public
 * key comes from elsewhere (the signer publishes it, or its fingerprint).
 * Keys are PEM files: `openssl genpkey -algorithm ed25519 -out key.pem`,
 * then `openssl pkey -in key.pem -pubout -out key.pub.pem`. `hashbench
 * publish --sign KEY` signs; publishing without it removes a signature that
 * would no longer cover the dataset. */
#ifndef HB_DATASET_SIGN_H
#define HB_DATASET_SIGN_H

#include <stdio.h>
#include "common/err.h"

#include "dataset/layout.h" /* DATASET_MANIFEST, DATASET_SIGNATURE */

/* Hex SHA-256 of the DER public key: 64 digits and a NUL. */
#define SIGN_FINGERPRINT_HEX 65

/* Writes DATA_DIR's manifest (every regular file below it but the three
 * signature files, in walk order), signs it with the Ed25519 private key
 * of the PEM file KEY_PEM, and writes the public half beside them
 * (DATASET_SIGNING_KEY). FINGERPRINT (may be NULL) gets the SHA-256 of
 * the public key. Fails, writing nothing, naming the file: a key that is
 * not an Ed25519 private key in PEM, a symbolic link or a special file in
 * the dataset, a file that cannot be read. Returns the number of files
 * listed, or -1. */
int sign_dataset(const char *data_dir, const char *key_pem, char *fingerprint,
                 hb_err *err);

/* The fingerprint of the public key a signed DATA_DIR names
 * (DATASET_SIGNING_KEY, written by sign_dataset) into FINGERPRINT: 1, or 0
 * when DATA_DIR names none (unsigned, or signed before the key was kept
 * beside the signature), or -1 with ERR for a key file that is not an
 * Ed25519 public key in PEM. The named key proves nothing by itself (whoever
 * changes the dataset can sign it again with a key of theirs): a reader
 * compares its fingerprint with the one the signer publishes elsewhere. */
int sign_named_fingerprint(const char *data_dir, char *fingerprint, hb_err *err);

/* 1 when DATA_DIR holds a manifest or a signature. */
int sign_is_signed(const char *data_dir);

/* Removes DATA_DIR's manifest, signature and named key (a signature that
 * no longer covers the dataset). 1 when there was one, 0 when not, -1 with ERR. */
int sign_remove(const char *data_dir, hb_err *err);

/* Checks DATA_DIR against the Ed25519 public key of the PEM file PUB_PEM:
 * the signature of the manifest, then every file: each one changed,
 * removed or added since the signing, and every malformed manifest line,
 * printed to OUT as one line, counted in *PROBLEMS; a dataset naming
 * another signing key than PUB_PEM is a problem too. FINGERPRINT (may be
 * NULL) gets the key's. Returns 0 when the check ran (problems or not),
 * -1 with ERR when it could not (no such key, a key that is not an
 * Ed25519 public key, no manifest or signature in DATA_DIR). */
int sign_verify(const char *data_dir, const char *pub_pem, FILE *out, int *problems,
                char *fingerprint, hb_err *err);

#endif
