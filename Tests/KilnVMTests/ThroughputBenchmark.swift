import Testing
import Foundation
import KilnBytecode
@testable import KilnVM

/// Raw VM throughput, measured and printed, never asserted (timings depend on the machine
/// and on what else runs). Off by default because a debug build measures nothing useful:
/// `KILN_VM_BENCHMARK=1 swift test -c release -Xswiftc -enable-testing --filter ThroughputBenchmark`.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["KILN_VM_BENCHMARK"] != nil))
struct ThroughputBenchmark {
    static let lanes = 1 << 20

    /// CPU time of this thread: the machine is shared, so wall-clock time would mostly
    /// measure other processes.
    static func threadNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Runs `body` over 2²⁰ lanes (16 384 batches) on one thread, refreshing the input
    /// registers 0 and 1 per batch like a renderer would; prints Mlanes/s of thread CPU time.
    static func measure(_ name: String, body: [Instruction], constants: [UInt32] = [], registers: UInt16,
                        resources: DrawResources = DrawResources()) throws {
        let program = TestProgram(registers: registers, constants: constants, body: body)
        let executor = try Executor(program.prepared, resources: resources)
        let x = executor.floatLanes(0), y = executor.floatLanes(1)
        var best = Double.infinity
        for _ in 0..<3 {
            let start = threadNanoseconds()
            for batch in 0..<(lanes / laneCount) {
                for l in 0..<laneCount {
                    x[l] = Float(l) + 0.5
                    y[l] = Float(batch & 127) + 0.5
                }
                try executor.run()
            }
            best = min(best, Double(threadNanoseconds() - start) * 1e-9)
        }
        let mlanes = Double(lanes) / best / 1e6
        let perInstruction = best * 1e9 / Double(lanes) / Double(body.count)
        print("vm throughput: \(name): \(String(format: "%.1f", mlanes)) Mlanes/s, "
              + "\(String(format: "%.3f", perInstruction)) ns per lane-instruction (\(body.count) instructions)")
    }

    @Test func floatArithmetic() throws {
        let ops: [Opcode] = [.fadd, .fmul, .fsub, .fmax, .fmin]
        var body: [Instruction] = [Instruction(.const, a: 2, imm: 0)]
        for k in 0..<19 {
            body.append(Instruction(ops[k % ops.count], a: UInt16(3 + k % 4), b: UInt16(k % 3), c: UInt16(2 + (k + 1) % 3)))
        }
        try Self.measure("20 float ops", body: body, constants: [Float(1.25).bitPattern], registers: 8)
    }

    @Test func transcendental() throws {
        let body: [Instruction] = [
            Instruction(.fsin, a: 2, b: 0), Instruction(.fcos, a: 3, b: 1), Instruction(.fexp, a: 4, b: 2),
            Instruction(.flog, a: 5, b: 4), Instruction(.fpow, a: 6, b: 4, c: 3), Instruction(.fatan2, a: 7, b: 2, c: 3),
        ]
        try Self.measure("sin cos exp log pow atan2", body: body, registers: 8)
    }

    @Test func bilinearSampling() throws {
        let texture = Texture(width: 128, height: 128, pixels: (0..<(128 * 128 * 4)).map { Float($0 % 97) / 97 })
        let body = [Instruction(.sample, a: 2, b: 0, c: 1, imm: 0, mode: SampleMode.layer.rawValue)]
        try Self.measure("layer.sample (bilinear, zero border)", body: body, registers: 6,
                         resources: DrawResources(textures: [texture]))
        let wave: [Instruction] = [
            Instruction(.fsin, a: 2, b: 0), Instruction(.fadd, a: 3, b: 1, c: 2),
            Instruction(.sample, a: 4, b: 0, c: 3, imm: 0, mode: SampleMode.layer.rawValue),
        ]
        try Self.measure("wave-like (sin + add + sample)", body: wave, registers: 8,
                         resources: DrawResources(textures: [texture]))
    }
}
