/// A source file given to the compiler, with a line table for diagnostics.
public struct SourceFile: Hashable, Sendable {
    /// The name as the user gave it (`wave.metal`, `helpers.h`); `#include "name"` matches it.
    public let name: String
    public let text: String
    /// UTF-8 bytes of `text`; offsets in `SourceLocation` index these.
    public let bytes: [UInt8]
    /// Byte offset at which each line starts (line 1 at index 0).
    public let lineStarts: [Int]

    public init(name: String, text: String) {
        self.name = name
        self.text = text
        self.bytes = Array(text.utf8)
        var starts = [0]
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            starts.append(offset + 1)
        }
        self.lineStarts = starts
    }

    /// 1-based line and column (in bytes) of a byte offset.
    public func lineAndColumn(ofOffset offset: Int) -> (line: Int, column: Int) {
        var low = 0, high = lineStarts.count
        while low < high {
            let mid = (low + high) / 2
            if lineStarts[mid] <= offset { low = mid + 1 } else { high = mid }
        }
        let line = max(low, 1)
        return (line, offset - lineStarts[line - 1] + 1)
    }

    /// The text of 1-based line `line`, without its newline.
    public func lineText(_ line: Int) -> String {
        guard line >= 1, line <= lineStarts.count else { return "" }
        let start = lineStarts[line - 1]
        var end = line < lineStarts.count ? lineStarts[line] - 1 : bytes.count
        if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return String(decoding: bytes[start..<max(start, end)], as: UTF8.self)
    }
}

/// A position in one of the compile request's files.
public struct SourceLocation: Hashable, Sendable, Comparable, BitwiseCopyable {
    // Stored in 32 bits, read as `Int`: a location is 16 bytes instead of 32, and every
    // token, syntax node, typed expression and diagnostic carries ranges of two of them
    // (docs/benchmarks.md, "thirty-fifth session"). `LanguageLimits.maxSourceBytes` is
    // capped below 2³¹ for this.
    private var storedFile: Int32
    private var storedOffset: Int32
    private var storedLine: Int32
    private var storedColumn: Int32

    /// Index of the file in the compile request.
    public var file: Int {
        @inline(__always) get { Int(storedFile) }
        set { storedFile = Int32(truncatingIfNeeded: newValue) }
    }
    /// Byte offset into the file.
    public var offset: Int {
        @inline(__always) get { Int(storedOffset) }
        set { storedOffset = Int32(truncatingIfNeeded: newValue) }
    }
    /// 1-based line.
    public var line: Int {
        @inline(__always) get { Int(storedLine) }
        set { storedLine = Int32(truncatingIfNeeded: newValue) }
    }
    /// 1-based column, counted in bytes as clang does.
    public var column: Int {
        @inline(__always) get { Int(storedColumn) }
        set { storedColumn = Int32(truncatingIfNeeded: newValue) }
    }

    public init(file: Int, offset: Int, line: Int, column: Int) {
        storedFile = Int32(truncatingIfNeeded: file)
        storedOffset = Int32(truncatingIfNeeded: offset)
        storedLine = Int32(truncatingIfNeeded: line)
        storedColumn = Int32(truncatingIfNeeded: column)
    }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.storedFile, lhs.storedOffset) < (rhs.storedFile, rhs.storedOffset)
    }
}

/// A half-open range of source text (`end` is just past the last byte).
public struct SourceRange: Hashable, Sendable, BitwiseCopyable {
    public var start: SourceLocation
    public var end: SourceLocation

    public init(start: SourceLocation, end: SourceLocation) {
        self.start = start
        self.end = end
    }

    /// An empty range at `location`.
    public init(at location: SourceLocation) {
        self.init(start: location, end: location)
    }

    /// The smallest range covering both.
    public func union(_ other: SourceRange) -> SourceRange {
        SourceRange(start: min(start, other.start), end: max(end, other.end))
    }
}
