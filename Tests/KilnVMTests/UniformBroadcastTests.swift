import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage
import Testing
@testable import KilnVM

/// How `PreparedFunction` flags uniform instructions: scalar where `UniformityAnalysis`
/// proves them uniform, broadcast only where a lane-wide reader may see the result.
@Suite struct UniformBroadcastTests {
    static func prepared(_ file: String, uniformExecution: Bool = true) throws -> PreparedFunction {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("bench/\(file)")
        let result = Compiler.compile([SourceFile(name: file, text: try String(contentsOf: url, encoding: .utf8))])
        let library = try #require(result.library)
        return PreparedFunction(library: library, functionIndex: 0, uniformExecution: uniformExecution)
    }

    @Test func raymarchKeepsSphereCentresScalarAndBroadcastsWhatPixelsRead() throws {
        let prepared = try Self.prepared("raymarch.metal")
        let scalar = prepared.body.filter { $0.isScalar }
        #expect(scalar.count > 50)
        // The trig of the sphere centres is only read by more uniform arithmetic...
        #expect(scalar.contains { ($0.opcode == .fsin || $0.opcode == .fcos) && !$0.broadcasts })
        // ...whose end result (the centre) meets the varying ray position: broadcast.
        #expect(scalar.contains { $0.broadcasts })
        // That nothing lane-wide ever reads a lane-0-only value is what
        // UniformExecutionTests checks, pixel for pixel, on every bench and conformance shader.
    }

    @Test func withoutUniformExecutionNothingIsScalar() throws {
        let prepared = try Self.prepared("raymarch.metal", uniformExecution: false)
        let scalar = prepared.body.filter { $0.isScalar }
        #expect(scalar.isEmpty)
        #expect(prepared.uniformInstructionCount > 50)
    }
}
