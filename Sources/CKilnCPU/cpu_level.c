// Refuses to start a build for a newer CPU than the one it runs on, with a message that
// says what to do, instead of dying of SIGILL at the first AVX2 instruction.
//
// The Swift modules of an x86-64-v3 build (`-Xswiftc -target-cpu -Xswiftc x86-64-v3`) may
// use AVX2/FMA anywhere, even in `main`'s first lines, so the check runs as a constructor,
// before any Swift code, from this C file, which is always compiled for the baseline. The
// Makefile defines KILN_REQUIRE_X86_64_V3 (`-Xcc`) for exactly the builds it targets.
#include "cpu_level.h"
#include <stdio.h>
#include <stdlib.h>

#if defined(KILN_REQUIRE_X86_64_V3) && defined(__x86_64__)
__attribute__((constructor)) static void kiln_require_cpu_level(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("x86-64-v3")) {
        fputs("kiln: this build is for x86-64-v3 CPUs (AVX2, FMA, BMI2; Intel Haswell / AMD Excavator "
              "and later) and this CPU is older.\n"
              "kiln: build the portable one instead: make run PORTABLE=1 (README.md, \"CPU level\").\n", stderr);
        exit(70);   // EX_SOFTWARE
    }
}
const char *kiln_cpu_level(void) { return "x86-64-v3"; }
#else
const char *kiln_cpu_level(void) { return "portable"; }
#endif
