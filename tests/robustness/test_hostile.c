/* The hostile-submission suite (SPEC §8: submitted code is written by
 * competitors). Each case of the table `cases` is one attack or fault: the
 * fixture package that carries it (tests/robustness/hostile/<package>, a
 * small package in the official layout wrapping the SM3 example), the
 * outcome hashbench must reach, and the checks that prove it. A case runs
 * in a campaign beside a clean neighbour (examples/SM3, as the candidate
 * "Neighbour"); most cases have a campaign of their own, the classic faults
 * share one. All campaigns run side by side, each in its own run
 * directory and its own pid namespace (a fixture that signals every process
 * or leaves one behind reaches only its campaign, and is counted), with
 * short test limits, and each is then published, reported and validated.
 *
 * Every case is checked, from outside, on what hashbench wrote:
 * - ended: the campaign completed (exit 0 or 1) within the case's limit;
 * - status: its instance's status (kat.json, or build.json's BUILDFAIL) is
 *   one the case allows, with a reason, on its KAT log's RESULT line and on
 *   its candidate page, and its records carry it;
 * - figures: a failed instance has no figures; a passing one's figures are
 *   honest (no better than four times the same SM3 code measured as the
 *   neighbour in the same campaign);
 * - neighbour: the neighbour's build, KAT result, library and records are
 *   those of a campaign without the fixture, figures aside;
 * - processes: nothing is left in the namespace once hashbench has ended,
 *   and nothing naming the campaign outside it;
 * - outside: the campaign's canary folder, packages and working folder are
 *   unchanged;
 * - secret: a random canary file outside the packages, which fixtures read
 *   at build and at run time, appears nowhere in the run directory, the
 *   dataset or the site (nor the test's temporary paths in the last two);
 * - validate: 0 on the published dataset (and, when a case tampers with a
 *   copy of it, non-zero on that copy);
 * plus each case's own checks (compiler memory, time budget, refusal by
 * size, resume after SIGKILL, ...).
 *
 * HB_KEEP_TMP=1 keeps the campaigns' folders; HB_HOSTILE_ONLY=A,B runs only
 * the campaigns of those cases; HB_HOSTILE_RUN_ARG=OPTION adds one option
 * to every `hashbench run` (--no-sandbox shows which checks a missing
 * sandbox fails). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/digest.h"
#include "rb_util.h"

#define SYSTEM "x86_1"
#define SIZES "32,1024"
#define BUDGET "0.5"          /* --budget: seconds per (instance, size) */
#define BUDGET_S 0.5
#define KAT_TIMEOUT "6"       /* --timeout: KAT seconds per instance */
#define LIMIT_S 90.0          /* default: a campaign must end within this, on a busy host too */
#define KILL_S 110.0          /* a campaign still running then is killed */
#define AS_NET (6ULL << 30)   /* the test's own address-space net */
#define PARALLEL 5            /* campaigns running at once */
#define MAX_OUTPUT (1u << 20)

static const int sizes[] = {32, 1024};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* ---- the cases ---- */

/* What an instance's records may show. */
enum figures {
    FIG_NONE,   /* no figures: not timed (with a reason) or failed records */
    FIG_HONEST, /* records at every size if it passed; any figures honest */
    FIG_OK      /* OK records with honest figures at every size */
};

#define F_VALIDATE_FAILS 1u /* its `after` step tampers with a copy of the
                               dataset: validate must fail on that copy */
#define F_NET 2u            /* nothing may reach the test's listener */
#define F_KILL_RESUME 4u    /* the campaign is killed (SIGKILL) and resumed */
#define F_NO_INSTANCE 8u    /* the case has no instance of its own */

typedef struct campaign campaign;
typedef struct hcase hcase;

struct hcase {
    const char *name;      /* the case (and, unless `inst`, its instance) */
    const char *package;   /* fixture package under hostile/, also the
                              candidate; NULL: the neighbour is the instance */
    const char *campaign;  /* the campaign it runs in; NULL: its own */
    const char *expect[5]; /* statuses its instance may end with */
    enum figures figures;
    double limit_s;        /* its campaign must end within; 0: LIMIT_S */
    unsigned flags;
    const char *args[3];   /* extra `hashbench run` options */
    /* before the campaign, in the test: what a package cannot ship */
    void (*prep)(campaign *c, const hcase *k);
    /* after publishing, in the campaign's driver: a fault the test makes
     * itself; it records what it saw into FACTS */
    void (*after)(campaign *c, const hcase *k, json_t *facts);
    /* the case's own checks: append one line per failure to *WHY */
    void (*check)(campaign *c, const hcase *k, char **why);
    const char *inst;      /* the instance, when not `name` */
};

static void link_passwd(campaign *c, const hcase *k);
static void make_huge_source(campaign *c, const hcase *k);
static void make_huge_manifest(campaign *c, const hcase *k);
static void symlink_dataset_folder(campaign *c, const hcase *k, json_t *facts);
static void tamper_compiler_log(campaign *c, const hcase *k, json_t *facts);
static void check_tampered(campaign *c, const hcase *k, char **why);
static void check_log_intact(campaign *c, const hcase *k, char **why);
static void check_bounded_memory(campaign *c, const hcase *k, char **why);
static void check_huge_source(campaign *c, const hcase *k, char **why);
static void check_manifest(campaign *c, const hcase *k, char **why);
static void check_budget(campaign *c, const hcase *k, char **why);
static void check_twins(campaign *c, const hcase *k, char **why);
static void check_redacted(campaign *c, const hcase *k, char **why);
static void check_resumed(campaign *c, const hcase *k, char **why);
static void check_nothing_left(campaign *c, const hcase *k, char **why);
static void check_stall(campaign *c, const hcase *k, char **why);
static void plant_host_data(campaign *c, const hcase *k, json_t *facts);
static void check_host_data(campaign *c, const hcase *k, char **why);

/* Stall: its instance's wall budget (--instance-budget), and what the
 * instance may spend beyond it: the last step's shortest limit (a KAT
 * file's runner gets at least 1 s) and the reaping of that step, on a busy
 * host. */
#define STALL_BUDGET "4"
#define STALL_BUDGET_S 4.0
#define STALL_SLACK_S 3.0

/* The hash is right; a sandbox may end the attempt instead of letting it
 * fail quietly. */
#define RUNS_ANYHOW {"PASS", "CRASH", "ERROR"}

static const hcase cases[] = {
    /* The campaign without any fixture: the neighbour's reference. */
    {"Reference", NULL, "Reference", {"PASS"}, .figures = FIG_OK, .inst = "SM3"},

    /* Forged or fake timings: a forged "status=" line from a constructor and
     * a destructor; digests cached by (pointer, length); real SM3 for the
     * KATs, a fake in the probe. Honest figures or none. */
    {"ForgedResult", "ForgedResult", NULL, {"PASS", "LOADFAIL", "ERROR", "CRASH"},
     .figures = FIG_HONEST},
    {"DigestCache", "DigestCache", NULL, {"PASS"}, .figures = FIG_HONEST},
    /* ProbeFake tells the probe by its executable's name: every process that
     * runs submitted code is the probe now, so it fakes in its KAT runs too
     * and fails them (MISMATCH), or, where it cannot tell, stays honest. */
    {"ProbeFake", "ProbeFake", NULL, {"PASS", "MISMATCH"}, .figures = FIG_HONEST},
    /* A wrong hash writing PASS into shared memory, its output, kat.json and
     * its KAT log, then exiting 0: it must fail. */
    {"ForgePass", "ForgePass", NULL, {"MISMATCH", "ERROR", "CRASH"}, .figures = FIG_NONE},
    /* The neighbour's library and records replaced, copied and deleted. */
    {"Vandal", "Vandal", NULL, RUNS_ANYHOW, .figures = FIG_HONEST},
    /* SIGSTOP and SIGKILL to the parent, and to every process (kill -1). */
    {"KillParent", "KillParent", NULL, RUNS_ANYHOW, .figures = FIG_HONEST},
    {"KillAll", "KillAll", NULL, RUNS_ANYHOW, .figures = FIG_HONEST},
    /* fork, setsid, fork: a grandchild meant to outlive the campaign. */
    {"Orphan", "Orphan", NULL, RUNS_ANYHOW, .figures = FIG_HONEST},
    /* TCP and UDP to the test's listener. */
    {"Network", "Network", NULL, RUNS_ANYHOW, .figures = FIG_HONEST, .flags = F_NET},
    /* ptrace and process_vm_readv of the parent (it flips its digests when
     * either works). */
    {"Ptrace", "Ptrace", NULL, RUNS_ANYHOW, .figures = FIG_HONEST},

    /* Host data at build time: #include of an absolute path, of a symbolic
     * link to it, .incbin. The build fails; the canary appears nowhere. */
    {"IncludeSecret", "IncludeSecret", NULL, {"BUILDFAIL"}, .figures = FIG_NONE},
    {"IncludeSymlink", "IncludeSymlink", NULL, {"BUILDFAIL"}, .figures = FIG_NONE,
     .prep = link_passwd},
    {"IncbinSecret", "IncbinSecret", NULL, {"BUILDFAIL"}, .figures = FIG_NONE},
    /* Host data at run time: read and printed, written out, returned as the
     * probe's digest; appended to its own compiler log. */
    {"ReadSecret", "ReadSecret", NULL, RUNS_ANYHOW, .figures = FIG_HONEST},
    {"LogAppend", "LogAppend", NULL, RUNS_ANYHOW, .figures = FIG_HONEST,
     .check = check_log_intact},

    /* Resources: a preprocessor bomb (BUILDFAIL within hashbench's memory
     * limit); a sparse 6 GiB source (refused by its size, not read); a
     * kat.sha256 of a million lines (a verdict within seconds); 50 ms per
     * call at one size (the time budget holds). */
    {"MacroBomb", "MacroBomb", NULL, {"BUILDFAIL"}, .figures = FIG_NONE, .limit_s = 60,
     .check = check_bounded_memory},
    {"HugeSource", "HugeSource", NULL, {"BUILDFAIL"}, .figures = FIG_NONE, .limit_s = 30,
     .prep = make_huge_source, .check = check_huge_source},
    /* its limit bounds work that grows with the manifest's million lines
     * (a reading quadratic in them takes minutes), above the whole
     * campaign's own 20-33 s beside four other campaigns */
    {"HugeManifest", "HugeManifest", NULL, {"PASS", "MISMATCH", "NOKAT", "BUILDFAIL"},
     .figures = FIG_HONEST, .limit_s = 45, .prep = make_huge_manifest,
     .check = check_manifest},
    {"SlowSize", "SlowSize", NULL, {"PASS"}, .figures = FIG_HONEST, .limit_s = 40,
     .check = check_budget},

    /* Sandbox hygiene: scratch filled with a folder chain deeper than
     * PATH_MAX and many files, in every runner and probe (nothing left on
     * the host, the campaign completes); a stall before the first answer of
     * every process (TIMEOUT by the instance's wall budget, within it plus
     * the slack); host data (boot_id, its library path) returned as the
     * digest of the probe's check message (none of it published; validate
     * fails on a copy of the dataset that holds it). */
    {"FillScratch", "FillScratch", NULL, {"PASS"}, .figures = FIG_HONEST,
     .check = check_nothing_left},
    {"Stall", "Stall", NULL, {"TIMEOUT"}, .figures = FIG_NONE, .limit_s = 60,
     .args = {"--instance-budget", STALL_BUDGET}, .check = check_stall},
    {"HostData", "HostData", NULL, {"PASS"}, .figures = FIG_HONEST,
     .flags = F_VALIDATE_FAILS, .after = plant_host_data, .check = check_host_data},

    /* Plain faults: two folders declaring one ALGORITHM_INSTANCE; absolute
     * paths in compiler messages and --cc /usr/bin/gcc (published,
     * redacted); a dataset folder replaced by a symbolic link and a
     * published compiler log changed (validate fails); a campaign killed
     * with SIGKILL and resumed. */
    {"Twin", "Twin", NULL, {NULL}, .figures = FIG_NONE, .flags = F_NO_INSTANCE,
     .check = check_twins},
    {"AbsPathLog", "AbsPathLog", NULL, {"PASS"}, .figures = FIG_HONEST,
     .args = {"--cc", "/usr/bin/gcc"}, .check = check_redacted},
    {"SymlinkDataset", NULL, "Reference", {NULL}, .figures = FIG_NONE,
     .flags = F_NO_INSTANCE | F_VALIDATE_FAILS, .after = symlink_dataset_folder,
     .check = check_tampered},
    {"TamperedLog", NULL, "Reference", {NULL}, .figures = FIG_NONE,
     .flags = F_NO_INSTANCE | F_VALIDATE_FAILS, .after = tamper_compiler_log,
     .check = check_tampered},
    {"KillResume", "Resumed", NULL, {"PASS"}, .figures = FIG_OK, .flags = F_KILL_RESUME,
     .check = check_resumed, .inst = "Resumed"},

    /* The classic faults, in one campaign. */
    {"Segfault", "Faults", "Faults", {"CRASH"}, .figures = FIG_NONE},
    {"Abort", "Faults", "Faults", {"CRASH"}, .figures = FIG_NONE},
    {"EndlessLoop", "Faults", "Faults", {"TIMEOUT"}, .figures = FIG_NONE},
    {"ExitInside", "Faults", "Faults", {"CRASH", "ERROR"}, .figures = FIG_NONE},
    {"WritePastDigest", "Faults", "Faults", {"OVERFLOW"}, .figures = FIG_NONE},
    {"ReadPastMessage", "Faults", "Faults", {"CRASH"}, .figures = FIG_NONE},
    {"ChangesInput", "Faults", "Faults", {"ERROR", "MISMATCH"}, .figures = FIG_NONE},
    {"Nondeterministic", "Faults", "Faults", {"MISMATCH", "ERROR"}, .figures = FIG_NONE},
    {"ErrorReturn", "Faults", "Faults", {"ERROR"}, .figures = FIG_NONE},
    {"AllocUnbounded", "Faults", "Faults", {"CRASH", "ERROR"}, .figures = FIG_NONE},
    {"StackOverflow", "Faults", "Faults", {"CRASH"}, .figures = FIG_NONE},
    /* its 8 MiB of output per process may spend the budget before a slot is kept */
    {"Chatty", "Faults", "Faults", {"PASS"}, .figures = FIG_HONEST},
    {"SleepOn1000", "Faults", "Faults", {"PASS"}, .figures = FIG_OK},
    {"CtorCrash", "Faults", "Faults", {"LOADFAIL", "CRASH"}, .figures = FIG_NONE},
    {"NoCryptHash", "Faults", "Faults", {"LOADFAIL", "BUILDFAIL"}, .figures = FIG_NONE},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* Each case's outcome for the closing table: "ok", or the failed checks. */
static char *outcomes[NCASES];

static const char *inst_of(const hcase *k)
{
    return k->inst ? k->inst : k->name;
}

static const char *cand_of(const hcase *k)
{
    return k->package ? k->package : "Neighbour";
}

/* ---- campaigns ---- */

#define MAX_ROWS 24

struct campaign {
    const char *name;
    char dir[4096], run[4200], data[4200], site[4200], cwd[4200], host[4200],
        pkgs[4200], out[4200];
    const hcase *rows[MAX_ROWS];
    int nrows, cpu;
    const char *packages[2]; /* fixture packages beside the neighbour */
    int npackages;
    unsigned flags;
    const char *args[4];
    char secret[160];        /* the canary file's content */
    char *outside;           /* snapshot of host/, pkgs/ and cwd/ before */
    int atime_works;         /* reading a file moves its access time here */
    pid_t driver;
    json_t *facts, *kat, *build;
    char *generic;           /* the shared checks' failures, once computed */
    int generic_done;
};

#define MAX_CAMPAIGNS (NCASES + 1)

typedef struct suite {
    char *root;
    campaign camps[MAX_CAMPAIGNS];
    int ncamps;
    int tcp, udp, port;     /* the listener no fixture may reach */
    char *received;         /* what reached it */
    int received_n;
    double seconds;
    char sm3_2_12[65], sm3_2_23[65], sm3_manifest[1024];
} suite;

static suite S;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static campaign *campaign_named(const char *name)
{
    for (int i = 0; i < S.ncamps; i++)
        if (strcmp(S.camps[i].name, name) == 0)
            return &S.camps[i];
    return NULL;
}

static campaign *campaign_of(const hcase *k)
{
    return campaign_named(k->campaign ? k->campaign : k->name);
}

static void pathf(char *out, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void pathf(char *out, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, size, fmt, ap);
    va_end(ap);
}

static int selected(const hcase *k)
{
    const char *only = getenv("HB_HOSTILE_ONLY");
    char list[1024];
    if (!only || !*only || strcmp(k->name, "Reference") == 0)
        return 1;
    snprintf(list, sizeof list, ",%s,", only);
    char want[128];
    snprintf(want, sizeof want, ",%s,", k->name);
    return strstr(list, want) != NULL;
}

/* ---- preparing a campaign ---- */

static void random_hex(char *out, size_t bytes)
{
    unsigned char r[64];
    FILE *fp = fopen("/dev/urandom", "rb");
    if (!fp || fread(r, 1, bytes, fp) != bytes)
        fail_msg("cannot read /dev/urandom");
    fclose(fp);
    hb_hex_encode(r, bytes, out, 0);
}

/* The SM3 example's manifest hashes, read once. */
static void read_sm3_manifest(void)
{
    char path[4200];
    pathf(path, sizeof path, "%s/examples/SM3/kat.sha256", rb_source_dir());
    char *text = rb_read(path);
    if (!text)
        fail_msg("cannot read %s", path);
    snprintf(S.sm3_manifest, sizeof S.sm3_manifest, "%s", text);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char sha[65], label[256];
        if (sscanf(line, "%64s strict %255s", sha, label) != 2)
            continue;
        if (strstr(label, "KAT_2_12_"))
            memcpy(S.sm3_2_12, sha, 65);
        if (strstr(label, "KAT_2_23_"))
            memcpy(S.sm3_2_23, sha, 65);
    }
    free(text);
}

/* The SM3 manifest lines under the instance name INST. */
static void manifest_lines(const char *inst, char **out)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", S.sm3_manifest);
    for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
        char sha[65], label[256];
        if (sscanf(line, "%64s strict SM3/%255s", sha, label) != 2)
            continue;
        char *sm3 = strstr(label, "SM3.txt");
        if (!sm3)
            continue;
        *sm3 = '\0';
        rb_appendf(out, "%s strict %s/%s%s.txt\n", sha, inst, label, inst);
    }
}

/* The ALGORITHM_INSTANCE of the header in DIR. */
static int header_instance(const char *dir, char *name, size_t size)
{
    char path[4400];
    pathf(path, sizeof path, "%s/CryptHash_AlgorithmInstance.h", dir);
    char *text = rb_read(path);
    const char *p = text ? strstr(text, "ALGORITHM_INSTANCE \"") : NULL;
    int ok = p != NULL;
    if (ok) {
        p += strlen("ALGORITHM_INSTANCE \"");
        snprintf(name, size, "%.*s", (int)strcspn(p, "\""), p);
    }
    free(text);
    return ok ? 0 : -1;
}

/* Completes the fixture package PKG (copied into the campaign): the shared
 * header, the SM3 example and the campaign's generated header beside every
 * hostile.c, and a kat.sha256 of SM3's answers under each instance name. */
static void complete_package(campaign *c, const char *pkg)
{
    static const char *const variants[] = {"Reference_Implementation",
                                            "Optimized_Implementation"};
    char *manifest = NULL, *header = NULL, from[4400];
    rb_appendf(&header,
               "/* Generated by tests/robustness/test_hostile.c for the campaign %s. */\n"
               "#define HOSTILE_RUN_DIR \"%s\"\n"
               "#define HOSTILE_SECRET \"%s/secret.txt\"\n"
               "#define HOSTILE_PORT %d\n"
               "#define HOSTILE_KAT_2_12_SHA256 \"%s\"\n"
               "#define HOSTILE_KAT_2_23_SHA256 \"%s\"\n",
               c->name, c->run, c->host, S.port, S.sm3_2_12, S.sm3_2_23);
    for (size_t v = 0; v < 2; v++) {
        char vdir[4400];
        pathf(vdir, sizeof vdir, "%s/Implementations/%s", pkg, variants[v]);
        DIR *d = opendir(vdir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            char idir[4700], file[4800], inst[128];
            if (e->d_name[0] == '.')
                continue;
            pathf(idir, sizeof idir, "%s/%s", vdir, e->d_name);
            pathf(file, sizeof file, "%s/hostile.c", idir);
            if (access(file, F_OK) != 0)
                continue;
            pathf(from, sizeof from, "%s/tests/robustness/hostile/common/hostile_common.h",
                  rb_source_dir());
            pathf(file, sizeof file, "%s/hostile_common.h", idir);
            if (rb_copy(from, file) != 0)
                fail_msg("cannot copy %s", from);
            pathf(from, sizeof from,
                  "%s/examples/SM3/Implementations/Reference_Implementation/SM3/sm3.c",
                  rb_source_dir());
            pathf(file, sizeof file, "%s/sm3_example.inc", idir);
            if (rb_copy(from, file) != 0)
                fail_msg("cannot copy %s", from);
            pathf(file, sizeof file, "%s/hostile_case.h", idir);
            if (!header || rb_write(file, header) != 0)
                fail_msg("cannot write %s", file);
            if (header_instance(idir, inst, sizeof inst) == 0 &&
                (!manifest || !strstr(manifest, inst)))
                manifest_lines(inst, &manifest);
        }
        if (d)
            closedir(d);
    }
    pathf(from, sizeof from, "%s/kat.sha256", pkg);
    if (manifest && rb_write(from, manifest) != 0)
        fail_msg("cannot write %s", from);
    free(manifest);
    free(header);
}

/* The canary folder: the secret (shaped like a line of /etc/passwd, two
 * random tokens) and two files nobody may touch. */
static void make_host_folder(campaign *c)
{
    char a[40], b[40], path[4400];
    random_hex(a, 16);
    random_hex(b, 16);
    snprintf(c->secret, sizeof c->secret, "hbsecret-%s:x:0:0:canary %s:/root:/bin/sh\n", a, b);
    pathf(path, sizeof path, "%s/secret.txt", c->host);
    rb_write(path, c->secret);
    pathf(path, sizeof path, "%s/canary.txt", c->host);
    rb_write(path, "a file outside the run directory\n");
    pathf(path, sizeof path, "%s/sub/canary.txt", c->host);
    rb_write(path, "another one\n");
}

static void outside_snapshot(const campaign *c, char **out)
{
    const char *dirs[] = {c->host, c->pkgs, c->cwd};
    const char *tags[] = {"host", "pkgs", "cwd"};
    *out = NULL;
    for (int i = 0; i < 3; i++) {
        char *s = rb_snapshot(dirs[i]);
        for (char *line = s; *line;) {
            size_t l = strcspn(line, "\n");
            rb_appendf(out, "%s%.*s\n", tags[i], (int)l, line);
            line += l + (line[l] == '\n');
        }
        free(s);
    }
    if (!*out)
        *out = strdup("");
}

static void prepare_campaign(campaign *c)
{
    char from[4400], to[4400];
    pathf(c->dir, sizeof c->dir, "%s/%s", S.root, c->name);
    pathf(c->run, sizeof c->run, "%s/run", c->dir);
    pathf(c->data, sizeof c->data, "%s/data", c->dir);
    pathf(c->site, sizeof c->site, "%s/site", c->dir);
    pathf(c->cwd, sizeof c->cwd, "%s/cwd", c->dir);
    pathf(c->host, sizeof c->host, "%s/host", c->dir);
    pathf(c->pkgs, sizeof c->pkgs, "%s/pkgs", c->dir);
    pathf(c->out, sizeof c->out, "%s/output.txt", c->dir);
    mkdir(c->dir, 0755);
    mkdir(c->cwd, 0755);
    make_host_folder(c);
    pathf(from, sizeof from, "%s/examples/SM3", rb_source_dir());
    pathf(to, sizeof to, "%s/Neighbour", c->pkgs);
    if (rb_copy_tree(from, to) != 0)
        fail_msg("cannot copy %s", from);
    for (int i = 0; i < c->npackages; i++) {
        pathf(from, sizeof from, "%s/tests/robustness/hostile/%s", rb_source_dir(),
              c->packages[i]);
        pathf(to, sizeof to, "%s/%s", c->pkgs, c->packages[i]);
        if (rb_copy_tree(from, to) != 0)
            fail_msg("cannot copy %s", from);
        complete_package(c, to);
    }
    for (int i = 0; i < c->nrows; i++)
        if (c->rows[i]->prep)
            c->rows[i]->prep(c, c->rows[i]);
    outside_snapshot(c, &c->outside);
}

/* Groups the selected cases into campaigns. */
static void plan_campaigns(void)
{
    for (size_t i = 0; i < NCASES; i++) {
        const hcase *k = &cases[i];
        if (!selected(k))
            continue;
        const char *name = k->campaign ? k->campaign : k->name;
        campaign *c = campaign_named(name);
        if (!c) {
            c = &S.camps[S.ncamps++];
            c->name = name;
            c->cpu = S.ncamps % 2;
        }
        assert_true(c->nrows < MAX_ROWS);
        c->rows[c->nrows++] = k;
        c->flags |= k->flags;
        int known = 0;
        for (int j = 0; j < c->npackages; j++)
            known |= strcmp(c->packages[j], k->package ? k->package : "") == 0;
        if (k->package && !known && c->npackages < 2)
            c->packages[c->npackages++] = k->package;
        for (int j = 0; j < 3 && k->args[j]; j++)
            c->args[j] = k->args[j];
    }
    /* the classic faults' campaign builds and KAT-tests its fifteen
     * instances (most of them twice: the flag fallback) two at a time, so
     * that the waits for its endless loop overlap the others' work; it is
     * the suite's longest campaign otherwise */
    campaign *faults = campaign_named("Faults");
    if (faults && !faults->args[0]) {
        faults->args[0] = "--jobs";
        faults->args[1] = "2";
    }
}

/* ---- the listener no fixture may reach ---- */

static void open_listener(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    S.tcp = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (S.tcp < 0 || bind(S.tcp, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(S.tcp, 64) != 0 || getsockname(S.tcp, (struct sockaddr *)&a, &len) != 0)
        fail_msg("cannot listen on 127.0.0.1: %s", strerror(errno));
    S.port = ntohs(a.sin_port);
    S.udp = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (S.udp < 0 || bind(S.udp, (struct sockaddr *)&a, sizeof a) != 0)
        S.udp = -1; /* the TCP check stands alone */
}

/* Everything that reached the listener, once, after the campaigns. */
static void drain_listener(void)
{
    char buf[256];
    int s;
    while ((s = accept4(S.tcp, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
        struct timeval tv = {0, 200000};
        setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        ssize_t n = recv(s, buf, sizeof buf - 1, 0);
        buf[n > 0 ? n : 0] = '\0';
        if (S.received_n++ < 4)
            rb_appendf(&S.received, "tcp connection: %.*s\n", (int)strcspn(buf, "\n"), buf);
        close(s);
    }
    while (S.udp >= 0 && recv(S.udp, buf, sizeof buf - 1, 0) >= 0)
        if (S.received_n++ < 8)
            rb_appendf(&S.received, "udp datagram\n");
}

/* ---- running a campaign (in a driver process) ---- */

static json_t *contained_json(const rb_contained *r, const campaign *c)
{
    char *escaped = NULL, prefix[4200];
    pathf(prefix, sizeof prefix, "%s/", c->dir);
    int n = rb_leftover_processes(NULL, prefix, &escaped);
    json_t *j = json_pack("{s:b, s:b, s:i, s:i, s:b, s:b, s:f, s:I, s:i, s:s, s:i, s:s}",
                          "started", r->started, "exited", r->exited, "exit_code",
                          r->exit_code, "signo", r->signo, "timed_out", r->timed_out,
                          "killed", r->killed, "seconds", r->seconds, "maxrss_kb",
                          (json_int_t)r->maxrss_kb, "leftovers", r->leftovers, "report",
                          r->report ? r->report : "", "escaped", n, "escaped_report",
                          escaped ? escaped : "");
    free(escaped);
    return j;
}

static json_t *command_json(const char *const *args)
{
    char *out = NULL;
    int rc = rb_hashbench_run(args, 120, &out);
    json_t *j = json_pack("{s:i, s:s}", "exit", rc, "output", out ? out : "");
    free(out);
    return j;
}

/* KillResume: SIGKILL once the campaign has written two records. */
static int two_records(void *arg)
{
    const campaign *c = arg;
    char dir[4300];
    pathf(dir, sizeof dir, "%s/records", c->run);
    char *names = rb_find_names(dir, "__hash_");
    int n = 0;
    for (char *p = names; p && *p; p++)
        n += *p == '\n';
    free(names);
    return n >= 2;
}

/* A pid that no process has now. */
static long dead_pid(void)
{
    long pid = 999999;
    while (rb_pid_alive(pid) || kill((pid_t)pid, 0) == 0)
        pid++;
    return pid;
}

/* What a campaign killed in the middle of writing leaves: temporary files
 * of a process that is gone, beside kat.json and beside a record. */
static void plant_stale_temporaries(const campaign *c)
{
    char path[4600];
    long pid = dead_pid();
    pathf(path, sizeof path, "%s/kat.json.tmp.%ld", c->run, pid);
    rb_write(path, "{\"half\": ");
    pathf(path, sizeof path, "%s/records/Neighbour/SM3__hash_1024.json.tmp.%ld", c->run, pid);
    rb_write(path, "{\"schema\": 1, \"trials\": [");
}

static void drive(campaign *c)
{
    char cpu[8], records[4300];
    const char *args[40];
    int n = 0;
    snprintf(cpu, sizeof cpu, "%d", c->cpu);
    /* the suite's campaigns run side by side on purpose: each its own
     * core-lock folder, so that they do not take turns */
    char locks[4300];
    snprintf(locks, sizeof locks, "%s-locks", c->run);
    mkdir(locks, 0700);
    setenv("HB_LOCK_DIR", locks, 1);
    const char *common[] = {"run", "--run-dir", c->run, "--system", SYSTEM,
                            "--allow-unfit-host", "--sizes", SIZES, "--budget", BUDGET,
                            "--target-ci", "20", "--trials", "3", "--timeout", KAT_TIMEOUT,
                            "--no-loop", "--jobs", "1", "--cpu", cpu, NULL};
    for (int i = 0; common[i]; i++)
        args[n++] = common[i];
    for (int i = 0; i < 4 && c->args[i]; i++)
        args[n++] = c->args[i];
    if (getenv("HB_HOSTILE_RUN_ARG") && *getenv("HB_HOSTILE_RUN_ARG"))
        args[n++] = getenv("HB_HOSTILE_RUN_ARG");
    char pkg[3][4400];
    pathf(pkg[0], sizeof pkg[0], "%s/Neighbour", c->pkgs);
    args[n++] = pkg[0];
    for (int i = 0; i < c->npackages; i++) {
        pathf(pkg[i + 1], sizeof pkg[i + 1], "%s/%s", c->pkgs, c->packages[i]);
        args[n++] = pkg[i + 1];
    }
    args[n] = NULL;
    json_t *facts = json_object();
    rb_contained r;
    if (c->flags & F_KILL_RESUME) {
        rb_contained_run(args, c->cwd, c->out, KILL_S, AS_NET, 0.3, two_records, c, &r);
        json_object_set_new(facts, "killed_run", contained_json(&r, c));
        free(r.report);
        pathf(records, sizeof records, "%s/records", c->run);
        char *before = rb_snapshot(records);
        json_object_set_new(facts, "records_before", json_string(before));
        free(before);
        plant_stale_temporaries(c);
    }
    rb_contained_run(args, c->cwd, c->out, KILL_S, AS_NET, 0.3, NULL, NULL, &r);
    json_object_set_new(facts, "run", contained_json(&r, c));
    free(r.report);

    const char *publish[] = {"publish", "--run-dir", c->run, "--system", SYSTEM,
                             "--data", c->data, NULL};
    const char *report[] = {"report", c->data, "--out", c->site, NULL};
    const char *validate[] = {"validate", c->data, "--site", c->site, NULL};
    json_object_set_new(facts, "publish", command_json(publish));
    json_object_set_new(facts, "report", command_json(report));
    json_object_set_new(facts, "validate", command_json(validate));
    json_t *rows = json_object();
    for (int i = 0; i < c->nrows; i++)
        if (c->rows[i]->after) {
            json_t *f = json_object();
            c->rows[i]->after(c, c->rows[i], f);
            json_object_set_new(rows, c->rows[i]->name, f);
        }
    json_object_set_new(facts, "rows", rows);
    char path[4300];
    pathf(path, sizeof path, "%s/facts.json", c->dir);
    json_dump_file(facts, path, JSON_INDENT(1));
    json_decref(facts);
}

/* The campaigns that take longest, or hang when a defence is missing,
 * start first, the reference before them. */
static const char *const start_first[] = {"Reference", "Faults", "MacroBomb", "HugeManifest",
                                          "SlowSize", "HugeSource", "KillResume", NULL};

static int launch_rank(const campaign *c)
{
    for (int i = 0; start_first[i]; i++)
        if (strcmp(c->name, start_first[i]) == 0)
            return i;
    return 100;
}

static int by_rank(const void *a, const void *b)
{
    const campaign *x = *(campaign *const *)a, *y = *(campaign *const *)b;
    int rx = launch_rank(x), ry = launch_rank(y);
    return rx != ry ? rx - ry : (int)(x - y);
}

static void start_driver(campaign *c)
{
    fflush(stdout);
    c->driver = fork();
    if (c->driver == 0) {
        drive(c);
        _exit(0);
    }
}

/* Runs the campaigns' drivers, PARALLEL at a time, the reference first
 * (nothing reads its results before every campaign has ended). */
static void run_campaigns(void)
{
    campaign *order[MAX_CAMPAIGNS];
    int next = 0, running = 0, n = 0;
    for (int i = 0; i < S.ncamps; i++)
        order[n++] = &S.camps[i];
    qsort(order, (size_t)n, sizeof order[0], by_rank);
    while (next < n || running > 0) {
        while (running < PARALLEL && next < n) {
            start_driver(order[next++]);
            running += order[next - 1]->driver > 0;
        }
        int st;
        pid_t done = wait(&st);
        if (done < 0)
            break;
        for (int i = 0; i < S.ncamps; i++)
            if (S.camps[i].driver == done) {
                S.camps[i].driver = 0;
                running--;
                printf("# campaign %s done after %.0f s of the suite\n", S.camps[i].name,
                       now_s() - S.seconds);
            }
    }
}

static void load_results(campaign *c)
{
    c->facts = rb_load_json(c->dir, "facts.json");
    c->kat = rb_load_json(c->run, "kat.json");
    c->build = rb_load_json(c->run, "build.json");
}

static int group_setup(void **state)
{
    (void)state;
    S.root = rb_tempdir("hostile");
    if (!S.root)
        return -1;
    S.seconds = now_s();
    read_sm3_manifest();
    open_listener();
    plan_campaigns();
    for (int i = 0; i < S.ncamps; i++)
        prepare_campaign(&S.camps[i]);
    printf("# %d campaigns prepared in %.1f s under %s\n", S.ncamps, now_s() - S.seconds,
           S.root);
    run_campaigns();
    for (int i = 0; i < S.ncamps; i++)
        load_results(&S.camps[i]);
    drain_listener();
    S.seconds = now_s() - S.seconds;
    printf("# all campaigns ran in %.1f s\n", S.seconds);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    for (int i = 0; i < S.ncamps; i++) {
        campaign *c = &S.camps[i];
        json_decref(c->facts);
        json_decref(c->kat);
        json_decref(c->build);
        free(c->outside);
        free(c->generic);
    }
    if (!getenv("HB_KEEP_TMP"))
        rb_rmtree(S.root);
    printf("# %-18s %-14s %s\n", "case", "campaign", "outcome (failed checks)");
    for (size_t i = 0; i < NCASES; i++)
        if (outcomes[i]) {
            printf("# %-18s %-14s %s\n", cases[i].name,
                   cases[i].campaign ? cases[i].campaign : cases[i].name, outcomes[i]);
            free(outcomes[i]);
        }
    printf("# the suite took %.1f s to run its campaigns\n", S.seconds);
    return 0;
}

/* ---- reading the results ---- */

static json_t *fact(const campaign *c, const char *step)
{
    return json_object_get(c->facts, step);
}

static long long fact_int(const campaign *c, const char *step, const char *key)
{
    return json_integer_value(json_object_get(fact(c, step), key));
}

static json_t *kat_entry(const campaign *c, const char *cand, const char *inst)
{
    return rb_find_instance(json_object_get(c->kat, "instances"), cand, inst);
}

static json_t *build_entry(const campaign *c, const char *cand, const char *inst)
{
    return rb_find_instance(json_object_get(c->build, "instances"), cand, inst);
}

/* The instance's status entry: its kat.json entry, or its build.json entry
 * when it failed to build (and so never reached the KAT stage). */
static json_t *status_entry(const campaign *c, const char *cand, const char *inst)
{
    json_t *e = kat_entry(c, cand, inst);
    if (!e) {
        e = build_entry(c, cand, inst);
        if (e && strcmp(rb_str(e, "status"), "BUILDFAIL") != 0)
            e = NULL;
    }
    return e;
}

/* 1 when REASON names a KAT file ("KAT_..._<Inst>.txt") of an instance
 * other than INST: another instance's failure reported as this one's. */
static int names_other_file(const char *reason, const char *inst)
{
    char own[160];
    snprintf(own, sizeof own, "_%s.txt", inst);
    for (const char *p = strstr(reason, "KAT_"); p; p = strstr(p + 1, "KAT_")) {
        size_t n = strcspn(p, " :;,()");
        if (n > 4 && memcmp(p + n - 4, ".txt", 4) == 0 &&
            (n < strlen(own) || memcmp(p + n - strlen(own), own, strlen(own)) != 0))
            return 1;
    }
    return 0;
}

/* 1 when a BUILDFAIL reason says that the compiler never ran on the
 * sources: the sandbox or the process set-up failed (exit 125 to 127 of a
 * set-up step, a namespace bubblewrap could not create). */
static int harness_failure(const char *reason)
{
    return strstr(reason, "(exit 125)") || strstr(reason, "(exit 126)") ||
           strstr(reason, "(exit 127)") || strstr(reason, "namespace failed");
}

static json_t *load_record(const char *run, const char *cand, const char *inst, int size)
{
    char rel[512];
    snprintf(rel, sizeof rel, "records/%s/%s__hash_%d.json", cand, inst, size);
    return rb_load_json(run, rel);
}

static double mean_ns(const json_t *r)
{
    return json_number_value(json_object_get(json_object_get(r, "derived"),
                                             "mean_ns_per_call"));
}

static int has_figures(const json_t *r)
{
    return strcmp(rb_str(r, "status"), "OK") == 0 &&
           json_is_object(json_object_get(r, "derived"));
}

static int one_of(const char *s, const char *const *set)
{
    for (int i = 0; i < 5 && set[i]; i++)
        if (strcmp(s, set[i]) == 0)
            return 1;
    return 0;
}

/* ---- the shared checks ---- */

/* ended: the campaign completed within LIMIT, and said nothing unbounded. */
static void check_ended(campaign *c, double limit, char **why)
{
    json_t *run = fact(c, "run");
    if (!c->facts || !run) {
        rb_appendf(why, "ended: the campaign's driver left no facts\n");
        return;
    }
    if (!json_is_true(json_object_get(run, "started")))
        rb_appendf(why, "ended: not run: %s\n", rb_str(run, "report"));
    else if (json_is_true(json_object_get(run, "timed_out")))
        rb_appendf(why, "ended: still running after %.0f s, killed\n", KILL_S);
    else if (!json_is_true(json_object_get(run, "exited")))
        rb_appendf(why, "ended: hashbench killed by signal %lld\n", fact_int(c, "run", "signo"));
    else if (fact_int(c, "run", "exit_code") > 1)
        rb_appendf(why, "ended: hashbench exit status %lld\n", fact_int(c, "run", "exit_code"));
    double secs = json_number_value(json_object_get(run, "seconds"));
    if (secs > limit)
        rb_appendf(why, "ended: took %.1f s, more than %.0f s\n", secs, limit);
    struct stat st;
    if (stat(c->out, &st) == 0 && st.st_size > (off_t)MAX_OUTPUT)
        rb_appendf(why, "ended: %lld bytes of output: a fixture's output was relayed\n",
                   (long long)st.st_size);
}

/* processes: nothing left inside the namespace or naming the campaign. */
static void check_processes(campaign *c, char **why)
{
    const char *steps[] = {"killed_run", "run"};
    for (int i = 0; i < 2; i++) {
        json_t *r = fact(c, steps[i]);
        if (!r)
            continue;
        if (json_integer_value(json_object_get(r, "leftovers")) > 0 &&
            !json_is_true(json_object_get(r, "timed_out")))
            rb_appendf(why, "processes: %lld left running after hashbench ended:\n%.600s\n",
                       json_integer_value(json_object_get(r, "leftovers")),
                       rb_str(r, "report"));
        if (json_integer_value(json_object_get(r, "escaped")) > 0)
            rb_appendf(why, "processes: outside the namespace, naming the campaign:\n%s",
                       rb_str(r, "escaped_report"));
    }
}

/* outside: canary folder, packages and working folder unchanged. */
static void check_outside(campaign *c, char **why)
{
    char *after;
    outside_snapshot(c, &after);
    if (strcmp(after, c->outside) != 0) {
        char *d = rb_snapshot_diff(c->outside, after, 12);
        rb_appendf(why, "outside: files outside the run directory changed:\n%s", d);
        free(d);
    }
    free(after);
}

/* secret: the canary's tokens (raw or hex) nowhere; no test path published. */
static void check_secret(campaign *c, char **why)
{
    char a[40], b[40], hex[41];
    const char *p = c->secret + strlen("hbsecret-");
    snprintf(a, sizeof a, "%.32s", p);
    p = strstr(c->secret, "canary ") + strlen("canary ");
    snprintf(b, sizeof b, "%.32s", p);
    hb_hex_encode((const unsigned char *)c->secret, 20, hex, 0);
    const char *needles[] = {a, b, hex};
    const char *names[] = {"the canary's first token", "the canary's second token",
                           "the canary's first bytes in hex"};
    const char *dirs[] = {c->run, c->data, c->site};
    char *report = NULL;
    for (int i = 0; i < 3; i++)
        rb_tree_grep(dirs[i], needles, names, 3, &report);
    const char *paths[] = {S.root};
    const char *pnames[] = {"a path of the test's temporary folder"};
    rb_tree_grep(c->data, paths, pnames, 1, &report);
    rb_tree_grep(c->site, paths, pnames, 1, &report);
    if (report)
        rb_appendf(why, "secret: found where it must not be:\n%s", report);
    free(report);
}

/* validate: 0 on the published dataset. */
static void check_validate(campaign *c, char **why)
{
    json_t *v = fact(c, "validate");
    if (fact_int(c, "publish", "exit") != 0)
        rb_appendf(why, "validate: publish failed (%lld): %.400s\n", fact_int(c, "publish", "exit"),
                   rb_str(fact(c, "publish"), "output"));
    else if (json_integer_value(json_object_get(v, "exit")) != 0)
        rb_appendf(why, "validate: exit %lld on the published dataset: %.600s\n",
                   json_integer_value(json_object_get(v, "exit")), rb_str(v, "output"));
}

/* Keys that hold figures or facts of one particular run, and the
 * compiler's name as the campaign gave it (--cc). */
static const char *const volatile_keys[] = {
    "trials", "derived", "plan", "environment", "disturbed", "disturbed_retries",
    "memory", "probe_command", "verification", "seconds", "cpu_seconds", "log_sha256",
    "kat_log_sha256", "compiler", "compiler_version", "tested_utc", NULL};

static int is_volatile(const char *key)
{
    for (int i = 0; volatile_keys[i]; i++)
        if (strcmp(key, volatile_keys[i]) == 0)
            return 1;
    return 0;
}

/* A copy of V without volatile keys, with the campaign folder DIR written
 * as "<campaign>" in every string. */
static json_t *normalised(const json_t *v, const char *dir)
{
    const char *k;
    json_t *x;
    size_t i;
    if (json_is_object(v)) {
        json_t *o = json_object();
        json_object_foreach((json_t *)v, k, x)
            if (!is_volatile(k))
                json_object_set_new(o, k, normalised(x, dir));
        return o;
    }
    if (json_is_array(v)) {
        json_t *a = json_array();
        json_array_foreach(v, i, x)
            json_array_append_new(a, normalised(x, dir));
        return a;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v), *hit;
        char *out = NULL;
        while ((hit = strstr(s, dir)) != NULL) {
            rb_appendf(&out, "%.*s<campaign>", (int)(hit - s), s);
            s = hit + strlen(dir);
        }
        rb_appendf(&out, "%s", s);
        json_t *r = json_string(out);
        free(out);
        return r;
    }
    return json_deep_copy(v);
}

/* The neighbour as far as the fixture may not change it. */
static json_t *neighbour_view(const campaign *c)
{
    json_t *view = json_object(), *records = json_object();
    char path[4400], hex[HB_SHA256_HEX], dir[4400];
    hb_err err;
    json_object_set_new(view, "build", normalised(build_entry(c, "Neighbour", "SM3"), c->dir));
    json_object_set_new(view, "kat", normalised(kat_entry(c, "Neighbour", "SM3"), c->dir));
    pathf(path, sizeof path, "%s/lib/Neighbour/libSM3.so", c->run);
    json_object_set_new(view, "library file",
                        json_string(hb_sha256_file_hex(path, hex, &err) == 0 ? hex : "none"));
    const char *where[] = {c->run, c->data};
    const char *tags[] = {"run", "dataset"};
    for (int w = 0; w < 2; w++) {
        pathf(dir, sizeof dir, "%s%s/records/Neighbour", where[w], w ? "/" SYSTEM : "");
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char name[600];
            snprintf(name, sizeof name, "%s %s", tags[w], e->d_name);
            json_t *r = rb_load_json(dir, e->d_name);
            /* A cell whose every trial the busy host disturbed is noise, not
             * the fixture's doing (five campaigns share two cores here);
             * its record counts as the measured one it stands for. */
            if (r && !strcmp(rb_str(r, "status"), "FAILED") &&
                !strncmp(rb_str(r, "failure"), "every trial was disturbed", 25)) {
                json_object_set_new(r, "status", json_string("OK"));
                json_object_set_new(r, "failure", json_string(""));
            }
            json_object_set_new(records, name, r ? normalised(r, c->dir) : json_string("?"));
            json_decref(r);
        }
        if (d)
            closedir(d);
    }
    json_object_set_new(view, "records", records);
    return view;
}

/* Appends the key paths where WITH (the neighbour beside the fixture) and
 * WITHOUT (in the reference campaign) differ, at most *LEFT of them. */
static void json_diff(const json_t *with, const json_t *without, const char *path, int *left,
                      char **out)
{
    if (*left <= 0 || json_equal((json_t *)with, (json_t *)without))
        return;
    if (json_is_object(with) && json_is_object(without)) {
        const char *k;
        json_t *x;
        char p[1024];
        json_object_foreach((json_t *)with, k, x) {
            snprintf(p, sizeof p, "%s.%s", path, k);
            json_t *y = json_object_get(without, k);
            if (y)
                json_diff(x, y, p, left, out);
            else if ((*left)-- > 0)
                rb_appendf(out, "  %s: only beside the fixture\n", p);
        }
        json_object_foreach((json_t *)without, k, x) {
            snprintf(p, sizeof p, "%s.%s", path, k);
            if (!json_object_get(with, k) && (*left)-- > 0)
                rb_appendf(out, "  %s: missing beside the fixture\n", p);
        }
        return;
    }
    char *a = json_dumps(with, JSON_COMPACT | JSON_ENCODE_ANY);
    char *b = json_dumps(without, JSON_COMPACT | JSON_ENCODE_ANY);
    rb_appendf(out, "  %s: %.160s beside the fixture, %.160s without it\n", path,
               a ? a : "null", b ? b : "null");
    free(a);
    free(b);
    (*left)--;
}

/* neighbour: the same as in the reference campaign, figures aside. */
static void check_neighbour(campaign *c, char **why)
{
    campaign *ref = campaign_named("Reference");
    if (!ref || ref == c)
        return;
    json_t *a = neighbour_view(c), *b = neighbour_view(ref);
    if (!json_equal(a, b)) {
        char *d = NULL;
        int left = 8;
        json_diff(a, b, "", &left, &d);
        rb_appendf(why, "neighbour: its results differ from a campaign without the fixture:\n%s",
                   d ? d : "");
        free(d);
    }
    json_decref(a);
    json_decref(b);
}

/* The shared checks of campaign C, computed once. */
static const char *generic_checks(campaign *c)
{
    if (!c->generic_done) {
        check_processes(c, &c->generic);
        check_outside(c, &c->generic);
        check_secret(c, &c->generic);
        check_validate(c, &c->generic);
        check_neighbour(c, &c->generic);
        c->generic_done = 1;
    }
    return c->generic ? c->generic : "";
}

/* The line of the markdown PAGE that is a table row for INST (first cell). */
static const char *page_row(const char *page, const char *inst, const char *after)
{
    const char *from = after ? strstr(page, after) : page;
    char start[160];
    snprintf(start, sizeof start, "\n| %s |", inst);
    return from ? strstr(from, start) : NULL;
}

/* 1 when the table row at ROW (its leading newline) has a cell that is
 * WORD, or WORD with footnote marks or with what its KAT checked, e.g.
 * "PASS (2_12, 2_23)" or "PASS [1]". */
static int row_has(const char *row, const char *word)
{
    size_t len = strcspn(row + 1, "\n");
    char cell[80];
    static const char *const forms[] = {"| %s |", "| %s \\[", "| %s (", "| %s ["};
    for (int marked = 0; marked < 4; marked++) {
        snprintf(cell, sizeof cell, forms[marked], word);
        const char *hit = strstr(row + 1, cell);
        if (hit && (size_t)(hit - (row + 1)) < len)
            return 1;
    }
    return 0;
}

/* status: allowed, explained, logged, on the page, carried by the records. */
static void check_status(campaign *c, const hcase *k, char **why)
{
    const char *cand = cand_of(k), *inst = inst_of(k);
    json_t *e = status_entry(c, cand, inst);
    if (!e) {
        json_t *b = build_entry(c, cand, inst);
        rb_appendf(why, "status: %s/%s has no KAT verdict (build.json: %s)\n", cand, inst,
                   b ? rb_str(b, "status") : "no entry");
        return;
    }
    const char *st = rb_str(e, "status"), *reason = rb_str(e, "reason");
    if (names_other_file(reason, inst))
        rb_appendf(why, "status: the reason names another instance's KAT file: %.300s\n",
                   reason);
    if (strcmp(st, "BUILDFAIL") == 0 && harness_failure(reason))
        rb_appendf(why, "status: the build failed before the compiler saw the sources: "
                   "%.300s\n", reason);
    if (!one_of(st, k->expect))
        rb_appendf(why, "status: %s (reason: %.300s), expected %s%s%s%s%s\n", st, reason,
                   k->expect[0], k->expect[1] ? " or " : "", k->expect[1] ? k->expect[1] : "",
                   k->expect[2] ? " or " : "", k->expect[2] ? k->expect[2] : "");
    if (strcmp(st, "PASS") != 0 && (!reason[0] || strchr(reason, '\n')))
        rb_appendf(why, "status: %s without a one-line reason\n", st);
    if (kat_entry(c, cand, inst) && rb_str(e, "log")[0]) {
        char path[4400], want[160];
        pathf(path, sizeof path, "%s/%s", c->run, rb_str(e, "log"));
        char *log = rb_read(path);
        snprintf(want, sizeof want, "RESULT %s %s %s\n", cand, inst, st);
        if (!log || !strstr(log, want))
            rb_appendf(why, "status: the KAT log %s has no line '%.*s'\n", rb_str(e, "log"),
                       (int)strlen(want) - 1, want);
        free(log);
    }
    char page_path[4400];
    pathf(page_path, sizeof page_path, "%s/%s/%s.md", c->site, SYSTEM, cand);
    char *page = rb_read(page_path);
    const char *row = page ? page_row(page, inst, NULL) : NULL;
    int shown = 0;
    while (row && !shown) {
        shown = row_has(row, st);
        row = page_row(row + 1, inst, NULL);
    }
    if (!shown)
        rb_appendf(why, "status: the page %s/%s.md shows no row of %s with %s\n", SYSTEM, cand,
                   inst, st);
    if (page && strcmp(st, "PASS") != 0) {
        for (row = page_row(page, inst, "## 4. "); row; row = page_row(row + 1, inst, NULL)) {
            const char *next = strstr(page, "## 5. ");
            if (next && row > next)
                break;
            if (!row_has(row, st))
                rb_appendf(why, "status: the performance table shows %s without its status "
                           "%s\n", inst, st);
        }
    }
    free(page);
    for (size_t i = 0; i < NSIZES; i++) {
        json_t *r = load_record(c->run, cand, inst, sizes[i]);
        if (r && strcmp(rb_str(r, "kat_status"), st) != 0)
            rb_appendf(why, "status: the %d B record says KAT %s, kat.json %s\n", sizes[i],
                       rb_str(r, "kat_status"), st);
        json_decref(r);
    }
}

/* figures: none for a failure; honest for a pass. */
static void check_figures(campaign *c, const hcase *k, char **why)
{
    const char *cand = cand_of(k), *inst = inst_of(k);
    json_t *e = status_entry(c, cand, inst);
    int passed = e && strcmp(rb_str(e, "status"), "PASS") == 0;
    campaign *ref = campaign_named("Reference");
    for (size_t i = 0; i < NSIZES; i++) {
        json_t *r = load_record(c->run, cand, inst, sizes[i]);
        json_t *n = load_record(c->run, "Neighbour", "SM3", sizes[i]);
        if ((!n || !has_figures(n)) && ref) {
            json_decref(n);
            n = load_record(ref->run, "Neighbour", "SM3", sizes[i]);
        }
        double floor = n && has_figures(n) ? mean_ns(n) / 4 : 0;
        if (!r) {
            if (k->figures == FIG_OK || (k->figures == FIG_HONEST && passed))
                rb_appendf(why, "figures: %s passed but has no %d B record\n", inst, sizes[i]);
        } else if (has_figures(r)) {
            if (k->figures == FIG_NONE || !passed)
                rb_appendf(why, "figures: %d B record OK with figures for a %s instance\n",
                           sizes[i], e ? rb_str(e, "status") : "missing");
            else if (mean_ns(r) < floor)
                rb_appendf(why, "figures: %d B at %.1f ns per call, while the same SM3 code "
                           "takes %.1f ns as the neighbour: forged or fake\n", sizes[i],
                           mean_ns(r), 4 * floor);
        } else {
            if (k->figures == FIG_OK)
                rb_appendf(why, "figures: %d B record %s (%s), expected OK\n", sizes[i],
                           rb_str(r, "status"), rb_str(r, "failure"));
            else if (!rb_str(r, "failure")[0] && strcmp(rb_str(r, "status"), "OK") != 0)
                rb_appendf(why, "figures: %d B record %s without a failure reason\n",
                           sizes[i], rb_str(r, "status"));
        }
        json_decref(r);
        json_decref(n);
    }
}

/* net: nothing reached the listener. */
static void check_net(char **why)
{
    if (S.received_n)
        rb_appendf(why, "net: %d connections or datagrams reached the test, the first:\n%s",
                   S.received_n, S.received);
}

/* The distinct check names (the word before ':' of each line) of WHY. */
static char *failed_checks(const char *why)
{
    char *out = NULL;
    for (const char *line = why; *line;) {
        size_t l = strcspn(line, "\n"), w = strspn(line, "abcdefghijklmnopqrstuvwxyz");
        char name[40];
        snprintf(name, sizeof name, "%.*s", (int)(w < 39 ? w : 39), line);
        if (w > 0 && w < l && line[w] == ':' && (!out || !strstr(out, name)))
            rb_appendf(&out, "%s%s", out ? " " : "", name);
        line += l + (line[l] == '\n');
    }
    return out ? out : strdup("?");
}

static void test_case(void **state)
{
    const hcase *k = *state;
    campaign *c = campaign_of(k);
    char *why = NULL;
    assert_non_null(c);
    double limit = k->limit_s > 0 ? k->limit_s : LIMIT_S;
    check_ended(c, limit, &why);
    if (!(k->flags & F_NO_INSTANCE)) {
        check_status(c, k, &why);
        check_figures(c, k, &why);
    }
    if (generic_checks(c)[0])
        rb_appendf(&why, "%s", generic_checks(c));
    if (k->flags & F_NET)
        check_net(&why);
    if (k->check)
        k->check(c, k, &why);
    json_t *e = k->flags & F_NO_INSTANCE ? NULL : status_entry(c, cand_of(k), inst_of(k));
    printf("# %s (campaign %s, %.1f s): %s%s%s\n", k->name, c->name,
           json_number_value(json_object_get(fact(c, "run"), "seconds")),
           k->flags & F_NO_INSTANCE ? "-" : e ? rb_str(e, "status") : "no status",
           e && rb_str(e, "reason")[0] ? ": " : "", e ? rb_str(e, "reason") : "");
    size_t index = (size_t)(k - cases);
    outcomes[index] = why ? failed_checks(why) : strdup("ok");
    if (why) {
        printf("%s", why);
        free(why);
        fail_msg("case %s: the checks above failed", k->name);
    }
}

/* ---- the cases' own steps and checks ---- */

static void instance_dir(const campaign *c, const hcase *k, char *out, size_t size)
{
    pathf(out, size, "%s/%s/Implementations/Reference_Implementation/%s", c->pkgs,
          k->package, inst_of(k));
}

/* IncludeSymlink: passwd.h, a link to the canary. */
static void link_passwd(campaign *c, const hcase *k)
{
    char dir[4400], link[4500], target[4400];
    instance_dir(c, k, dir, sizeof dir);
    pathf(link, sizeof link, "%s/passwd.h", dir);
    pathf(target, sizeof target, "%s/secret.txt", c->host);
    if (symlink(target, link) != 0)
        fail_msg("cannot link %s: %s", link, strerror(errno));
}

#define OLD_ATIME 978307200 /* 2001-01-01: older than a day, so a read moves it */

static void set_old_atime(const char *path)
{
    struct timespec t[2] = {{OLD_ATIME, 0}, {0, UTIME_OMIT}};
    if (utimensat(AT_FDCWD, path, t, 0) != 0)
        fail_msg("cannot set the access time of %s", path);
}

static time_t atime_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_atim.tv_sec : 0;
}

/* HugeSource: a sparse 6 GiB huge.c, not yet read (old access time). Also
 * checks that a read moves the access time on this file system. */
static void make_huge_source(campaign *c, const hcase *k)
{
    char dir[4400], path[4500], ctl[4500], byte;
    instance_dir(c, k, dir, sizeof dir);
    pathf(path, sizeof path, "%s/huge.c", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || ftruncate(fd, 6LL << 30) != 0)
        fail_msg("cannot make the sparse %s: %s", path, strerror(errno));
    close(fd);
    set_old_atime(path);
    pathf(ctl, sizeof ctl, "%s/atime-control", c->dir);
    rb_write(ctl, "x");
    set_old_atime(ctl);
    fd = open(ctl, O_RDONLY | O_CLOEXEC);
    c->atime_works = fd >= 0 && read(fd, &byte, 1) == 1 && atime_of(ctl) != OLD_ATIME;
    if (fd >= 0)
        close(fd);
}

static void check_huge_source(campaign *c, const hcase *k, char **why)
{
    char dir[4400], path[4500];
    json_t *e = build_entry(c, k->package, inst_of(k));
    if (!strstr(rb_str(e, "reason"), "huge.c"))
        rb_appendf(why, "size: the build failure does not name huge.c: %.300s\n",
                   rb_str(e, "reason"));
    instance_dir(c, k, dir, sizeof dir);
    pathf(path, sizeof path, "%s/huge.c", dir);
    if (!c->atime_works)
        printf("# HugeSource: reads do not move access times here; 'not read' unchecked\n");
    else if (atime_of(path) != OLD_ATIME)
        rb_appendf(why, "size: huge.c was read (its access time moved)\n");
}

/* HugeManifest: a million lines, under hashbench's 64 MiB cap on a
 * submitted file: half of them entries for instances that do not exist,
 * half comments, the real entries last. */
static void make_huge_manifest(campaign *c, const hcase *k)
{
    char path[4400];
    pathf(path, sizeof path, "%s/%s/kat.sha256", c->pkgs, k->package);
    FILE *fp = fopen(path, "w");
    if (!fp)
        fail_msg("cannot write %s", path);
    fputs("# a million lines\n", fp);
    for (long i = 0; i < 499998; i++)
        fprintf(fp, "%064lx strict J%ld/KAT_2_12_J%ld.txt\n#\n", (unsigned long)i * 7919, i, i);
    char *real = NULL;
    manifest_lines(inst_of(k), &real);
    fputs(real ? real : "", fp);
    free(real);
    fclose(fp);
}

static void check_manifest(campaign *c, const hcase *k, char **why)
{
    json_t *e = status_entry(c, k->package, inst_of(k));
    if (e && strcmp(rb_str(e, "status"), "PASS") != 0 &&
        !strstr(rb_str(e, "reason"), "kat.sha256"))
        rb_appendf(why, "manifest: %s without naming kat.sha256: %.300s\n",
                   rb_str(e, "status"), rb_str(e, "reason"));
}

/* SlowSize: what the planner spent on the 1024-byte size, from its record:
 * every call (calibration, warm-up, timed) costs 50 ms there. */
static void check_budget(campaign *c, const hcase *k, char **why)
{
    json_t *r = load_record(c->run, k->package, inst_of(k), 1024);
    if (!r) {
        rb_appendf(why, "budget: no 1024 B record\n");
        return;
    }
    json_t *plan = json_object_get(r, "plan"), *t;
    double calls = json_number_value(json_object_get(json_object_get(plan, "calibration"),
                                                     "calls"));
    double warmup = json_number_value(json_object_get(plan, "warmup_calls"));
    size_t i, trials = 0;
    json_array_foreach(json_object_get(r, "trials"), i, t) {
        calls += json_number_value(json_object_get(t, "calls")) + warmup;
        trials++;
    }
    /* the budget, plus the fixed cost of the few sandboxed processes that
     * always run (start-up and digest checks), which a busy host stretches */
    double spent = calls * 0.05, allowed = 3 * BUDGET_S + 2.0;
    /* (the plan's elapsed_s is not held to it: for a cell that ended early
     * it is its whole size's wall time, which a loaded host stretches; the
     * calls it slept through are what the budget bounds) */
    printf("# SlowSize 1024 B: %zu trials, %.0f calls: %.1f s asleep (budget %.1f s)\n",
           trials, calls, spent, BUDGET_S);
    if (spent > allowed)
        rb_appendf(why, "budget: %.0f calls of 50 ms at 1024 B in %zu trials: %.1f s for a "
                   "budget of %.1f s\n", calls, trials, spent, BUDGET_S);
    json_decref(r);
}

/* MacroBomb: the bomb went off (the compiler log says it ran out of
 * memory or was stopped) and hashbench's own limit stopped it, not the
 * test's net. */
static void check_bounded_memory(campaign *c, const hcase *k, char **why)
{
    json_t *b = build_entry(c, k->package, inst_of(k));
    char path[4400];
    pathf(path, sizeof path, "%s/%s", c->run, rb_str(b, "log"));
    char *log = rb_read(path);
    if (!log || !(strcasestr(log, "memory") || strcasestr(log, "signal") ||
                  strcasestr(log, "timeout") || strcasestr(log, "cpu time")))
        rb_appendf(why, "memory: the compiler log %s does not show the bomb stopped by a "
                   "limit\n", rb_str(b, "log"));
    free(log);
    double gib = (double)fact_int(c, "run", "maxrss_kb") / (1 << 20);
    printf("# MacroBomb: the largest process reached %.2f GiB\n", gib);
    if (gib > 4.5)
        rb_appendf(why, "memory: a process reached %.2f GiB: only the test's %llu GiB net "
                   "stopped it\n", gib, AS_NET >> 30);
}

/* LogAppend: the compiler log ends with hashbench's own last line. */
static void check_log_intact(campaign *c, const hcase *k, char **why)
{
    json_t *b = build_entry(c, k->package, inst_of(k));
    char path[4400];
    pathf(path, sizeof path, "%s/%s", c->run, rb_str(b, "log"));
    char *log = rb_read(path);
    size_t n = log ? strlen(log) : 0;
    while (n > 0 && log[n - 1] == '\n')
        log[--n] = '\0';
    const char *last = log ? strrchr(log, '\n') : NULL;
    if (!log || !last || strncmp(last + 1, "# result:", 9) != 0)
        rb_appendf(why, "log: the compiler log %s does not end with its result line\n",
                   rb_str(b, "log"));
    free(log);
}

/* Twin: both folders named, each with its verdict, the wrong one failing. */
static void check_twins(campaign *c, const hcase *k, char **why)
{
    json_t *e, *found[2] = {NULL, NULL};
    size_t i;
    const char *folders[] = {"/TwinA", "/TwinB"};
    json_array_foreach(json_object_get(c->build, "instances"), i, e) {
        if (strcmp(rb_str(e, "candidate"), k->package) != 0)
            continue;
        for (int f = 0; f < 2; f++)
            if (strstr(rb_str(e, "source_dir"), folders[f]))
                found[f] = e;
    }
    for (int f = 0; f < 2; f++) {
        if (!found[f]) {
            rb_appendf(why, "twins: no build.json entry for the folder %s\n", folders[f] + 1);
            continue;
        }
        const char *bst = rb_str(found[f], "status"), *lib = rb_str(found[f], "library");
        if (strcmp(bst, "BUILT") != 0) {
            if (!strstr(rb_str(found[f], "reason"), folders[1 - f] + 1))
                rb_appendf(why, "twins: %s refused without naming %s: %.300s\n",
                           folders[f] + 1, folders[1 - f] + 1, rb_str(found[f], "reason"));
            continue;
        }
        /* the KAT entry of this build entry (its library may be a
         * harness-default rebuild after a failure under the guide flags) */
        json_t *verdict = NULL, *x;
        size_t j;
        json_array_foreach(json_object_get(c->kat, "instances"), j, x)
            if (strcmp(rb_str(x, "candidate"), rb_str(found[f], "candidate")) == 0 &&
                strcmp(rb_str(x, "instance"), rb_str(found[f], "instance")) == 0)
                verdict = x;
        if (!verdict)
            rb_appendf(why, "twins: no KAT verdict for %s (library %s)\n", folders[f] + 1, lib);
        else if (f == 1 && strcmp(rb_str(verdict, "status"), "PASS") == 0)
            rb_appendf(why, "twins: TwinB (a wrong hash) reported PASS\n");
        else if (f == 0 && strcmp(rb_str(verdict, "status"), "PASS") != 0)
            rb_appendf(why, "twins: TwinA (SM3) reported %s\n", rb_str(verdict, "status"));
    }
    if (found[0] && found[1] && strcmp(rb_str(found[0], "status"), "BUILT") == 0 &&
        strcmp(rb_str(found[1], "status"), "BUILT") == 0 &&
        strcmp(rb_str(found[0], "library"), rb_str(found[1], "library")) == 0)
        rb_appendf(why, "twins: both folders built into the one library %s\n",
                   rb_str(found[0], "library"));
    /* Built as two variants of one instance, they are compared, and TwinB's
     * wrong hash is named. */
    if (found[0] && found[1] && !strcmp(rb_str(found[0], "status"), "BUILT") &&
        !strcmp(rb_str(found[1], "status"), "BUILT")) {
        json_t *x, *cmp = NULL;
        size_t j;
        json_array_foreach(json_object_get(c->kat, "instances"), j, x)
            if (json_object_get(x, "variants") &&
                !strcmp(rb_str(x, "candidate"), rb_str(found[0], "candidate")))
                cmp = json_object_get(x, "variants");
        if (!cmp || strcmp(rb_str(cmp, "verdict"), "DISAGREE") != 0)
            rb_appendf(why, "twins: the variants were not found to disagree (%s)\n",
                       cmp ? rb_str(cmp, "verdict") : "not compared");
    }
}

/* AbsPathLog: published, without the private paths. */
static void check_redacted(campaign *c, const hcase *k, char **why)
{
    char path[4400], *report = NULL;
    pathf(path, sizeof path, "%s/%s/logs/build/%s/%s.log", c->data, SYSTEM, k->package,
          inst_of(k));
    if (access(path, F_OK) != 0)
        rb_appendf(why, "redaction: no published compiler log %s\n", path + strlen(c->dir));
    const char *needles[] = {"/opt/hostile-build", "/home/alice"};
    const char *names[] = {"/opt/hostile-build", "/home/alice"};
    rb_tree_grep(c->data, needles, names, 2, &report);
    rb_tree_grep(c->site, needles, names, 2, &report);
    if (report)
        rb_appendf(why, "redaction: absolute paths published:\n%s", report);
    free(report);
}

/* After publishing: a copy of the dataset named after the case. */
static void copy_dataset(campaign *c, const hcase *k, char *out, size_t size)
{
    pathf(out, size, "%s/data-%s", c->dir, k->name);
    rb_copy_tree(c->data, out);
}

static void validate_copy(const char *data, json_t *facts)
{
    const char *args[] = {"validate", data, NULL};
    json_object_set_new(facts, "validate", command_json(args));
}

/* SymlinkDataset: the records folder replaced by a link to its copy. */
static void symlink_dataset_folder(campaign *c, const hcase *k, json_t *facts)
{
    char data[4400], folder[4500], moved[4500];
    copy_dataset(c, k, data, sizeof data);
    pathf(folder, sizeof folder, "%s/%s/records", data, SYSTEM);
    pathf(moved, sizeof moved, "%s/elsewhere-%s", c->dir, k->name);
    if (rename(folder, moved) != 0 || symlink(moved, folder) != 0)
        json_object_set_new(facts, "error", json_string(strerror(errno)));
    validate_copy(data, facts);
}

/* TamperedLog: one line added to the neighbour's published compiler log. */
static void tamper_compiler_log(campaign *c, const hcase *k, json_t *facts)
{
    char data[4400], log[4600];
    copy_dataset(c, k, data, sizeof data);
    pathf(log, sizeof log, "%s/%s/logs/build/Neighbour/SM3.log", data, SYSTEM);
    FILE *fp = fopen(log, "a");
    if (!fp || fputs("# compiler: exit 0 (a line added after publication)\n", fp) < 0)
        json_object_set_new(facts, "error", json_string("cannot append to the log"));
    if (fp)
        fclose(fp);
    validate_copy(data, facts);
}

static void check_tampered(campaign *c, const hcase *k, char **why)
{
    json_t *f = json_object_get(json_object_get(c->facts, "rows"), k->name);
    json_t *v = json_object_get(f, "validate");
    if (!f || json_object_get(f, "error"))
        rb_appendf(why, "tamper: the dataset copy could not be tampered with: %s\n",
                   rb_str(f, "error"));
    else if (json_integer_value(json_object_get(v, "exit")) == 0)
        rb_appendf(why, "tamper: validate accepted the tampered dataset: %.300s\n",
                   rb_str(v, "output"));
    else
        printf("# %s: validate %lld: %.300s\n", k->name,
               json_integer_value(json_object_get(v, "exit")), rb_str(v, "output"));
}

/* KillResume: killed mid-way, resumed: no temporary left, nothing lost. */
static void check_resumed(campaign *c, const hcase *k, char **why)
{
    json_t *killed = fact(c, "killed_run");
    (void)k;
    if (!json_is_true(json_object_get(killed, "killed")) ||
        json_is_true(json_object_get(killed, "exited")))
        rb_appendf(why, "resume: the first run was not killed in the middle (it %s)\n",
                   json_is_true(json_object_get(killed, "exited")) ? "finished first" :
                   "never wrote two records");
    char *tmps = rb_find_names(c->run, ".tmp.");
    if (tmps)
        rb_appendf(why, "resume: temporary files left in the run directory:\n%s", tmps);
    free(tmps);
    char records[4300];
    pathf(records, sizeof records, "%s/records", c->run);
    char *now = rb_snapshot(records);
    const char *before = rb_str(c->facts, "records_before");
    for (const char *line = before; *line;) {
        size_t l = strcspn(line, "\n");
        char want[600];
        snprintf(want, sizeof want, "%.*s\n", (int)l, line);
        if (!strstr(now, want) && !strstr(want, ".tmp."))
            rb_appendf(why, "resume: %.*s was lost or rewritten\n", (int)l, line);
        line += l + (line[l] == '\n');
    }
    free(now);
    const char *cands[] = {"Neighbour", "Resumed"}, *insts[] = {"SM3", "Resumed"};
    for (int i = 0; i < 2; i++)
        for (size_t s = 0; s < NSIZES; s++) {
            json_t *r = load_record(c->run, cands[i], insts[i], sizes[s]);
            if (!r || !has_figures(r))
                rb_appendf(why, "resume: %s %d B has no complete record\n", insts[i],
                           sizes[s]);
            json_decref(r);
        }
}

/* FillScratch: nothing it made is left, in /tmp (at its top, or in a
 * staging folder of hashbench's) or anywhere in the campaign's folders
 * (run directory, working folder, dataset, site). */
static void check_nothing_left(campaign *c, const hcase *k, char **why)
{
    (void)k;
    char *found = rb_find_names(c->dir, "hbfill");
    if (found)
        rb_appendf(why, "hygiene: the campaign's folders hold what the fixture made:\n%.600s",
                   found);
    free(found);
    DIR *d = opendir("/tmp");
    struct dirent *e;
    int left = 0;
    while (d && (e = readdir(d)) != NULL) {
        char path[4400];
        if (strncmp(e->d_name, "hbfill", 6) == 0) {
            if (left++ < 5)
                rb_appendf(why, "hygiene: /tmp/%s was left on the host\n", e->d_name);
            continue;
        }
        if (strncmp(e->d_name, "hashbench-stage.", 16) != 0)
            continue;
        pathf(path, sizeof path, "/tmp/%s", e->d_name);
        if ((found = rb_find_names(path, "hbfill")) != NULL)
            rb_appendf(why, "hygiene: %s holds what the fixture made:\n%.400s", path, found);
        free(found);
    }
    if (d)
        closedir(d);
    if (left > 5)
        rb_appendf(why, "hygiene: %d entries named hbfill* in /tmp in all\n", left);
}

/* Stall: TIMEOUT by the instance's wall budget, which its page names, and
 * no more spent than the budget and the slack. */
static void check_stall(campaign *c, const hcase *k, char **why)
{
    const char *cand = cand_of(k), *inst = inst_of(k);
    json_t *e = kat_entry(c, cand, inst);
    const char *reason = e ? rb_str(e, "reason") : "";
    if (!strstr(reason, "wall budget of the instance spent: " STALL_BUDGET " s"))
        rb_appendf(why, "stall: the reason does not name the instance's wall budget: "
                   "%.300s\n", reason);
    char rel[512];
    snprintf(rel, sizeof rel, "budget/%s/%s.json", cand, inst);
    json_t *b = rb_load_json(c->run, rel);
    double spent = json_number_value(json_object_get(b, "spent_s"));
    if (!b)
        rb_appendf(why, "stall: no %s in the run directory\n", rel);
    else if (spent > STALL_BUDGET_S + STALL_SLACK_S || spent < STALL_BUDGET_S - 0.5)
        rb_appendf(why, "stall: %.1f s spent for a budget of %.0f s (slack %.0f s)\n", spent,
                   STALL_BUDGET_S, STALL_SLACK_S);
    printf("# Stall: TIMEOUT after %.1f s of its processes (budget %.0f s, slack %.0f s)\n",
           spent, STALL_BUDGET_S, STALL_SLACK_S);
    json_decref(b);
    char page_path[4400];
    pathf(page_path, sizeof page_path, "%s/%s/%s.md", c->site, SYSTEM, cand);
    char *page = rb_read(page_path);
    if (!page || !strstr(page, "wall budget of the instance spent"))
        rb_appendf(why, "stall: the page %s/%s.md does not name the wall budget\n", SYSTEM,
                   cand);
    free(page);
}

/* What HostData returns for the probe's check message, as a record would
 * show it (hex, either case is searched): the boot_id's 32 digits as text
 * at 32 bytes, the first 32 bytes of its library path at other sizes. */
static void host_data_hex(const campaign *c, int boot, char *hex)
{
    char text[4400] = "", id[64] = "";
    unsigned char raw[32] = {0};
    if (boot) {
        FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
        if (f && fgets(id, sizeof id, f)) {
            size_t k = 0;
            for (const char *p = id; *p && k < 32; p++)
                if (*p != '-' && *p != '\n')
                    text[k++] = *p;
        }
        if (f)
            fclose(f);
    } else {
        char lib[4400];
        pathf(lib, sizeof lib, "%s/lib/HostData/libHostData.so", c->run);
        if (!realpath(lib, text))
            snprintf(text, sizeof text, "%s", lib);
    }
    memcpy(raw, text, strlen(text) < 32 ? strlen(text) : 32);
    hb_hex_encode(raw, 32, hex, 0);
}

/* HostData: a copy of the dataset given the digest the fixture returns
 * (its boot_id) in its record; validate must refuse it. */
static void plant_host_data(campaign *c, const hcase *k, json_t *facts)
{
    char data[4400], hex[65], rel[512];
    copy_dataset(c, k, data, sizeof data);
    host_data_hex(c, 1, hex);
    snprintf(rel, sizeof rel, SYSTEM "/records/%s/%s__hash_32.json", cand_of(k), inst_of(k));
    json_t *r = rb_load_json(data, rel);
    char path[4600];
    pathf(path, sizeof path, "%s/%s", data, rel);
    if (!r || json_object_set_new(r, "digest", json_string(hex)) != 0 ||
        json_dump_file(r, path, JSON_INDENT(2)) != 0)
        json_object_set_new(facts, "error", json_string("cannot edit the record"));
    json_decref(r);
    validate_copy(data, facts);
}

/* HostData: neither its boot_id nor its library path reached the records,
 * the dataset or the site, hex-encoded; validate refused the copy that
 * holds it. */
static void check_host_data(campaign *c, const hcase *k, char **why)
{
    char boot[65], lib[65];
    host_data_hex(c, 1, boot);
    host_data_hex(c, 0, lib);
    const char *needles[] = {boot, lib};
    const char *names[] = {"the host's boot_id, as the fixture returned it",
                           "the fixture's library path, as it returned it"};
    char records[4400], *report = NULL;
    pathf(records, sizeof records, "%s/records", c->run);
    const char *dirs[] = {records, c->data, c->site};
    for (int i = 0; i < 3; i++)
        rb_tree_grep(dirs[i], needles, names, 2, &report);
    if (report)
        rb_appendf(why, "hostdata: found where it must not be:\n%s", report);
    free(report);
    check_tampered(c, k, why);
}

int main(void)
{
    struct CMUnitTest tests[NCASES];
    size_t n = 0;
    for (size_t i = 0; i < NCASES; i++) {
        if (!selected(&cases[i]))
            continue;
        tests[n].name = cases[i].name;
        tests[n].test_func = test_case;
        tests[n].setup_func = NULL;
        tests[n].teardown_func = NULL;
        tests[n].initial_state = (void *)&cases[i];
        n++;
    }
    return _cmocka_run_group_tests("robustness_hostile", tests, n, group_setup,
                                   group_teardown);
}
