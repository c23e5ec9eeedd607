/* host_read on captured procfs/sysfs texts (tests/host/data/): a fixed-clock
 * Intel host (performance governor, intel_pstate no_turbo=1, SMT off), an
 * AArch64 host with min == max frequency and no "model name" in cpuinfo, and
 * the development VM (no cpufreq, SMT control "notsupported", no PMU access,
 * AMD EPYC). The expected values are the ones written into those files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "measure/host.h"

static void read_host(const char *name, host_info *h)
{
    char root[4096];
    hb_err err;
    snprintf(root, sizeof root, "%s/tests/host/data/%s", HB_SOURCE_DIR, name);
    int rc = host_read(root, 0, h, &err);
    if (rc != 0)
        fail_msg("%s", err.msg);
}

static void test_intel_fixed(void **state)
{
    (void)state;
    host_info h;
    read_host("intel_fixed", &h);
    assert_string_equal(h.arch, "x86_64");
    assert_string_equal(h.cpu_model, "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz");
    assert_string_equal(h.cpu_model_source, "model name");
    assert_string_equal(h.kernel, "5.15.0-91-generic");
    /* the distribution, from the captured etc/os-release, quotes removed */
    assert_string_equal(h.os, "Debian GNU/Linux 13 (trixie)");
    assert_int_equal(h.ncpu, 4);
    assert_string_equal(h.governor, "performance");
    assert_string_equal(h.cpufreq_driver, "intel_pstate");
    assert_int_equal(h.scaling_min_khz, 1000000);
    assert_int_equal(h.scaling_max_khz, 2100000);
    assert_int_equal(h.cur_khz, 2099998);
    assert_int_equal(h.turbo, 0);
    assert_string_equal(h.turbo_source, "intel_pstate/no_turbo");
    assert_int_equal(h.smt, 0);
    assert_string_equal(h.smt_control, "off");
    assert_int_equal(h.perf_event_paranoid, 0);
    assert_int_equal(h.hypervisor, 0);
    assert_int_equal(h.mem_total_kb, 196608000);
    assert_string_equal(h.isolated, "2-3");
    assert_string_equal(h.nohz_full, "2-3");
    assert_true(h.loadavg1 > 0.039 && h.loadavg1 < 0.041);
}

static void test_arm_pinned(void **state)
{
    (void)state;
    host_info h;
    read_host("arm_pinned", &h);
    assert_string_equal(h.arch, "aarch64"); /* inferred: no kernel/arch file */
    assert_string_equal(h.cpu_model_source, "CPU implementer/part");
    assert_non_null(strstr(h.cpu_model, "Neoverse-N1"));
    assert_non_null(strstr(h.cpu_model, "0x41"));
    assert_non_null(strstr(h.cpu_model, "0xd0c"));
    assert_string_equal(h.kernel, "6.1.0-18-arm64");
    assert_string_equal(h.os, ""); /* no os-release captured */
    assert_int_equal(h.ncpu, 4);
    assert_string_equal(h.governor, "ondemand");
    assert_int_equal(h.scaling_min_khz, 2600000);
    assert_int_equal(h.scaling_max_khz, 2600000);
    assert_int_equal(h.turbo, -1);
    assert_string_equal(h.smt_control, "notimplemented");
    assert_int_equal(h.smt, 0); /* one thread per core in the topology */
    assert_string_equal(h.smt_source, "topology");
    assert_int_equal(h.perf_event_paranoid, -1);
    assert_string_equal(h.isolated, "");
    assert_string_equal(h.nohz_full, "");
}

static void test_vm(void **state)
{
    (void)state;
    host_info h;
    read_host("vm_epyc", &h);
    assert_string_equal(h.arch, "x86_64");
    assert_string_equal(h.cpu_model, "AMD EPYC");
    assert_int_equal(h.ncpu, 2);
    assert_int_equal(h.hypervisor, 1);
    assert_string_equal(h.governor, "");
    assert_int_equal(h.scaling_min_khz, -1);
    assert_int_equal(h.scaling_max_khz, -1);
    assert_int_equal(h.cur_khz, -1);
    assert_int_equal(h.turbo, -1);
    assert_string_equal(h.smt_control, "notsupported");
    assert_int_equal(h.smt, -1); /* a VM's topology does not tell */
    assert_int_equal(h.perf_event_paranoid, 2);
}

static void test_missing_root_fails(void **state)
{
    (void)state;
    host_info h;
    hb_err err;
    assert_int_not_equal(host_read("/nonexistent-host-root", 0, &h, &err), 0);
    assert_non_null(strstr(err.msg, "/nonexistent-host-root/proc/cpuinfo"));
}

static void test_json_nulls(void **state)
{
    (void)state;
    host_info h;
    read_host("vm_epyc", &h);
    json_t *j = host_info_json(&h);
    assert_true(json_is_null(json_object_get(j, "governor")));
    assert_true(json_is_null(json_object_get(j, "turbo")));
    assert_true(json_is_null(json_object_get(j, "smt")));
    assert_int_equal(json_integer_value(json_object_get(j, "perf_event_paranoid")), 2);
    assert_string_equal(json_string_value(json_object_get(j, "cpu_model")), "AMD EPYC");
    json_decref(j);
    read_host("intel_fixed", &h);
    j = host_info_json(&h);
    assert_true(json_is_false(json_object_get(j, "turbo")));
    assert_true(json_is_false(json_object_get(j, "smt")));
    assert_int_equal(json_integer_value(json_object_get(j, "scaling_max_khz")), 2100000);
    json_decref(j);
}

static void test_live(void **state)
{
    (void)state;
    host_info h;
    hb_err err;
    assert_int_equal(host_read("/", 0, &h, &err), 0);
    assert_true(h.ncpu >= 1);
    assert_true(h.arch[0] != '\0');
    assert_true(h.kernel[0] != '\0');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intel_fixed),
        cmocka_unit_test(test_arm_pinned),
        cmocka_unit_test(test_vm),
        cmocka_unit_test(test_missing_root_fails),
        cmocka_unit_test(test_json_nulls),
        cmocka_unit_test(test_live),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
