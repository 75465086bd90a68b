import KilnBytecode
import KilnVM

/// Turns argument values given by name into a draw's uniform block and buffers, following
/// the library's bindings (`Binding.uniform(word:)`, `Binding.buffer(slot:countWord:)`).
///
/// A value given by the user wins. Otherwise the automatic arguments (`AutomaticArgument`:
/// the clock, the output size and rectangle, under the names real shaders use) are filled
/// in; then the `@arg` default; then zeros.
struct ArgumentBinder {
    var width: Int
    var height: Int
    /// The clock; nil leaves `time`/`t` to their `@arg` default (else 0).
    var time: Float?
    /// Values by argument name (components, or the elements of an array argument).
    var values: [String: [Float]]

    /// The uniforms and buffers of `function`; errors name the argument and what it takes.
    func bind(_ function: Function) throws(RenderError) -> (uniforms: [UInt32], buffers: [[UInt32]]) {
        var uniforms = [UInt32](repeating: 0, count: Int(function.uniformWordCount))
        var buffers = [[UInt32]](repeating: [], count: Int(function.bufferCount))
        let known = Set(function.parameters.map(\.name))
        for name in values.keys.sorted() where !known.contains(name) {
            let names = function.parameters.filter(\.isUserArgument).map(\.name).joined(separator: ", ")
            throw RenderError("argument '\(name)': '\(function.name)' has no argument called '\(name)' (its arguments: \(names.isEmpty ? "none" : names))")
        }
        // The `int` after a SwiftUI array argument is filled from the array unless given.
        let countWords = Set(function.parameters.compactMap { parameter -> UInt32? in
            if case .buffer(_, let countWord?) = parameter.binding { return countWord } else { return nil }
        })
        for parameter in function.parameters {
            switch parameter.binding {
            case .uniform(let word):
                guard let type = parameter.valueType else { continue }
                if countWords.contains(word), values[parameter.name] == nil { continue }
                let components = try uniformValue(parameter, type: type)
                for (index, value) in components.enumerated() where Int(word) + index < uniforms.count {
                    uniforms[Int(word) + index] = Self.word(value, scalar: type.scalar)
                }
            case .buffer(let slot, let countWord):
                let elements = values[parameter.name] ?? parameter.annotation?.defaultValue ?? []
                let scalar = parameter.valueType?.scalar ?? .float
                if Int(slot) < buffers.count {
                    buffers[Int(slot)] = elements.map { Self.word($0, scalar: scalar) }
                }
                if let countWord, Int(countWord) < uniforms.count {
                    let perElement = max(1, parameter.valueType?.componentCount ?? 1)
                    uniforms[Int(countWord)] = UInt32(bitPattern: Int32(elements.count / perElement))
                }
            default:
                if values[parameter.name] != nil {
                    throw RenderError("argument '\(parameter.name)' (\(parameter.typeName)) is bound by the renderer, not by a value")
                }
            }
        }
        return (uniforms, buffers)
    }

    /// The components of a uniform argument.
    private func uniformValue(_ parameter: Parameter, type: ValueType) throws(RenderError) -> [Float] {
        let count = type.componentCount
        if let given = values[parameter.name] {
            guard given.count == count else {
                throw RenderError("argument '\(parameter.name)' is a \(parameter.typeName) and takes \(count) value\(count == 1 ? "" : "s"), got \(given.count)")
            }
            return given
        }
        switch parameter.automatic {
        case .time?: if let time { return [time] }
        case .size?: return [Float(width), Float(height)]
        case .bounds?: return [0, 0, Float(width), Float(height)]
        case nil: break
        }
        if let defaults = parameter.annotation?.defaultValue, defaults.count == count { return defaults }
        // A matrix nobody set is the identity, not a zero matrix that would collapse the picture.
        if type.columns > 1, type.columns == type.rows, type.arrayLength == 0 {
            return (0..<count).map { $0 % (Int(type.rows) + 1) == 0 ? 1 : 0 }
        }
        return [Float](repeating: 0, count: count)
    }

    /// One 32-bit uniform word: float bits for float/half, the integer otherwise
    /// (saturated, as the VM converts).
    static func word(_ value: Float, scalar: ScalarType) -> UInt32 {
        if value.isNaN && scalar != .float && scalar != .half { return 0 }
        switch scalar {
        case .float, .half:
            return value.bitPattern
        case .bool:
            return value != 0 ? 1 : 0
        case .int, .short:
            let clamped = max(-2_147_483_648, min(2_147_483_520, value.rounded(.towardZero)))
            return UInt32(bitPattern: Int32(clamped))
        case .uint, .ushort:
            let clamped = max(0, min(4_294_967_040, value.rounded(.towardZero)))
            return UInt32(clamped)
        }
    }
}

extension Parameter {
    /// Whether the user sets this parameter (not the position, colour, layer, stage_in…).
    public var isUserArgument: Bool {
        switch binding {
        case .uniform, .buffer: return true
        default: return false
        }
    }
}
