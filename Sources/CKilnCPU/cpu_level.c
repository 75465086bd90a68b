// Refuses to start a build for a newer CPU than the one it runs on, with a message that
// says what to do, instead of dying of SIGILL at the first AVX2 or AVX-512 instruction.
//
// The Swift modules of an x86-64-v3 or -v4 build (`-Xswiftc -target-cpu …`) may use the
// level's instructions anywhere, even in `main`'s first lines, so the check runs as a
// constructor, before any Swift code, from this C file, which is always compiled for the
// baseline. The Makefile defines KILN_REQUIRE_X86_64_V3 or KILN_REQUIRE_X86_64_V4 (`-Xcc`)
// for exactly the builds it targets.
#include "cpu_level.h"
#include <stdio.h>
#include <stdlib.h>

#if defined(KILN_REQUIRE_X86_64_V4) && defined(__x86_64__)
#define KILN_LEVEL "x86-64-v4"
#define KILN_LEVEL_NEEDS "AVX-512 F, BW, CD, DQ and VL; Intel Skylake-SP / AMD Zen 4 and later"
#define KILN_LEVEL_ADVICE "make run CPU_LEVEL=v3 (AVX2) or PORTABLE=1"
#elif defined(KILN_REQUIRE_X86_64_V3) && defined(__x86_64__)
#define KILN_LEVEL "x86-64-v3"
#define KILN_LEVEL_NEEDS "AVX2, FMA, BMI2; Intel Haswell / AMD Excavator and later"
#define KILN_LEVEL_ADVICE "make run PORTABLE=1"
#endif

#ifdef KILN_LEVEL
__attribute__((constructor)) static void kiln_require_cpu_level(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports(KILN_LEVEL)) {
        fputs("kiln: this build is for " KILN_LEVEL " CPUs (" KILN_LEVEL_NEEDS ") and this CPU "
              "is older.\n"
              "kiln: build one for it instead: " KILN_LEVEL_ADVICE " (README.md, \"CPU level\").\n", stderr);
        exit(70);   // EX_SOFTWARE
    }
}
const char *kiln_cpu_level(void) { return KILN_LEVEL; }
#else
const char *kiln_cpu_level(void) { return "portable"; }
#endif
