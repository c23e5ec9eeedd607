/* The names of a built library's functions for the count's shares
 * (count_fns.h). hashbench's builds zero every byte of a library the loader
 * never maps, its symbol table among them (compile/elfsize.h), so callgrind
 * can name only the exported functions and shows the others by address.
 * The build reads the function symbols before that (count_syms_read) and
 * keeps them beside the library, bound to the built library's SHA-256
 * (count_syms_write: <library>.functions.json); the count reads them back
 * only for a library of that digest (count_syms_load) and names a function
 * callgrind shows as "0x<address>" by the symbol at that address. The names
 * are the submission's text: kept sanitised, as the shares keep any name. */
#ifndef HB_COUNT_COUNT_SYMS_H
#define HB_COUNT_COUNT_SYMS_H

#include <stddef.h>
#include <jansson.h>

#include "common/err.h"

#define CG_NAME_MAX 64        /* a function's name as records keep it */
#define COUNT_SYMS_SUFFIX ".functions.json"

/* NAME as records keep it: at most CG_NAME_MAX bytes of [A-Za-z0-9_.@+-],
 * any other byte '?', a longer name cut and ended "...". */
void cg_safe_name(const char *name, char *out, size_t cap);
#define COUNT_SYMS_MAX 65536 /* function symbols kept at most */

/* The function symbols (defined, of a non-zero address) of the ELF file
 * PATH's symbol tables into *OUT: [[address, size, name], ...], at most
 * COUNT_SYMS_MAX, each name as the shares keep it (cg_safe_name). */
int count_syms_read(const char *path, json_t **out, hb_err *err);

/* Writes SYMS (count_syms_read's) beside the library LIB, with LIB's
 * SHA-256. */
int count_syms_write(const char *lib, const json_t *syms, hb_err *err);

/* The symbols kept beside LIB, when they were written for a file of LIB's
 * SHA-256 LIB_SHA; else NULL. */
json_t *count_syms_load(const char *lib, const char *lib_sha);

/* The name of the function at ADDRESS among SYMS (the symbol starting
 * there, else the one holding it), or NULL. */
const char *count_syms_name(const json_t *syms, unsigned long long address);

#endif
