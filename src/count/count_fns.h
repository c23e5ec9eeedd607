/* Where a counted call's instructions go: a reader of callgrind's output
 * format (its documented text: "ob=", "fn=", "cfn=", "calls=" and cost
 * lines, names compressed as "(id) name" once and "(id)" after, the table
 * kept from part to part of a combined file) that gives, per part, each
 * function's self (exclusive) instructions and the instructions of the
 * calls into each function from outside its group of shared helpers. The
 * count (count.c) feeds it every line of callgrind's output file, tallies
 * the parts of each length's calls, and records the tally as a
 * "functions" object beside the per-call counts: every function's share of
 * the calls' instructions (the shares add up to the parts' totals), named
 * by its object (the library, the C library, hashbench-count's window, a
 * system library, another object) and by its symbol, a symbol sanitised to
 * a short safe identifier since the library's symbols are the submission's
 * text; and the inclusive share of the competition's shared helpers (SM3,
 * pseudo-hash, DRNG) where the library calls them under their names. */
#ifndef HB_COUNT_COUNT_FNS_H
#define HB_COUNT_COUNT_FNS_H

#include <stddef.h>
#include <jansson.h>

#include "count/count_syms.h" /* CG_NAME_MAX, cg_safe_name */

#define CG_MAX_ID (1u << 22)  /* the largest compressed-name id accepted */
#define CG_MAX_NAME 4096      /* the longest name read */
#define CG_FNS_KEPT 24        /* functions a record lists; the rest summed */

/* One function's costs (instructions) in a part, or tallied over parts. */
typedef struct cg_fcost {
    unsigned ob, fn;     /* ids of its object and name */
    long long self;      /* its own instructions */
    long long called;    /* instructions of the calls into it from functions
                            of another helper group (or of none) */
} cg_fcost;

typedef struct cg_costs {
    cg_fcost *v;
    size_t n, cap;
} cg_costs;

typedef struct cg_names {
    char **v;
    size_t n;
} cg_names;

typedef struct cg_parser {
    cg_names obs, fns;
    int npos;            /* position columns of a cost line */
    int ir;              /* column of Ir among the events, -1 before "events:" */
    unsigned ob, fn, cob, cfn;
    int have_ob, have_fn, have_cob, have_cfn, pending_call;
    cg_costs part;       /* the current part's functions */
    long long part_ir;   /* the sum of their self instructions */
} cg_parser;

void cg_parser_init(cg_parser *p);
void cg_parser_free(cg_parser *p);

/* Reads one line LINE (without its newline) of callgrind's output file. A
 * "part:" line starts a new part (its costs in p->part, p->part_ir).
 * Returns 0, or -1 on a line that is not of the format (WHY says which). */
int cg_parser_line(cg_parser *p, const char *line, char *why, size_t cap);

/* The parts of one length: T's functions and the parts' instructions. */
typedef struct cg_tally {
    cg_costs f;
    long long total;
    int broken;          /* a part whose self costs do not add up to its total */
} cg_tally;

void cg_tally_free(cg_tally *t);

/* Adds P's current part, whose totals line gave PART_TOTAL instructions,
 * to T; a part whose functions do not add up to it makes T broken. */
void cg_tally_add(cg_tally *t, const cg_parser *p, long long part_total);

/* T as a record's "functions" object: {"Ir": total, "functions": [the
 * CG_FNS_KEPT largest, {"function", "object", "Ir", "share"}, by Ir, then
 * name], "rest": {"functions", "Ir", "share"}, "helpers": [{"helper",
 * "Ir", "share"}] (those called)}; LIB and DRIVER are the paths of the
 * counted library and of hashbench-count as callgrind names them; SYMS
 * (may be NULL) the library's function symbols (count_syms.h), which name
 * the functions callgrind shows by address. NULL when T is broken or
 * empty. */
json_t *cg_tally_json(const cg_tally *t, const cg_parser *p, const char *lib,
                      const char *driver, const json_t *syms);


/* The class of object PATH: "library" (LIB), "hashbench-count" (DRIVER),
 * "C library" (libc, libm, the dynamic loader of the system's library
 * folders), "system: <file>" (another object of those folders), else
 * "other object". */
void cg_object_class(const char *path, const char *lib, const char *driver, char *out,
                     size_t cap);

/* The shared helper group of function NAME ("SM3", "pseudo-hash", "DRNG"),
 * or NULL. */
const char *cg_helper_group(const char *name);

/* Checks a record's "functions" object FNS against the per-call counts
 * RAW_IR (a JSON list): its total equal to their sum, its functions and
 * rest adding up to it, every share Ir / total. 0, or -1 with WHY. */
int cg_functions_check(const json_t *fns, const json_t *raw_ir, char *why, size_t cap);

#endif
