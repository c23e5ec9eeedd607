/* Helpers shared by the libFuzzer targets in this folder. Most of
 * hashbench's parsers read files by path (they report FILE:LINE), so each
 * target writes the fuzz input into a private scratch folder and hands the
 * parser that path. The scratch folder is made once per fuzzing process
 * under $TMPDIR (else /dev/shm, a memory file system, when it exists, else
 * /tmp) and removed at exit; the targets reuse it for every input. Everything here is static:
 * each target is a single translation unit plus the hashbench library. */
#ifndef HB_FUZZ_UTIL_H
#define HB_FUZZ_UTIL_H

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/err.h"

static char fuzz_dir[512];

static inline int fuzz_rm_one(const char *path, const struct stat *st, int flag,
                       struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Removes the folder PATH and everything under it; quiet on errors. */
static inline void fuzz_rm_tree(const char *path)
{
    nftw(path, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static inline void fuzz_cleanup(void)
{
    if (fuzz_dir[0])
        fuzz_rm_tree(fuzz_dir);
}

/* The scratch folder of this process (created on first use). */
static inline const char *fuzz_scratch(void)
{
    if (!fuzz_dir[0]) {
        const char *tmp = getenv("TMPDIR");
        struct stat st;
        if (!tmp || !*tmp)
            tmp = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
                  access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(fuzz_dir, sizeof fuzz_dir, "%s/hbfuzz.XXXXXX", tmp);
        if (!mkdtemp(fuzz_dir)) {
            perror("mkdtemp");
            abort();
        }
        atexit(fuzz_cleanup);
    }
    return fuzz_dir;
}

/* Writes LEN bytes to SCRATCH/REL (creating the parents of REL inside the
 * scratch folder) and copies the full path into OUT. Aborts when the disk
 * refuses: that is a harness failure, not a finding. */
static inline void fuzz_put(const char *rel, const void *data, size_t len, char *out,
                     size_t outsz)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", fuzz_scratch(), rel);
    for (char *p = path + strlen(fuzz_scratch()) + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    }
    FILE *fp = fopen(path, "wb");
    if (!fp || (len && fwrite(data, 1, len, fp) != len) || fclose(fp) != 0) {
        perror(path);
        abort();
    }
    if (out)
        snprintf(out, outsz, "%s", path);
}

/* A NUL-terminated malloc'd copy of the input (the caller frees it). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* An error message must be one line naming something: never empty, never
 * containing a newline. A broken message is a finding, so abort. */
static inline void fuzz_check_err(const hb_err *err)
{
    if (!err->msg[0] || strchr(err->msg, '\n')) {
        fprintf(stderr, "bad error message: [%s]\n", err->msg);
        abort();
    }
}

#endif
