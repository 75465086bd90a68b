import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage
import Testing
@testable import KilnVM

/// How `PreparedFunction` flags uniform instructions: scalar where `UniformityAnalysis`
/// proves them uniform, broadcast only where a lane-wide reader may see the result.
/// The shaders are compiled with loops kept as loops (`maxUnrolledIterations: 0`): unrolled,
/// raymarch's per-sphere constants move to the prologue and leave nothing to scalarize,
/// but loops beyond the unrolling limits still carry uniform work like this.
@Suite struct UniformBroadcastTests {
    static func prepared(_ file: String, uniformExecution: Bool = true) throws -> PreparedFunction {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("bench/\(file)")
        let result = Compiler.compile([SourceFile(name: file, text: try String(contentsOf: url, encoding: .utf8))],
                                      options: CompileOptions(maxUnrolledIterations: 0))
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

    /// The executor runs back-to-back scalar instructions in one call: each scalar
    /// instruction of the run body knows how many follow in its block and their summed cost,
    /// so the work and instruction counts stay those of the instructions one by one.
    @Test func scalarRunsStayInsideTheirBlockAndCarryTheirCost() throws {
        let prepared = try Self.prepared("raymarch.metal")
        let code = Array(prepared.library.code[Int(prepared.function.body.lowerBound)..<Int(prepared.function.body.upperBound)])
        let starts = Set(BasicBlocks(code[...], start: prepared.bodyStart).starts)
        var longest = 0
        for (index, head) in prepared.runBody.enumerated() where head.isScalar {
            let run = Int(head.scalarRun)
            longest = max(longest, run)
            // Runs are marked on `runBody`, whose order `PairScheduling` may change in a block.
            let members = prepared.runBody[index..<(index + run)]
            #expect(members.allSatisfy { $0.isScalar })
            #expect(members.dropFirst().indices.allSatisfy { !starts.contains($0) }, "run at \(index) crosses a block start")
            // (`runBody` carries the run's sum on each member: count each one's own cost.)
            #expect(Int(head.cost) == members.reduce(0) { $0 + Int(PreparedFunction.scalarCost($1.opcode)) })
            if index + run < prepared.runBody.count, !starts.contains(index + run) {
                #expect(!prepared.runBody[index + run].isScalar, "run at \(index) stops early")
            }
        }
        #expect(longest >= 5)
        #expect(prepared.body.allSatisfy { $0.scalarRun == 1 })
        // The run length and the fusion byte live in what was padding: the hot loop's
        // instruction fetch did not grow.
        #expect(MemoryLayout<PreparedInstruction>.stride == 28)
    }

    @Test func withoutUniformExecutionNothingIsScalar() throws {
        let prepared = try Self.prepared("raymarch.metal", uniformExecution: false)
        let scalar = prepared.body.filter { $0.isScalar }
        #expect(scalar.isEmpty)
        #expect(prepared.uniformInstructionCount > 50)
    }
}

/// The dataflow passes behind uniform execution are bounded: a library the verifier
/// accepts can have 2²⁰ instructions, 8192 registers and a block every other instruction,
/// which would otherwise cost gigabytes of per-block register sets and minutes of
/// iteration — on every frame, since draws prepare their functions.
@Suite struct UniformityBoundTests {
    /// Registers 0..<64 come from the prologue (uniform); the body alternates a jump (a new
    /// block) with an `fadd` among those registers (uniform, so scalar when analysed) and
    /// touches the highest register so the sets are `registers` wide.
    static func manyBlocks(count: Int, registers: UInt16) -> TestProgram {
        let prologue = (0..<64).map { Instruction(.const, a: UInt16($0), imm: 0) }
        var body: [Instruction] = [Instruction(.mov, a: registers - 1, b: 0)]
        for k in 1..<count {
            let r = UInt16(k % 64)
            body.append(k % 2 == 0 ? Instruction(.jnz, a: r, imm: UInt32(min(k + 2, count)))
                                   : Instruction(.fadd, a: r, b: UInt16((k * 7) % 64), c: r))
        }
        return TestProgram(registers: registers, constants: [0], prologue: prologue, body: body)
    }

    @Test func hugeLibrariesFallBackToLaneWideExecution() throws {
        let clock = ContinuousClock()
        var program: TestProgram?
        let elapsed = clock.measure { program = Self.manyBlocks(count: 400_000, registers: 8192) }
        // A hang guard (debug builds are slow), not a speed assertion.
        #expect(elapsed < .seconds(60))
        let prepared = try #require(program?.prepared)
        #expect(!prepared.body.contains { $0.isScalar })
        _ = try program!.run()
    }

    @Test func moderateLibrariesAreStillAnalysed() throws {
        // 2,000 blocks of 8192 registers: under both bounds, so the fadds are found uniform.
        let program = Self.manyBlocks(count: 4_000, registers: 8192)
        let analysis = UniformityAnalysis(library: program.library, function: program.library.functions[0])
        #expect(analysis.uniform.count == program.library.functions[0].body.count)
        #expect(analysis.uniformCount > 1_000)
        #expect(program.prepared.body.contains { $0.isScalar })
    }
}
