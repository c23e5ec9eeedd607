/* Static size and dynamic-symbol check of a shared library, and the global
 * definitions of an object file, through libelf: see elfsize.h for what
 * counts as what. */
#include "compile/elfsize.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Opens PATH for reading with libelf; *fd and *elf are closed by close_elf. */
static int open_elf(const char *path, int *fd, Elf **elf, hb_err *err)
{
    if (elf_version(EV_CURRENT) == EV_NONE)
        return hb_fail(err, "libelf is unusable: %s", elf_errmsg(-1));
    *fd = open(path, O_RDONLY);
    if (*fd < 0)
        return hb_fail_errno(err, "%s: cannot open", path);
    *elf = elf_begin(*fd, ELF_C_READ, NULL);
    if (!*elf || elf_kind(*elf) != ELF_K_ELF) {
        if (*elf)
            elf_end(*elf);
        close(*fd);
        return hb_fail(err, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
    }
    return 0;
}

static void close_elf(int fd, Elf *elf)
{
    elf_end(elf);
    close(fd);
}

static int sum_load_segments(Elf *elf, const char *path, unsigned long long *image,
                             hb_err *err)
{
    size_t n = 0;
    if (elf_getphdrnum(elf, &n) != 0)
        return hb_fail(err, "%s: no program headers (%s)", path, elf_errmsg(-1));
    *image = 0;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph))
            return hb_fail(err, "%s: bad program header %zu", path, i);
        if (ph.p_type == PT_LOAD)
            *image += ph.p_memsz;
    }
    return 0;
}

static void classify_sections(Elf *elf, elfsize_info *out)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
            continue;
        if (sh.sh_type == SHT_NOBITS)
            out->bss += sh.sh_size;
        else if (sh.sh_flags & SHF_EXECINSTR)
            out->text += sh.sh_size;
        else if (sh.sh_flags & SHF_WRITE)
            out->data += sh.sh_size;
        else
            out->rodata += sh.sh_size;
    }
}

int elfsize_measure(const char *path, elfsize_info *out, hb_err *err)
{
    int fd;
    Elf *elf;
    memset(out, 0, sizeof *out);
    if (open_elf(path, &fd, &elf, err) != 0)
        return -1;
    int rc = sum_load_segments(elf, path, &out->image, err);
    if (rc == 0)
        classify_sections(elf, out);
    close_elf(fd, elf);
    return rc;
}

/* The most bytes of section names (.shstrtab) kept; the names of an
 * ordinary library take a few hundred. */
#define ELFSIZE_NAMES_KEPT 4096

/* A file range [lo, hi) that keeps its bytes. */
typedef struct keep_range {
    unsigned long long lo, hi;
} keep_range;

static int cmp_range(const void *a, const void *b)
{
    const keep_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The ranges of PATH that elfsize_blank_unloaded keeps, sorted, into
 * *OUT (malloc'd) and *N. */
static int kept_ranges(Elf *elf, const char *path, keep_range **out, size_t *n, hb_err *err)
{
    GElf_Ehdr eh;
    size_t nph = 0;
    *out = NULL;
    *n = 0;
    if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph) != 0)
        return hb_fail(err, "%s: no ELF or program headers (%s)", path, elf_errmsg(-1));
    keep_range *r = calloc(nph + 4, sizeof *r);
    if (!r)
        return hb_fail(err, "out of memory reading %s", path);
    size_t k = 0;
    r[k++] = (keep_range){0, eh.e_ehsize};
    r[k++] = (keep_range){eh.e_phoff, eh.e_phoff + (unsigned long long)eh.e_phnum * eh.e_phentsize};
    if (eh.e_shoff)
        r[k++] = (keep_range){eh.e_shoff,
                              eh.e_shoff + (unsigned long long)eh.e_shnum * eh.e_shentsize};
    /* the section names, so that readelf and objdump still name them; too
     * small to carry a table */
    size_t shstrndx = 0;
    Elf_Scn *names = elf_getshdrstrndx(elf, &shstrndx) == 0 ? elf_getscn(elf, shstrndx) : NULL;
    GElf_Shdr nh;
    if (names && gelf_getshdr(names, &nh) && nh.sh_type != SHT_NOBITS &&
        nh.sh_size <= ELFSIZE_NAMES_KEPT)
        r[k++] = (keep_range){nh.sh_offset, nh.sh_offset + nh.sh_size};
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph)) {
            free(r);
            return hb_fail(err, "%s: bad program header %zu", path, i);
        }
        if (ph.p_type == PT_LOAD)
            r[k++] = (keep_range){ph.p_offset, ph.p_offset + ph.p_filesz};
    }
    qsort(r, k, sizeof *r, cmp_range);
    *out = r;
    *n = k;
    return 0;
}

static int write_zeros(int fd, unsigned long long lo, unsigned long long hi)
{
    static const char zeros[4096];
    while (lo < hi) {
        size_t len = hi - lo < sizeof zeros ? (size_t)(hi - lo) : sizeof zeros;
        ssize_t w = pwrite(fd, zeros, len, (off_t)lo);
        if (w <= 0)
            return -1;
        lo += (unsigned long long)w;
    }
    return 0;
}

int elfsize_blank_unloaded(const char *path, unsigned long long *blanked, hb_err *err)
{
    int fd;
    Elf *elf;
    keep_range *r = NULL;
    size_t n = 0;
    *blanked = 0;
    if (open_elf(path, &fd, &elf, err) != 0)
        return -1;
    int rc = kept_ranges(elf, path, &r, &n, err);
    close_elf(fd, elf);
    if (rc != 0)
        return -1;
    int wfd = open(path, O_WRONLY);
    struct stat st;
    if (wfd < 0 || fstat(wfd, &st) != 0) {
        rc = hb_fail_errno(err, "%s: cannot open to blank what is never loaded", path);
        goto done;
    }
    unsigned long long at = 0, size = (unsigned long long)st.st_size;
    for (size_t i = 0; i <= n && at < size; i++) {
        unsigned long long lo = i < n ? r[i].lo : size, hi = i < n ? r[i].hi : size;
        if (lo > size)
            lo = size;
        if (lo > at) {
            if (write_zeros(wfd, at, lo) != 0) {
                rc = hb_fail_errno(err, "%s: cannot blank bytes %llu to %llu", path, at, lo);
                goto done;
            }
            *blanked += lo - at;
        }
        if (hi > at)
            at = hi;
    }
done:
    if (wfd >= 0)
        close(wfd);
    free(r);
    return rc;
}

static int symtab_defines(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
                          const char *symbol)
{
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d || sh->sh_entsize == 0)
        return 0;
    size_t count = sh->sh_size / sh->sh_entsize;
    for (size_t i = 0; i < count; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, (int)i, &s))
            continue;
        int bind = GELF_ST_BIND(s.st_info);
        if (s.st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK))
            continue;
        const char *name = elf_strptr(elf, sh->sh_link, s.st_name);
        if (name && strcmp(name, symbol) == 0)
            return 1;
    }
    return 0;
}

int elfsize_exports(const char *path, const char *symbol, int *found, hb_err *err)
{
    int fd;
    Elf *elf;
    *found = 0;
    if (open_elf(path, &fd, &elf, err) != 0)
        return -1;
    Elf_Scn *scn = NULL;
    while (!*found && (scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM)
            *found = symtab_defines(elf, scn, &sh, symbol);
    }
    close_elf(fd, elf);
    return 0;
}

int elfsize_exec_ranges(const char *path, unsigned long long page,
                        unsigned long long (*ranges)[2], int max, int *n, hb_err *err)
{
    int fd;
    Elf *elf;
    size_t nph;
    *n = 0;
    if (page == 0 || (page & (page - 1)) != 0)
        return hb_fail(err, "%s: page size %llu is not a power of two", path, page);
    if (open_elf(path, &fd, &elf, err) != 0)
        return -1;
    int rc = elf_getphdrnum(elf, &nph) == 0 ? 0 : hb_fail(err, "%s: no program headers", path);
    for (size_t i = 0; rc == 0 && i < nph; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph))
            rc = hb_fail(err, "%s: bad program header %zu", path, i);
        else if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || ph.p_filesz == 0)
            continue;
        else if (*n >= max)
            rc = hb_fail(err, "%s: more than %d executable segments", path, max);
        else {
            ranges[*n][0] = ph.p_offset & ~(page - 1);
            ranges[*n][1] = (ph.p_offset + ph.p_filesz + page - 1) & ~(page - 1);
            (*n)++;
        }
    }
    close_elf(fd, elf);
    return rc;
}

int elfsize_interp(const char *path, char *out, size_t outsz, hb_err *err)
{
    int fd;
    Elf *elf;
    size_t n;
    out[0] = '\0';
    if (open_elf(path, &fd, &elf, err) != 0)
        return -1;
    int rc = elf_getphdrnum(elf, &n) == 0 ? 0 : hb_fail(err, "%s: no program headers", path);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_INTERP)
            continue;
        size_t len;
        const char *raw = elf_rawfile(elf, &len);
        if (!raw || ph.p_offset >= len || ph.p_filesz == 0 || ph.p_filesz > outsz ||
            ph.p_filesz > len - ph.p_offset)
            rc = hb_fail(err, "%s: unreadable program interpreter", path);
        else
            snprintf(out, outsz, "%.*s", (int)ph.p_filesz, raw + ph.p_offset);
        break;
    }
    close_elf(fd, elf);
    return rc;
}

int elfsize_needed(const char *path, strlist *out, hb_err *err)
{
    int fd;
    Elf *elf;
    if (open_elf(path, &fd, &elf, err) != 0)
        return -1;
    int rc = 0;
    Elf_Scn *scn = NULL;
    while (rc == 0 && (scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *d;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || sh.sh_entsize == 0 ||
            !(d = elf_getdata(scn, NULL)))
            continue;
        for (size_t i = 0; rc == 0 && i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Dyn dyn;
            if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag != DT_NEEDED)
                continue;
            const char *name = elf_strptr(elf, sh.sh_link, (size_t)dyn.d_un.d_val);
            if (name && !strlist_contains(out, name) && strlist_push(out, name) != 0)
                rc = hb_fail(err, "out of memory");
        }
    }
    close_elf(fd, elf);
    return rc;
}

int elfsize_defined_globals(const char *path, strlist *out, hb_err *err)
{
    int fd;
    Elf *elf;
    if (open_elf(path, &fd, &elf, err) != 0)
        return -1;
    strlist found = {0};
    int tables = 0, rc = 0;
    Elf_Scn *scn = NULL;
    while (rc == 0 && (scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
            continue;
        tables++;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t count = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
        for (size_t i = 0; rc == 0 && i < count; i++) {
            GElf_Sym s;
            if (!gelf_getsym(d, (int)i, &s) || GELF_ST_BIND(s.st_info) != STB_GLOBAL ||
                s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_COMMON)
                continue;
            const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
            if (name && name[0] && !strlist_contains(&found, name) &&
                strlist_push(&found, name) != 0)
                rc = hb_fail(err, "out of memory");
        }
    }
    close_elf(fd, elf);
    if (rc == 0 && tables == 0)
        rc = hb_fail(err, "%s: no symbol table", path);
    strlist_sort(&found);
    if (rc == 0 && strlist_push_all(out, &found) != 0)
        rc = hb_fail(err, "out of memory");
    strlist_free(&found);
    return rc;
}
