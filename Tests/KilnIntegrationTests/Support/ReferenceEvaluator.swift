import Foundation
import KilnLanguage

/// What the reference evaluator binds to one parameter of the function it runs.
enum ReferenceArgument {
    /// The components of a value parameter (scalarized as the VM does).
    case value([ReferenceScalar])
    /// The words of a pointer parameter's buffer.
    case buffer([UInt32])
    /// A texture, sampler or layer: the reference does not sample, it only binds.
    case resource
}

/// Why a reference evaluation could not finish.
struct ReferenceError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// The independent oracle: a deliberately simple tree-walking interpreter of a
/// `CheckedProgram` for ONE pixel. It shares nothing with the compiler or the VM —
/// values are arrays of `ReferenceScalar`s, helpers are real recursive calls with real
/// reference parameters, and control flow is real (no masks) — so agreement between the
/// two is evidence, not an echo. Semantics follow language.md §7 and `Opcode.swift`;
/// transcendental builtins use Foundation's `Double` functions rounded to `Float`.
final class ReferenceEvaluator {
    let program: CheckedProgram
    /// Statements plus loop iterations one evaluation may run before it is declared runaway.
    var stepLimit: Int
    /// Set when the evaluated code executed `discard_fragment()`.
    private(set) var discarded = false

    private var steps = 0
    private var frames: [Frame] = []
    private var globalValues: [GlobalID: [ReferenceScalar]] = [:]

    /// A storage location: components of a variable in a frame. `components == nil` is an
    /// out-of-range element: reads give zero, writes do nothing.
    private struct Place {
        var frame: Int
        var variable: VariableID
        var components: [Int]?
    }

    private struct Frame {
        var function: CheckedFunction
        var storage: [[ReferenceScalar]]
        var aliases: [VariableID: Place] = [:]
        var buffers: [VariableID: [UInt32]] = [:]
    }

    private enum Completion {
        case normal, breakLoop, continueLoop, discarded
        case returned([ReferenceScalar])
    }

    init(program: CheckedProgram, stepLimit: Int = 1_000_000) {
        self.program = program
        self.stepLimit = stepLimit
    }

    /// Runs `function` with one argument per parameter and returns the scalarized result
    /// (empty for `void`, zeros when a fragment discarded).
    func call(function id: FunctionID, arguments: [ReferenceArgument]) throws(ReferenceError) -> [ReferenceScalar] {
        steps = 0
        discarded = false
        frames.removeAll()
        let function = program.functions[id]
        guard arguments.count == function.parameters.count else {
            throw ReferenceError(message: "\(function.name) takes \(function.parameters.count) arguments, got \(arguments.count)")
        }
        var frame = makeFrame(function)
        for (parameter, argument) in zip(function.parameters, arguments) {
            switch argument {
            case .value(let components):
                let expected = count(parameter.type)
                guard components.count == expected else {
                    throw ReferenceError(message: "argument \(parameter.name) needs \(expected) components")
                }
                frame.storage[parameter.variable] = zip(components, flatKinds(parameter.type)).map { $0.converted(to: $1) }
            case .buffer(let words):
                frame.buffers[parameter.variable] = words
            case .resource:
                break
            }
        }
        frames.append(frame)
        let completion = try execute(function.body)
        frames.removeAll()
        switch completion {
        case .returned(let value): return value
        case .discarded: return zero(function.returnType)
        default: return zero(function.returnType)
        }
    }

    // MARK: - Statements

    private func tick() throws(ReferenceError) {
        steps += 1
        if steps > stepLimit { throw ReferenceError(message: "step limit \(stepLimit) exceeded (runaway loop)") }
    }

    private func execute(_ statements: [TypedStatement]) throws(ReferenceError) -> Completion {
        for statement in statements {
            let completion = try execute(statement)
            if discarded { return .discarded }   // also from inside a helper call
            if case .normal = completion { continue }
            return completion
        }
        return .normal
    }

    private func execute(_ statement: TypedStatement) throws(ReferenceError) -> Completion {
        try tick()
        switch statement.kind {
        case .declare(let variable, let initializer):
            let type = frames[frames.count - 1].function.variables[variable].type
            let value = try initializer.map { e throws(ReferenceError) in try rvalue(e) } ?? zero(type)
            frames[frames.count - 1].aliases[variable] = nil
            frames[frames.count - 1].storage[variable] = fit(value, to: type)
            return .normal
        case .expression(let e):
            _ = try rvalue(e)
            return .normal
        case .block(let body):
            return try execute(body)
        case .ifElse(let condition, let then, let otherwise):
            return try execute(try truth(condition) ? then : otherwise)
        case .loop(let condition, let step, let body, let testFirst):
            var first = true
            while true {
                if testFirst || !first, let condition, !(try truth(condition)) { break }
                first = false
                let completion = try execute(body)
                switch completion {
                case .breakLoop: return .normal
                case .returned, .discarded: return completion
                case .normal, .continueLoop: break
                }
                if let step { _ = try rvalue(step) }
                try tick()
            }
            return .normal
        case .breakLoop:
            return .breakLoop
        case .continueLoop:
            return .continueLoop
        case .returnValue(let value):
            return .returned(try value.map { e throws(ReferenceError) in try rvalue(e) } ?? [])
        case .switchOn(let subject, let cases):
            let value = try scalar(subject).indexValue
            guard let start = cases.firstIndex(where: { $0.values.contains(value) })
                ?? cases.firstIndex(where: { $0.isDefault }) else { return .normal }
            for index in start..<cases.count {
                let completion = try execute(cases[index].body)
                switch completion {
                case .normal: continue
                case .breakLoop: return .normal
                default: return completion
                }
            }
            return .normal
        case .discard:
            discarded = true
            return .discarded
        }
    }

    // MARK: - Places (lvalues)

    private func place(_ e: TypedExpression) throws(ReferenceError) -> Place {
        switch e.kind {
        case .variable(let variable):
            let top = frames.count - 1
            if let alias = frames[top].aliases[variable] { return alias }
            return Place(frame: top, variable: variable, components: Array(0..<count(e.type)))
        case .swizzle(let base, let indexes):
            var p = try place(base)
            p.components = p.components.map { c in indexes.map { c[$0] } }
            return p
        case .addressOf(let target):
            // A pointer is the place it points at: `&a[k]` of an array is the rest of it.
            if case .index(let array, let k) = target.kind, case .array = array.type {
                var p = try place(array)
                let index = try scalar(k).indexValue
                let width = count(target.type)
                if let components = p.components, index >= 0, index < Int64(elementCount(array.type)) {
                    p.components = Array(components.dropFirst(Int(index) * width))
                } else {
                    p.components = nil
                }
                return p
            }
            return try place(target)
        case .dereference(let pointer):
            var p = try place(pointer)
            p.components = p.components.map { Array($0.prefix(count(e.type))) }
            return p
        case .index(let base, let indexExpression):
            var p = try place(base)
            let index = try scalar(indexExpression).indexValue
            let width = count(e.type)
            var elements = elementCount(base.type)
            if case .pointer(_, .thread) = base.type { elements = (p.components?.count ?? 0) / max(1, width) }
            if let components = p.components, index >= 0, index < Int64(elements) {
                let start = Int(index) * width
                p.components = Array(components[start..<(start + width)])
            } else {
                p.components = nil
            }
            return p
        case .member(let base, let field):
            var p = try place(base)
            let (offset, width) = fieldRange(base.type, field)
            p.components = p.components.map { Array($0[offset..<(offset + width)]) }
            return p
        case .sequence(let first, let second):
            _ = try rvalue(first)
            return try place(second)
        default:
            throw ReferenceError(message: "expression is not an lvalue: \(e.kind)")
        }
    }

    private func isPlace(_ e: TypedExpression) -> Bool {
        switch e.kind {
        case .variable, .addressOf, .dereference: return true
        case .swizzle(let b, _), .index(let b, _), .member(let b, _):
            if case .pointer(_, .thread) = b.type { return isPlace(b) }
            return isPlace(b) && !isPointer(b.type)
        default: return false
        }
    }

    private func read(_ p: Place, _ type: KType) -> [ReferenceScalar] {
        guard let components = p.components else { return zero(type) }
        let storage = frames[p.frame].storage[p.variable]
        return components.map { $0 < storage.count ? storage[$0] : .int(0) }
    }

    private func write(_ p: Place, _ value: [ReferenceScalar]) {
        guard let components = p.components else { return }
        for (k, c) in components.enumerated() where k < value.count {
            frames[p.frame].storage[p.variable][c] = value[k]
        }
    }

    // MARK: - Expressions

    private func truth(_ e: TypedExpression) throws(ReferenceError) -> Bool {
        try scalar(e).boolValue
    }

    private func scalar(_ e: TypedExpression) throws(ReferenceError) -> ReferenceScalar {
        let value = try rvalue(e)
        guard let first = value.first else { throw ReferenceError(message: "expected a scalar value") }
        return first
    }

    private func rvalue(_ e: TypedExpression) throws(ReferenceError) -> [ReferenceScalar] {
        switch e.kind {
        case .constant(let c):
            return [ReferenceScalar(c)]
        case .variable(let variable):
            let top = frames.count - 1
            if let alias = frames[top].aliases[variable] { return read(alias, e.type) }
            return frames[top].storage[variable]
        case .global(let id):
            return try global(id)
        case .dereference:
            return read(try place(e), e.type)
        case .addressOf:
            throw ReferenceError(message: "a pointer is only a call argument")
        case .construct(let arguments):
            var values: [ReferenceScalar] = []
            for a in arguments { values += try rvalue(a) }
            let kinds = flatKinds(e.type)
            switch e.type {
            case .vector where arguments.count == 1 && values.count == 1:
                return Array(repeating: values[0].converted(to: kinds[0]), count: kinds.count)
            case .matrix(_, let columns, let rows) where arguments.count == 1 && values.count == 1:
                var result = zero(e.type)
                for i in 0..<min(columns, rows) { result[i * rows + i] = values[0].converted(to: kinds[0]) }
                return result
            default:
                return fit(values, to: e.type)
            }
        case .convert(let operand):
            let value = try rvalue(operand)
            let kinds = flatKinds(e.type)
            if value.count == 1 && kinds.count > 1 {
                return Array(repeating: value[0].converted(to: kinds[0]), count: kinds.count)
            }
            return zip(value, kinds).map { $0.converted(to: $1) }
        case .unary(let op, let operand):
            let kind = operand.type.scalarKind ?? .int
            return try rvalue(operand).map { ReferenceArithmetic.unary(op, $0, kind: kind) }
        case .binary(let op, let lhs, let rhs):
            let kind = lhs.type.scalarKind ?? .int
            if op == .logicalAnd || op == .logicalOr, case .scalar = lhs.type {
                let left = try truth(lhs)
                if op == .logicalAnd && !left { return [.bool(false)] }
                if op == .logicalOr && left { return [.bool(true)] }
                return [.bool(try truth(rhs))]
            }
            let left = try rvalue(lhs), right = try rvalue(rhs)
            return ReferenceArithmetic.componentwise(op, left, right, kind: kind)
        case .matrixMultiply(let lhs, let rhs):
            return ReferenceArithmetic.matrixProduct(try rvalue(lhs), lhs.type, try rvalue(rhs), rhs.type)
        case .assign(let lhs, let rhs):
            if case .variable(let variable) = lhs.kind, frames[frames.count - 1].aliases[variable] == nil {
                // Fast path for the most common statement: a whole local.
                let value = fit(try rvalue(rhs), to: lhs.type)
                frames[frames.count - 1].storage[variable] = value
                return value
            }
            let p = try place(lhs)
            let value = fit(try rvalue(rhs), to: lhs.type)
            write(p, value)
            return value
        case .compoundAssign(let op, let lhs, let rhs):
            let p = try place(lhs)
            let old = read(p, lhs.type)
            let right = try rvalue(rhs)
            let new: [ReferenceScalar]
            if op == .multiply, case .matrix = rhs.type {
                new = ReferenceArithmetic.matrixProduct(old, lhs.type, right, rhs.type)
            } else if let lk = lhs.type.scalarKind, let rk = rhs.type.scalarKind, lk != rk {
                // C: compute in the operand type, convert back to the lvalue's type.
                let widened = old.map { $0.converted(to: rk) }
                new = ReferenceArithmetic.componentwise(op, widened, right, kind: rk).map { $0.converted(to: lk) }
            } else {
                new = ReferenceArithmetic.componentwise(op, old, right, kind: lhs.type.scalarKind ?? .int)
            }
            let value = fit(new, to: lhs.type)
            write(p, value)
            return value
        case .increment(let operand, let delta, let isPrefix):
            let p = try place(operand)
            let old = read(p, operand.type)
            let new = old.map { ReferenceArithmetic.add(delta, to: $0) }
            write(p, new)
            return isPrefix ? new : old
        case .conditional(let condition, let whenTrue, let whenFalse):
            return try rvalue(try truth(condition) ? whenTrue : whenFalse)
        case .swizzle(let base, let indexes):
            let value = try rvalue(base)
            return indexes.map { $0 < value.count ? value[$0] : .int(0) }
        case .index(let base, let indexExpression):
            if case .pointer(let element, let space) = base.type, space != .thread {
                return try readBuffer(base, element: element, index: try scalar(indexExpression).indexValue)
            }
            if isPlace(e) { return read(try place(e), e.type) }
            let value = try rvalue(base)
            let index = try scalar(indexExpression).indexValue
            let width = count(e.type)
            guard index >= 0, index < Int64(elementCount(base.type)) else { return zero(e.type) }
            let start = Int(index) * width
            return Array(value[start..<(start + width)])
        case .member(let base, let field):
            if isPlace(e) { return read(try place(e), e.type) }
            let value = try rvalue(base)
            let (offset, width) = fieldRange(base.type, field)
            return Array(value[offset..<(offset + width)])
        case .call(let id, let arguments):
            return try callHelper(id, arguments)
        case .builtin(let builtin, let arguments):
            if builtin == .modf {
                let x = try rvalue(arguments[0])
                let p = try place(arguments[1])
                let parts = x.map { ReferenceBuiltins.modf($0.floatValue) }
                write(p, parts.map { .float($0.integral) })
                return parts.map { .float($0.fractional) }
            }
            var values: [[ReferenceScalar]] = []
            for a in arguments { values.append(try rvalue(a)) }
            return try ReferenceBuiltins.evaluate(builtin, values, argumentTypes: arguments.map(\.type),
                                                  resultType: e.type, structs: program.structs)
        case .textureSample, .layerSample, .textureRead, .textureSize, .textureWrite:
            throw ReferenceError(message: "the reference evaluator does not sample textures")
        case .sequence(let first, let second):
            _ = try rvalue(first)
            return try rvalue(second)
        }
    }

    private func callHelper(_ id: FunctionID, _ arguments: [TypedExpression]) throws(ReferenceError) -> [ReferenceScalar] {
        let function = program.functions[id]
        var frame = makeFrame(function)
        for (parameter, argument) in zip(function.parameters, arguments) {
            if parameter.isReference || parameter.type.isThreadPointer, isPlace(argument) {
                frame.aliases[parameter.variable] = try place(argument)
            } else if case .pointer = parameter.type, case .variable(let v) = argument.kind {
                frame.buffers[parameter.variable] = frames[frames.count - 1].buffers[v]
            } else {
                frame.storage[parameter.variable] = fit(try rvalue(argument), to: parameter.type)
            }
        }
        guard frames.count < 256 else { throw ReferenceError(message: "call depth exceeded") }
        frames.append(frame)
        let completion = try execute(function.body)
        frames.removeLast()
        switch completion {
        case .returned(let value): return value
        case .discarded:
            // A discard ends the whole invocation; keep unwinding with zeros.
            return zero(function.returnType)
        default: return zero(function.returnType)
        }
    }

    private func readBuffer(_ base: TypedExpression, element: KType, index: Int64) throws(ReferenceError) -> [ReferenceScalar] {
        guard case .variable(let v) = base.kind, let words = frames[frames.count - 1].buffers[v] else {
            throw ReferenceError(message: "pointer is not a bound buffer parameter")
        }
        let width = count(element)
        guard index >= 0, (index + 1) * Int64(width) <= Int64(words.count) else { return zero(element) }
        let start = Int(index) * width
        return zip(words[start..<(start + width)], flatKinds(element)).map { ReferenceScalar(bits: $0, kind: $1) }
    }

    private func global(_ id: GlobalID) throws(ReferenceError) -> [ReferenceScalar] {
        if let cached = globalValues[id] { return cached }
        let info = program.globals[id]
        let value = try info.initializer.map { e throws(ReferenceError) in fit(try rvalue(e), to: info.type) } ?? zero(info.type)
        globalValues[id] = value
        return value
    }

    // MARK: - Types

    private func makeFrame(_ function: CheckedFunction) -> Frame {
        Frame(function: function, storage: function.variables.map { zero($0.type) })
    }

    func count(_ type: KType) -> Int { type.componentCount(structs: program.structs) }

    private func isPointer(_ type: KType) -> Bool {
        if case .pointer = type { return true }
        return false
    }

    /// Number of elements `[i]` can select: vector components, matrix columns, array elements.
    private func elementCount(_ type: KType) -> Int {
        switch type {
        case .vector(_, let n): return n
        case .matrix(_, let columns, _): return columns
        case .array(_, let n): return n
        default: return 0
        }
    }

    private func fieldRange(_ type: KType, _ field: Int) -> (offset: Int, width: Int) {
        guard case .structure(let index) = type else { return (0, 0) }
        let fields = program.structs[index].fields
        let offset = fields[..<field].reduce(0) { $0 + count($1.type) }
        return (offset, count(fields[field].type))
    }

    /// The scalar kind of every component of a scalarized value of `type`.
    func flatKinds(_ type: KType) -> [ScalarKind] {
        switch type {
        case .scalar(.float): return Self.floatKind
        case .scalar(.int): return Self.intKind
        case .scalar(let k): return [k]
        case .vector(let k, let n): return Array(repeating: k, count: n)
        case .matrix(let k, let c, let r): return Array(repeating: k, count: c * r)
        case .array(let element, let n):
            let inner = flatKinds(element)
            return (0..<n).flatMap { _ in inner }
        case .structure(let index): return program.structs[index].fields.flatMap { flatKinds($0.type) }
        default: return []
        }
    }

    func zero(_ type: KType) -> [ReferenceScalar] { flatKinds(type).map(ReferenceScalar.zero) }

    /// Pads (with zeros) or trims a value to `type`'s components, converting each to its kind.
    private static let floatKind: [ScalarKind] = [.float]
    private static let intKind: [ScalarKind] = [.int]

    private func fit(_ value: [ReferenceScalar], to type: KType) -> [ReferenceScalar] {
        if case .scalar(let kind) = type, value.count == 1 {
            let converted = value[0].converted(to: kind)
            return converted == value[0] ? value : [converted]
        }
        let kinds = flatKinds(type)
        return kinds.enumerated().map { i, k in i < value.count ? value[i].converted(to: k) : .zero(k) }
    }
}
