// Keeps glibc's malloc from giving large blocks back to the kernel between compiles.
//
// A compile allocates a few blocks of 128 KB to 1 MB (value numbering's table, the
// instruction arrays of an unrolled shader) and frees them at the end. With glibc's
// defaults such a block is mapped fresh (at or above the 128 KB mmap threshold) or trimmed
// off the top of the heap when freed, so the next compile takes a page fault for every
// 4 KB it touches again: about 60 faults a compile, 6 % of an art shader's compile time
// (system time 0.17–0.24 s → 0.01 s over 1 200 compiles of starfield, torus, raymarch and
// sdf2d; docs/compiler.md "Memory the compiler reuses"). Blocks below
// `KILN_MALLOC_MMAP_THRESHOLD` come from the heap, and up to `KILN_MALLOC_TRIM_THRESHOLD`
// of free memory stays at the top of each arena for the next compile or frame.
//
// It matters where glibc's malloc serves the process: `kiln` (static) and the test
// binaries. `kiln-cli` — the server and the benchmarks — allocates with mimalloc, linked
// ahead of libc (Package.swift, `fastAllocator`), and these settings change nothing there.
//
// A constructor, like the CPU check beside it, so it holds before any Swift code
// allocates. A user's own `GLIBC_TUNABLES` malloc settings win: then nothing is changed.
#include <stdlib.h>    // first: it defines __GLIBC__ on glibc systems
#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <string.h>

/// Allocations at or above this size are mapped on their own (and unmapped when freed).
#define KILN_MALLOC_MMAP_THRESHOLD (8 << 20)
/// Free memory at the top of an arena beyond this is returned to the kernel.
#define KILN_MALLOC_TRIM_THRESHOLD (16 << 20)

__attribute__((constructor)) static void kiln_tune_malloc(void) {
    const char *tunables = getenv("GLIBC_TUNABLES");
    if (tunables && strstr(tunables, "glibc.malloc.")) return;
    mallopt(M_MMAP_THRESHOLD, KILN_MALLOC_MMAP_THRESHOLD);
    mallopt(M_TRIM_THRESHOLD, KILN_MALLOC_TRIM_THRESHOLD);
}
#endif
