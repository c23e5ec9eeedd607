/* Compiler diagnostics as hashbench states them. A compiler's message
 * quotes the submitted source ("unknown type name 'x'"), so a submission
 * chooses its bytes: hashbench keeps the message in the run directory and
 * states, wherever it publishes, only what it parsed from the line itself,
 * the location in the submitted source and the class of the diagnostic
 * ("Inst/x.c:12:5: error"). Used by the compile step for a build's reason
 * and by publishing for the copies of compiler logs. */
#ifndef HB_COMPILE_DIAG_H
#define HB_COMPILE_DIAG_H

#include <stddef.h>

/* The prefix of each line of compiler output in a compiler log, so that no
 * output line can pass for one of hashbench's ("$ " command, "# " note). */
#define DIAG_OUTPUT_PREFIX "> "

/* hashbench's note in a compiler log naming the compiler's working folder
 * (the package), whose files a published diagnostic may name. */
#define COMPILE_LOG_WORKDIR "# working folder: "

/* LINE (N bytes, one line of compiler output) as "FILE:LINE[:COL]: CLASS"
 * into OUT, CLASS one of "fatal error", "error", "warning", "note", an
 * assembler's "assembler error" or "assembler warning", or a linker's
 * "undefined reference", "multiple definition", "undefined symbol",
 * "missing library" (FILE then "linker"). FILE keeps only the
 * characters of an ordinary file name (others become '?') and at most 120
 * of them. Returns 1 when the line is a diagnostic, 0 (OUT "") otherwise. */
int diag_parse(const char *line, size_t n, char *out, size_t sz);

/* 1 when the N bytes at S are a diagnostic as diag_parse states it, after
 * publishing rewrote its path ("<path>/x.h:3:10: error"): a file name of
 * the characters diag_parse keeps (and '<', '>'), one or two numbers, a
 * class; nothing else. */
int diag_is_stated(const char *s, size_t n);

#endif
