import KilnWebSockets

/// A session's replies over its WebSocket connection: JSON messages as text, libraries and
/// frames as binary; frames are droppable, so a client that reads slowly gets fewer frames
/// while its replies are never dropped.
final class WebSocketReplySink: ReplySink, @unchecked Sendable {
    let connection: WebSocketConnection

    init(_ connection: WebSocketConnection) { self.connection = connection }

    @discardableResult
    func send(_ reply: Reply) -> Bool {
        switch reply {
        case .message(let message): connection.send(.text(message.json))
        case .library(let bytes): connection.send(.binary(bytes))
        case .frame(let header, let payload, let droppable): connection.send(.binary(header.bytes + payload), droppable: droppable)
        }
    }

    var isOpen: Bool { connection.isOpen }
    var queuedFrames: Int { connection.queuedDroppableCount }
}
