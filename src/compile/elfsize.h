/* Static footprint, exported symbols and needed libraries of a built
 * library, and the global
 * definitions of a compiled source (hashbench init), read with libelf. The static size is the anchor's "ELF image": the sum of p_memsz
 * over the PT_LOAD program headers (what the loader maps). Its split comes
 * from the section headers, counting only sections with SHF_ALLOC (those
 * that are loaded), each in exactly one class:
 *   bss    : SHT_NOBITS (.bss, .tbss)
 *   text   : SHF_EXECINSTR (.text, .init, .fini, .plt, .plt.got, .plt.sec)
 *   data   : SHF_WRITE, not NOBITS (.data, .data.rel.ro, .got, .got.plt,
 *            .dynamic, .init_array, .fini_array, .tdata)
 *   rodata : every other allocated section (.rodata, .eh_frame,
 *            .eh_frame_hdr, .dynsym, .dynstr, .gnu.hash, .rela.*, .note.*,
 *            .gnu.version*)
 * text + rodata + data + bss is at most image (the gap is alignment
 * padding between segments). */
#ifndef HB_COMPILE_ELFSIZE_H
#define HB_COMPILE_ELFSIZE_H

#include "common/err.h"
#include "common/strlist.h"

typedef struct elfsize_info {
    unsigned long long image;
    unsigned long long text;
    unsigned long long rodata;
    unsigned long long data;
    unsigned long long bss;
} elfsize_info;

/* Fills *out for the ELF file PATH; fails on a file that is not ELF. */
int elfsize_measure(const char *path, elfsize_info *out, hb_err *err);

/* Overwrites with zeros every byte of the library PATH that the loader
 * never maps: all but the ELF header, the program and section header tables,
 * the section names (when they take at most 4 KiB) and the file contents of
 * the PT_LOAD segments. Symbol tables, comments and debug information become
 * zeros; so does any data a
 * library kept outside its loaded image to read from its own file at run
 * time, which the static size (the PT_LOAD segments) would not count. The
 * library still loads and runs as before. *BLANKED gets the bytes zeroed. */
int elfsize_blank_unloaded(const char *path, unsigned long long *blanked, hb_err *err);

/* Sets *found to 1 when the dynamic symbol table of PATH defines SYMBOL
 * (a global or weak symbol with a section index, i.e. not an undefined
 * reference), else 0. */
int elfsize_exports(const char *path, const char *symbol, int *found, hb_err *err);

/* The program interpreter (PT_INTERP: the dynamic loader's path) of the
 * ELF file PATH into OUT, or "" when it names none. */
int elfsize_interp(const char *path, char *out, size_t outsz, hb_err *err);

/* The file ranges the loader maps executable from PATH: [start, end) of
 * every PT_LOAD program header with PF_X, START its p_offset rounded down
 * to a page of PAGE bytes, END p_offset + p_filesz rounded up; into RANGES
 * (at most MAX pairs), *N of them. */
int elfsize_exec_ranges(const char *path, unsigned long long page,
                        unsigned long long (*ranges)[2], int max, int *n, hb_err *err);

/* Appends to OUT the libraries the shared library PATH names as needed
 * (its DT_NEEDED entries: "libc.so.6", ...), each once. */
int elfsize_needed(const char *path, strlist *out, hb_err *err);

/* Appends to OUT, sorted, the names of the symbols that the object file
 * PATH (a compiled source, `cc -c`) defines with global binding: its
 * functions and variables that another file cannot define too without the
 * link failing. Weak and local (static) symbols are left out, and so are
 * common symbols (the linker merges them) and undefined references. Fails
 * on a file that is not ELF or has no symbol table. */
int elfsize_defined_globals(const char *path, strlist *out, hb_err *err);

#endif
