import Synchronization

/// The front end's work on a translation unit's leading header, kept for the next compile
/// that starts with the same header — what clang's precompiled headers do, made
/// automatically. A live-editing session recompiles the file being edited on every change
/// while its `#include "common.h"` stays the same; with the header's preprocessing, parsing
/// and checking kept, each compile does only the file's own part (`Frontend.check`).
///
/// An entry is the state of the preprocessor, the parser and the checker right after the
/// header, and it is reused only when that state cannot differ: the header is the first
/// thing in the main file (`Preprocessor.atLeadingHeader`), every file of the request but the
/// main one is the same bytes under the same names, and the search paths and limits are the
/// same (`Key`). A header with any diagnostic is never kept. The checker goes over the
/// header's declarations, both passes, before the main file's (C++ visibility: a body sees
/// only what is declared above it, so the main file cannot change how the header checks);
/// when a compile that used an entry reports a type error, `Frontend.check` checks the unit
/// again without it, so every diagnostic is exactly what a compile without the cache reports.
///
/// Bounded: at most `maxEntries` headers, the least recently used dropped first, and only
/// requests whose files other than the main one total at most `maxSourceBytes`.
///
/// It also keeps the digests of included files (`digest(of:computing:)`): the library's
/// provenance records every file's SHA-256, and an unchanged header need not be hashed on
/// every keystroke any more than it need be checked.
public final class HeaderCache: Sendable, Hashable {
    /// The cache every compile of the process uses unless told otherwise (`CompileOptions.headerCache`).
    public static let shared = HeaderCache()

    /// Headers kept at most.
    public static let maxEntries = 8
    /// Largest total size of a request's files other than the main one (the header, what it
    /// includes, and any other file of the request) for its header to be kept: an entry holds
    /// those files and the header's checked declarations.
    public static let maxSourceBytes = 64 << 10

    /// The entries, most recently used first, and how many lookups found one.
    private let state = Mutex<(entries: [Entry], hits: Int)>(([], 0))
    /// Included files' bytes and their digests, most recently used first: at most
    /// `maxEntries`, each of at most `maxSourceBytes`.
    private let digests = Mutex<[KeptDigest]>([])

    /// An included file's bytes and their digest. (A struct, not a tuple: an array of tuples
    /// looks the tuple's metadata up at run time.)
    struct KeptDigest: Sendable {
        let bytes: [UInt8]
        let digest: [UInt8]
    }

    public init() {}

    /// A cache is itself: two are equal when they are the same object.
    public static func == (lhs: HeaderCache, rhs: HeaderCache) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// What an entry is valid for: the main file's place and name (includes resolve against
    /// it), the leading header's file, every other file of the request, the search paths
    /// and the limits.
    struct Key: Sendable {
        let mainFile: Int
        let header: Int
        private(set) var files: [SourceFile]
        let searchPaths: [String]
        let limits: LanguageLimits

        /// Nil when the request is too large to keep (`maxSourceBytes`).
        init?(files: [SourceFile], mainFile: Int, header: Int, searchPaths: [String], limits: LanguageLimits) {
            // A main file that includes itself would be its own header, and its text is what a key leaves out.
            guard header != mainFile else { return nil }
            var bytes = 0
            for (index, file) in files.enumerated() where index != mainFile { bytes += file.bytes.count }
            guard bytes <= HeaderCache.maxSourceBytes else { return nil }
            self.mainFile = mainFile
            self.header = header
            self.files = files
            self.searchPaths = searchPaths
            self.limits = limits
        }

        /// This key without the main file's text, which it does not depend on: what an
        /// entry holds.
        func withoutMainText() -> Key {
            var key = self
            key.files[mainFile] = SourceFile(name: files[mainFile].name, text: "")
            return key
        }

        /// The same request but for the main file's text.
        func matches(_ other: Key) -> Bool {
            guard mainFile == other.mainFile, header == other.header, files.count == other.files.count,
                  searchPaths == other.searchPaths, limits == other.limits else { return false }
            // Every file's name (the main file's too: includes resolve against it), and every
            // file's bytes but the main file's.
            for index in files.indices {
                guard files[index].name == other.files[index].name,
                      index == mainFile || Self.sameBytes(files[index].bytes, other.files[index].bytes) else { return false }
            }
            return true
        }

        /// `a == b`, eight bytes at a time: a server's requests bring their headers in new
        /// arrays, compared whole on every compile (an array's `==` goes a byte at a time
        /// unless the two share storage).
        static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
            guard a.count == b.count else { return false }
            return a.withUnsafeBytes { a in
                b.withUnsafeBytes { b in
                    var index = 0
                    while index + 8 <= a.count {
                        if a.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                            != b.loadUnaligned(fromByteOffset: index, as: UInt64.self) { return false }
                        index += 8
                    }
                    while index < a.count {
                        if a[index] != b[index] { return false }
                        index += 1
                    }
                    return true
                }
            }
        }
    }

    /// The front end's state after a leading header.
    final class Entry: Sendable {
        let key: Key
        let preprocessor: Preprocessor.Resumption
        /// The parser's: how many top-level declarations the header has, and the type names
        /// it declared.
        let parser: Parser.Boundary
        /// The checker's after both passes over the header's declarations.
        let checker: Checker.Snapshot

        init(key: Key, preprocessor: Preprocessor.Resumption, parser: Parser.Boundary, checker: Checker.Snapshot) {
            self.key = key
            self.preprocessor = preprocessor
            self.parser = parser
            self.checker = checker
        }
    }

    /// The entry for `key`, now the most recently used; nil when there is none.
    func entry(for key: Key) -> Entry? {
        state.withLock { state in
            guard let index = state.entries.firstIndex(where: { $0.key.matches(key) }) else { return nil }
            let entry = state.entries.remove(at: index)
            state.entries.insert(entry, at: 0)
            state.hits += 1
            return entry
        }
    }

    /// Keeps `entry` (replacing one for the same key), dropping the least recently used
    /// beyond `maxEntries`.
    func store(_ entry: Entry) {
        state.withLock { state in
            state.entries.removeAll { $0.key.matches(entry.key) }
            state.entries.insert(entry, at: 0)
            if state.entries.count > HeaderCache.maxEntries {
                state.entries.removeLast(state.entries.count - HeaderCache.maxEntries)
            }
        }
    }

    /// The digest of an included file's `bytes`: `digest(bytes)` the first time, kept for the
    /// next compile with the same bytes. (The main file, which changes between compiles, is
    /// not asked for: the caller hashes it.) The bytes are compared whole, eight at a time —
    /// ~100 ns for `shaders/common.h`, where hashing it took ~1.5 µs.
    public func digest(of bytes: [UInt8], computing digest: ([UInt8]) -> [UInt8]) -> [UInt8] {
        guard bytes.count <= HeaderCache.maxSourceBytes else { return digest(bytes) }
        let kept = digests.withLock { digests -> [UInt8]? in
            guard let index = digests.firstIndex(where: { Key.sameBytes($0.bytes, bytes) }) else { return nil }
            let found = digests.remove(at: index)
            digests.insert(found, at: 0)
            return found.digest
        }
        if let kept { return kept }
        let computed = digest(bytes)
        digests.withLock { digests in
            digests.insert(KeptDigest(bytes: bytes, digest: computed), at: 0)
            if digests.count > HeaderCache.maxEntries { digests.removeLast(digests.count - HeaderCache.maxEntries) }
        }
        return computed
    }

    /// Headers kept now.
    public var count: Int { state.withLock { $0.entries.count } }

    /// Compiles so far that found their leading header here.
    public var hits: Int { state.withLock { $0.hits } }

    /// Forgets every header and digest.
    public func removeAll() {
        state.withLock { $0.entries.removeAll() }
        digests.withLock { $0.removeAll() }
    }
}
