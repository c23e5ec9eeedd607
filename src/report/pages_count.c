/* The instruction counts on the pages (count/count.h records, loaded into
 * report_system.count): on a candidate page, a table that puts the exact
 * instructions per byte beside the timed figure per byte, with the sentence
 * on what the count is and is not; on the summary, a second ranking of
 * every instance by instructions per byte; on the method page, the method
 * and its limits. A system without count records gets only the method
 * section, which says so. */
#include "report/pages.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "count/count_plan.h"
#include "report/esc.h"
#include "report/numfmt.h"

#define COUNT_RANK_SIZE 65536 /* the summary ranks at 64 KiB when counted */

static const char what_it_is[] =
    "Instructions per byte are **counted, not timed**: the instructions one call "
    "executes, counted by Valgrind on this system's build of the library, "
    "identical from run to run and unmoved by the host's load, so a change of a "
    "few per cent is real. They are **not cycles**: vector width, instructions "
    "per cycle, memory latency and the cost of each instruction differ between "
    "implementations and processors, so fewer instructions need not mean faster; "
    "the timed figure beside it says how fast.";

/* The derived figure NAME of REC per byte (or per call), or NaN. */
static double figure(const json_t *rec, const char *name, const char *per)
{
    const json_t *v = json_object_get(json_object_get(json_object_get(rec, "derived"), name),
                                      per);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The timed figure per byte of CAND/INST at SIZE, or NaN. */
static double timed_per_byte(const report_system *s, const char *cand, const char *inst,
                             long long size)
{
    const report_record *r = report_find_record(s, cand, inst, size);
    return r && r->derived ? report_num(r->derived, "ticks_per_byte") : NAN;
}

static void cell(FILE *fp, double v, int decimals)
{
    if (isfinite(v))
        fprintf(fp, " %.*f |", decimals, v);
    else
        fputs(" — |", fp);
}

/* The count cell of REC: the figure, or why there is none. */
static void count_cell(FILE *fp, const json_t *rec)
{
    const char *st = report_str(rec, "status", "");
    if (!rec) {
        fputs(" — |", fp);
    } else if (strcmp(st, "COUNTED") == 0) {
        cell(fp, figure(rec, "Ir", "per_byte"), 1);
    } else {
        fputs(strcmp(st, "INCONSISTENT") == 0 ? " inconsistent: "
              : strcmp(st, "TIMEOUT") == 0 ? " timeout: " : " not countable: ", fp);
        esc_md(fp, report_str(rec, "reason", ""));
        fputs(" |", fp);
    }
}

static int has_counts(const report_system *s, const char *cand)
{
    const char *key;
    json_t *e;
    json_object_foreach(s->count, key, e)
        if (!cand || strcmp(report_str(json_object_get(e, "record"), "candidate", ""),
                            cand) == 0)
            return 1;
    return 0;
}

/* The sizes of CAND's timed and counted records, ascending. */
static json_t *sizes_of(const report_system *s, const char *cand)
{
    json_t *sizes = report_sizes(s, cand), *out = json_array();
    const char *key;
    json_t *e;
    json_object_foreach(s->count, key, e) {
        const json_t *r = json_object_get(e, "record");
        if (strcmp(report_str(r, "candidate", ""), cand) == 0)
            json_array_append_new(sizes, json_integer(json_integer_value(
                json_object_get(r, "size_bytes"))));
    }
    long long last = -1;
    for (;;) { /* ascending, each once */
        long long best = -1;
        size_t i;
        json_t *v;
        json_array_foreach(sizes, i, v) {
            long long x = json_integer_value(v);
            if (x > last && (best < 0 || x < best))
                best = x;
        }
        if (best < 0)
            break;
        json_array_append_new(out, json_integer(best));
        last = best;
    }
    json_decref(sizes);
    return out;
}

void pages_count_table(FILE *fp, const report_system *s, const char *cand,
                       const json_t *insts, const char *unit)
{
    if (!has_counts(s, cand))
        return;
    char h[128];
    fprintf(fp, "Instructions per byte beside %s per byte (`hashbench count`, method "
                "page). %s\n\n", unit, what_it_is);
    snprintf(h, sizeof h, "%s/B", unit);
    const char *cols[] = {"Instance", "Message", h, "instructions/B (exact)",
                          "instructions per call", "conditional branches/B"};
    pages_table_head(fp, cols, 6, "lrrrrr");
    json_t *sizes = sizes_of(s, cand);
    size_t k, i;
    json_t *inst, *sz;
    json_array_foreach(insts, k, inst) {
        const char *in = json_string_value(inst);
        json_array_foreach(sizes, i, sz) {
            long long size = json_integer_value(sz);
            const json_t *rec = report_count_record(s, cand, in, size, NULL);
            double t = timed_per_byte(s, cand, in, size);
            if (!rec && !isfinite(t))
                continue;
            char a[NUMFMT_MAX];
            fputs("| ", fp);
            esc_md(fp, in);
            /* in the candidate page's notation ("1024 B"), as its other tables */
            fprintf(fp, " | %s |", numfmt_msg_bytes(size, a, sizeof a));
            cell(fp, t, 1);
            count_cell(fp, rec);
            double call = figure(rec, "Ir", "per_call");
            if (isfinite(call))
                fprintf(fp, " %.0f |", call);
            else
                fputs(" — |", fp);
            cell(fp, figure(rec, "Bc", "per_byte"), 1);
            fputs("\n", fp);
        }
    }
    json_decref(sizes);
    fputs("\n", fp);
}

/* One instance of the summary's ranking. */
typedef struct ranked {
    const char *cand, *inst;
    long long size;
    double ipb, timed;
    int timed_rank;
} ranked;

static int by_ipb(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->ipb != y->ipb)
        return x->ipb < y->ipb ? -1 : 1;
    int c = strcmp(x->cand, y->cand);
    return c ? c : strcmp(x->inst, y->inst);
}

void pages_count_summary(FILE *fp, const report_system *s, const char *ext)
{
    if (!has_counts(s, NULL))
        return;
    size_t n = 0, cap = json_object_size(s->count) + 1;
    ranked *v = calloc(cap, sizeof *v);
    const char *key;
    json_t *e;
    /* each instance at 64 KiB when counted there, else at its largest count */
    json_object_foreach(s->count, key, e) {
        const json_t *r = json_object_get(e, "record");
        double ipb = figure(r, "Ir", "per_byte");
        long long size = json_integer_value(json_object_get(r, "size_bytes"));
        if (!v || !isfinite(ipb))
            continue;
        const char *cand = report_str(r, "candidate", ""), *inst = report_str(r, "instance", "");
        size_t j = 0;
        while (j < n && (strcmp(v[j].cand, cand) || strcmp(v[j].inst, inst)))
            j++;
        if (j == n)
            v[n++] = (ranked){cand, inst, -1, NAN, NAN, 0};
        if (v[j].size != COUNT_RANK_SIZE && (size == COUNT_RANK_SIZE || size > v[j].size)) {
            v[j].size = size;
            v[j].ipb = ipb;
        }
    }
    for (size_t j = 0; j < n; j++) {
        v[j].timed = timed_per_byte(s, v[j].cand, v[j].inst, v[j].size);
        for (size_t m = 0; m < n && isfinite(v[j].timed); m++) {
            double t = timed_per_byte(s, v[m].cand, v[m].inst, v[m].size);
            v[j].timed_rank += isfinite(t) && v[m].size == v[j].size && t <= v[j].timed;
        }
    }
    if (n)
        qsort(v, n, sizeof *v, by_ipb);
    fputs("## Second view: ranked by instructions per byte (exact)\n\n", fp);
    fprintf(fp, "Every counted instance, fewest instructions per byte first, at 64 KiB "
                "(else at its largest counted size), beside its timed figure and its "
                "place when ranked by that figure among the instances timed at the "
                "same size. %s The ratio is to the baseline's count at the same "
                "size. Method: ", what_it_is);
    pages_link(fp, "instruction counts", "method", ext);
    fputs(".\n\n", fp);
    pages_counter pc;
    char timed[128];
    pages_counter_of(s, &pc);
    snprintf(timed, sizeof timed, "%s/B", pc.unit);
    const char *cols[] = {"Rank", "Instance", "Message", "instructions/B (exact)",
                          "ratio to SM3", timed, "rank by timed figure"};
    pages_table_head(fp, cols, 7, "rlrrrrr");
    for (size_t j = 0; j < n; j++) {
        char a[NUMFMT_MAX];
        const json_t *b = report_count_record(s, PAGES_BASELINE_CANDIDATE,
                                              PAGES_BASELINE_INSTANCE, v[j].size, NULL);
        double base = figure(b, "Ir", "per_byte");
        fprintf(fp, "| %zu | ", j + 1);
        esc_md(fp, v[j].cand);
        fputs(" / ", fp);
        esc_md(fp, v[j].inst);
        fprintf(fp, " | %s |", numfmt_msg_size(v[j].size, a, sizeof a));
        cell(fp, v[j].ipb, 1);
        if (isfinite(base) && base > 0)
            fprintf(fp, " %.2f× |", v[j].ipb / base);
        else
            fputs(" — |", fp);
        cell(fp, v[j].timed, 1);
        if (v[j].timed_rank)
            fprintf(fp, " %d |\n", v[j].timed_rank);
        else
            fputs(" — |\n", fp);
    }
    int none = 0;
    json_object_foreach(s->count, key, e) {
        const json_t *r = json_object_get(e, "record");
        if (strcmp(report_str(r, "status", ""), "COUNTED") == 0)
            continue;
        if (!none++)
            fputs("\nNot counted:\n\n", fp);
        fputs("- ", fp);
        esc_md(fp, report_str(r, "candidate", ""));
        fputs(" / ", fp);
        esc_md(fp, report_str(r, "instance", ""));
        fprintf(fp, " at %lld B: %s: ", (long long)json_integer_value(json_object_get(r,
                "size_bytes")), strcmp(report_str(r, "status", ""), "INCONSISTENT") == 0
                ? "inconsistent" : "not countable");
        esc_md(fp, report_str(r, "reason", ""));
        fputs("\n", fp);
    }
    fputs("\n", fp);
    free(v);
}

void pages_count_method(FILE *fp, const report_system *s)
{
    fputs("## Instruction counts (exact)\n\n", fp);
    fprintf(fp, "`hashbench count` (or `hashbench run --count`) counts, for every "
            "instance that passed its KATs and for the OpenSSL baseline, the "
            "instructions one call executes at each message size. A small driver of "
            "hashbench's own loads the library the KATs checked with dlopen and runs "
            "it under Valgrind's cachegrind (`--cache-sim=no`: no cache is simulated; "
            "`--branch-sim=yes` adds the conditional branches) in the sandbox, like "
            "every run of submitted code. The count is **differential**: a base run "
            "calls the library %d time at every size, and one run per size calls it "
            "%d times at that size and %d time at the others; both runs make the same "
            "messages and fold the same number of digests, so that everything but the "
            "extra calls (start-up, loading, the driver's own work) cancels, and "
            "instructions per call = (total of the size's run - total of the base "
            "run) / %d, which includes the few instructions of passing the arguments "
            "and calling. Every call hashes a message of its own, made from a seed "
            "drawn at random for the instance and recorded (the rule of the timed "
            "trials); the digests of each size's run are folded and the fold is "
            "recomputed natively by hashbench's runner, so a library that computes "
            "something else under Valgrind is reported *inconsistent*, never "
            "counted.\n\n", COUNT_N1, COUNT_N2, COUNT_N1, COUNT_N2 - COUNT_N1);
    fputs("What it is and is not: an exact count of executed instructions, the "
          "same on every run and unmoved by the host's load, so it shows a change of "
          "1 % that no timing on a shared machine can; **not cycles** (vector width, "
          "instructions per cycle and the cost of each instruction differ between "
          "implementations and processors). Limits: a library could tell that it runs "
          "under Valgrind and take another correct code path there (the digests are "
          "checked, the path is not); work done once and kept between calls, such as "
          "tables built on the first call, cancels in the differential like start-up "
          "does; instructions Valgrind cannot run (for example AVX-512 in Valgrind "
          "3.19) make the instance *not countable*, with the reason, never a number; "
          "system calls and the kernel's work for them are not counted.\n\n", fp);
    size_t counted = 0, total = json_object_size(s->count);
    const char *key;
    json_t *e;
    json_object_foreach(s->count, key, e)
        counted += strcmp(report_str(json_object_get(e, "record"), "status", ""),
                          "COUNTED") == 0;
    if (total)
        fprintf(fp, "In this dataset: %zu (instance, size) record%s, %zu counted; each "
                    "holds the exact commands, Valgrind's version and the raw totals, "
                    "and `hashbench validate` recomputes every derived figure from "
                    "them.\n\n", total, total == 1 ? "" : "s", counted);
    else
        fputs("In this dataset: no instruction counts (`hashbench count` was not "
              "run).\n\n", fp);
}
