import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage
import KilnVM

/// A compiled request, ready to send: the result, the encoded library and its summary.
public final class CompiledShader: @unchecked Sendable {
    public let result: CompileResult
    /// The encoded library, nil when the compile failed.
    public let libraryBytes: [UInt8]?
    /// The cache key: SHA-256 over the request's file names and texts.
    public let key: [UInt8]
    /// The library's functions as the VM runs them, prepared by the first frame that draws
    /// each and kept for every later frame (of any session sharing this shader).
    public let preparedFunctions: PreparedFunctionCache?

    init(result: CompileResult, key: [UInt8]) {
        self.result = result
        self.libraryBytes = result.library.map(LibraryWriter.encode)
        self.key = key
        self.preparedFunctions = result.library.map(PreparedFunctionCache.init)
    }

    public var succeeded: Bool { result.library != nil }
}

/// Compiled libraries cached by the SHA-256 of their sources, least-recently-used out.
/// Concurrent requests for the same sources wait for one compile instead of repeating it.
public final class CompileCache: @unchecked Sendable {
    private let condition = NSCondition()
    private var entries: [[UInt8]: CompiledShader] = [:]
    private var order: [[UInt8]] = []
    private var pending: Set<[UInt8]> = []
    private let capacity: Int
    private let options: CompileOptions

    public init(capacity: Int, options: CompileOptions = .init()) {
        self.capacity = max(1, capacity)
        self.options = options
    }

    /// The cached or freshly compiled shader for `files` (with `#include` search paths), and
    /// whether it was a cache hit.
    public func compile(_ files: [SourceFile], searchPaths: [String] = []) -> (shader: CompiledShader, hit: Bool) {
        let key = Self.key(for: files, searchPaths: searchPaths)
        condition.lock()
        while pending.contains(key) { condition.wait() }
        if let hit = entries[key] {
            touch(key)
            condition.unlock()
            return (hit, true)
        }
        pending.insert(key)
        condition.unlock()

        var options = options
        options.includeSearchPaths = searchPaths
        let shader = CompiledShader(result: Compiler.compile(files, options: options), key: key)

        condition.lock()
        pending.remove(key)
        insert(shader, key: key)
        condition.broadcast()
        condition.unlock()
        return (shader, false)
    }

    /// Whether `key` is cached or being compiled (call with `condition` locked).
    private func isKnown(_ key: [UInt8]) -> Bool { entries[key] != nil || pending.contains(key) }

    /// Keeps `shader` under `key`, least-recently-used out (call with `condition` locked).
    private func insert(_ shader: CompiledShader, key: [UInt8]) {
        entries[key] = shader
        touch(key)
        while order.count > capacity { entries[order.removeFirst()] = nil }
    }

    /// `files` compiled without unrolling loops — the quick tier of an edit's first pixels
    /// (docs/server.md, "Two compile tiers"): unrolling is about half of compiling shader
    /// art, and the rolled library draws the same pixels, only slower. `final` is true when
    /// no loop would have been unrolled (`CompileResult.loopsLeftForUnrolling` is 0): then
    /// this is the full compile's library, bit for bit, and it is cached as such. The same
    /// holds for a compile that fails: with no loop left, the full compile takes the same
    /// path to the same diagnostics — so a typo (the front end stops before any loop is
    /// lowered) costs one compile, not two. Nil when `files` are cached or being compiled
    /// already: `compile` answers them without compiling.
    public func compileQuickly(_ files: [SourceFile], searchPaths: [String] = []) -> (shader: CompiledShader, final: Bool)? {
        let key = Self.key(for: files, searchPaths: searchPaths)
        condition.lock()
        let known = isKnown(key)
        condition.unlock()
        guard !known else { return nil }
        var options = options
        options.includeSearchPaths = searchPaths
        options.unrollsLoops = false
        let result = Compiler.compile(files, options: options)
        let shader = CompiledShader(result: result, key: key)
        let final = result.loopsLeftForUnrolling == 0
        // `compile` would make this very library: unless it got there first, keep it as the
        // cache's entry.
        if final {
            condition.lock()
            if !isKnown(key) { insert(shader, key: key) }
            condition.unlock()
        }
        return (shader, final)
    }

    public var count: Int {
        condition.lock(); defer { condition.unlock() }
        return entries.count
    }

    private func touch(_ key: [UInt8]) {
        if let index = order.firstIndex(of: key) { order.remove(at: index) }
        order.append(key)
    }

    /// SHA-256 over every file's name and text and the search paths, length-prefixed so
    /// that boundaries count.
    static func key(for files: [SourceFile], searchPaths: [String] = []) -> [UInt8] {
        var bytes: [UInt8] = []
        // A marker between files and search paths keeps the two lists from running together.
        let parts = files.flatMap { [Array($0.name.utf8), $0.bytes] } + [[0xFF]] + searchPaths.map { Array($0.utf8) }
        for part in parts {
            withUnsafeBytes(of: UInt64(part.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: part)
        }
        return SHA256Digest.hash(bytes)
    }
}
