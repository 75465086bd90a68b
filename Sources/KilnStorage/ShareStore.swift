import CKiln
import Foundation

/// Where the server keeps what users share: permalink states and uploaded content, both
/// addressed by content hash. One protocol, so the server does not care what is behind it
/// (`SQLiteShareStore` today; issue 13's PostgreSQL store implements the same and passes
/// the same `ShareStoreTests`).
public protocol ShareStore: AnyObject, Sendable {
    /// Stores a state (a JSON document's canonical bytes) and returns its id, derived from
    /// its content: sharing the same state twice gives the same link and stores it once.
    func saveState(_ json: [UInt8]) throws -> String
    /// The stored bytes of `id`, nil when there is none.
    func loadState(id: String) throws -> [UInt8]?
    /// Stores content bytes (an uploaded PNG) once by SHA-256; returns the hash (hex).
    func saveContent(_ bytes: [UInt8]) throws -> String
    func loadContent(hash: String) throws -> [UInt8]?
    /// Counts, for `/metrics` and tests.
    func counts() throws -> (states: Int, contents: Int)
    /// Keeps a version that compiled for `client` (the page's random id): its files (JSON
    /// bytes) stored once by hash, with when it first and last compiled; the client's
    /// oldest versions past `StorageLimits.maxVersionsPerClient` are forgotten. Returns the hash.
    /// Writes may arrive out of order (instances, worker threads), so a version's first and
    /// last times only ever move outward: an older write never makes it look less recent.
    func saveVersion(client: String, files: [UInt8], time: Double) throws -> String
    /// The client's versions, the most recently compiled first, at most `limit`.
    func versions(client: String, limit: Int) throws -> [Version]
    /// Counts `bytes` against what `client` (an address) may share on `day` (UTC days since
    /// 1970): true when they fit under `limit` and are now counted, false when they do not
    /// (then nothing is counted). The client's earlier days are forgotten. One row per
    /// client and day, in the database the instances share, so the quota holds across them.
    func charge(client: String, bytes: Int, day: Int, limit: Int) throws -> Bool
}

/// One version in a client's history.
public struct Version: Sendable, Equatable {
    /// SHA-256 of the files (JSON), the key of their bytes in the content store.
    public var sha256: String
    public var firstCompiled: Double
    public var lastCompiled: Double
    public var bytes: Int

    public init(sha256: String, firstCompiled: Double, lastCompiled: Double, bytes: Int) {
        self.sha256 = sha256
        self.firstCompiled = firstCompiled
        self.lastCompiled = lastCompiled
        self.bytes = bytes
    }
}

/// Refusals a store makes before writing anything.
public struct StorageError: Error, CustomStringConvertible, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Limits on what one request may store (named settings of `kiln serve`).
public struct StorageLimits: Sendable {
    /// Largest state document (sources, arguments, settings), in bytes.
    public var maxStateBytes = 1 << 20
    /// Largest content image, in bytes.
    public var maxContentBytes = 16 << 20
    /// Most versions one client's history keeps (`--max-history-versions`): past it the
    /// least recently compiled go, with their files — a page compiling on every keystroke
    /// for days (or a script) cannot grow the database without bound.
    public var maxVersionsPerClient = 500
    public init() {}
}

/// Ids and hashes.
public enum ContentID {
    /// Lowercase hex SHA-256 of `bytes`.
    public static func sha256Hex(_ bytes: [UInt8]) -> String {
        sha256(bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// SHA-256 through OpenSSL's libcrypto (as the compiler's provenance does).
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        bytes.withUnsafeBufferPointer { input in kiln_sha256(input.baseAddress, input.count, &digest) }
        return digest
    }

    /// A share id: the first 128 bits of the SHA-256 of the state, in URL-safe base64
    /// (22 characters): long enough not to be guessed, short enough to paste.
    public static func shareID(_ bytes: [UInt8]) -> String {
        let digest = Array(sha256(bytes).prefix(16))
        return Data(digest).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Whether `id` could be a share id (22 URL-safe base64 characters): checked before any lookup.
    public static func isShareID(_ id: String) -> Bool {
        id.utf8.count == 22 && id.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
        }
    }

    /// Whether `id` could be a client id (16 to 64 URL-safe base64 characters).
    public static func isClientID(_ id: String) -> Bool {
        (16...64).contains(id.utf8.count) && id.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
        }
    }

    public static func isSHA256Hex(_ hash: String) -> Bool {
        hash.utf8.count == 64 && hash.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
