/* Error reporting for library code: see err.h. Messages are truncated to
 * HB_ERR_MAX bytes, never overflowed, and kept on one line: text quoted
 * from an input (a parser's "near '...'" excerpt, a file name from a
 * submission) cannot break it, as control characters become '?'. */
#include "common/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void hb_one_line(char *s)
{
    for (char *p = s; *p; p++)
        if (((unsigned char)*p < 0x20 && *p != '\x1e') || *p == 0x7f)
            *p = '?';
}

int hb_fail(hb_err *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        hb_one_line(err->msg);
    }
    return -1;
}

int hb_fail_at(hb_err *err, const char *file, long line, const char *fmt, ...)
{
    if (err) {
        int n = line > 0
            ? snprintf(err->msg, sizeof err->msg, "%s:%ld: ", file, line)
            : snprintf(err->msg, sizeof err->msg, "%s: ", file);
        if (n < 0)
            n = 0;
        if ((size_t)n < sizeof err->msg) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
            va_end(ap);
        }
        hb_one_line(err->msg);
    }
    return -1;
}

int hb_fail_errno(hb_err *err, const char *fmt, ...)
{
    int saved = errno;
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < sizeof err->msg)
            snprintf(err->msg + n, sizeof err->msg - (size_t)n, ": %s",
                     strerror(saved));
        hb_one_line(err->msg);
    }
    errno = saved;
    return -1;
}

void hb_err_clear(hb_err *err)
{
    if (err)
        err->msg[0] = '\0';
}
