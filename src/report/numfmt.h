/* Number style of the published pages: counts from 10 000 up as "18.6 k"
 * (thousands with one decimal) and "1.41 M", "17.22 M" (millions and above
 * with two decimals), smaller counts as plain integers; times to three
 * significant digits in s, ms, µs or ns without trailing zeros ("22 µs",
 * "8.9 µs"); cycles/byte and MB/s with one decimal; ratios to three
 * significant digits; message sizes in bytes ("65536 B"); memory sizes in
 * B, KiB, MiB, GiB. Every function writes a NUL-terminated string into the
 * caller's buffer OUT of OUTSZ bytes (NUMFMT_MAX is always enough) and
 * returns OUT. Output depends only on the value (no locale). */
#ifndef HB_REPORT_NUMFMT_H
#define HB_REPORT_NUMFMT_H

#include <stddef.h>

#define NUMFMT_MAX 48

/* 4115.2 -> "4115", 18640 -> "18.6 k", 826000 -> "826.0 k", 999960 -> "1.00 M",
 * 1412345 -> "1.41 M", 17221000 -> "17.22 M", 2.5e9 -> "2.50 G". */
char *numfmt_count(double v, char *out, size_t outsz);

/* Three significant digits, no exponent: 1.00471 -> "1.00", 2409.3 -> "2410",
 * 0.012345 -> "0.0123", 0 -> "0". */
char *numfmt_sig3(double v, char *out, size_t outsz);

/* Nanoseconds as a time, three significant digits without trailing zeros:
 * 1700.1 -> "1.7 µs", 8912 -> "8.91 µs", 22004 -> "22 µs", 1.0e6 -> "1 ms",
 * 12.0 -> "12 ns", 2.5e9 -> "2.5 s". */
char *numfmt_time_ns(double ns, char *out, size_t outsz);

/* Bytes: 720 -> "720 B", 16032 -> "15.7 KiB", 1536000 -> "1.46 MiB". */
char *numfmt_bytes(double bytes, char *out, size_t outsz);

/* One decimal, the published style of cycles/byte and MB/s: 582.63 ->
 * "582.6", 3.04 -> "3.0", 0.44 -> "0.4"; "n/a" when not finite. */
char *numfmt_fixed1(double v, char *out, size_t outsz);

/* A message size as the published pages write it, in bytes: 65536 -> "65536 B". */
char *numfmt_msg_bytes(long long bytes, char *out, size_t outsz);

/* A message size in bytes: 32 -> "32 B", 1024 -> "1 KiB", 65536 -> "64 KiB";
 * sizes that are not a whole number of KiB stay in bytes. */
char *numfmt_msg_size(long long bytes, char *out, size_t outsz);

#endif
