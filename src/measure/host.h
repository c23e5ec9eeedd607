/* What the host looks like to a measurement: processor, kernel, frequency
 * scaling (governor, min/max/current frequency, turbo or boost), SMT,
 * perf_event_paranoid, isolated CPUs and load, read from procfs and sysfs
 * under a root folder, and the distribution from its os-release file. The live system is root "/"; tests pass a folder of
 * captured files laid out the same way (ROOT/proc/cpuinfo,
 * ROOT/sys/devices/system/cpu/...). The campaign's host check judges these
 * facts; every record and campaign.json keeps them as host_info_json. */
#ifndef HB_MEASURE_HOST_H
#define HB_MEASURE_HOST_H

#include <jansson.h>
#include "common/err.h"

typedef struct host_info {
    char arch[16];             /* "x86_64", "aarch64", ... */
    char cpu_model[128];       /* "model name", or built from implementer/part */
    char cpu_model_source[32]; /* "model name", "CPU implementer/part", "" */
    char kernel[128];          /* ROOT/proc/sys/kernel/osrelease (uname live) */
    char os[128];              /* PRETTY_NAME of ROOT/etc/os-release (else
                                  ROOT/usr/lib/os-release), "" unknown */
    int ncpu;                  /* processors listed in cpuinfo */
    char governor[32];         /* "" when there is no cpufreq for the CPU */
    char cpufreq_driver[32];   /* scaling_driver, "" unknown */
    long scaling_min_khz, scaling_max_khz, cur_khz; /* -1 unknown */
    int turbo;                 /* 1 on, 0 off, -1 unknown */
    char turbo_source[48];     /* "intel_pstate/no_turbo", "cpufreq/boost", "" */
    int smt;                   /* 1 on, 0 off, -1 unknown */
    char smt_control[32];      /* text of smt/control, "" when absent */
    char smt_source[32];       /* "smt/active", "smt/control", "topology", "" */
    int perf_event_paranoid;   /* -99 unknown */
    int hypervisor;            /* 1 when cpuinfo flags name a hypervisor, else 0 */
    long mem_total_kb;         /* -1 unknown */
    char isolated[64];         /* isolated CPU list, "" none or unknown */
    char nohz_full[64];        /* nohz_full CPU list, "" none or unknown */
    double loadavg1;           /* -1 unknown */
} host_info;

/* Reads the facts for CPU (0-based; its cpufreq folder) under ROOT into OUT.
 * Missing files are not errors: they leave the "unknown" value. Fails only
 * when ROOT/proc/cpuinfo cannot be read. */
int host_read(const char *root, int cpu, host_info *out, hb_err *err);

/* The facts as a JSON object (new reference owned by the caller); unknown
 * values are null. */
json_t *host_info_json(const host_info *h);

#endif
