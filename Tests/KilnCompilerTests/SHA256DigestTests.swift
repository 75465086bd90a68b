import CKiln
import Foundation
import KilnTestSupport
import Testing
@testable import KilnCompiler

/// The compiler's own SHA-256 (library provenance, the server's cache key) against the
/// standard's test vectors and against OpenSSL's libcrypto.
@Suite struct SHA256DigestTests {
    /// FIPS 180-4 / NIST example messages and their digests.
    @Test func standardVectors() {
        let cases: [(String, String)] = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
             "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
            ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
             "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
        ]
        for useCPUExtensions in [true, false] {
            for (message, expected) in cases {
                #expect(SHA256Digest.hex(SHA256Digest.hash(Array(message.utf8), useCPUExtensions: useCPUExtensions)) == expected,
                        "\(message), CPU extensions \(useCPUExtensions)")
            }
            let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
            #expect(SHA256Digest.hex(SHA256Digest.hash(million, useCPUExtensions: useCPUExtensions))
                    == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        }
    }

    /// Every length from 0 to 300 bytes (every padding case: tails of 55, 56 and 63 bytes,
    /// whole blocks) and some longer ones, random bytes, against libcrypto — with the CPU's
    /// SHA instructions (where it has them) and with the portable rounds.
    @Test func agreesWithLibcrypto() {
        var random = SeededRandom(seed: 256)
        let lengths = Array(0...300) + [1000, 4095, 4096, 4097, 65_536 + 7]
        for length in lengths {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            var expected = [UInt8](repeating: 0, count: 32)
            bytes.withUnsafeBufferPointer { input in kiln_sha256(input.baseAddress, input.count, &expected) }
            #expect(SHA256Digest.hash(bytes) == expected, "length \(length)")
            #expect(SHA256Digest.hash(bytes, useCPUExtensions: false) == expected, "length \(length), portable")
        }
    }

    /// A CPU that has the SHA instructions gets them (else the hash is ten times slower
    /// and every test above still passes).
    @Test func theCPUsSHAInstructionsAreUsedWhereTheyExist() throws {
        #if arch(x86_64) && os(Linux)
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let flags = cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") } ?? ""
        let hasSHA = flags.split(separator: " ").contains("sha_ni")
        #expect(SHA256Digest.usesCPUExtensions == hasSHA)
        #endif
    }
}
