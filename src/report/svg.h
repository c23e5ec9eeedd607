/* Line charts as standalone SVG: a figure (e.g. cycles/byte) against message
 * size on a log2-scaled axis, one line per series, a legend, axis labels and
 * a title. The value axis is linear from zero, or log10 when the values
 * spread over more than a factor of 20 or the chart asks for it (a ratio,
 * where 2x slower and 2x faster lie the same distance from 1); its label
 * then says so. A point may carry an interval, drawn as a vertical bar with
 * caps (one <path class="interval"> each), and a chart may draw a dashed
 * reference line (e.g. at ratio 1); with intervals, the series are set a few
 * pixels apart at each size so that bars do not hide each other. A chart
 * may instead have a linear x axis (time) and points only. Output is
 * deterministic (coordinates printed with one decimal, series in the order
 * given) and every text is XML-escaped, so the same input gives
 * byte-identical charts and a series name cannot inject markup. The text
 * needs no external resource and can be written to a .svg file or inlined
 * into HTML as is. */
#ifndef HB_REPORT_SVG_H
#define HB_REPORT_SVG_H

#include <stddef.h>
#include <stdio.h>

typedef struct svg_series {
    const char *name;  /* legend text (escaped by svg_chart) */
    size_t n;          /* points */
    const double *x;   /* message sizes in bytes, > 0, ascending */
    const double *y;   /* values; NaN leaves a gap */
    const double *lo;  /* NULL, or each point's interval: LO[k] <= Y[k] <= HI[k] */
    const double *hi;  /* (a NaN end: no bar at that point) */
} svg_series;

typedef struct svg_chart_spec {
    const char *title;    /* above the plot */
    const char *x_label;  /* e.g. "message size (bytes, log scale)" */
    const char *y_label;  /* e.g. "TSC ticks per byte" */
    const svg_series *series;
    size_t nseries;
    int x_linear;         /* 1: x on a linear axis (e.g. seconds) with 1-2-5
                             ticks, any finite x; 0: message sizes, log2 */
    int points;           /* 1: points only, no lines between them */
    int log_y;            /* 1: log10 value axis whatever the spread (values
                             and interval ends must be > 0 to be drawn) */
    double ref_y;         /* > 0: a dashed reference line at this value */
} svg_chart_spec;

/* Writes the chart to FP. Series with no finite point are still listed in the
 * legend (as "no data"). Returns 0, or -1 when FP reports a write error. */
int svg_chart(FILE *fp, const svg_chart_spec *spec);

#endif
