import Foundation
import KilnTestSupport
import Testing
@testable import KilnBytecode


@Suite("Random mutations of encoded libraries")
struct MutationTests {
    /// One random corruption: flips, inserts, deletes, 0xFF runs, and u32 fields set to huge
    /// or boundary values (the values most likely to slip past a careless bounds check).
    static func mutate(_ bytes: inout [UInt8], _ rng: inout SeededRandom) {
        guard !bytes.isEmpty else { return }
        let at = Int.random(in: 0..<bytes.count, using: &rng)
        switch Int.random(in: 0..<7, using: &rng) {
        case 0:
            bytes[at] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &rng)
        case 1:
            let count = Int.random(in: 1...8, using: &rng)
            bytes.insert(contentsOf: (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }, at: at)
        case 2:
            let count = min(Int.random(in: 1...16, using: &rng), bytes.count - at)
            bytes.removeSubrange(at..<at + count)
        case 3:
            let count = min(Int.random(in: 1...8, using: &rng), bytes.count - at)
            for i in at..<at + count { bytes[i] = 0xFF }
        case 4, 5:
            let values: [UInt32] = [0, 1, 2, 3, 4, 15, 16, 255, 0xFFFF, 0x1_0000, 0x7FFF_FFFF, 0x8000_0000,
                                    0xFFFF_FFF0, 0xFFFF_FFFE, 0xFFFF_FFFF, UInt32.random(in: 0...UInt32.max, using: &rng)]
            let value = values.randomElement(using: &rng)!
            // Aligned half the time: most fields of the format sit at 4-byte offsets.
            let start = Bool.random(using: &rng) ? at & ~3 : at
            for i in 0..<4 where start + i < bytes.count {
                bytes[start + i] = UInt8(truncatingIfNeeded: value >> UInt32(8 * i))
            }
        default:
            bytes[at] = UInt8.random(in: 0...255, using: &rng)
        }
    }

    @Test("6,000 mutations: a verified library or a LibraryError, never a crash")
    func mutations() throws {
        var rng = SeededRandom(state: 0x4B49_4C4E)
        var accepted = 0, rejected = 0
        let originals = TestLibraries.all.map { LibraryWriter.encode($0.1) }
        let clock = ContinuousClock()
        let start = clock.now
        for round in 0..<6_000 {
            var bytes = originals[round % originals.count]
            for _ in 0..<Int.random(in: 1...3, using: &rng) { Self.mutate(&bytes, &rng) }
            let library: Library
            do {
                library = try LibraryReader.decode(bytes)
            } catch {
                // `decode` throws only `LibraryError` (typed throws): a rejection, never a crash.
                rejected += 1
                continue
            }
            accepted += 1
            // What the reader accepts must verify as a value and survive a round trip.
            #expect(throws: Never.self, "round \(round)") { try Verifier.verify(library) }
            #expect(try LibraryReader.decode(LibraryWriter.encode(library)) == library, "round \(round)")
            _ = Disassembler.disassemble(library)
        }
        let elapsed = clock.now - start
        if ProcessInfo.processInfo.environment["KILN_MUTATION_STATS"] == "1" {
            print("mutations: \(accepted) accepted, \(rejected) rejected in \(elapsed)")
        }
        // Both outcomes must occur, or the mutations are not exercising the reader.
        #expect(accepted > 100, "accepted \(accepted)")
        #expect(rejected > 1_000, "rejected \(rejected)")
        #expect(elapsed < .seconds(10), "took \(elapsed)")
    }
}
