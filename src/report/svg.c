/* SVG line charts for the report pages: see svg.h. The plot box is fixed;
 * the legend grows below it, two entries a row. Y ticks are 1-2-5 steps from
 * zero, or, on a log10 axis, 1-2-5 of each decade (finer steps when the
 * axis spans less than about a decade, so that it has at least four); a
 * ratio axis (log, with a reference) spans the same nice factor below and
 * above its reference. X ticks are the distinct sizes in the data. */
#include "report/svg.h"

#include <math.h>
#include "report/esc.h"
#include "report/numfmt.h"

#define SVG_W 760.0
#define PLOT_L 78.0
#define PLOT_R 24.0
#define PLOT_T 44.0
#define PLOT_H 300.0
#define LEGEND_ROW 20.0
#define CAP_HALF 3.0   /* half the width of an interval bar's caps */
#define DODGE_MAX 4.0  /* pixels between series at one size, with intervals */

static const char *const palette[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
    "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
};
static const char *const dashes[] = {"", "6 3", "2 3", "8 3 2 3"};
#define NPALETTE (sizeof palette / sizeof palette[0])
#define NDASHES (sizeof dashes / sizeof dashes[0])

typedef struct bounds {
    double xmin, xmax, ymin, ymax, ystep;
    int logy;    /* values spread over more than LOGY_SPREAD, or asked: log10 */
    int linx;    /* the spec's x_linear */
    double xpad; /* pixels kept free inside each end of the x axis */
} bounds;

/* A point to draw: finite, and on a log2 axis positive. */
static int x_ok(const bounds *b, double x)
{
    return b->linx ? isfinite(x) : x > 0.0;
}

/* Above this max/min ratio a linear axis squeezes the small values (the
 * large-message figures one compares candidates by) into a flat line. */
#define LOGY_SPREAD 20.0

static double nice_step(double span)
{
    double raw = span / 5.0;
    double mag = pow(10.0, floor(log10(raw)));
    double f = raw / mag;
    double nice = f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0;
    return nice * mag;
}

/* The nearest 1, 2 or 5 times a power of ten below V (UP: above V). */
static double step125(double v, int up)
{
    static const double f[] = {1.0, 2.0, 5.0, 10.0};
    double d = pow(10.0, floor(log10(v)));
    if (up) {
        for (size_t k = 0; k < 4; k++)
            if (d * f[k] >= v * (1.0 - 1e-9))
                return d * f[k];
        return d * 10.0;
    }
    for (size_t k = 3; k-- > 0;)
        if (d * f[k] <= v * (1.0 + 1e-9))
            return d * f[k];
    return d;
}

/* 1 when some series of SPEC has intervals: series are then set apart. */
static int any_intervals(const svg_chart_spec *spec)
{
    for (size_t j = 0; j < spec->nseries; j++)
        if (spec->series[j].lo && spec->series[j].hi)
            return 1;
    return 0;
}

/* The smallest factor of 1.05, 1.1, 1.2, 1.5, 2, 3, 5, 10, 20, 50, 100 ...
 * that is at least F. */
static double nice_factor(double f)
{
    static const double steps[] = {1.05, 1.1, 1.2, 1.5, 2.0, 3.0, 5.0};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (f <= steps[i])
            return steps[i];
    return step125(f, 1);
}

/* A value that can be drawn: finite, and on a forced log axis positive. */
static int y_ok(const svg_chart_spec *spec, double y)
{
    return isfinite(y) && (!spec->log_y || y > 0.0);
}

/* 1 when point K of S has an interval to draw. */
static int has_interval(const svg_chart_spec *spec, const svg_series *s, size_t k)
{
    return s->lo && s->hi && y_ok(spec, s->lo[k]) && y_ok(spec, s->hi[k]) &&
           y_ok(spec, s->y[k]);
}

static void widen(bounds *b, double y)
{
    b->ymax = fmax(b->ymax, y);
    b->ymin = fmin(b->ymin, y);
}

static bounds find_bounds(const svg_chart_spec *spec)
{
    bounds b = {INFINITY, -INFINITY, INFINITY, 0.0, 1.0, 0, spec->x_linear, 0.0};
    for (size_t i = 0; i < spec->nseries; i++) {
        const svg_series *s = &spec->series[i];
        for (size_t k = 0; k < s->n; k++) {
            if (!x_ok(&b, s->x[k]) || !y_ok(spec, s->y[k]))
                continue;
            b.xmin = fmin(b.xmin, s->x[k]);
            b.xmax = fmax(b.xmax, s->x[k]);
            widen(&b, s->y[k]);
            if (has_interval(spec, s, k)) {
                widen(&b, s->lo[k]);
                widen(&b, s->hi[k]);
            }
        }
    }
    if (spec->ref_y > 0.0 && isfinite(b.ymin))
        widen(&b, spec->ref_y);
    if (!isfinite(b.xmin) && !b.linx) {
        b.xmin = 32.0;
        b.xmax = 65536.0;
    }
    if (b.linx && !(b.xmax > b.xmin)) {
        b.xmin = isfinite(b.xmin) ? b.xmin : 0.0;
        b.xmax = b.xmin + 1.0;
    } else if (b.xmax <= b.xmin) {
        b.xmin /= 2.0;
        b.xmax *= 2.0;
    }
    if (any_intervals(spec) && spec->nseries > 1 && !b.linx)
        b.xpad = 14.0; /* room for the series set apart at the end sizes */
    if (spec->log_y && !isfinite(b.ymin)) {
        b.ymin = 0.5; /* no data: an empty axis around 1 */
        b.ymax = 2.0;
    }
    if (spec->log_y && spec->ref_y > 0.0 && b.ymin > 0.0) {
        /* a ratio axis: the same factor below and above the reference, so
         * that 2x faster and 2x slower lie the same distance from it */
        double f = nice_factor(fmax(b.ymax / spec->ref_y, spec->ref_y / b.ymin) * 1.02);
        b.logy = 1;
        b.ymin = spec->ref_y / f;
        b.ymax = spec->ref_y * f;
        return b;
    }
    if (b.ymin > 0.0 && isfinite(b.ymin) && (spec->log_y || b.ymax / b.ymin > LOGY_SPREAD)) {
        b.logy = 1;
        b.ymin = step125(b.ymin, 0);
        b.ymax = step125(b.ymax, 1);
        return b;
    }
    b.ymin = 0.0;
    if (!(b.ymax > 0.0))
        b.ymax = 1.0;
    b.ystep = nice_step(b.ymax);
    b.ymax = ceil(b.ymax * 1.05 / b.ystep) * b.ystep;
    return b;
}

static double plot_w(void)
{
    return SVG_W - PLOT_L - PLOT_R;
}

static double px(const bounds *b, double x)
{
    if (b->linx)
        return PLOT_L + plot_w() * (x - b->xmin) / (b->xmax - b->xmin);
    return PLOT_L + b->xpad + (plot_w() - 2.0 * b->xpad) * (log2(x) - log2(b->xmin)) /
                                  (log2(b->xmax) - log2(b->xmin));
}

static double py(const bounds *b, double y)
{
    if (b->logy)
        return PLOT_T + PLOT_H - PLOT_H * (log10(y) - log10(b->ymin)) /
                                     (log10(b->ymax) - log10(b->ymin));
    return PLOT_T + PLOT_H - PLOT_H * y / b->ymax;
}

static void y_tick(FILE *fp, const bounds *b, double v, int dec)
{
    double y = py(b, v);
    fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#dddddd\"/>\n", PLOT_L, y, PLOT_L + plot_w(), y);
    fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>\n",
            PLOT_L - 6.0, y + 4.0, dec, v);
}

/* A tick at V labelled with as many decimals as it needs: 0.05, 1.5, 2000. */
static void log_tick(FILE *fp, const bounds *b, double v)
{
    int dec = 0;
    while (dec < 9 && fabs(v * pow(10.0, dec) - round(v * pow(10.0, dec))) > 1e-6)
        dec++;
    y_tick(fp, b, v, dec);
}

/* The ticks of a log axis: the multiples F (NF of them) of each decade
 * within the axis; writes them when FP is not NULL. Returns their number. */
static int log_ticks(FILE *fp, const bounds *b, const double *f, size_t nf)
{
    int n = 0;
    for (double d = pow(10.0, floor(log10(b->ymin) + 1e-9));
         d <= b->ymax * (1.0 + 1e-9); d *= 10.0) {
        for (size_t k = 0; k < nf && d * f[k] <= b->ymax * (1.0 + 1e-9); k++) {
            if (d * f[k] < b->ymin * (1.0 - 1e-9))
                continue;
            if (fp)
                log_tick(fp, b, d * f[k]);
            n++;
        }
    }
    return n;
}

/* The ticks of a log axis narrower than the multiples above can mark: 1-2-5
 * steps of the value, as on a linear axis, placed on the log scale. */
static void narrow_log_ticks(FILE *fp, const bounds *b)
{
    double step = nice_step(b->ymax - b->ymin);
    for (double k = ceil(b->ymin / step - 1e-9); k * step <= b->ymax * (1.0 + 1e-9); k++)
        log_tick(fp, b, k * step);
}

static void y_axis(FILE *fp, const bounds *b, const char *label)
{
    if (b->logy) {
        /* 1, 2 and 5 of each decade; finer when that gives fewer than four. */
        static const double f3[] = {1.0, 2.0, 5.0};
        static const double f6[] = {1.0, 1.5, 2.0, 3.0, 5.0, 7.0};
        static const double f9[] = {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0};
        if (log_ticks(NULL, b, f3, 3) >= 4)
            log_ticks(fp, b, f3, 3);
        else if (log_ticks(NULL, b, f6, 6) >= 4)
            log_ticks(fp, b, f6, 6);
        else if (log_ticks(NULL, b, f9, 11) >= 4)
            log_ticks(fp, b, f9, 11);
        else
            narrow_log_ticks(fp, b);
    } else {
        /* Tick labels with as many decimals as the step needs (0, 0.5, 1.0 ...). */
        int dec = b->ystep >= 1.0 ? 0 : (int)ceil(-log10(b->ystep) - 1e-9);
        for (int k = 0; k * b->ystep <= b->ymax * (1.0 + 1e-9); k++)
            y_tick(fp, b, k * b->ystep, dec);
    }
    fprintf(fp, "<text transform=\"translate(16 %.1f) rotate(-90)\" "
                "text-anchor=\"middle\">", PLOT_T + PLOT_H / 2.0);
    esc_xml(fp, label);
    if (b->logy)
        fputs(" (log scale)", fp);
    fputs("</text>\n", fp);
}

/* X ticks at each distinct size of the data (kept few: sizes are the
 * guide's eight); labels alternate height when they would crowd. */
static void x_label(FILE *fp, const svg_chart_spec *spec)
{
    fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
            PLOT_L + plot_w() / 2.0, PLOT_T + PLOT_H + 36.0);
    esc_xml(fp, spec->x_label);
    fputs("</text>\n", fp);
}

/* Linear X ticks at 1-2-5 steps. */
static void x_axis_linear(FILE *fp, const bounds *b, const svg_chart_spec *spec)
{
    double step = nice_step((b->xmax - b->xmin) / 6.0);
    int dec = step >= 1.0 ? 0 : (int)ceil(-log10(step) - 1e-9);
    for (double v = ceil(b->xmin / step - 1e-9) * step; v <= b->xmax * (1 + 1e-9) + 1e-12;
         v += step) {
        double x = px(b, v);
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                    "stroke=\"#dddddd\"/>\n", x, PLOT_T, x, PLOT_T + PLOT_H);
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.*f</text>\n",
                x, PLOT_T + PLOT_H + 16.0, dec, v);
    }
    x_label(fp, spec);
}

static void x_axis(FILE *fp, const bounds *b, const svg_chart_spec *spec)
{
    if (b->linx) {
        x_axis_linear(fp, b, spec);
        return;
    }
    double done[64];
    size_t ndone = 0;
    char num[NUMFMT_MAX];
    for (size_t i = 0; i < spec->nseries; i++) {
        const svg_series *s = &spec->series[i];
        for (size_t k = 0; k < s->n && ndone < 64; k++) {
            size_t j;
            for (j = 0; j < ndone && done[j] != s->x[k]; j++)
                ;
            if (j < ndone || !(s->x[k] > 0.0))
                continue;
            done[ndone++] = s->x[k];
            double x = px(b, s->x[k]);
            fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                        "stroke=\"#dddddd\"/>\n", x, PLOT_T, x, PLOT_T + PLOT_H);
            fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s"
                        "</text>\n", x, PLOT_T + PLOT_H + 16.0,
                    numfmt_msg_size((long long)s->x[k], num, sizeof num));
        }
    }
    x_label(fp, spec);
}

static void series_style(FILE *fp, size_t i)
{
    const char *dash = dashes[(i / NPALETTE) % NDASHES];
    fprintf(fp, "stroke=\"%s\" stroke-width=\"2\" fill=\"none\"", palette[i % NPALETTE]);
    if (dash[0])
        fprintf(fp, " stroke-dasharray=\"%s\"", dash);
}

/* Series I's horizontal offset in pixels: with intervals, the series are
 * spread symmetrically around each size so that their bars stay apart. */
static double dodge(const svg_chart_spec *spec, size_t i)
{
    if (!any_intervals(spec) || spec->nseries < 2)
        return 0.0;
    double step = fmin(DODGE_MAX, 48.0 / (double)spec->nseries);
    return ((double)i - (double)(spec->nseries - 1) / 2.0) * step;
}

/* A vertical bar from LO to HI with caps, in the series' colour. */
static void interval_bar(FILE *fp, const bounds *b, double x, double lo, double hi, size_t i)
{
    double y0 = py(b, lo), y1 = py(b, hi);
    fprintf(fp, "<path class=\"interval\" d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fH%.1f\" "
                "stroke=\"%s\" stroke-width=\"1.5\" fill=\"none\"/>\n",
            x - CAP_HALF, y0, x + CAP_HALF, x, y0, y1, x - CAP_HALF, y1, x + CAP_HALF,
            palette[i % NPALETTE]);
}

static void draw_series(FILE *fp, const bounds *b, const svg_chart_spec *spec, size_t i)
{
    const svg_series *s = &spec->series[i];
    int points = spec->points;
    double off = dodge(spec, i);
    int open = 0;
    for (size_t k = 0; k < s->n && !points; k++) {
        if (!x_ok(b, s->x[k]) || !y_ok(spec, s->y[k])) {
            if (open)
                fputs("\"/>\n", fp);
            open = 0;
            continue;
        }
        if (!open) {
            fputs("<polyline ", fp);
            series_style(fp, i);
            fputs(" points=\"", fp);
        }
        fprintf(fp, "%s%.1f,%.1f", open ? " " : "", px(b, s->x[k]) + off, py(b, s->y[k]));
        open = 1;
    }
    if (open)
        fputs("\"/>\n", fp);
    for (size_t k = 0; k < s->n; k++) {
        if (!x_ok(b, s->x[k]) || !y_ok(spec, s->y[k]))
            continue;
        if (has_interval(spec, s, k))
            interval_bar(fp, b, px(b, s->x[k]) + off, s->lo[k], s->hi[k], i);
        fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"/>\n",
                px(b, s->x[k]) + off, py(b, s->y[k]), points ? 2 : 3, palette[i % NPALETTE]);
    }
}

/* The dashed line at the spec's reference value, when it lies on the axis. */
static void reference_line(FILE *fp, const bounds *b, const svg_chart_spec *spec)
{
    if (!(spec->ref_y > 0.0) || spec->ref_y < b->ymin || spec->ref_y > b->ymax)
        return;
    double y = py(b, spec->ref_y);
    fprintf(fp, "<line class=\"reference\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#444444\" stroke-dasharray=\"5 4\"/>\n",
            PLOT_L, y, PLOT_L + plot_w(), y);
}

static int has_data(const svg_series *s)
{
    for (size_t k = 0; k < s->n; k++)
        if (isfinite(s->x[k]) && isfinite(s->y[k]))
            return 1;
    return 0;
}

static void legend(FILE *fp, const svg_chart_spec *spec, double top)
{
    for (size_t i = 0; i < spec->nseries; i++) {
        double x = PLOT_L + (i % 2) * (plot_w() / 2.0);
        double y = top + (double)(i / 2) * LEGEND_ROW;
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" ",
                x, y - 4.0, x + 28.0, y - 4.0);
        series_style(fp, i);
        fprintf(fp, "/>\n<text x=\"%.1f\" y=\"%.1f\">", x + 34.0, y);
        esc_xml(fp, spec->series[i].name);
        if (!has_data(&spec->series[i]))
            fputs(" (no data)", fp);
        fputs("</text>\n", fp);
    }
}

int svg_chart(FILE *fp, const svg_chart_spec *spec)
{
    bounds b = find_bounds(spec);
    double legend_top = PLOT_T + PLOT_H + 64.0;
    double height = legend_top + (double)((spec->nseries + 1) / 2) * LEGEND_ROW + 8.0;
    fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
                "width=\"%.0f\" height=\"%.0f\" role=\"img\" "
                "font-family=\"sans-serif\" font-size=\"12\">\n",
            SVG_W, height, SVG_W, height);
    fputs("<title>", fp);
    esc_xml(fp, spec->title);
    fputs("</title>\n", fp);
    fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
            SVG_W, height);
    fprintf(fp, "<text x=\"%.1f\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" "
                "font-weight=\"bold\">", SVG_W / 2.0);
    esc_xml(fp, spec->title);
    fputs("</text>\n", fp);
    y_axis(fp, &b, spec->y_label);
    x_axis(fp, &b, spec);
    fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                "fill=\"none\" stroke=\"#444444\"/>\n", PLOT_L, PLOT_T, plot_w(), PLOT_H);
    reference_line(fp, &b, spec);
    for (size_t i = 0; i < spec->nseries; i++)
        draw_series(fp, &b, spec, i);
    legend(fp, spec, legend_top);
    fputs("</svg>\n", fp);
    return ferror(fp) ? -1 : 0;
}
