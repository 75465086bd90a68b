/// Every error code the live protocol sends (`{"type":"error","code":…}`, docs/protocol.md).
/// An error is scoped to one request: it never closes the connection.
public enum ErrorCode: String, Sendable, CaseIterable {
    /// The text message is not a JSON object.
    case badJSON = "bad_json"
    /// A message is missing a field, or a field has the wrong type or an invalid value.
    case badRequest = "bad_request"
    /// The message's `type` is not one the server knows.
    case unknownType = "unknown_type"
    /// A request asks for more than a limit allows (preview or scene size).
    case tooLarge = "too_large"
    /// `preview.update` before `preview.start`.
    case noPreview = "no_preview"
    /// An uploaded content image could not be decoded or is too large.
    case badImage = "bad_image"
    /// A frame could not be rendered (e.g. a runaway loop hit the instruction budget).
    case renderFailed = "render_failed"
    /// A scene document or edit is invalid; the error carries a `path` into the document.
    case badScene = "bad_scene"
    /// The server cannot do it now: `share` without storage, or the database failing.
    case unavailable = "unavailable"
    /// `spectate` with a token no live session has (it ended, or never existed).
    case notFound = "not_found"
    /// An editing message from a spectator: a watching connection cannot edit.
    case readOnly = "read_only"
    /// `share` past the client address's daily `--share-quota-bytes`.
    case quotaExceeded = "quota_exceeded"
}

/// A request the server refuses: the code, a message for a person, and for scene errors
/// the JSON path of the offending value.
public struct ProtocolError: Error, Sendable, Equatable {
    public var code: ErrorCode
    public var message: String
    public var path: String?

    public init(_ code: ErrorCode, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }
}
