/* A built library's function symbols, kept beside it for the count's
 * shares (count_syms.h), read with libelf. */
#include "count/count_syms.h"

#include <ctype.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/digest.h"
#include "common/fs.h"
#include "common/json.h"

int count_syms_read(const char *path, json_t **out, hb_err *err)
{
    *out = NULL;
    if (elf_version(EV_CURRENT) == EV_NONE)
        return hb_fail(err, "libelf is unusable: %s", elf_errmsg(-1));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return hb_fail_errno(err, "%s: cannot open", path);
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
        if (elf)
            elf_end(elf);
        close(fd);
        return hb_fail(err, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
    }
    json_t *list = json_array();
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t count = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
        for (size_t i = 0; i < count && json_array_size(list) < COUNT_SYMS_MAX; i++) {
            GElf_Sym s;
            if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
                s.st_shndx == SHN_UNDEF || s.st_value == 0)
                continue;
            const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
            if (!name || !name[0])
                continue;
            /* kept as the shares show it: the submission's text, sanitised */
            char safe[CG_NAME_MAX + 1];
            cg_safe_name(name, safe, sizeof safe);
            json_array_append_new(list, json_pack("[I, I, s]", (json_int_t)s.st_value,
                                                  (json_int_t)s.st_size, safe));
        }
    }
    elf_end(elf);
    close(fd);
    *out = list;
    return 0;
}

int count_syms_write(const char *lib, const json_t *syms, hb_err *err)
{
    char path[PATH_MAX], sha[HB_SHA256_HEX];
    int w = snprintf(path, sizeof path, "%s" COUNT_SYMS_SUFFIX, lib);
    if (w < 0 || (size_t)w >= sizeof path)
        return hb_fail(err, "%s: path too long for its functions' names", lib);
    if (hb_sha256_file_hex(lib, sha, err) != 0)
        return -1;
    json_t *doc = json_pack("{s:s, s:O}", "library_sha256", sha, "functions", syms);
    int rc = doc ? hb_json_save(path, doc, err) : hb_fail(err, "out of memory");
    json_decref(doc);
    return rc;
}

json_t *count_syms_load(const char *lib, const char *lib_sha)
{
    char path[PATH_MAX];
    json_t *doc = NULL;
    hb_err ignored;
    int w = snprintf(path, sizeof path, "%s" COUNT_SYMS_SUFFIX, lib);
    if (w < 0 || (size_t)w >= sizeof path || !hb_is_file(path) ||
        hb_json_load(path, &doc, &ignored) != 0)
        return NULL;
    json_t *fns = json_object_get(doc, "functions");
    json_t *out = NULL;
    if (lib_sha && strcmp(hb_json_str(doc, "library_sha256"), lib_sha) == 0 &&
        json_is_array(fns))
        out = json_incref(fns);
    json_decref(doc);
    return out;
}

const char *count_syms_name(const json_t *syms, unsigned long long address)
{
    const char *holder = NULL;
    size_t i;
    json_t *s;
    json_array_foreach(syms, i, s) {
        unsigned long long at = (unsigned long long)json_integer_value(json_array_get(s, 0));
        unsigned long long size = (unsigned long long)json_integer_value(json_array_get(s, 1));
        const char *name = json_string_value(json_array_get(s, 2));
        if (!name)
            continue;
        if (at == address)
            return name;
        if (!holder && address > at && address - at < size)
            holder = name;
    }
    return holder;
}

void cg_safe_name(const char *name, char *out, size_t cap)
{
    size_t n = 0, max = cap - 1 < CG_NAME_MAX ? cap - 1 : CG_NAME_MAX;
    size_t len = strlen(name);
    size_t keep = len > max ? max - 3 : len;
    for (size_t i = 0; i < keep; i++) {
        unsigned char c = (unsigned char)name[i];
        out[n++] = isalnum(c) || strchr("_.@+-", c) ? (char)c : '?';
    }
    if (len > max) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    if (n == 0)
        out[n++] = '?';
    out[n] = '\0';
}
