/* Error reporting for library code. Functions that can fail take an hb_err
 * pointer, fill it with one line that names the file and line of the bad
 * input and says what to do, and return a negative status; only main()
 * decides whether to exit. The caller owns the hb_err (usually on its stack). */
#ifndef HB_COMMON_ERR_H
#define HB_COMMON_ERR_H

#include <stddef.h>

#define HB_ERR_MAX 1024

typedef struct hb_err {
    char msg[HB_ERR_MAX];
} hb_err;

/* Fills err (when not NULL) with the printf-style message and returns -1. */
int hb_fail(hb_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Like hb_fail, prefixed with "FILE:LINE: " (LINE omitted when 0). */
int hb_fail_at(hb_err *err, const char *file, long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Like hb_fail, appending ": strerror(errno)" of the current errno. */
int hb_fail_errno(hb_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Clears the message. */
void hb_err_clear(hb_err *err);

/* Turns every control character of the string S into '?', so that text
 * quoted from an input stays on one line (every hb_fail* message gets this);
 * the mark before raw text of submitted code (common/untrusted.h) stays. */
void hb_one_line(char *s);

#endif
