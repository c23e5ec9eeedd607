/* Where the evaluator's notes (dataset/notes.h) show on the pages: each
 * instance's caveat on its candidate page, right under the opening
 * statement, and on the summary; the KAT explanations are section 3's
 * footnotes (pages_candidate.c). See pages.h for the contract. */
#include "report/pages.h"

#include "report/esc.h"
#include "dataset/notes.h"

void pages_notes_caveats(FILE *fp, const report_system *s, const char *cand,
                         const json_t *insts)
{
    size_t i;
    json_t *v;
    int n = 0;
    json_array_foreach(insts, i, v) {
        const char *inst = json_string_value(v);
        const char *caveat = notes_caveat(s->notes, cand, inst);
        if (!caveat)
            continue;
        if (!n++)
            fputs("Evaluator's notes:\n\n", fp);
        fputs("- **", fp);
        esc_md(fp, inst);
        fputs("**: ", fp);
        esc_md(fp, caveat);
        fputs("\n", fp);
    }
    if (n)
        fputs("\n", fp);
}

void pages_notes_summary(FILE *fp, const report_system *s, const char *ext)
{
    size_t i, k;
    json_t *c, *inst;
    int n = 0;
    json_array_foreach(s->candidates, i, c) {
        const char *cand = json_string_value(c);
        json_t *insts = report_instances(s, cand);
        json_array_foreach(insts, k, inst) {
            const char *caveat = notes_caveat(s->notes, cand, json_string_value(inst));
            char stem[256];
            if (!caveat)
                continue;
            if (!n++)
                fputs("## Evaluator's notes\n\nCaveats the evaluator recorded for "
                      "instances of this system (the candidate pages give the causes "
                      "of KATs that do not pass as footnotes):\n\n", fp);
            pages_candidate_stem(cand, stem, sizeof stem);
            fputs("- ", fp);
            pages_link(fp, cand, stem, ext);
            fputs(" / **", fp);
            esc_md(fp, json_string_value(inst));
            fputs("**: ", fp);
            esc_md(fp, caveat);
            fputs("\n", fp);
        }
        json_decref(insts);
    }
    if (n)
        fputs("\n", fp);
}
