// The x86-64 level the `kiln` executable was built for, checked before main().
#ifndef KILN_CPU_LEVEL_H
#define KILN_CPU_LEVEL_H

/// "x86-64-v4" or "x86-64-v3" when built with `make` (AVX-512, or AVX2 + FMA; README "CPU level"),
/// "portable" for a baseline build.
const char *kiln_cpu_level(void);

#endif
