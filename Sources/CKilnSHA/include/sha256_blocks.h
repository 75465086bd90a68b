#ifndef KILN_SHA256_BLOCKS_H
#define KILN_SHA256_BLOCKS_H

#include <stdint.h>
#include <stddef.h>

/// Runs SHA-256's compression function over `count` 64-byte blocks at `blocks`, updating
/// `state` (the eight working words H0…H7), with the CPU's SHA extensions. Returns 0 and
/// leaves `state` alone when this CPU has none (or is not x86-64): the caller then does
/// the blocks itself.
int kiln_sha256_blocks(uint32_t state[8], const uint8_t *blocks, size_t count);

/// K, SHA-256's 64 round constants (the first 32 bits of the fractional parts of the cube
/// roots of the first 64 primes): one table for these instructions and the Swift rounds.
const uint32_t *kiln_sha256_round_constants(void);

#endif
