/* Reading Valgrind memcheck's XML output (--xml=yes, protocol 4) with
 * Debian's libexpat: the errors that show message-dependent behaviour of the
 * analysed library, reduced to findings deduplicated by code location. An
 * error of kind UninitCondition ("Conditional jump or move depends on
 * uninitialised value(s)") is a secret-dependent branch; UninitValue ("Use
 * of uninitialised value of size N") a secret-dependent memory index. Its
 * location is the first stack frame inside the analysed library (the
 * library may reach it through a libc function, kept as "via"); an error
 * with no frame in the library is located at its first frame. Other errors
 * (invalid reads, for example) are only counted. */
#ifndef HB_CT_VGXML_H
#define HB_CT_VGXML_H

#include <jansson.h>
#include "common/err.h"

typedef struct ct_vgxml {
    json_t *findings;     /* array of {"kind": "branch" | "memory_index",
                             "dir", "file" (Valgrind splits the path of
                             the source file into these two), "line", "function", "object", "via",
                             "what", "count"}; file "" and line 0 when the
                             library has no line information there */
    long other_errors;    /* errors of other kinds */
    int fatal_signal;     /* a <fatal_signal> element was seen: the guest
                             died of a signal (e.g. SIGILL on an instruction
                             Valgrind cannot run) */
    char signame[32];     /* its <signame>, e.g. "SIGILL" */
    int finished;         /* a <status><state>FINISHED</state> was seen */
    char valgrind[64];    /* e.g. "Valgrind-3.19.0" from the preamble */
} ct_vgxml;

/* Parses the XML file PATH (at most LIMIT bytes are read), taking OBJECT
 * (the analysed library's path as Valgrind names it) to choose frames.
 * Fills OUT (free with ct_vgxml_free). Fails for an unreadable file or
 * malformed XML, naming the file and line. */
int ct_vgxml_parse(const char *path, const char *object, unsigned long long limit,
                   ct_vgxml *out, hb_err *err);
void ct_vgxml_free(ct_vgxml *x);

#endif
