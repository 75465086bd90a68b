/// Uniform arguments a preview fills in by itself when the user gives no value, the way
/// SwiftUI effects and shader-art sites name them. One rule table, used by the renderer
/// (`ArgumentBinder`), the compile report (each argument's `auto`) and so the page:
///
/// | what | names | type | value |
/// | --- | --- | --- | --- |
/// | `time` | `time`, `t`, `iTime`, `secs`, `seconds`, `uTime`, `u_time` | a scalar | the preview clock, seconds |
/// | `size` | `size`, `resolution`, `viewSize`, `uiSize`, `iResolution`, `uResolution`, `u_resolution` | 2 components | the output size in pixels |
/// | `bounds` | `bounds`, `rect`, `boundingRect`, `box` | 4 components | the output rectangle `(0, 0, w, h)` |
///
/// A value the user gives always wins; an `@arg` default does not (it is what the slider
/// starts at when the user switches the automatic value off).
public enum AutomaticArgument: String, Sendable, CaseIterable {
    case time, size, bounds

    /// The names that mean each automatic argument (case-sensitive, as written in shaders).
    public var names: Set<String> {
        switch self {
        case .time: ["time", "t", "iTime", "secs", "seconds", "uTime", "u_time"]
        case .size: ["size", "resolution", "viewSize", "uiSize", "iResolution", "uResolution", "u_resolution"]
        case .bounds: ["bounds", "rect", "boundingRect", "box"]
        }
    }

    /// Components the argument must have to be filled in automatically.
    public var componentCount: Int {
        switch self {
        case .time: 1
        case .size: 2
        case .bounds: 4
        }
    }

    /// The automatic argument a parameter named `name` of `valueType` is, if any.
    public static func of(name: String, valueType: ValueType?) -> AutomaticArgument? {
        guard let valueType, valueType.arrayLength == 0 else { return nil }
        return allCases.first { $0.names.contains(name) && $0.componentCount == valueType.componentCount }
    }
}

extension Parameter {
    /// What the preview fills this argument with when the user gives no value, if anything.
    public var automatic: AutomaticArgument? {
        guard case .uniform = binding else { return nil }
        return AutomaticArgument.of(name: name, valueType: valueType)
    }
}
