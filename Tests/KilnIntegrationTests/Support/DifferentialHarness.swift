import KilnTestSupport
import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage
import KilnVM

/// Runs one shader two ways — compiled and executed by the VM over one batch of
/// `laneCount` lanes, and evaluated pixel by pixel by `ReferenceEvaluator` from
/// `Frontend.check`'s program — and reports every pixel where they disagree.
///
/// The entry must be `half4 f(float2 position, [half4 color,] float a, float b, float kf)`
/// (user arguments named `a`, `b`, `kf` are bound — `kf` to `Float(k)`, since SwiftUI has no
/// int arguments; others stay zero).
struct DifferentialHarness {
    /// The inputs of one batch.
    struct Inputs {
        var positions: [(Float, Float)]
        var colors: [[Float]]
        var a: Float
        var b: Float
        var k: Int32
        /// Values of further user arguments by name (components as floats), e.g. from
        /// the conformance manifest; they take precedence over the fixed names.
        var named: [String: [Float]] = [:]

        /// A deterministic batch: an 8×8 block of pixel centres at a seed-dependent place,
        /// with a few lanes replaced by extreme positions.
        static func make(seed: UInt64) -> Inputs {
            var random = SeededRandom(seed: seed ^ 0x5EED)
            let baseX = Float(random.below(300)) - 60, baseY = Float(random.below(300)) - 60
            var positions: [(Float, Float)] = []
            for lane in 0..<laneCount {
                let x: Float = baseX + Float(lane % 8) + 0.5
                let y: Float = baseY + Float(lane / 8) + 0.5
                positions.append((x, y))
            }
            let extremes: [(Float, Float)] = [(0.5, 0.5), (-0.0, 3e9), (1e30, -1e30), (2147483520, -2147483648),
                                              (7.5, 7.5), (-17.25, 100.75), (4294967040, 0.5)]
            for _ in 0..<4 { positions[random.below(laneCount)] = random.pick(extremes) }
            var colors: [[Float]] = []
            for lane in 0..<laneCount {
                let alpha: Float = lane % 7 == 0 ? 0 : 1
                colors.append([Float(lane % 5) * 0.25, Float(lane % 3) * 0.5, 0.125, alpha])
            }
            let specialsF: [Float] = [0, 1, -1, 0.5, 3.25, -7.75, 1e30, -1e-30, 1000, .infinity]
            let specialsK: [Int32] = [0, 1, -1, 3, 31, 32, 33, .min, .max, -5, 65536]
            return Inputs(positions: positions, colors: colors, a: random.pick(specialsF),
                          b: random.pick(specialsF), k: random.pick(specialsK))
        }
    }

    /// How the reference and the VM may differ in result component `i`.
    enum Tolerance {
        /// Bit-exact, except that any NaN equals any NaN and +0 equals −0.
        case exact
        /// For components fed by transcendental builtins: within `ulps` ulp or `absolute`.
        case approximate(ulps: Int, absolute: Float)
    }

    var source: String
    var isColorEffect: Bool
    var entryName = "f"
    var tolerances: [Tolerance] = [.exact, .exact, .exact, .exact]

    /// Every disagreement between the VM and the reference on `inputs`, as readable lines;
    /// a failing compile or check is reported as one line too.
    func mismatches(_ inputs: Inputs) -> [String] {
        let file = SourceFile(name: "generated.metal", text: source)
        let clock = ContinuousClock()
        var start = clock.now
        defer { Self.timing.reference += clock.now - start }
        let checked = Frontend.check(files: [file], mainFile: 0)
        guard let program = checked.program else {
            return ["Frontend.check rejected the program:\n" + DiagnosticRenderer.text(checked.diagnostics, files: [file])]
        }
        Self.timing.check += clock.now - start
        start = clock.now
        let compiled = Compiler.compile([file])
        Self.timing.compile += clock.now - start
        start = clock.now
        guard let library = compiled.library else {
            return ["Compiler.compile rejected the program:\n" + DiagnosticRenderer.text(compiled.diagnostics, files: [file])]
        }
        let vm: [[UInt32]]
        switch runVM(library, inputs) {
        case .success(let words): vm = words
        case .failure(let message): return ["VM failed: \(message)"]
        }
        Self.timing.vm += clock.now - start
        start = clock.now
        guard let entry = program.entries.first(where: { program.functions[$0.function].name == entryName }) else {
            return ["no entry \(entryName) in the checked program"]
        }
        let evaluator = ReferenceEvaluator(program: program)
        let function = program.functions[entry.function]
        var problems: [String] = []
        for lane in 0..<laneCount {
            var arguments: [ReferenceArgument] = []
            for (index, parameter) in function.parameters.enumerated() {
                if index >= entry.firstUserArgument, let values = inputs.named[parameter.name] {
                    arguments.append(.value(values.map { .float($0) }))
                    continue
                }
                switch parameter.name {
                case "position": arguments.append(.value([.float(inputs.positions[lane].0), .float(inputs.positions[lane].1)]))
                case "color": arguments.append(.value(inputs.colors[lane].map { .float($0) }))
                case "a": arguments.append(.value([.float(inputs.a)]))
                case "b": arguments.append(.value([.float(inputs.b)]))
                case "kf": arguments.append(.value([.float(Float(inputs.k))]))
                default: arguments.append(.value(evaluator.zero(parameter.type)))
                }
            }
            let expected: [ReferenceScalar]
            do {
                expected = try evaluator.call(function: entry.function, arguments: arguments)
            } catch {
                problems.append("reference failed at lane \(lane): \(error)")
                break
            }
            for component in 0..<min(expected.count, vm[lane].count) {
                let reference = expected[component].bits
                let actual = vm[lane][component]
                if !Self.agree(reference, actual, tolerances[min(component, tolerances.count - 1)]) {
                    let p = inputs.positions[lane]
                    problems.append("lane \(lane) position (\(p.0), \(p.1)) a=\(inputs.a) b=\(inputs.b) k=\(inputs.k) "
                                    + "result[\(component)]: reference \(Self.describe(reference)) VM \(Self.describe(actual))")
                }
            }
        }
        return problems
    }

    /// Where the time of the differential runs goes (printed by the random-program test).
    struct Timing: CustomStringConvertible {
        var check = Duration.zero, compile = Duration.zero, vm = Duration.zero, reference = Duration.zero
        var description: String { "check \(check), compile \(compile), VM \(vm), reference \(reference)" }
    }
    nonisolated(unsafe) static var timing = Timing()

    static func describe(_ bits: UInt32) -> String {
        "\(Float(bitPattern: bits)) (0x\(String(bits, radix: 16)))"
    }

    static func agree(_ reference: UInt32, _ actual: UInt32, _ tolerance: Tolerance) -> Bool {
        if reference == actual { return true }
        let r = Float(bitPattern: reference), a = Float(bitPattern: actual)
        if r.isNaN && a.isNaN { return true }
        if r == 0 && a == 0 { return true }
        switch tolerance {
        case .exact:
            return false
        case .approximate(let ulps, let absolute):
            if r.isNaN || a.isNaN || r.isInfinite || a.isInfinite { return false }
            if abs(r - a) <= absolute { return true }
            return abs(r - a) <= Float(ulps) * max(r.ulp, a.ulp)
        }
    }

    /// Compiles nothing: runs `library`'s entry `f` over one batch and returns the four
    /// result words of every lane.
    func runVM(_ library: Library, _ inputs: Inputs) -> Result<[[UInt32]], VMFailure> {
        guard let index = library.functions.firstIndex(where: { $0.name == entryName }) else {
            return .failure(VMFailure("no function \(entryName) in the library"))
        }
        let function = library.functions[index]
        var uniforms = [UInt32](repeating: 0, count: Int(function.uniformWordCount))
        for parameter in function.parameters {
            guard case .uniform(let word) = parameter.binding, Int(word) < uniforms.count else { continue }
            if let values = inputs.named[parameter.name] {
                for (offset, value) in values.enumerated() where Int(word) + offset < uniforms.count {
                    uniforms[Int(word) + offset] = value.bitPattern
                }
                continue
            }
            switch parameter.name {
            case "a": uniforms[Int(word)] = inputs.a.bitPattern
            case "b": uniforms[Int(word)] = inputs.b.bitPattern
            case "kf": uniforms[Int(word)] = Float(inputs.k).bitPattern
            default: break
            }
        }
        do {
            let prepared = PreparedFunction(library: library, functionIndex: index)
            let executor = try Executor(prepared, resources: DrawResources(uniforms: uniforms))
            for slot in function.inputs {
                switch slot.name {
                case "position":
                    let x = executor.floatLanes(slot.register), y = executor.floatLanes(slot.register + 1)
                    for lane in 0..<laneCount { x[lane] = inputs.positions[lane].0; y[lane] = inputs.positions[lane].1 }
                case "color":
                    for component in 0..<4 {
                        let lanes = executor.floatLanes(slot.register + UInt16(component))
                        for lane in 0..<laneCount { lanes[lane] = inputs.colors[lane][component] }
                    }
                default:
                    return .failure(VMFailure("unexpected input slot \(slot.name)"))
                }
            }
            try executor.run()
            guard let result = function.outputs.first(where: { $0.name == "result" }) ?? function.outputs.first else {
                return .failure(VMFailure("no result output"))
            }
            let registers = (0..<result.type.componentCount).map { executor.lanes(result.register + UInt16($0)) }
            return .success((0..<laneCount).map { lane in registers.map { $0[lane] } })
        } catch {
            return .failure(VMFailure("\(error)"))
        }
    }

    struct VMFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
