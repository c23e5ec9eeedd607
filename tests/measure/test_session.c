/* The persistent probe session (session.h, session_probe) on real
 * libraries, in the sandbox as the measure stage runs it: the digests it
 * returns for a window are OpenSSL's SM3 of the window's messages chained
 * as probe/chain.h says (100-byte messages: a partial last block); it is
 * stopped between windows and gains no CPU time there; the CPU time read
 * from outside grows with the calls and stays within the window;
 * a window without calls costs only the exchange; a library's helper
 * thread is refused in a session; a library that fails inside a window
 * ends the session with its status; code from a file hashbench did not
 * bind, whatever its name, is INCONSISTENT, and code made executable only
 * within calls is refused. Also the outside readings' parsers on
 * captured text: /proc/PID/stat with a hostile process name, and a perf
 * counter's read format, multiplexed or not. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/personality.h>
#include <cmocka.h>
#include <openssl/evp.h>
#include "common/fs.h"

#include "measure/msggen.h"
#include "compile/elfsize.h"
#include "measure/procview.h"
#include "measure/session.h"
#include "measure_fixture.h"
#include "probe/chain.h"
#include "runner/start.h"
#include "sandbox/sandbox.h"

#include <sys/sysmacros.h>

static char probe[4096], build_dir[4096];

static void open_rq(session_open_rq *rq, char *lib, size_t sz, const char *name,
                    unsigned long long size)
{
    snprintf(lib, sz, "%s/%s", build_dir, name);
    memset(rq, 0, sizeof *rq);
    rq->probe_path = probe;
    rq->lib = lib;
    rq->size = size;
    rq->digest_bits = 256;
    rq->cpu = -1;
    rq->counter = counter_arch_kind();
    rq->max_calls = 4000;
    rq->timeout_s = 30;
}

static void sm3(const unsigned char *m, size_t n, unsigned char out[32])
{
    unsigned int len = 32;
    assert_int_equal(EVP_Digest(m, n, out, &len, EVP_sm3(), NULL), 1);
}

static char state_of(long pid)
{
    char st[8] = "?";
    procview_stat_field(pid, 3, st, sizeof st);
    return st[0];
}

/* chain_apply's word-wide XOR against the rule byte by byte (CHAIN_RULE),
 * at every size to 300 bytes (last blocks of 1 to 64 bytes) and 16 KiB. */
static void test_chain_bytes(void **state)
{
    (void)state;
    static unsigned char a[16384], b[16384];
    const uint64_t words[] = {0, 0x0123456789abcdefULL, ~0ULL, 0x80ULL << 56};
    for (size_t wi = 0; wi < sizeof words / sizeof words[0]; wi++)
        for (size_t size = 0; size <= 16384; size = size < 300 ? size + 1 : 16384) {
            for (size_t k = 0; k < size; k++)
                a[k] = b[k] = (unsigned char)(k * 131 + wi);
            chain_apply(a, size, words[wi]);
            for (size_t off = 0; off < size; off += 64)
                for (size_t k = 0; k < 8 && off + k < size; k++)
                    b[off + k] ^= (unsigned char)(words[wi] >> (8 * k));
            assert_memory_equal(a, b, size ? size : 1);
            if (size == 16384)
                break;
        }
}

static void test_windows_real_probe(void **state)
{
    (void)state;
    char lib[4200];
    session_open_rq rq;
    open_rq(&rq, lib, sizeof lib, "libhb_baseline_sm3.so", 100);
    void *s = calloc(1, session_probe.state_size);
    session_figure f;
    hb_err err;
    assert_int_equal(session_probe.open(s, &rq, &f, &err), 0);
    long pid = f.pid;
    assert_true(pid > 0);
    assert_int_equal(state_of(pid), 'T');
    assert_int_equal(procview_threads(pid), 1);
    /* without address-space randomisation (runner/start.h): a library
     * sits where it sat in every other run of the same campaign shape */
    char ppath[64], *pers = NULL;
    snprintf(ppath, sizeof ppath, "/proc/%ld/personality", pid);
    assert_int_equal(hb_read_file(ppath, &pers, NULL, NULL), 0);
    assert_true(strtoul(pers, NULL, 16) & ADDR_NO_RANDOMIZE);
    free(pers);

    /* the exchange alone */
    session_window_rq w0 = {0, NULL};
    assert_int_equal(session_probe.window(s, &w0, &f, &err), 0);
    assert_int_equal(f.status, SESSION_OK);
    assert_int_equal(f.gained_ns, 0);
    unsigned long long exchange = f.cpu_ns;
    assert_true(exchange < 5000000); /* a few tens of us on a quiet host */

    unsigned long long calls[2] = {500, 4000}, cpu[2];
    unsigned char *raw = malloc(4000 * 100), msg[100], d[32];
    for (int k = 0; k < 2; k++) {
        msggen_key key;
        assert_int_equal(msggen_new_key(&key, &err), 0);
        assert_int_equal(msggen_fill(&key, 0, raw, calls[k] * 100, &err), 0);
        session_window_rq w = {calls[k], raw};
        assert_int_equal(session_probe.window(s, &w, &f, &err), 0);
        assert_int_equal(f.status, SESSION_OK);
        assert_int_equal(f.gained_ns, 0);
        assert_int_equal(state_of(pid), 'T'); /* stopped between windows */
        for (unsigned long long j = 0; j < calls[k]; j++) {
            chain_message(msg, raw + j * 100, 100, j, j ? f.digests + (j - 1) * 32 : NULL, 32);
            sm3(msg, 100, d);
            assert_memory_equal(d, f.digests + j * 32, 32);
        }
        /* one thread: its CPU time within the window's wall time, and the
         * probe's own loop (its wall time) inside the window too */
        assert_true(f.cpu_ns <= f.wall_ns + 1000000);
        assert_true(f.inside_ns <= f.wall_ns);
        cpu[k] = f.cpu_ns - exchange;
    }
    /* eight times the calls: several times the CPU time (a loose bound:
     * the host's speed moves) */
    assert_true(cpu[1] > 3 * cpu[0]);
    session_probe.close(s, &f);
    assert_int_equal(f.status, SESSION_OK);
    free(raw);
    free(s);
}

/* A library that sleeps in its calls: every sleep is a voluntary switch
 * hashbench reads from outside; an empty window has a few (the exchange). */
static void test_waits_seen(void **state)
{
    (void)state;
    char lib[4200];
    session_open_rq rq;
    open_rq(&rq, lib, sizeof lib, "libmfix_sleepy.so", 64);
    void *s = calloc(1, session_probe.state_size);
    session_figure f;
    hb_err err;
    assert_int_equal(session_probe.open(s, &rq, &f, &err), 0);
    /* an empty window's waits, the smallest of five (as the planner takes a
     * median of empty windows: one may be woken once more) */
    session_window_rq empty = {0, NULL};
    long long base = -1;
    for (int i = 0; i < 5; i++) {
        assert_int_equal(session_probe.window(s, &empty, &f, &err), 0);
        assert_int_equal(f.status, SESSION_OK);
        assert_true(f.waits >= 0);
        if (base < 0 || f.waits < base)
            base = f.waits;
    }
    assert_true(base <= 4);
    unsigned char raw[8 * 64] = {0};
    session_window_rq w = {8, raw};
    assert_int_equal(session_probe.window(s, &w, &f, &err), 0);
    assert_int_equal(f.status, SESSION_OK);
    /* 5 ms of sleep in each of 8 calls: 8 waits, less the one or two an
     * empty window's exchange may or may not take (the line can arrive
     * before the probe blocks): far beyond the planner's slack of 2 */
    assert_true(f.waits >= base + 6);
    session_probe.close(s, &f);
    free(s);
}

static void test_thread_refused(void **state)
{
    (void)state;
    char lib[4200];
    session_open_rq rq;
    /* its constructor starts a helper thread: the session's filter refuses */
    open_rq(&rq, lib, sizeof lib, "libmfix_parallel.so", 64);
    void *s = calloc(1, session_probe.state_size);
    session_figure f;
    hb_err err;
    assert_int_equal(session_probe.open(s, &rq, &f, &err), 0);
    assert_int_equal(procview_threads(f.pid), 1);
    session_probe.close(s, &f);
    free(s);
}

static void test_failure_in_window(void **state)
{
    (void)state;
    char lib[4200];
    session_open_rq rq;
    open_rq(&rq, lib, sizeof lib, "libmfix_error.so", 64);
    void *s = calloc(1, session_probe.state_size);
    session_figure f;
    hb_err err;
    int rc = session_probe.open(s, &rq, &f, &err);
    assert_int_equal(rc, 1); /* its checks at open already see the error */
    assert_int_equal(f.status, SESSION_FAILED);
    assert_non_null(strstr(f.failure, "ERROR"));
    session_probe.close(s, NULL);
    free(s);
}

/* A session on the library NAME (a build-folder file) at 64-byte messages,
 * OWN_CODE_ONLY and TRUSTED as session_open_rq says, opened into *S (to be
 * closed and freed by the caller): what open returns, F filled. */
static int open_library(const char *name, int own_code_only, int trusted, void **s,
                        session_figure *f)
{
    char lib[4200];
    session_open_rq rq;
    hb_err err;
    open_rq(&rq, lib, sizeof lib, name, 64);
    rq.own_code_only = own_code_only;
    rq.trusted = trusted;
    *s = calloc(1, session_probe.state_size);
    assert_non_null(*s);
    return session_probe.open(*s, &rq, f, &err);
}

/* The same for a fixture library, submitted code. */
static int open_fixture(const char *name, int own_code_only, void **s, session_figure *f)
{
    return open_library(name, own_code_only, 0, s, f);
}

/* Up to WINDOWS windows of 8 calls on the open session S while they go
 * well, then its close and free: F is the first failing window's figure,
 * else the close's. */
static void windows_then_close(void *s, int windows, session_figure *f)
{
    unsigned char raw[64 * 8] = {0};
    session_window_rq w = {8, raw};
    hb_err err;
    f->status = SESSION_OK;
    for (int i = 0; i < windows && f->status == SESSION_OK; i++)
        assert_int_equal(session_probe.window(s, &w, f, &err), 0);
    if (f->status == SESSION_OK) {
        memset(f, 0, sizeof *f);
        session_probe.close(s, f);
    } else {
        session_probe.close(s, NULL);
    }
    free(s);
}

/* A library that would load code of its own choosing (the system's
 * libcrypto, from its constructor) finds none; the plain fixture under the
 * same check opens, serves a window and closes cleanly. */
static void test_foreign_code(void **state)
{
    (void)state;
    void *s;
    session_figure f;
    assert_int_equal(open_fixture("libmfix_plain.so", 1, &s, &f), 0);
    assert_int_equal(f.rss_known, 1);
    assert_true(f.rss_preload_kb > 0 && f.rss_preload_kb <= f.rss_kb);
    windows_then_close(s, 1, &f);
    assert_int_equal(f.status, SESSION_OK);
    assert_true(f.rss_peak_kb >= f.rss_kb);

    /* the system's libcrypto is not in a native session's sandbox (only
     * the loader and the libraries the probe and the library need): the
     * borrowing fixture finds nothing to load and runs its own code */
    assert_int_equal(open_fixture("libmfix_borrow.so", 1, &s, &f), 0);
    windows_then_close(s, 1, &f);
    assert_int_equal(f.status, SESSION_OK);

    /* libcrypto named as needed (DT_NEEDED) by one of hashbench's
     * baselines, whose link gave it, is allowed to it; a submitted library
     * naming it is INCONSISTENT at open (hashbench's build links only the
     * C library into one) */
    char lib[4200];
    strlist needed = {0};
    hb_err err;
    snprintf(lib, sizeof lib, "%s/libhb_baseline_sm3.so", build_dir);
    assert_int_equal(elfsize_needed(lib, &needed, &err), 0);
    assert_true(strlist_contains(&needed, "libcrypto.so.3"));
    strlist_free(&needed);
    assert_int_equal(open_library("libhb_baseline_sm3.so", 1, 1, &s, &f), 0);
    windows_then_close(s, 2, &f);
    assert_int_equal(f.status, SESSION_OK);
    assert_int_equal(open_library("libhb_baseline_sm3.so", 1, 0, &s, &f), 1);
    assert_int_equal(f.status, SESSION_INCONSISTENT);
    assert_non_null(strstr(f.failure, "names libcrypto.so.3 as needed"));
    session_probe.close(s, NULL);
    free(s);
}

/* A library that copies another library's code into a file named like the
 * C library beside the probe's own program (a folder the probe's code came
 * from) and maps it executable for the session: the folder is read-only in
 * the sandbox, so the copy lands in its scratch, and there, as it would
 * anywhere, it is a file hashbench did not bind: INCONSISTENT once open. */
static void test_foreign_code_beside_probe(void **state)
{
    (void)state;
    void *s;
    session_figure f;
    assert_int_equal(open_fixture("libmfix_execnamed.so", 1, &s, &f), 1);
    assert_int_equal(f.status, SESSION_INCONSISTENT);
    char beside[4200];
    snprintf(beside, sizeof beside, "%s", probe);
    *strrchr(beside, '/') = '\0';
    strcat(beside, "/libc.so.6");
    if (strstr(f.failure, beside))
        fail_msg("the probe's own folder took a file: %s", f.failure);
    assert_non_null(strstr(f.failure, HB_SANDBOX_SCRATCH_DIR "/libc.so.6"));
    session_probe.close(s, NULL);
    free(s);
}

/* A library whose constructor keeps the probe from installing its filter
 * against new code (its GOT slot for seccomp_load pointed at a function
 * that does nothing) is INCONSISTENT once open: the probe's filters did not
 * grow across the load. */
static void test_filter_skipped(void **state)
{
    (void)state;
    void *s;
    session_figure f;
    assert_int_equal(open_fixture("libmfix_filterskip.so", 1, &s, &f), 1);
    assert_int_equal(f.status, SESSION_INCONSISTENT);
    assert_non_null(strstr(f.failure, "filter against new code"));
    session_probe.close(s, NULL);
    free(s);
}

/* A library that keeps another library's code readable only while the
 * probe is stopped and makes it executable within each call (changing the
 * protection, else mapping the file again over it) is refused both: its
 * calls fail (the fixture returns 7 when refused), so the probe's checks
 * fail at open. */
/* Bytes of the library's own file outside its executable segments (its
 * first page) mapped executable by its constructor: the file is the one
 * hashbench bound, but the code is data made code, INCONSISTENT. */
static void test_data_made_code(void **state)
{
    (void)state;
    void *s;
    session_figure f;
    assert_int_equal(open_fixture("libmfix_execdata.so", 1, &s, &f), 1);
    assert_int_equal(f.status, SESSION_INCONSISTENT);
    assert_non_null(strstr(f.failure, "outside every segment the loader maps executable"));
    session_probe.close(s, NULL);
    free(s);
}

static void test_code_only_in_windows(void **state)
{
    (void)state;
    void *s;
    session_figure f;
    assert_int_equal(open_fixture("libmfix_execwindow.so", 1, &s, &f), 1);
    assert_int_equal(f.status, SESSION_FAILED);
    assert_non_null(strstr(f.failure, "returned 7"));
    session_probe.close(s, NULL);
    free(s);
}

/* A library that maps code (the C library's, where no libcrypto is to be
 * had) from copies named like a library it needs (libc.so.6), files
 * hashbench did not bind, is INCONSISTENT once open. */
static void test_foreign_code_renamed(void **state)
{
    (void)state;
    void *s;
    session_figure f;
    assert_int_equal(open_fixture("libmfix_borrownamed.so", 1, &s, &f), 1);
    assert_int_equal(f.status, SESSION_INCONSISTENT);
    assert_non_null(strstr(f.failure, "/tmp/c0/libc.so.6"));
    session_probe.close(s, NULL);
    free(s);
}

/* A library that drops pages of the shared message area its session made
 * resident (touch: the whole area here) from its memory (the file keeps
 * its zeros) and holds as much of its own is INCONSISTENT after the window
 * in which it did; an honest one is not, and its figures leave the
 * resident area out. */
static void test_region_dropped(void **state)
{
    (void)state;
    const char *names[] = {"libmfix_plain.so", "libmfix_regiondrop.so"};
    for (int k = 0; k < 2; k++) {
        void *s;
        session_figure f, t;
        hb_err err;
        assert_int_equal(open_fixture(names[k], 0, &s, &f), 0);
        long long open_kb = f.rss_kb;
        assert_int_equal(session_probe.touch(s, 4000, &t, &err), 0);
        assert_int_equal(t.status, SESSION_OK);
        /* a window is followed by the check one time in eight, drawn in
         * secret; the close always checks */
        windows_then_close(s, 3, &f);
        /* 380 KiB of messages and digests made resident, none of it in
         * the figure (the windows themselves grow the probe by 64 KiB) */
        if (!k)
            assert_true(f.rss_kb >= open_kb && f.rss_kb < open_kb + 192);
        assert_int_equal(f.status, k ? SESSION_INCONSISTENT : SESSION_OK);
        if (k)
            assert_non_null(strstr(f.failure, "no longer resident"));
    }
}

/* A probe stopped before its load with nobody left to continue it (its
 * hashbench killed together with the watcher) ends by itself once its
 * input's other end closes: a runner and a one-process trial are started, left in
 * their stop before the load, and their input closed; each ends within
 * a few seconds, neither continued nor killed by the test. */
static void test_orphan_ends(void **state)
{
    (void)state;
    char trial[128];
    snprintf(trial, sizeof trial, "role=trial bits=256 size=64 calls=8 warmup=1 counter=%s "
             "memory=0", counter_kind_name(counter_arch_kind()));
    const char *configs[] = {"role=runner bits=256", trial};
    for (int k = 0; k < 2; k++) {
        char lib[4200];
        snprintf(lib, sizeof lib, "%s/libhb_baseline_sm3.so", build_dir);
        probe_start_rq rq = {probe, lib, -1, -1, 0, "00112233445566778899aabbccddeeff",
                             configs[k]};
        hb_proc_child c;
        hb_err err;
        assert_int_equal(probe_start(&rq, &c, &err), 0);
        long pid = -1;
        int stopped = 0;
        for (int i = 0; i < 400 && !stopped; i++) {
            /* the probe, once the sandbox has started it */
            pid = procview_host_pid(c.pid, hb_sandbox_enabled());
            stopped = pid > 0 && state_of(pid) == 'T';
            if (!stopped) {
                struct timespec ts = {0, 10000000};
                nanosleep(&ts, NULL);
            }
        }
        assert_true(stopped);
        close(c.to_child); /* what hashbench's end does */
        c.to_child = -1;
        int gone = 0;
        for (int i = 0; i < 300 && !gone; i++) {
            gone = kill((pid_t)pid, 0) != 0 || state_of(pid) == 'Z';
            if (!gone) {
                struct timespec ts = {0, 10000000};
                nanosleep(&ts, NULL);
            }
        }
        print_message("%s: %s\n", configs[k], gone ? "ended" : "still stopped");
        hb_proc_result res;
        if (!gone)
            hb_proc_kill(&c, 0);
        hb_proc_reap(&c, 2, &res);
        assert_true(gone);
    }
}

static void test_parse_file_rss(void **state)
{
    (void)state;
    const char *smaps =
        "7f0000000000-7f0000400000 rw-s 00000000 00:01 4242                       "
        "/memfd:hb-session (deleted)\n"
        "Size:               4096 kB\n"
        "Rss:                3072 kB\n"
        "AnonHugePages:         0 kB\n"
        "Swap:                 64 kB\n"
        "SwapPss:              64 kB\n"
        "VmFlags: rd wr sh mr mw me ms sd\n"
        "7f0000400000-7f0000401000 rw-p 00000000 00:00 0 \n"
        "Rss:                   4 kB\n"
        "7f0000500000-7f0000600000 r--s 00000000 00:01 4242                       "
        "/memfd:hb-session (deleted)\n"
        "Rss:                1024 kB\n"
        "7f0000600000-7f0000700000 rw-s 00000000 00:02 4242                       "
        "/memfd:hb-session (deleted)\n"
        "Rss:                 512 kB\n";
    assert_int_equal(procview_parse_file_rss(smaps, 0, 1, 4242), 4160);
    assert_int_equal(procview_parse_file_rss(smaps, 0, 2, 4242), 512);
    assert_int_equal(procview_parse_file_rss(smaps, 0, 1, 4243), 0);
}

/* A library that keeps data in the unused part of the shared message area
 * is INCONSISTENT at close. */
static void test_region_written(void **state)
{
    (void)state;
    void *s;
    session_figure f;
    assert_int_equal(open_fixture("libmfix_region.so", 0, &s, &f), 0);
    windows_then_close(s, 1, &f);
    assert_int_equal(f.status, SESSION_INCONSISTENT);
    assert_non_null(strstr(f.failure, "message area"));
}

static void test_parse_code(void **state)
{
    (void)state;
    /* a captured /proc/PID/maps, cut */
    const char *maps =
        "55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 131 /usr/libexec/hashbench/hashbench-probe\n"
        "55d0c0a02000-55d0c0a09000 r-xp 00002000 08:01 131 /usr/libexec/hashbench/hashbench-probe\n"
        "7f1c2a600000-7f1c2a626000 r--p 00000000 08:01 77 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
        "7f1c2a626000-7f1c2a77b000 r-xp 00026000 08:01 77 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
        "7f1c2a900000-7f1c2a901000 rwxp 00000000 00:00 0 \n"
        "7f1c2aa00000-7f1c2aa01000 r-xp 00001000 00:1f 9 /memfd:jit (deleted)\n"
        "7ffd1b3e0000-7ffd1b3e2000 r-xp 00000000 00:00 0                          [vdso]\n"
        "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]";
    procview_code_list l = {0};
    assert_int_equal(procview_parse_code(maps, &l), 0);
    assert_int_equal(l.n, 6);
    assert_string_equal(l.v[0].name, "/usr/libexec/hashbench/hashbench-probe");
    assert_true(l.v[0].dev == makedev(8, 1) && l.v[0].ino == 131);
    assert_string_equal(l.v[1].name, "/usr/lib/x86_64-linux-gnu/libc.so.6");
    assert_true(l.v[1].dev == makedev(8, 1) && l.v[1].ino == 77);
    assert_string_equal(l.v[2].name, "[anonymous]");
    assert_true(l.v[2].dev == 0 && l.v[2].ino == 0);
    assert_string_equal(l.v[3].name, "/memfd:jit (deleted)");
    assert_true(l.v[3].dev == makedev(0, 0x1f) && l.v[3].ino == 9);
    assert_string_equal(l.v[4].name, "[vdso]");
    assert_string_equal(l.v[5].name, "[vsyscall]");
    /* a file is known by its device and inode, not its name */
    assert_true(procview_code_has(&l, makedev(8, 1), 77));
    assert_false(procview_code_has(&l, makedev(8, 1), 78));
    assert_false(procview_code_has(&l, makedev(8, 2), 77));
    procview_code_free(&l);
}

static void test_parse_status(void **state)
{
    (void)state;
    /* a captured /proc/PID/status (Linux 6.1), cut */
    const char *status = "Name:\thashbench-probe\nState:\tT (stopped)\n"
                         "VmPeak:\t   14220 kB\nVmHWM:\t    5512 kB\nVmRSS:\t    5388 kB\n"
                         "RssAnon:\t     212 kB\nThreads:\t1\n"
                         "voluntary_ctxt_switches:\t42\nnonvoluntary_ctxt_switches:\t7\n";
    assert_int_equal(procview_parse_status(status, "voluntary_ctxt_switches"), 42);
    assert_int_equal(procview_parse_status(status, "nonvoluntary_ctxt_switches"), 7);
    assert_int_equal(procview_parse_status(status, "VmHWM"), 5512);
    assert_int_equal(procview_parse_status(status, "VmRSS"), 5388);
    assert_int_equal(procview_parse_status(status, "Threads"), 1);
    /* a key is a whole name at the start of a line */
    assert_int_equal(procview_parse_status("nonvoluntary_ctxt_switches:\t7\n",
                                           "voluntary_ctxt_switches"), -1);
    assert_int_equal(procview_parse_status("VmHWMx:\t9\n", "VmHWM"), -1);
    assert_int_equal(procview_parse_status("VmHWM:\tmany\n", "VmHWM"), -1);
    assert_int_equal(procview_parse_status("", "VmHWM"), -1);
}

static void test_parse_stat(void **state)
{
    (void)state;
    char out[32];
    /* a process may name itself with spaces and parentheses */
    const char *stat = "4242 (evil) R 1 (x) S) T 1 2 3 4";
    assert_int_equal(procview_parse_stat(stat, 3, out, sizeof out), 0);
    assert_string_equal(out, "T");
    assert_int_equal(procview_parse_stat(stat, 5, out, sizeof out), 0);
    assert_string_equal(out, "2");
    assert_int_equal(procview_parse_stat("no parenthesis", 3, out, sizeof out), -1);
}

static void test_cycles_readings(void **state)
{
    (void)state;
    uint64_t raw[3] = {1000, 50, 50};
    procview_cycles_reading a, b;
    assert_int_equal(procview_cycles_decode(raw, sizeof raw, &a), 0);
    assert_int_equal(procview_cycles_decode(raw, 16, &a), -1);
    uint64_t raw2[3] = {251000, 150, 150};
    assert_int_equal(procview_cycles_decode(raw, sizeof raw, &a), 0);
    assert_int_equal(procview_cycles_decode(raw2, sizeof raw2, &b), 0);
    uint64_t c;
    assert_int_equal(procview_cycles_between(&a, &b, &c), 0);
    assert_int_equal(c, 250000);
    /* multiplexed for part of the window: a scaled guess, refused */
    uint64_t raw3[3] = {251000, 150, 120};
    assert_int_equal(procview_cycles_decode(raw3, sizeof raw3, &b), 0);
    assert_int_equal(procview_cycles_between(&a, &b, &c), -1);
}

int main(void)
{
    if (fixture_env(build_dir, sizeof build_dir, probe, sizeof probe) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_bytes),
        cmocka_unit_test(test_windows_real_probe),
        cmocka_unit_test(test_waits_seen),
        cmocka_unit_test(test_thread_refused),
        cmocka_unit_test(test_failure_in_window),
        cmocka_unit_test(test_parse_status),
        cmocka_unit_test(test_parse_code),
        cmocka_unit_test(test_foreign_code),
        cmocka_unit_test(test_region_written),
        cmocka_unit_test(test_foreign_code_renamed),
        cmocka_unit_test(test_foreign_code_beside_probe),
        cmocka_unit_test(test_code_only_in_windows),
        cmocka_unit_test(test_data_made_code),
        cmocka_unit_test(test_filter_skipped),
        cmocka_unit_test(test_region_dropped),
        cmocka_unit_test(test_orphan_ends),
        cmocka_unit_test(test_parse_file_rss),
        cmocka_unit_test(test_parse_stat),
        cmocka_unit_test(test_cycles_readings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
