/* The published number style: see numfmt.h. Three significant digits are
 * obtained by rounding to the right number of decimals for the value's
 * magnitude, re-checking after rounding (999.6 becomes "1000", which in
 * count style moves to the next unit); counts keep a fixed number of
 * decimals per unit, times lose their trailing zeros. */
#include "report/numfmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Decimals that give three significant digits for |v| (0 for v >= 100). */
static int sig3_decimals(double v)
{
    double a = fabs(v);
    if (a == 0.0 || a >= 100.0)
        return 0;
    int mag = (int)floor(log10(a)); /* 1.23 -> 0, 0.0123 -> -2 */
    int dec = 2 - mag;
    /* Rounding may carry into the next decade (9.996 -> 10.0). */
    double r = round(a * pow(10.0, dec)) / pow(10.0, dec);
    if (r >= pow(10.0, mag + 1))
        dec--;
    return dec < 0 ? 0 : dec;
}

char *numfmt_sig3(double v, char *out, size_t outsz)
{
    if (!isfinite(v)) {
        snprintf(out, outsz, "n/a");
        return out;
    }
    if (fabs(v) >= 1000.0) {
        /* Keep three significant digits, print as an integer. */
        int mag = (int)floor(log10(fabs(v)));
        double unit = pow(10.0, mag - 2);
        double r = round(v / unit) * unit;
        snprintf(out, outsz, "%.0f", r);
        return out;
    }
    int dec = sig3_decimals(v);
    snprintf(out, outsz, "%.*f", dec, v);
    if (dec > 0 && v != 0.0 && round(v * pow(10.0, dec)) == 0.0)
        snprintf(out, outsz, "0");
    return out;
}

/* Value scaled into [1, 1000) of a unit, three significant digits; returns 1
 * when the rounded value reached 1000 (the caller moves up a unit). */
static int scaled3(double v, char *out, size_t outsz, const char *unit)
{
    int dec = sig3_decimals(v);
    double r = round(v * pow(10.0, dec)) / pow(10.0, dec);
    if (fabs(r) >= 1000.0)
        return 1;
    snprintf(out, outsz, "%.*f %s", dec, v, unit);
    return 0;
}

/* V in UNIT with DEC decimals; returns 1 when the rounded value reached
 * 1000 (the caller moves up a unit). */
static int fixed_unit(double v, int dec, char *out, size_t outsz, const char *unit)
{
    double r = round(v * pow(10.0, dec)) / pow(10.0, dec);
    if (fabs(r) >= 1000.0)
        return 1;
    snprintf(out, outsz, "%.*f %s", dec, v, unit);
    return 0;
}

char *numfmt_count(double v, char *out, size_t outsz)
{
    static const char *const units[] = {"k", "M", "G", "T", "P"};
    if (!isfinite(v)) {
        snprintf(out, outsz, "n/a");
        return out;
    }
    double r = round(v);
    if (fabs(r) < 10000.0) {
        snprintf(out, outsz, "%.0f", r == 0.0 ? 0.0 : r);
        return out;
    }
    /* thousands with one decimal, millions and above with two */
    double scaled = v / 1000.0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (!fixed_unit(scaled, i == 0 ? 1 : 2, out, outsz, units[i]))
            return out;
        scaled /= 1000.0;
    }
    snprintf(out, outsz, "%.3g", v);
    return out;
}

/* Drops the trailing zeros of the number at the start of OUT (and its
 * point when nothing is left after it): "8.90 µs" -> "8.9 µs". */
static void drop_trailing_zeros(char *out)
{
    char *dot = strchr(out, '.');
    if (!dot)
        return;
    char *end = dot + 1;
    while (*end >= '0' && *end <= '9')
        end++;
    char *z = end;
    while (z > dot + 1 && z[-1] == '0')
        z--;
    if (z == dot + 1)
        z = dot;
    memmove(z, end, strlen(end) + 1);
}

char *numfmt_time_ns(double ns, char *out, size_t outsz)
{
    static const char *const units[] = {"ns", "\xc2\xb5s", "ms"};
    if (!isfinite(ns)) {
        snprintf(out, outsz, "n/a");
        return out;
    }
    double v = ns;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (!scaled3(v, out, outsz, units[i])) {
            drop_trailing_zeros(out);
            return out;
        }
        v /= 1000.0;
    }
    char num[NUMFMT_MAX];
    snprintf(out, outsz, "%s s", numfmt_sig3(ns / 1e9, num, sizeof num));
    drop_trailing_zeros(out);
    return out;
}

char *numfmt_fixed1(double v, char *out, size_t outsz)
{
    if (!isfinite(v))
        snprintf(out, outsz, "n/a");
    else
        snprintf(out, outsz, "%.1f", round(v * 10.0) == 0.0 ? 0.0 : v);
    return out;
}

char *numfmt_msg_bytes(long long bytes, char *out, size_t outsz)
{
    snprintf(out, outsz, "%lld B", bytes);
    return out;
}

char *numfmt_bytes(double bytes, char *out, size_t outsz)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (!isfinite(bytes)) {
        snprintf(out, outsz, "n/a");
        return out;
    }
    if (fabs(bytes) < 1024.0) {
        snprintf(out, outsz, "%.0f B", bytes);
        return out;
    }
    double v = bytes / 1024.0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (fabs(v) < 1024.0 || i + 1 == sizeof units / sizeof units[0]) {
            char num[NUMFMT_MAX];
            snprintf(out, outsz, "%s %s", numfmt_sig3(v, num, sizeof num), units[i]);
            return out;
        }
        v /= 1024.0;
    }
    return out;
}

char *numfmt_msg_size(long long bytes, char *out, size_t outsz)
{
    if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0)
        snprintf(out, outsz, "%lld MiB", bytes / (1024 * 1024));
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(out, outsz, "%lld KiB", bytes / 1024);
    else
        snprintf(out, outsz, "%lld B", bytes);
    return out;
}
