@testable import KilnBytecode
import Testing

/// The optional `DVAR` section (format 1.1): it round-trips exactly, sits after the six
/// required sections, is absent when there is no debug info, and its indexes are verified.
@Suite("DVAR section") struct DebugInfoSectionTests {
    /// `combined` with a small debug table over its first function's body.
    static var library: Library {
        var library = TestLibraries.combined
        let body = library.functions[0].body
        let first = body.lowerBound, last = body.upperBound - 1
        library.debugInfo = DebugInfo(
            activations: [DebugActivation(function: "wave", depth: 0, file: 0, line: 3),
                          DebugActivation(function: "helper", depth: 1, file: 0, line: 7)],
            variables: [DebugVariable(name: "p", typeName: "float2", activation: 0, line: 3,
                                      components: [.init(label: "x", scalar: .float), .init(label: "y", scalar: .float)]),
                        DebugVariable(name: "n", typeName: "int", activation: 1, line: 8, components: [.init(label: "", scalar: .int)])],
            values: [DebugValue(register: 0, definitions: []), DebugValue(register: 1, definitions: [first, first + 1])],
            events: [
                DebugEvent(instruction: first, fallthroughOnly: false, kind: .statement(activation: 0, file: 0, line: 4, column: 5, mask: nil)),
                DebugEvent(instruction: first, fallthroughOnly: true, kind: .loopStart(loop: 0)),
                DebugEvent(instruction: first + 1, fallthroughOnly: false, kind: .iteration(loop: 0, mask: 1)),
                DebugEvent(instruction: first + 1, fallthroughOnly: false, kind: .bind(variable: 0, components: [0, nil])),
                DebugEvent(instruction: last, fallthroughOnly: false, kind: .loopEnd(loop: 0)),
                DebugEvent(instruction: last, fallthroughOnly: false, kind: .statement(activation: 1, file: 0, line: 9, column: 1, mask: 1)),
            ])
        return library
    }

    @Test func roundTripsAndComesLast() throws {
        let library = Self.library
        let bytes = LibraryWriter.encode(library)
        let decoded = try LibraryReader.decode(bytes)
        #expect(decoded == library)
        #expect(LibraryWriter.encode(decoded) == bytes)
        let surgery = ByteSurgery(library)
        #expect(surgery.sectionCount == 7)
        #expect(LibraryFormat.fourCharacterName(surgery.u32(at: 20 + 12 * 6)) == "DVAR")
        #expect(ByteSurgery(TestLibraries.combined).sectionCount == 6)
    }

    @Test func eventsAreFoundByInstruction() {
        let info = Self.library.debugInfo
        let first = Int(Self.library.functions[0].body.lowerBound)
        #expect(info.events(in: first..<first + 1).count == 2)
        #expect(info.events(in: first + 1..<first + 2).count == 2)
        #expect(info.events(in: 0..<first).isEmpty)
    }

    @Test func brokenIndexesAreRejected() {
        func rejects(_ change: (inout DebugInfo) -> Void) -> Bool {
            var library = Self.library
            change(&library.debugInfo)
            do { _ = try LibraryReader.decode(LibraryWriter.encode(library)); return false } catch { return true }
        }
        #expect(rejects { $0.events[3].kind = .bind(variable: 9, components: [0, 0]) })
        #expect(rejects { $0.events[3].kind = .bind(variable: 0, components: [0]) })
        #expect(rejects { $0.events[2].kind = .iteration(loop: 0, mask: 5) })
        #expect(rejects { $0.events[0].instruction = 1_000_000 })
        #expect(rejects { $0.events.swapAt(0, 5) })
        #expect(rejects { $0.values[1].definitions = [999_999] })
        #expect(rejects { $0.variables[1].activation = 2 })
        #expect(!rejects { _ in })
    }

    @Test func truncatedSectionsAreErrorsNotCrashes() {
        let bytes = LibraryWriter.encode(Self.library)
        let surgery = ByteSurgery(Self.library)
        let entry = surgery.entry(.variables)
        let length = Int(surgery.u32(at: entry + 8))
        for cut in stride(from: 1, to: length, by: 3) {
            var broken = surgery
            broken.setU32(UInt32(length - cut), at: entry + 8)
            #expect(throws: LibraryError.self) { _ = try LibraryReader.decode(broken.bytes) }
        }
        #expect(bytes.count > 0)
    }
}
