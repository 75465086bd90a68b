import CKilnSHA

/// SHA-256 (FIPS 180-4): library provenance and the server's compile cache key.
///
/// Written here rather than taken from OpenSSL's libcrypto so the compile path links no
/// shared library: a `kiln compile` process that loads libcrypto spends about 1.4 ms of
/// its start-up in the dynamic loader before any Swift code runs — more than compiling a
/// small shader (docs/benchmarks.md, "`kiln compile` in its own executable"). The blocks go
/// through the CPU's SHA instructions where it has them (`kiln_sha256_blocks`, C: 4 KB in
/// about 4 µs, as libcrypto), else through the portable rounds below (about 30 µs).
/// `SHA256DigestTests` checks both against the standard's test vectors and against
/// libcrypto on random inputs of every length up to a few blocks.
public enum SHA256Digest {
    /// The 32-byte digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        hash(bytes, useCPUExtensions: true)
    }

    /// The digest, with the CPU's SHA instructions only if `useCPUExtensions` (the tests
    /// check the portable rounds on CPUs that have them).
    static func hash(_ bytes: [UInt8], useCPUExtensions: Bool) -> [UInt8] {
        var state = initialState
        // The message schedule of the portable rounds, made only if they run.
        var block: [UInt32] = []
        let fullBlocks = bytes.count / 64
        /// Runs the compression function over `count` blocks at `input`.
        func blocks(_ input: UnsafeBufferPointer<UInt8>, count: Int) {
            guard count > 0 else { return }
            if useCPUExtensions,
               state.withUnsafeMutableBufferPointer({ kiln_sha256_blocks($0.baseAddress, input.baseAddress, count) }) != 0 {
                return
            }
            if block.isEmpty { block = [UInt32](repeating: 0, count: 64) }
            for index in 0..<count {
                compress(&state, UnsafeBufferPointer(rebasing: input[(index * 64)..<(index * 64 + 64)]), &block)
            }
        }
        bytes.withUnsafeBufferPointer { blocks($0, count: fullBlocks) }
        // The tail: the last partial block, the 0x80 marker, zeros, and the length in bits
        // (big-endian) — one block, or two when fewer than 9 bytes are free after the tail.
        // Written into a zeroed buffer of its final size, not appended byte by byte (the
        // server hashes every edit's files).
        let rest = bytes.count - fullBlocks * 64
        let tailCount = rest < 56 ? 64 : 128
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: tailCount) { tail in
            tail.initialize(repeating: 0)
            bytes.withUnsafeBufferPointer { source in
                for index in 0..<rest { tail[index] = source[fullBlocks * 64 + index] }
            }
            tail[rest] = 0x80
            let bitCount = UInt64(bytes.count) &* 8
            for index in 0..<8 {
                tail[tailCount - 1 - index] = UInt8(truncatingIfNeeded: bitCount >> UInt64(8 * index))
            }
            blocks(UnsafeBufferPointer(tail), count: tailCount / 64)
        }
        var digest = [UInt8]()
        digest.reserveCapacity(32)
        for word in state {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// Whether the blocks go through the CPU's SHA instructions on this machine.
    static var usesCPUExtensions: Bool {
        var state = [UInt32](repeating: 0, count: 8)
        return kiln_sha256_blocks(&state, nil, 0) != 0
    }

    /// Lowercase hexadecimal of a digest.
    public static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(digest.count * 2)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// H(0): the first 32 bits of the fractional parts of the square roots of the first 8 primes.
    private static let initialState: [UInt32] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]

    /// Rotates `x` right by `count` bits.
    @inline(__always)
    private static func rotr(_ x: UInt32, _ count: UInt32) -> UInt32 {
        (x >> count) | (x << (32 - count))
    }

    /// One 64-byte block into `state` (`schedule` is the 64-word message schedule, reused).
    private static func compress(_ state: inout [UInt32], _ block: UnsafeBufferPointer<UInt8>, _ schedule: inout [UInt32]) {
        schedule.withUnsafeMutableBufferPointer { w in
            for t in 0..<16 {
                w[t] = UInt32(block[4 * t]) << 24 | UInt32(block[4 * t + 1]) << 16
                    | UInt32(block[4 * t + 2]) << 8 | UInt32(block[4 * t + 3])
            }
            for t in 16..<64 {
                let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
                let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var a = state[0], b = state[1], c = state[2], d = state[3]
            var e = state[4], f = state[5], g = state[6], h = state[7]
            // K, the round constants: CKilnSHA's table, which the instructions' rounds use too.
            let k = kiln_sha256_round_constants()!
            for t in 0..<64 {
                let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                let choice = (e & f) ^ (~e & g)
                let t1 = h &+ s1 &+ choice &+ k[t] &+ w[t]
                let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ majority
                h = g; g = f; f = e; e = d &+ t1
                d = c; c = b; b = a; a = t1 &+ t2
            }
            state[0] &+= a; state[1] &+= b; state[2] &+= c; state[3] &+= d
            state[4] &+= e; state[5] &+= f; state[6] &+= g; state[7] &+= h
        }
    }
}
