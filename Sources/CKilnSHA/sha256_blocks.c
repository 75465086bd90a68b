// SHA-256's compression function on the x86 SHA extensions (SHA-NI: Intel since Ice Lake
// and Goldmont, AMD since Zen), for KilnCompiler's `SHA256Digest`. Why C: Swift has no
// way to call these instructions, and they hash about ten times as fast as the portable
// Swift rounds (the server hashes every edit's source twice: the compile cache's key and
// the library's provenance). Compiled for the baseline with the instructions enabled on
// this one function, and used only when CPUID says they are there.
#include "sha256_blocks.h"

// K: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

const uint32_t *kiln_sha256_round_constants(void) { return round_constants; }

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

/// Whether the CPU has the SHA extensions (CPUID leaf 7, EBX bit 29) and SSE4.1 (leaf 1,
/// ECX bit 19), which the state shuffles use.
static int has_sha_extensions(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 19))) return 0;
    if (__get_cpuid_max(0, 0) < 7) return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b & (1u << 29)) != 0;
}

__attribute__((target("sha,sse4.1,ssse3")))
static void blocks_with_sha_extensions(uint32_t state[8], const uint8_t *data, size_t count) {
    // Big-endian words from the message bytes.
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    // The instructions keep the state as ABEF and CDGH.
    __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);

    for (; count > 0; count--, data += 64) {
        const __m128i abef_before = abef, cdgh_before = cdgh;
        // The message schedule, four words at a time, in a ring of four: group g of
        // words is in w[g % 4].
        __m128i w[4];
        for (int g = 0; g < 16; g++) {
            if (g < 4) {
                w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * g)), byte_swap);
            }
            __m128i words = _mm_add_epi32(w[g & 3], _mm_loadu_si128((const __m128i *)&round_constants[4 * g]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, words);
            if (g >= 3 && g <= 14) {
                // Group g + 1 = σ-mix of groups g − 3 (already through msg1 with g − 2),
                // g − 1 and g.
                __m128i next = _mm_add_epi32(w[(g + 1) & 3], _mm_alignr_epi8(w[g & 3], w[(g - 1) & 3], 4));
                w[(g + 1) & 3] = _mm_sha256msg2_epu32(next, w[g & 3]);
            }
            words = _mm_shuffle_epi32(words, 0x0E);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, words);
            if (g >= 1 && g <= 12) {
                // The first half of group g + 3's schedule, from groups g − 1 and g.
                w[(g - 1) & 3] = _mm_sha256msg1_epu32(w[(g - 1) & 3], w[g & 3]);
            }
        }
        abef = _mm_add_epi32(abef, abef_before);
        cdgh = _mm_add_epi32(cdgh, cdgh_before);
    }

    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

int kiln_sha256_blocks(uint32_t state[8], const uint8_t *blocks, size_t count) {
    // Asked once; 0 = not yet known. Two threads asking at once both ask CPUID and store
    // the same answer (relaxed atomics: nothing else is published through it).
    static int available = 0;
    int known = __atomic_load_n(&available, __ATOMIC_RELAXED);
    if (known == 0) {
        known = has_sha_extensions() ? 1 : -1;
        __atomic_store_n(&available, known, __ATOMIC_RELAXED);
    }
    if (known < 0) return 0;
    blocks_with_sha_extensions(state, blocks, count);
    return 1;
}

#else

int kiln_sha256_blocks(uint32_t state[8], const uint8_t *blocks, size_t count) {
    (void)state; (void)blocks; (void)count;
    return 0;
}

#endif
