/// Why a scene could not be read or drawn. `path` names the place in the JSON document
/// (`layers[2].paint.fill-color`), empty for the document itself.
public struct SceneError: Error, CustomStringConvertible, Equatable, Sendable {
    public var path: String
    public var message: String

    public init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`, or just the message for the whole document.
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
