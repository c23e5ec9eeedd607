/* Whole reads and writes on a blocking descriptor, retried after signals:
 * header-only and libc-only, for the small programs that run submitted code
 * (hashbench-probe), which link nothing of hashbench's
 * library. hashbench's own side of their pipes waits with poll and a
 * deadline instead (runner/client.c, measure/trial.c). */
#ifndef HB_COMMON_FDIO_H
#define HB_COMMON_FDIO_H

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

/* Writes all N bytes of BUF to FD: 0, or -1 when FD fails or is closed. */
static inline int hb_fd_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads exactly N bytes from FD into BUF: 0, or -1 at an error or the end
 * of input before N bytes. */
static inline int hb_fd_read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* Writes all N bytes of BUF to FD at offset OFF (pwrite): 0, or -1. */
static inline int hb_fd_pwrite_all(int fd, const void *buf, size_t n, off_t off)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
        off += w;
    }
    return 0;
}

/* Reads exactly N bytes from FD at offset OFF into BUF (pread): 0, or -1
 * at an error or the end of the file before N bytes. */
static inline int hb_fd_pread_all(int fd, void *buf, size_t n, off_t off)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
        off += r;
    }
    return 0;
}

#endif
