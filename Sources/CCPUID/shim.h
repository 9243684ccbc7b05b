// The CPU's feature registers, for choosing kernels at run time, and the process's CPU affinity,
// for sizing the compute pool. `cpuid` and `xgetbv` are single instructions that Swift cannot emit
// (no inline assembly) and `CPU_COUNT` is a macro, so they live in these inline functions, compiled
// by Swift's C importer; nothing is linked.
#ifndef SOTTO_CCPUID_SHIM_H
#define SOTTO_CCPUID_SHIM_H

#include <stdint.h>

#if defined(__linux__)
#include <stddef.h>
#include <sys/types.h>

// glibc declares this only under _GNU_SOURCE, which the precompiled system module lacks.
extern int sched_getaffinity(pid_t pid, size_t size, void *mask);

/// CPUs in this process's affinity mask, or 0 when it cannot be read.
static inline int sotto_affinity_count(void) {
    unsigned long long mask[16] = {0};  // 1,024 CPUs
    if (sched_getaffinity(0, sizeof(mask), mask) != 0) { return 0; }
    int count = 0;
    for (int i = 0; i < 16; i++) { count += __builtin_popcountll(mask[i]); }
    return count;
}
#endif

#if defined(__x86_64__)
#include <cpuid.h>

/// Registers of `cpuid` leaf `leaf`, sub-leaf `subleaf`; all zero when the leaf is beyond the
/// CPU's highest one.
static inline void sotto_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t registers[4]) {
    unsigned int a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(leaf, subleaf, &a, &b, &c, &d)) { a = b = c = d = 0; }
    registers[0] = a;
    registers[1] = b;
    registers[2] = c;
    registers[3] = d;
}

/// XCR0: which register states the operating system saves and restores (bit 1 SSE, 2 AVX,
/// 5–7 AVX-512). Only valid when `cpuid` leaf 1 reports OSXSAVE (ECX bit 27).
static inline uint64_t sotto_xgetbv0(void) {
    uint32_t low, high;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    return ((uint64_t)high << 32) | low;
}
#endif

#endif
