import Foundation

/// The memory sessions keep in images — uploaded content and built-in content generated
/// at the preview size — held against `ServerSettings.maxContentBytes` for the whole
/// server. Each session's total is recorded; a change that would take the server over the
/// limit is refused (the client gets a clear error and the server keeps what it has), so
/// memory stays bounded however many clients connect and whatever sizes they ask for.
final class ContentMemory: @unchecked Sendable {
    let limit: Int
    private let lock = NSLock()
    private var bySession: [ObjectIdentifier: Int] = [:]
    private var total = 0

    init(limit: Int) { self.limit = max(0, limit) }

    /// Bytes of one content image (premultiplied binary32 RGBA).
    static func bytes(width: Int, height: Int) -> Int { width * height * 16 }

    /// Sets `session`'s total to `bytes` when the server stays within the limit; shrinking
    /// always succeeds. Returns false, changing nothing, when it would not fit.
    func set(_ session: LiveSession, bytes: Int) -> Bool {
        lock.lock(); defer { lock.unlock() }
        let key = ObjectIdentifier(session)
        let old = bySession[key] ?? 0
        let next = total - old + bytes
        guard bytes <= old || next <= limit else { return false }
        total = next
        bySession[key] = bytes == 0 ? nil : bytes
        return true
    }

    /// Bytes held by all sessions.
    var inUse: Int { lock.withLock { total } }

    /// The refusal message for a change that did not fit.
    func refusal(_ what: String) -> String {
        "\(what) does not fit in the server's memory for images (--max-content-bytes = \(limit / (1 << 20)) MiB, "
            + "\(inUse / (1 << 20)) MiB in use); try a smaller preview or later"
    }
}

extension LiveSession {
    /// Bytes of the session's uploads and cached built-in content (call with `lock` held).
    func contentBytes(uploads: [ContentSlot: PreviewContent]? = nil, builtin: [String: PreviewContent]? = nil) -> Int {
        let all = Array((uploads ?? self.uploads).values) + Array((builtin ?? builtinCache).values)
        return all.reduce(0) { $0 + ContentMemory.bytes(width: $1.width, height: $1.height) }
    }
}
