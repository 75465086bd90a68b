import Foundation

/// The `id` of a client request: any JSON value, copied as it is into the replies and
/// errors of that request. The server never looks inside it.
public struct RequestID: @unchecked Sendable {
    /// The decoded JSON value (`NSNumber`, `String`, array, dictionary or `NSNull`); it is
    /// immutable once decoded, which is what makes sharing it across threads safe.
    public let json: Any

    public init(json: Any) { self.json = json }
}
