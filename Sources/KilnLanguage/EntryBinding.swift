/// Where an entry parameter's value comes from, decided by the checker from the entry's
/// kind, the parameter's place, its attributes and its type, so lowering binds by facts
/// rather than re-deriving them (`EntryInfo.bindings`, one per parameter).
public enum EntryBinding: Hashable, Sendable {
    /// A stitchable effect's `position`, or a `[[position]]` parameter: a lane input.
    case position
    /// A color effect's `half4 color`: the source pixel, a lane input.
    case color
    /// A layer effect's `SwiftUI::Layer` (texture slot 0), or any `Layer` parameter.
    case layer
    /// A `[[stage_in]]` struct: each field is a lane input.
    case stageIn
    case vertexID
    case instanceID
    /// A kernel's thread position (`[[thread_position_in_grid]]`, …): a lane input.
    case kernelInput(KernelInput)
    /// A texture: the `[[texture(n)]]` slot, or nil for the next slot in order.
    case texture(slot: UInt32?)
    case sampler
    /// A pointer: the `[[buffer(n)]]` slot, or nil for the next slot in order.
    case buffer(slot: UInt32?)
    /// Everything else: uniform words, in parameter order.
    case uniform

    /// The bindings of an entry's parameters. Stitchable effects take their leading
    /// parameters (before `firstUserArgument`) from the preview: position, then the colour
    /// or the layer.
    static func of(_ function: CheckedFunction, kind: EntryKind, firstUserArgument: Int) -> [EntryBinding] {
        let stitchable = kind.isStitchable
        return function.parameters.enumerated().map { index, parameter in
            if stitchable && index < firstUserArgument {
                if parameter.type == .layer { return .layer }
                return index == 0 ? .position : .color
            }
            if parameter.attributes.contains(.stageIn), case .structure = parameter.type { return .stageIn }
            if parameter.attributes.contains(.vertexID) { return .vertexID }
            if let input = parameter.attributes.lazy.compactMap({ KernelInput(rawValue: $0.name) }).first { return .kernelInput(input) }
            if parameter.attributes.contains(.instanceID) { return .instanceID }
            if parameter.attributes.contains(.position) || parameter.attributes.contains(.stageIn) { return .position }
            switch parameter.type {
            case .texture: return .texture(slot: parameter.attributes.textureSlot)
            case .layer: return .layer
            case .sampler: return .sampler
            case .pointer: return .buffer(slot: parameter.attributes.bufferSlot)
            default: return .uniform
            }
        }
    }
}
