/* Reading the host's measurement-relevant facts from procfs and sysfs under a
 * root folder (see host.h). Each fact comes from one small file; a missing
 * file leaves the fact unknown rather than failing, because containers, VMs
 * and other architectures each hide a different subset. */
#include "measure/host.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "common/fs.h"

/* Reads ROOT/REL into a malloc'd string (caller frees); NULL when absent. */
static char *read_rel(const char *root, const char *rel)
{
    char path[4096];
    hb_err ignored;
    char *text = NULL;
    if (hb_path_join(path, sizeof path, root, rel, &ignored) < 0 ||
        hb_read_file(path, &text, NULL, &ignored) < 0)
        return NULL;
    return text;
}

/* Copies S into OUT (size N) without surrounding blanks. */
static void copy_trimmed(char *out, size_t n, const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    size_t len = strlen(s);
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    if (len >= n)
        len = n - 1;
    memcpy(out, s, len);
    out[len] = '\0';
}

/* Reads ROOT/REL as a trimmed first line into OUT; 1 when found. */
static int read_text(const char *root, const char *rel, char *out, size_t n)
{
    char *text = read_rel(root, rel);
    if (!text)
        return 0;
    char *nl = strchr(text, '\n');
    if (nl)
        *nl = '\0';
    copy_trimmed(out, n, text);
    free(text);
    return 1;
}

/* Reads ROOT/REL as one integer; DEFVAL when absent or not a number. */
static long read_long(const char *root, const char *rel, long defval)
{
    char buf[64];
    if (!read_text(root, rel, buf, sizeof buf))
        return defval;
    char *end;
    long v = strtol(buf, &end, 10);
    return end == buf ? defval : v;
}

/* The value after "KEY<blanks>:" on a cpuinfo-style line, or NULL. */
static const char *field_value(const char *line, const char *key)
{
    size_t k = strlen(key);
    if (strncmp(line, key, k) != 0)
        return NULL;
    const char *p = line + k;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != ':')
        return NULL;
    p++;
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Names of a few common Arm cores by (implementer, part); NULL unknown. */
static const char *arm_core_name(long impl, long part)
{
    static const struct { long impl, part; const char *name; } cores[] = {
        {0x41, 0xd08, "ARM Cortex-A72"},  {0x41, 0xd0b, "ARM Cortex-A76"},
        {0x41, 0xd0c, "ARM Neoverse-N1"}, {0x41, 0xd40, "ARM Neoverse-V1"},
        {0x41, 0xd49, "ARM Neoverse-N2"}, {0x41, 0xd4f, "ARM Neoverse-V2"},
        {0x48, 0xd01, "HiSilicon Kunpeng-920"},
        {0xc0, 0xac3, "Ampere-1"},        {0x46, 0x001, "Fujitsu A64FX"},
    };
    for (size_t i = 0; i < sizeof cores / sizeof cores[0]; i++)
        if (cores[i].impl == impl && cores[i].part == part)
            return cores[i].name;
    return NULL;
}

typedef struct cpuinfo_facts {
    long impl, part;
    int has_vendor;
} cpuinfo_facts;

static void cpuinfo_line(const char *line, host_info *h, cpuinfo_facts *f)
{
    const char *v;
    if ((v = field_value(line, "processor")) && isdigit((unsigned char)*v))
        h->ncpu++;
    else if ((v = field_value(line, "model name")) && !h->cpu_model[0]) {
        copy_trimmed(h->cpu_model, sizeof h->cpu_model, v);
        snprintf(h->cpu_model_source, sizeof h->cpu_model_source, "model name");
    } else if ((v = field_value(line, "vendor_id")))
        f->has_vendor = 1;
    else if ((v = field_value(line, "CPU implementer")) && f->impl < 0)
        f->impl = strtol(v, NULL, 0);
    else if ((v = field_value(line, "CPU part")) && f->part < 0)
        f->part = strtol(v, NULL, 0);
    else if ((v = field_value(line, "flags")) && strstr(v, " hypervisor"))
        h->hypervisor = 1;
}

/* Model text from implementer/part when cpuinfo has no "model name". */
static void model_from_parts(host_info *h, const cpuinfo_facts *f)
{
    if (h->cpu_model[0] || f->impl < 0)
        return;
    const char *name = arm_core_name(f->impl, f->part);
    snprintf(h->cpu_model, sizeof h->cpu_model,
             "%s (CPU implementer 0x%02lx, part 0x%03lx)",
             name ? name : "Arm", f->impl, f->part < 0 ? 0 : f->part);
    snprintf(h->cpu_model_source, sizeof h->cpu_model_source,
             "CPU implementer/part");
}

static int read_cpuinfo(const char *root, host_info *h, cpuinfo_facts *f,
                        hb_err *err)
{
    char path[4096];
    char *text = NULL;
    if (hb_path_join(path, sizeof path, root, "proc/cpuinfo", err) < 0)
        return -1;
    if (hb_read_file(path, &text, NULL, err) < 0)
        return hb_fail(err, "%s: cannot read the processor description; "
                       "check that procfs is mounted", path);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        cpuinfo_line(line, h, f);
    free(text);
    model_from_parts(h, f);
    return 0;
}

static int is_live(const char *root)
{
    return strcmp(root, "/") == 0 || root[0] == '\0';
}

static void read_arch_kernel(const char *root, host_info *h,
                             const cpuinfo_facts *f)
{
    struct utsname u;
    int live = is_live(root) && uname(&u) == 0;
    if (live)
        copy_trimmed(h->arch, sizeof h->arch, u.machine);
    else if (!read_text(root, "proc/sys/kernel/arch", h->arch, sizeof h->arch))
        snprintf(h->arch, sizeof h->arch, "%s", f->impl >= 0 ? "aarch64"
                 : f->has_vendor ? "x86_64" : "unknown");
    if (!read_text(root, "proc/sys/kernel/osrelease", h->kernel,
                   sizeof h->kernel) && live)
        copy_trimmed(h->kernel, sizeof h->kernel, u.release);
}

static void read_cpufreq(const char *root, int cpu, host_info *h)
{
    char rel[256];
    const char *base = "sys/devices/system/cpu";
    snprintf(rel, sizeof rel, "%s/cpu%d/cpufreq/scaling_governor", base, cpu);
    read_text(root, rel, h->governor, sizeof h->governor);
    snprintf(rel, sizeof rel, "%s/cpu%d/cpufreq/scaling_driver", base, cpu);
    read_text(root, rel, h->cpufreq_driver, sizeof h->cpufreq_driver);
    snprintf(rel, sizeof rel, "%s/cpu%d/cpufreq/scaling_min_freq", base, cpu);
    h->scaling_min_khz = read_long(root, rel, -1);
    snprintf(rel, sizeof rel, "%s/cpu%d/cpufreq/scaling_max_freq", base, cpu);
    h->scaling_max_khz = read_long(root, rel, -1);
    snprintf(rel, sizeof rel, "%s/cpu%d/cpufreq/scaling_cur_freq", base, cpu);
    h->cur_khz = read_long(root, rel, -1);
}

/* intel_pstate says no_turbo (1 = turbo off); acpi-cpufreq and amd-pstate
 * say boost (1 = on), globally or per policy. */
static void read_turbo(const char *root, int cpu, host_info *h)
{
    long v = read_long(root, "sys/devices/system/cpu/intel_pstate/no_turbo", -1);
    if (v >= 0) {
        h->turbo = v ? 0 : 1;
        snprintf(h->turbo_source, sizeof h->turbo_source, "intel_pstate/no_turbo");
        return;
    }
    v = read_long(root, "sys/devices/system/cpu/cpufreq/boost", -1);
    if (v < 0) {
        char rel[256];
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cpufreq/boost", cpu);
        v = read_long(root, rel, -1);
    }
    if (v >= 0) {
        h->turbo = v ? 1 : 0;
        snprintf(h->turbo_source, sizeof h->turbo_source, "cpufreq/boost");
    }
}

/* smt/control says what the kernel allows (on, off, forceoff, notsupported,
 * notimplemented); smt/active whether siblings are actually running. When
 * the control is inconclusive on bare metal, the CPU's thread siblings in
 * the topology tell; inside a VM the topology is the hypervisor's fiction,
 * so SMT stays unknown there. */
static void read_smt(const char *root, int cpu, host_info *h)
{
    const char *c = h->smt_control;
    read_text(root, "sys/devices/system/cpu/smt/control", h->smt_control,
              sizeof h->smt_control);
    if (!strcmp(c, "on") || !strcmp(c, "off") || !strcmp(c, "forceoff")) {
        long active = read_long(root, "sys/devices/system/cpu/smt/active", -1);
        h->smt = active >= 0 ? active != 0 : strcmp(c, "on") == 0;
        snprintf(h->smt_source, sizeof h->smt_source, "%s",
                 active >= 0 ? "smt/active" : "smt/control");
        return;
    }
    char rel[256], list[64];
    snprintf(rel, sizeof rel,
             "sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
    if (h->hypervisor || !read_text(root, rel, list, sizeof list) || !list[0])
        return;
    h->smt = strpbrk(list, ",-") ? 1 : 0;
    snprintf(h->smt_source, sizeof h->smt_source, "topology");
}

static void read_misc(const char *root, host_info *h)
{
    h->perf_event_paranoid =
        (int)read_long(root, "proc/sys/kernel/perf_event_paranoid", -99);
    read_text(root, "sys/devices/system/cpu/isolated", h->isolated,
              sizeof h->isolated);
    read_text(root, "sys/devices/system/cpu/nohz_full", h->nohz_full,
              sizeof h->nohz_full);
    char buf[128];
    if (read_text(root, "proc/loadavg", buf, sizeof buf))
        h->loadavg1 = strtod(buf, NULL);
    char *mem = read_rel(root, "proc/meminfo");
    if (mem) {
        const char *v = strstr(mem, "MemTotal:");
        if (v)
            h->mem_total_kb = strtol(v + strlen("MemTotal:"), NULL, 10);
        free(mem);
    }
}

/* The distribution: PRETTY_NAME of os-release (its quotes removed), else
 * NAME and VERSION; the file is the system's own description of itself. */
static void read_os(const char *root, host_info *h)
{
    char *text = read_rel(root, "etc/os-release");
    if (!text)
        text = read_rel(root, "usr/lib/os-release");
    if (!text)
        return;
    static const char *const keys[] = {"PRETTY_NAME=", "NAME="};
    for (size_t k = 0; k < 2 && !h->os[0]; k++) {
        for (char *line = text; line && *line;) {
            char *nl = strchr(line, '\n');
            if (nl)
                *nl = '\0';
            if (strncmp(line, keys[k], strlen(keys[k])) == 0) {
                char *v = line + strlen(keys[k]);
                size_t n = strlen(v);
                if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
                    v[n - 1] = '\0';
                    v++;
                }
                for (char *c = v; *c; c++)
                    if ((unsigned char)*c < 0x20)
                        *c = ' ';
                snprintf(h->os, sizeof h->os, "%s", v);
            }
            if (nl)
                *nl = '\n';
            line = nl ? nl + 1 : NULL;
            if (h->os[0])
                break;
        }
    }
    free(text);
}

static void host_init(host_info *h)
{
    memset(h, 0, sizeof *h);
    h->scaling_min_khz = h->scaling_max_khz = h->cur_khz = -1;
    h->turbo = -1;
    h->smt = -1;
    h->perf_event_paranoid = -99;
    h->mem_total_kb = -1;
    h->loadavg1 = -1;
}

int host_read(const char *root, int cpu, host_info *out, hb_err *err)
{
    cpuinfo_facts f = {-1, -1, 0};
    host_init(out);
    if (!root)
        root = "/";
    if (read_cpuinfo(root, out, &f, err) < 0)
        return -1;
    read_arch_kernel(root, out, &f);
    read_cpufreq(root, cpu < 0 ? 0 : cpu, out);
    read_turbo(root, cpu < 0 ? 0 : cpu, out);
    read_smt(root, cpu < 0 ? 0 : cpu, out);
    read_misc(root, out);
    read_os(root, out);
    return 0;
}

/* A string, or null when empty. */
static json_t *str_or_null(const char *s)
{
    return s[0] ? json_string(s) : json_null();
}

static json_t *long_or_null(long v, long unknown)
{
    return v == unknown ? json_null() : json_integer(v);
}

static json_t *flag_or_null(int v)
{
    return v < 0 ? json_null() : json_boolean(v);
}

json_t *host_info_json(const host_info *h)
{
    json_t *o = json_object();
    json_object_set_new(o, "arch", json_string(h->arch));
    json_object_set_new(o, "cpu_model", json_string(h->cpu_model));
    json_object_set_new(o, "cpu_model_source", str_or_null(h->cpu_model_source));
    json_object_set_new(o, "kernel", json_string(h->kernel));
    json_object_set_new(o, "os", str_or_null(h->os));
    json_object_set_new(o, "ncpu", json_integer(h->ncpu));
    json_object_set_new(o, "hypervisor", json_boolean(h->hypervisor));
    json_object_set_new(o, "mem_total_kb", long_or_null(h->mem_total_kb, -1));
    json_object_set_new(o, "governor", str_or_null(h->governor));
    json_object_set_new(o, "cpufreq_driver", str_or_null(h->cpufreq_driver));
    json_object_set_new(o, "scaling_min_khz", long_or_null(h->scaling_min_khz, -1));
    json_object_set_new(o, "scaling_max_khz", long_or_null(h->scaling_max_khz, -1));
    json_object_set_new(o, "cur_khz", long_or_null(h->cur_khz, -1));
    json_object_set_new(o, "turbo", flag_or_null(h->turbo));
    json_object_set_new(o, "turbo_source", str_or_null(h->turbo_source));
    json_object_set_new(o, "smt", flag_or_null(h->smt));
    json_object_set_new(o, "smt_control", str_or_null(h->smt_control));
    json_object_set_new(o, "smt_source", str_or_null(h->smt_source));
    json_object_set_new(o, "perf_event_paranoid",
                        long_or_null(h->perf_event_paranoid, -99));
    json_object_set_new(o, "isolated", json_string(h->isolated));
    json_object_set_new(o, "nohz_full", json_string(h->nohz_full));
    json_object_set_new(o, "loadavg1", h->loadavg1 < 0 ? json_null()
                                                       : json_real(h->loadavg1));
    return o;
}
