import KilnBytecode
import KilnVM

/// "Why is this pixel that colour?": runs the batch that holds one pixel exactly as a frame
/// does, records that pixel's lane (`Executor.trace`) and reads the trace back through the
/// library's `DebugInfo` into source-level steps — statements with their line, whether the
/// pixel's lane ran them, loop iteration numbers, inlined calls, and the values of source
/// variables as they change. The final colour is the frame's own bytes for that pixel, so
/// the answer cannot disagree with the picture.
public enum PixelDebugger {
    /// Bounds on one trace (`kiln debug --max-steps`, the server's `--max-trace-steps`).
    public struct Limits: Sendable {
        /// Instructions recorded; a longer run finishes unrecorded and the report says so.
        public var maxSteps: Int
        /// Statements in the report (what a client receives: about 150 bytes of JSON each).
        public var maxReportSteps: Int

        public init(maxSteps: Int = 50_000, maxReportSteps: Int = 10_000) {
            self.maxSteps = maxSteps
            self.maxReportSteps = maxReportSteps
        }
    }

    /// Traces pixel (`x`, `y`) of the frame `request` renders.
    public static func debug(_ request: RenderRequest, x: Int, y: Int, limits: Limits = Limits()) throws(RenderError) -> PixelDebugReport {
        var request = request
        request.sampleStride = 1
        request.threads = 1
        guard let index = request.library.functions.firstIndex(where: { $0.name == request.functionName }) else {
            throw RenderError("no function '\(request.functionName)' in the library")
        }
        let function = request.library.functions[index]
        guard Renderer.hasCoarseFrames(function.kind) else {
            throw RenderError("the debugger traces full-frame functions (stitchable effects and fragment passes); '\(function.name)' is a \(function.kind.name) function")
        }
        let draw = try EffectDraw(request: request, functionIndex: index)
        let (trace, lane, pixel, result) = try draw.trace(x: x, y: y, maxSteps: max(1, limits.maxSteps))
        var report = Timeline(library: request.library, function: function, maxSteps: max(1, limits.maxReportSteps)).read(trace)
        report.function = function.name
        report.x = x
        report.y = y
        report.width = draw.width
        report.height = draw.height
        report.lane = lane
        report.pixel = pixel
        report.result = result
        report.executed = trace.executed
        report.truncated = report.truncated || trace.truncated
        if let failure = trace.failure {
            // No pixel: the frame fails here too. The steps show the loop running away.
            report.failure = Renderer.describe(failure, library: request.library).message
            report.pixel = []
            report.result = []
        }
        return report
    }
}

/// A pixel's run as source-level steps (`PixelDebugger.debug`). Encodes to the JSON of
/// `kiln debug --json` and the WebSocket's `debug` reply (`docs/protocol.md`).
public struct PixelDebugReport: Encodable, Sendable {
    public var function = ""
    public var x = 0, y = 0, width = 0, height = 0
    /// The lane of the batch the pixel ran in.
    public var lane = 0
    /// The frame's premultiplied RGBA8 bytes at the pixel.
    public var pixel: [UInt8] = []
    /// The function's result in that lane before quantization (a distortion: the position read).
    public var result: [Float] = []
    /// Instructions the batch executed (each over all lanes).
    public var executed = 0
    /// The trace hit `PixelDebugger.Limits.maxSteps`: steps after it are missing.
    public var truncated = false
    /// The run stopped over the instruction budget (a runaway loop): the message naming the
    /// loop's line, the frame fails the same way, and `pixel` is empty.
    public var failure: String?
    public var files: [String] = []
    public var activations: [Activation] = []
    public var variables: [Variable] = []
    public var steps: [Step] = []

    public struct Activation: Encodable, Sendable {
        public var function: String
        public var depth: Int
        /// Where it was called from.
        public var file: Int
        public var line: Int
    }

    public struct Variable: Encodable, Sendable {
        public var name: String
        public var type: String
        public var activation: Int
        public var line: Int
        /// Component labels (`x`, `origin.y`, `[2]`); one empty label for a scalar.
        public var components: [String]
    }

    /// One statement as the pixel's lane reached it.
    public struct Step: Encodable, Sendable {
        public var file: Int
        public var line: Int
        public var column: Int
        public var activation: Int
        /// Whether the pixel's lane ran the statement (false: another lane of its batch did,
        /// under a mask that excludes this pixel — a branch not taken, a loop it left).
        public var active: Bool
        /// Enclosing loops, outermost first, with this pixel's iteration (1-based).
        public var loops: [LoopIteration]
        /// Instructions of the statement the batch executed.
        public var instructions: Int
        /// Variables the statement assigned, with their new values.
        public var changes: [Change]
    }

    public struct LoopIteration: Encodable, Sendable {
        public var loop: Int
        public var iteration: Int
    }

    public struct Change: Encodable, Sendable {
        public var variable: Int
        /// One per component: the value as text (`0.5`, `-3`, `true`), nil when optimised away.
        public var values: [String?]
        /// The raw 32-bit words (nil when optimised away).
        public var bits: [UInt32?]
    }

    /// The value of every variable after step `index` (replaying the changes), by variable.
    public func values(afterStep index: Int) -> [Int: Change] {
        var current: [Int: Change] = [:]
        for step in steps.prefix(index + 1) {
            for change in step.changes { current[change.variable] = change }
        }
        return current
    }
}

/// Replays a `LaneTrace` against the `DebugInfo` events.
struct Timeline {
    let library: Library
    let function: Function
    /// Statements kept; past it the report is truncated.
    var maxSteps = Int.max

    func read(_ trace: LaneTrace) -> PixelDebugReport {
        let info = library.debugInfo
        var report = PixelDebugReport()
        report.files = library.sources.map(\.name)
        let range = library.clampedRange(function.body)
        // Only this function's activations, variables and events.
        let events = info.events(in: range)
        var activations = Set<Int>()
        for event in events { if case .statement(let a, _, _, _, _) = event.kind { activations.insert(Int(a)) } }
        for event in events {
            if case .bind(let v, _) = event.kind, Int(v) < info.variables.count {
                activations.insert(Int(info.variables[Int(v)].activation))
            }
        }
        var activationIndex: [Int: Int] = [:]
        for a in activations.sorted() where a < info.activations.count {
            activationIndex[a] = report.activations.count
            let activation = info.activations[a]
            report.activations.append(.init(function: activation.function, depth: Int(activation.depth),
                                            file: Int(activation.file), line: Int(activation.line)))
        }
        var variableIndex: [Int: Int] = [:]
        func variable(_ v: Int) -> Int? {
            if let known = variableIndex[v] { return known }
            guard v < info.variables.count, let activation = activationIndex[Int(info.variables[v].activation)] else { return nil }
            let record = info.variables[v]
            variableIndex[v] = report.variables.count
            report.variables.append(.init(name: record.name, type: record.typeName, activation: activation,
                                          line: Int(record.line), components: record.components.map(\.label)))
            return variableIndex[v]
        }

        // The lane's register history: per body instruction, its latest write of each of
        // its (at most four, consecutive) destinations; a `str`'s element (any register of
        // its group) in a dictionary.
        let registerCount = trace.initialRegisters.count
        var writtenInBody = [Bool](repeating: false, count: registerCount)
        struct Write { var step: Int32 = -1; var register: UInt16 = 0; var value: UInt32 = 0 }
        var lastWrite = [Write](repeating: Write(), count: range.count * 4)
        var lastStore: [Int: (step: Int, value: UInt32)] = [:]
        func lookup(_ index: UInt32?) -> UInt32? {
            guard let index, Int(index) < info.values.count else { return nil }
            let value = info.values[Int(index)]
            let register = Int(value.register)
            guard register < registerCount else { return nil }
            if value.definitions.isEmpty {
                return writtenInBody[register] ? nil : trace.initialRegisters[register]
            }
            var best: (step: Int, value: UInt32)?
            for definition in value.definitions where range.contains(Int(definition)) {
                let base = (Int(definition) - range.lowerBound) * 4
                for slot in base..<base + 4 where lastWrite[slot].step >= 0 && Int(lastWrite[slot].register) == register {
                    if Int(lastWrite[slot].step) > (best?.step ?? -1) { best = (Int(lastWrite[slot].step), lastWrite[slot].value) }
                }
                if let store = lastStore[Int(definition) << 16 | register], store.step > (best?.step ?? -1) { best = store }
            }
            return best?.value
        }
        // Each instruction's events, found once.
        var eventRanges = [Range<Int>](repeating: 0..<0, count: range.count)
        var cursor = events.startIndex
        while cursor < events.endIndex {
            let at = Int(events[cursor].instruction)
            var end = cursor
            while end < events.endIndex && Int(events[end].instruction) == at { end += 1 }
            if range.contains(at) { eventRanges[at - range.lowerBound] = cursor..<end }
            cursor = end
        }
        func isActive(_ mask: UInt32?) -> Bool {
            guard let mask else { return true }
            return (lookup(mask) ?? 1) != 0
        }

        // The steps. Binds before the first statement (the parameters) belong to an entry step.
        var loopStack: [(loop: Int, iteration: Int)] = []
        var current = PixelDebugReport.Step(file: Int(function.file), line: Int(function.line), column: Int(function.column),
                                            activation: activationIndex.values.min() ?? 0, active: true, loops: [],
                                            instructions: 0, changes: [])
        var steps: [PixelDebugReport.Step] = []
        /// Each activation's latest statement, to resume when a call returns into it.
        var lastStatement: [Int: PixelDebugReport.Step] = [:]
        lastStatement[current.activation] = current
        var previous: TraceStep?
        replay: for (k, step) in trace.steps.enumerated() {
            let fellThrough = previous.map { $0.instruction == step.instruction - 1 && !$0.jumped } ?? true
            let here = range.contains(step.instruction) ? eventRanges[step.instruction - range.lowerBound] : 0..<0
            for event in info.events[here] where fellThrough || !event.fallthroughOnly {
                switch event.kind {
                case .statement(let activation, let file, let line, let column, let mask):
                    guard steps.count + 1 < maxSteps else {
                        report.truncated = true
                        break replay
                    }
                    steps.append(current)
                    current = .init(file: Int(file), line: Int(line), column: Int(column),
                                    activation: activationIndex[Int(activation)] ?? 0, active: isActive(mask),
                                    loops: loopStack.map { .init(loop: $0.loop, iteration: $0.iteration) },
                                    instructions: 0, changes: [])
                    var resumable = current
                    resumable.changes = []
                    lastStatement[current.activation] = resumable
                case .bind(let v, let components):
                    guard current.active, let index = variable(Int(v)) else { continue }
                    let record = info.variables[Int(v)]
                    // Back from an inlined call: the caller's statement continues.
                    let owner = activationIndex[Int(record.activation)] ?? current.activation
                    func depth(_ a: Int) -> Int { a < report.activations.count ? report.activations[a].depth : 0 }
                    if depth(owner) < depth(current.activation), var resumed = lastStatement[owner] {
                        steps.append(current)
                        resumed.loops = loopStack.map { .init(loop: $0.loop, iteration: $0.iteration) }
                        current = resumed
                    }
                    let bits = components.map(lookup)
                    let values = zip(bits, record.components).map { word, component in
                        word.map { Self.format($0, component.scalar) }
                    }
                    current.changes.removeAll { $0.variable == index }
                    current.changes.append(.init(variable: index, values: values, bits: bits))
                case .loopStart(let loop):
                    if let at = loopStack.firstIndex(where: { $0.loop == Int(loop) }) { loopStack.removeSubrange(at...) }
                    loopStack.append((Int(loop), 0))
                case .iteration(let loop, let mask):
                    guard let at = loopStack.lastIndex(where: { $0.loop == Int(loop) }) else { continue }
                    loopStack.removeSubrange((at + 1)...)
                    if isActive(mask) { loopStack[at].iteration += 1 }
                case .loopEnd(let loop):
                    if let at = loopStack.lastIndex(where: { $0.loop == Int(loop) }) { loopStack.removeSubrange(at...) }
                }
            }
            current.instructions += 1
            let slots = range.contains(step.instruction) ? (step.instruction - range.lowerBound) * 4 : -1
            for offset in 0..<Int(step.writeCount) {
                let register = step.firstWrite &+ UInt16(offset), value = step.value(at: offset)
                guard Int(register) < registerCount else { continue }
                writtenInBody[Int(register)] = true
                if step.opcode == .str || slots < 0 {
                    lastStore[step.instruction << 16 | Int(register)] = (k, value)
                } else {
                    lastWrite[slots + offset] = Write(step: Int32(truncatingIfNeeded: k), register: register, value: value)
                }
            }
            previous = step
        }
        steps.append(current)
        report.steps = steps
        return report
    }

    /// A component as a person reads it.
    static func format(_ word: UInt32, _ scalar: ScalarType) -> String {
        switch scalar {
        case .float, .half:
            let value = Float(bitPattern: word)
            if value.isNaN { return "nan" }
            if value.isInfinite { return value < 0 ? "-inf" : "inf" }
            return "\(value)"
        case .int, .short: return "\(Int32(bitPattern: word))"
        case .uint, .ushort: return "\(word)"
        case .bool: return word != 0 ? "true" : "false"
        }
    }
}
