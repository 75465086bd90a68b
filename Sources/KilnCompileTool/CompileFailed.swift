/// Thrown once a failed compile's diagnostics are printed: exit status 1 and nothing more
/// to say (ArgumentParser prints no message for an error that describes itself as empty).
public struct CompileFailed: Error, Equatable, CustomStringConvertible {
    public init() {}
    public var description: String { "" }
}
