/* A process seen from outside: the probe's host process id below the
 * sandbox's keeper and bubblewrap, its kernel-accounted CPU time (the
 * process CPU clock: every thread, preemption and steal time left out),
 * fields of /proc/PID/stat, stopping and continuing its whole thread group,
 * the code it has mapped, and a hardware cycle counter opened on it by
 * hashbench (the process never holds the descriptor). The trial path (trial.c) and the trial sessions
 * (session.c) read their figures through it. */
#ifndef HB_MEASURE_PROCVIEW_H
#define HB_MEASURE_PROCVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "common/strlist.h"

/* The probe's process on the host: CHILD itself, or with the sandbox the
 * last of the chain below it (proc.c's keeper, bubblewrap, its init, the
 * probe: the probe cannot start processes there). */
long procview_host_pid(long child, int sandboxed);

/* CPU time of process PID in ns (all its threads), -1 when it cannot be
 * read. Exact when no thread of PID is running; a running thread's time
 * can lag by up to a tick. */
long long procview_cpu_ns(long pid);

/* Field FIELD (3 or above: 3 is the state, 39 the last CPU) of
 * /proc/PID/stat as text in OUT (SZ bytes); -1 when it cannot be read. The
 * fields are counted after the name, which may hold spaces and
 * parentheses. */
int procview_stat_field(long pid, int field, char *out, size_t sz);

/* The same from the text STAT of a /proc/PID/stat file (for tests). */
int procview_parse_stat(const char *stat, int field, char *out, size_t sz);

/* The number after "KEY:" at the start of a line of the text STATUS of a
 * /proc/PID/status file (Threads, VmHWM in KiB, ...), -1 when absent. */
long long procview_parse_status(const char *status, const char *key);

/* The same read from PID's /proc/PID/status, -1 unknown. */
long long procview_status_value(long pid, const char *key);

/* The number of threads of PID from /proc/PID/status, -1 unknown. */
long procview_threads(long pid);

/* The voluntary context switches of PID so far (/proc/PID/status, all its
 * threads: every time it slept or waited), -1 unknown. */
long long procview_voluntary_switches(long pid);

/* One executable mapping of a process: the file it maps by device
 * (makedev(major, minor), as stat's st_dev) and inode as /proc/PID/maps
 * gives them (0 and 0 for memory backed by no file), and its name there
 * (a path, "[vdso]" and the like, or "[anonymous]"; for messages only:
 * a name says nothing of what a file holds). */
typedef struct procview_code_map {
    unsigned long long dev, ino;
    char name[512];
} procview_code_map;

typedef struct procview_code_list {
    procview_code_map *v;
    int n, cap;
} procview_code_list;

/* Every executable mapping of the text MAPS of a /proc/PID/maps file,
 * each (device, inode, name) once, appended to OUT. 0, or -1 when out of
 * memory. */
int procview_parse_code(const char *maps, procview_code_list *out);

/* 1 when the text MAPS of a /proc/PID/maps file holds an executable
 * mapping of the file (DEV, INO) whose file range [offset, offset + its
 * length) does not lie within one of the N RANGES ([start, end) file
 * offsets: elfsize_exec_ranges), *OFFSET then its offset; else 0. Code the
 * loader mapped lies within them; a page of the file's data mapped
 * executable afterwards does not. */
int procview_exec_outside(const char *maps, unsigned long long dev, unsigned long long ino,
                          const unsigned long long (*ranges)[2], int n,
                          unsigned long long *offset);

/* The same read from /proc/PID/maps: 0, or -1 when it cannot be read. */
int procview_code(long pid, procview_code_list *out);

/* 1 when OUT holds a mapping of the file (DEV, INO), else 0. */
int procview_code_has(const procview_code_list *l, unsigned long long dev,
                      unsigned long long ino);

/* Appends (DEV, INO, NAME) to OUT unless it holds that file already: 0,
 * or -1 when out of memory. */
int procview_code_add(procview_code_list *l, unsigned long long dev,
                      unsigned long long ino, const char *name);

void procview_code_free(procview_code_list *l);

/* The (device, inode) of the file PATH as /proc/PID/maps shows a mapping
 * of it (hashbench maps it one moment and reads its own maps): on a
 * stacked file system (overlayfs) a mapping is of the file below, whose
 * device stat does not give; stat's where the file cannot be mapped.
 * 0, or -1 when it cannot be opened. */
int procview_file_id(const char *path, unsigned long long *dev, unsigned long long *ino);

/* The KiB resident or swapped out, summed over every mapping of the file
 * DEV_MAJOR:DEV_MINOR inode INO, in the text SMAPS of a /proc/PID/smaps
 * file (each mapping's "Rss:" and "Swap:" lines: pages the host swapped
 * out are still the process's). 0 when no mapping of it is found. */
long long procview_parse_file_rss(const char *smaps, unsigned dev_major,
                                  unsigned dev_minor, unsigned long long ino);

/* The same read from /proc/PID/smaps: -1 when it cannot be read. */
long long procview_file_rss(long pid, unsigned dev_major, unsigned dev_minor,
                            unsigned long long ino);

/* Stops PID's whole thread group (SIGSTOP) and waits until every thread
 * is stopped (state T in /proc/PID/task/TID/stat) and off the CPU (its CPU
 * time no longer grows), at most TIMEOUT_S.
 * Returns 0, 1 when it did not stop in time or is gone, -1 when the
 * signal could not be sent. */
int procview_stop(long pid, double timeout_s);

/* The same for a PID that stops itself: waits, without sending anything,
 * until every thread is stopped and off the CPU. 0, or 1 when it did not
 * stop within TIMEOUT_S or is gone. */
int procview_await_stop(long pid, double timeout_s);

/* Continues PID (SIGCONT); 0 or -1. */
int procview_continue(long pid);

/* A hardware cycle counter on PID (user and kernel cycles, every CPU),
 * opened by hashbench. */
typedef struct procview_cycles {
    int fd;                   /* -1: not open */
} procview_cycles;

/* Opens the counter; 0, or -1 when the kernel offers none (no PMU,
 * perf_event_paranoid, a sandbox): C->fd is then -1. */
int procview_cycles_open(procview_cycles *c, long pid);

/* One reading: its value and the times the counter was enabled and
 * running. 0, or -1. */
typedef struct procview_cycles_reading {
    uint64_t value, enabled_ns, running_ns;
} procview_cycles_reading;
int procview_cycles_read(const procview_cycles *c, procview_cycles_reading *r);

/* The cycles between two readings A and B; -1 when the counter was not
 * running for the whole span (multiplexed with other events: its count
 * would be scaled, not counted), else 0 with *CYCLES set. */
int procview_cycles_between(const procview_cycles_reading *a,
                            const procview_cycles_reading *b, uint64_t *cycles);

/* Decodes a read(2) of a counter opened with PERF_FORMAT_TOTAL_TIME_ENABLED
 * | PERF_FORMAT_TOTAL_TIME_RUNNING (three u64: value, enabled, running)
 * from BUF of LEN bytes; 0, or -1 when LEN is short. */
int procview_cycles_decode(const void *buf, size_t len, procview_cycles_reading *r);

void procview_cycles_close(procview_cycles *c);

#endif
