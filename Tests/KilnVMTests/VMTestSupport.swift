import KilnBytecode
@testable import KilnVM

/// A hand-built library with one function. Jump targets in `body` are relative to the body
/// (the helper relocates them); each range gets a final `ret`. Debug `lines` are
/// `(body-relative instruction, line)` pairs in file 0, `test.metal`.
struct TestProgram {
    var library: Library
    var prepared: PreparedFunction

    init(registers: UInt16, uniformRegisters: UInt16 = 0, constants: [UInt32] = [],
         prologue: [Instruction] = [], body: [Instruction], lines: [(Int, UInt32)] = [],
         sourceName: String = "test.metal") {
        let prologueCode = prologue + [Instruction(.ret)]
        let bodyStart = UInt32(prologueCode.count)
        let relocatedBody = body.map { instruction -> Instruction in
            var relocated = instruction
            switch instruction.opcode.shape {
            case .jump, .conditionalJump: relocated.imm += bodyStart
            default: break
            }
            return relocated
        }
        let code = prologueCode + relocatedBody + [Instruction(.ret)]
        let function = Function(
            name: "test", kind: .shape, parameters: [], returnTypeName: "float",
            registerCount: registers, uniformRegisterCount: uniformRegisters, uniformWordCount: 0,
            bufferCount: 0, textureCount: 0,
            prologue: 0..<bodyStart, body: bodyStart..<UInt32(code.count),
            inputs: [], outputs: [], discardRegister: nil, file: 0, line: 1, column: 1)
        let debug = lines.map { DebugLocation(firstInstruction: bodyStart + UInt32($0.0), file: 0, line: $0.1, column: 3) }
        library = Library(compilerVersion: "kiln test", sources: [SourceRecord(name: sourceName, sha256: Array(repeating: 0, count: 32))],
                          functions: [function], constants: constants, code: code, debugLocations: debug)
        prepared = PreparedFunction(library: library, functionIndex: 0)
    }

    /// Runs the body with `inputs` written into registers first; returns the executor.
    func run(_ inputs: [UInt16: [UInt32]] = [:], resources: DrawResources = DrawResources()) throws -> Executor {
        let executor = try Executor(prepared, resources: resources)
        for (register, values) in inputs {
            let lanes = executor.lanes(register)
            for l in 0..<laneCount { lanes[l] = values[l % values.count] }
        }
        try executor.run()
        return executor
    }
}

extension Executor {
    /// All lanes of a register as an array.
    func words(_ register: UInt16) -> [UInt32] { Array(UnsafeBufferPointer(start: lanes(register), count: laneCount)) }
    func floats(_ register: UInt16) -> [Float] { words(register).map { Float(bitPattern: $0) } }
}

func bits(_ values: [Float]) -> [UInt32] { values.map(\.bitPattern) }
func words(_ values: [Int32]) -> [UInt32] { values.map { UInt32(bitPattern: $0) } }

/// Runs one lane-wise opcode over the given operands (in registers 1, 2, 3) and returns
/// register 0 — for op tests.
func apply(_ opcode: Opcode, _ b: [UInt32], _ c: [UInt32] = [0], _ d: [UInt32] = [0]) throws -> [UInt32] {
    let program = TestProgram(registers: 4, body: [Instruction(opcode, a: 0, b: 1, c: 2, d: 3)])
    let executor = try program.run([1: b, 2: c, 3: d])
    let count = max(b.count, c.count, d.count)
    return Array(executor.words(0).prefix(count))
}

func applyFloat(_ opcode: Opcode, _ b: [Float], _ c: [Float] = [0], _ d: [Float] = [0]) throws -> [Float] {
    try apply(opcode, bits(b), bits(c), bits(d)).map { Float(bitPattern: $0) }
}

/// Bitwise float equality that treats all NaNs alike and distinguishes ±0.
func same(_ x: Float, _ y: Float) -> Bool {
    (x.isNaN && y.isNaN) || x.bitPattern == y.bitPattern
}
func same(_ x: [Float], _ y: [Float]) -> Bool {
    x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
}
