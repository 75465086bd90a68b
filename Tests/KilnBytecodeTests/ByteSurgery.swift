@testable import KilnBytecode

/// Helpers to locate and patch parts of an encoded library, for tests that corrupt
/// specific fields.
struct ByteSurgery {
    var bytes: [UInt8]

    init(_ library: Library) { bytes = LibraryWriter.encode(library) }

    func u32(at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << UInt32(8 * $1) }
    }

    mutating func setU32(_ value: UInt32, at offset: Int) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> UInt32(8 * i)) }
    }

    mutating func setU16(_ value: UInt16, at offset: Int) {
        bytes[offset] = UInt8(truncatingIfNeeded: value)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
    }

    var sectionCount: Int { Int(u32(at: 16)) }

    /// Offset of the section table entry of `section`.
    func entry(_ section: LibraryFormat.Section) -> Int {
        for index in 0..<sectionCount {
            let entry = LibraryFormat.headerByteCount + index * LibraryFormat.sectionEntryByteCount
            if u32(at: entry) == section.rawValue { return entry }
        }
        fatalError("no section \(section.name)")
    }

    /// Byte offset where `section`'s content starts.
    func start(_ section: LibraryFormat.Section) -> Int { Int(u32(at: entry(section) + 4)) }

    /// Appends a section with `id` and `content` to the file and the table (the table
    /// grows by one entry, so every existing offset moves by 12 bytes).
    mutating func addSection(id: UInt32, content: [UInt8]) {
        let count = sectionCount
        let tableEnd = LibraryFormat.headerByteCount + count * LibraryFormat.sectionEntryByteCount
        for index in 0..<count {
            let entry = LibraryFormat.headerByteCount + index * LibraryFormat.sectionEntryByteCount
            setU32(u32(at: entry + 4) + UInt32(LibraryFormat.sectionEntryByteCount), at: entry + 4)
        }
        var newEntry: [UInt8] = []
        for value in [id, 0, UInt32(content.count)] {
            for i in 0..<4 { newEntry.append(UInt8(truncatingIfNeeded: value >> UInt32(8 * i))) }
        }
        bytes.insert(contentsOf: newEntry, at: tableEnd)
        setU32(UInt32(count + 1), at: 16)
        while bytes.count % 4 != 0 { bytes.append(0) }
        setU32(UInt32(bytes.count), at: tableEnd + 4)
        bytes += content
    }
}
