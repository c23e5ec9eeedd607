/* The frequency oracle of tests/aarch64: an AArch64 program, cross-compiled
 * by cross_run.sh and run under qemu-aarch64, that prints the frequency of
 * the virtual counter as the architecture states it (cntfrq_el0, in Hz).
 * The test compares it with the rate that hashbench's measurement records
 * give for cntvct_el0. It shares no code with hashbench on purpose. */
#include <stdint.h>
#include <stdio.h>

int main(void)
{
#if defined(__aarch64__)
    uint64_t hz;
    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(hz));
    printf("%llu\n", (unsigned long long)hz);
    return hz > 0 ? 0 : 1;
#else
    fprintf(stderr, "cntfrq: this program is for AArch64 only\n");
    return 2;
#endif
}
