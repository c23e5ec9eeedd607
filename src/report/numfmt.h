/* Number style of the published pages: counts from 10 000 up as "18.6 k",
 * "1.41 M" (three significant digits), smaller counts as plain integers;
 * times to three significant digits in s, ms, µs or ns; other figures
 * (cycles/byte, MB/s, ratios) to three significant digits; memory sizes in
 * B, KiB, MiB, GiB. Every function writes a NUL-terminated string into the
 * caller's buffer OUT of OUTSZ bytes (NUMFMT_MAX is always enough) and
 * returns OUT. Output depends only on the value (no locale). */
#ifndef HB_REPORT_NUMFMT_H
#define HB_REPORT_NUMFMT_H

#include <stddef.h>

#define NUMFMT_MAX 48

/* 4115.2 -> "4115", 18640 -> "18.6 k", 1412345 -> "1.41 M", 2.5e9 -> "2.50 G". */
char *numfmt_count(double v, char *out, size_t outsz);

/* Three significant digits, no exponent: 1.00471 -> "1.00", 2409.3 -> "2410",
 * 0.012345 -> "0.0123", 0 -> "0". */
char *numfmt_sig3(double v, char *out, size_t outsz);

/* Nanoseconds as a time: 1700.1 -> "1.70 µs", 5.1e6 -> "5.10 ms",
 * 12.0 -> "12.0 ns", 2.5e9 -> "2.50 s". */
char *numfmt_time_ns(double ns, char *out, size_t outsz);

/* Bytes: 720 -> "720 B", 16032 -> "15.7 KiB", 1536000 -> "1.46 MiB". */
char *numfmt_bytes(double bytes, char *out, size_t outsz);

/* A message size in bytes: 32 -> "32 B", 1024 -> "1 KiB", 65536 -> "64 KiB";
 * sizes that are not a whole number of KiB stay in bytes. */
char *numfmt_msg_size(long long bytes, char *out, size_t outsz);

#endif
