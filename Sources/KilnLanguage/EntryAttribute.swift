/// An attribute of an entry-function parameter or of a struct member, as the checker read
/// it: the facts the compiler binds by (`[[stage_in]]`, `[[buffer(2)]]`, `[[flat]]`), so
/// lowering never re-parses attribute text. Attributes Kiln only carries along
/// (`[[user(uv)]]`, `[[attribute(0)]]`, interpolation qualifiers) keep their name and
/// argument text.
public enum EntryAttribute: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    case position
    case stageIn
    case vertexID
    case instanceID
    /// `[[flat]]`: no interpolation across a triangle.
    case flat
    /// Slot attributes with a literal slot number.
    case buffer(UInt32)
    case texture(UInt32)
    case sampler(UInt32)
    case color(UInt32)
    /// Any other attribute, or a slot attribute whose argument is not a literal number
    /// (such a slot is assigned in order, as if none had been given).
    case other(name: String, argument: String?)

    /// The attribute from its name and argument text (`buffer`, `"2"`).
    public init(name: String, argument: String?) {
        let number = argument.flatMap { UInt32($0.filter { $0 != " " }) }
        switch (name, argument, number) {
        case ("position", nil, _): self = .position
        case ("stage_in", nil, _): self = .stageIn
        case ("vertex_id", nil, _): self = .vertexID
        case ("instance_id", nil, _): self = .instanceID
        case ("flat", nil, _): self = .flat
        case ("buffer", _, let slot?): self = .buffer(slot)
        case ("texture", _, let slot?): self = .texture(slot)
        case ("sampler", _, let slot?): self = .sampler(slot)
        case ("color", _, let slot?): self = .color(slot)
        default: self = .other(name: name, argument: argument)
        }
    }

    /// Parses the spelling `name` or `name(argument)` (tests write attributes this way).
    public init(stringLiteral text: String) {
        if let open = text.firstIndex(of: "("), text.hasSuffix(")") {
            self.init(name: String(text[..<open]), argument: String(text[text.index(after: open)..<text.index(before: text.endIndex)]))
        } else {
            self.init(name: text, argument: nil)
        }
    }

    /// The attribute's name (`buffer` for `[[buffer(2)]]`).
    public var name: String {
        switch self {
        case .position: "position"
        case .stageIn: "stage_in"
        case .vertexID: "vertex_id"
        case .instanceID: "instance_id"
        case .flat: "flat"
        case .buffer: "buffer"
        case .texture: "texture"
        case .sampler: "sampler"
        case .color: "color"
        case .other(let name, _): name
        }
    }

    /// As written between `[[` and `]]`: `position`, `buffer(2)`, `user(uv)`. Libraries
    /// record lane slots by this spelling.
    public var spelling: String {
        switch self {
        case .buffer(let slot), .texture(let slot), .sampler(let slot), .color(let slot): "\(name)(\(slot))"
        case .other(let name, let argument?): "\(name)(\(argument))"
        default: name
        }
    }

    public var description: String { spelling }
}

extension Array where Element == EntryAttribute {
    /// The slot of the first `[[buffer(n)]]`, if any.
    public var bufferSlot: UInt32? { lazy.compactMap { if case .buffer(let n) = $0 { n } else { nil } }.first }
    /// The slot of the first `[[texture(n)]]`, if any.
    public var textureSlot: UInt32? { lazy.compactMap { if case .texture(let n) = $0 { n } else { nil } }.first }
    /// The attribute that names a lane slot (the first that is not `[[flat]]`), spelled as
    /// libraries record it; empty when there is none.
    public var slotSpelling: String { first { $0 != .flat }?.spelling ?? "" }
}
